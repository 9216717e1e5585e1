"""The move path's CPU in one process: service, store, pub/sub and hubs, with stand-in sockets.

    python -m bench.hubs                      # 1 then 2 instances, 50 tables, best of 3
    python -m bench.hubs --instances 2 --tables 100 --repeat 5

Runs one or more server instances (``start_services``) in this process on the local Redis and
plays whole one-hand games at T tables of 4 players + 2 spectators, every player moving as
soon as its view offers a move, through the real endpoint dispatch, service, store and hubs.
The sockets are stand-ins that take a message at once (no WebSocket framing, no system call),
so the CPU per move it prints is that of the server's own code on the move path, steadier
than bench.load's (which shares the machine with its load generator): use it to compare two
versions of that code. Timings belong here, not in the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import tempfile
import time
import uuid
from typing import Any

import orjson
import redis

from app.main import start_services, stop_services
from app.realtime import messages as m
from app.realtime.hub import Connection, TableHub
from app.realtime.table_commands import dispatch
from app.services import Services
from app.settings import Settings
from app.store import keys
from app.tables import Actor
from bench.load_client import random_move

PLAYERS = [Actor(f"bench-p{i}", f"Bench{i}") for i in range(4)]


# Bytes of the tables' change notices the hubs received (every instance), for the pub/sub
# bytes per move: counted where each notice arrives, before it is parsed.
NOTICE_BYTES = [0]


def _counting(on_message: Any) -> Any:
    def counted(hub: TableHub, channel: str, data: bytes) -> None:
        NOTICE_BYTES[0] += len(data)
        on_message(hub, channel, data)

    return counted


TableHub.on_message = _counting(TableHub.on_message)  # type: ignore[method-assign]


async def run(instances: int, tables: int, redis_url: str) -> tuple[int, float, float, int]:
    """Moves played, CPU seconds and wall seconds of the play (set-up left out), and the
    bytes of change notices the hubs received meanwhile."""
    namespace = "benchhubs" + uuid.uuid4().hex[:8]
    folder = tempfile.mkdtemp(prefix="hearts-bench-")
    services: list[Services] = []
    for i in range(instances):
        settings = Settings(
            redis_url=redis_url,
            redis_namespace=namespace,
            database_url=f"sqlite:///{folder}/bench.sqlite3",
            secret_key="bench-secret-key-0123456789",
            instance_id=f"bench{i}",
            run_outbox_worker=False,
            migrate_on_start=i == 0,
            turn_timer_seconds=0,
            hand_pause_ms=0,
            bot_workers=0,
            log_level="warning",
            max_tables_per_host=0,  # one bench player hosts every table
            max_tables_per_address=0,
        )
        services.append(await start_services(settings))
    todo: asyncio.Queue[tuple[Services, str, int, dict[str, Any]]] = asyncio.Queue()
    rng = random.Random(1)
    ids: list[str] = []
    try:
        for t in range(tables):
            table = await services[0].tables.create(
                PLAYERS[0], "classic", {"end": "hands", "hands": 1}, turn_timer=0
            )
            ids.append(table.id)
            for seat in (1, 2, 3):
                await services[0].tables.sit(table.id, PLAYERS[seat], seat)
            for i in range(6):  # the sockets of a table spread over the instances
                service = services[(t + i) % instances]
                seat_no = i if i < 4 else None
                key = PLAYERS[i].player_id if i < 4 else f"anon:{t}:{i}"
                conn = Connection(
                    _socket(service, table.id, seat_no, todo),
                    key,
                    key if seat_no is not None else None,
                    compact=True,
                )
                conn.start()
                await service.hubs.join(table.id, conn, None)
                await service.tables.attach(table.id, key)
        await asyncio.sleep(0.3)
        moves = 0

        async def player() -> None:
            nonlocal moves
            while True:
                service, table_id, seat, legal = await todo.get()
                moves += 1
                raw = orjson.dumps(
                    {"type": "move", "id": f"m{moves}", "move": random_move(legal, rng)}
                )
                actor = PLAYERS[seat]
                ack = Connection(_ignore, actor.player_id, actor.player_id)
                msg = m.parse_client(raw, 4096)
                asyncio.get_running_loop().create_task(dispatch(service, table_id, ack, actor, msg))

        players = [asyncio.create_task(player()) for _ in range(50)]
        gc.collect()
        cpu, wall = time.process_time(), time.perf_counter()
        notice_bytes = NOTICE_BYTES[0]
        for table_id in ids:
            await services[0].tables.start(table_id, PLAYERS[0])
        while True:
            await asyncio.sleep(0.1)
            states = [await services[0].tables.read(t) for t in ids]
            if all(table.status == "over" for table, _ in states) and todo.empty():
                break
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        for task in players:
            task.cancel()
        return moves, cpu, wall, NOTICE_BYTES[0] - notice_bytes
    finally:
        for service in services:
            await stop_services(service)
        client = redis.Redis.from_url(redis_url)
        for key in (*keys.shard_keys(namespace), keys.database_key(namespace)):
            client.delete(key)
        client.close()


def _socket(
    service: Services,
    table_id: str,
    seat: int | None,
    todo: asyncio.Queue[tuple[Services, str, int, dict[str, Any]]],
) -> Any:
    """A stand-in socket: takes every message at once; a player's queues its next move."""
    acted = -1

    async def send_text(text: str) -> None:
        nonlocal acted
        if seat is None or '"legal":{' not in text:
            return
        msg = orjson.loads(text)
        if msg["version"] > acted:
            acted = msg["version"]
            todo.put_nowait((service, table_id, seat, msg["view"]["legal"]))

    return send_text


async def _ignore(_text: str) -> None:
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--instances", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the lowest CPU is printed")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    import uvloop

    for count in args.instances:
        best: tuple[int, float, float, int] | None = None
        for _ in range(args.repeat):
            result = uvloop.run(run(count, args.tables, args.redis_url))
            if best is None or result[1] / result[0] < best[1] / best[0]:
                best = result
        assert best is not None
        moves, cpu, wall, notices = best
        print(
            f"instances={count} tables={args.tables} moves={moves}: server code CPU"
            f" {cpu / moves * 1e6:.0f} us/move (best of {args.repeat}; {wall:.1f} s),"
            f" table notices received {notices / moves:.0f} B/move",
            flush=True,
        )


if __name__ == "__main__":
    main()
