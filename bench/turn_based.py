"""What an idle turn-based table costs Redis before and after page-out, what a page-in and
the SQL copy of each move cost, and what My games costs to read.

    python -m bench.turn_based                 # 200 tables, local Redis, a SQLite file
    python -m bench.turn_based --tables 500 --moves 20 --database postgresql+psycopg://...

Creates T turn-based tables of four players (one day a move) through the table service on
the local Redis (a fresh namespace, removed afterwards) with SQL copies (app.tables.durable;
a fresh SQLite file unless --database names a migrated database), plays M moves at each (the
clock is the service's, driven here), then measures with MEMORY USAGE the bytes Redis holds
per idle table (its state, version, move list and event log), pages every table out (the due
work after HEARTS_TURN_BASED_PAGE_OUT_SECONDS) and measures them again, then pages each back
in by a read, counting the SQL reads. Also: a move's time with and without the SQL copy (the
copy is written before the move is answered), the bytes of one player's My games index, and
the time of one My games read (tables out of Redis are read from SQL there, not paged in).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import redis.asyncio as aioredis

from app import engine
from app.db import make_database, upgrade_to_head
from app.db.copies import SqlCopies
from app.settings import Settings
from app.store import TableStore, keys
from app.store.codec import decode_state
from app.tables import Actor, TableService
from app.tables.durable import Durable
from app.tables.pace import check_pace


class Clock:
    def __init__(self) -> None:
        self.ms = time.time() * 1000

    def __call__(self) -> float:
        return self.ms


async def run(tables: int, moves: int, url: str, database_url: str | None) -> None:
    folder = tempfile.TemporaryDirectory()
    if database_url is None:
        database_url = f"sqlite:///{Path(folder.name) / 'bench.sqlite3'}"
        upgrade_to_head(database_url)
    database = make_database(database_url)
    copies = SqlCopies(database)
    client = aioredis.Redis.from_url(url)
    namespace = "bench-tb-" + uuid.uuid4().hex[:8]
    clock = Clock()
    settings = Settings(
        bot_delay_min_ms=0, bot_delay_max_ms=0, hand_pause_ms=0, turn_based_games_max=0
    )
    service = TableService(
        TableStore(client, namespace=namespace),
        settings,
        instance_id="bench",
        clock=clock,
        rng=random.Random(29),
    )
    service.durable = Durable(service.store, settings, copies)
    players = [Actor(f"tb-{i}", f"P{i}") for i in range(4)]
    ids: list[str] = []
    move_s: dict[bool, list[float]] = {True: [], False: []}
    try:
        for n in range(tables):
            # Every other table without the SQL copy: a move's cost with and without it.
            copied = n % 2 == 0
            service.durable = Durable(service.store, settings, copies) if copied else None
            host = Actor(f"tb-host-{n}", f"H{n}")  # one creator each: no per-host limit
            table = await service.create(
                host, "classic", pace=check_pace("turn", 86400), private=True
            )
            await service.leave(table.id, host)
            for seat, actor in enumerate(players):
                await service.sit(table.id, actor, seat)
            await service.start(table.id, players[0])
            for k in range(moves):
                t, state = await service.read(table.id)
                assert state is not None
                seat = engine.seats_to_act(state)[0]
                move = engine.move_to_json(engine.legal_moves(state, seat)[0])
                clock.ms += 1_000  # all tables' clocks (a day a move) still run at the end
                started = time.perf_counter()
                await service.move(table.id, players[seat], f"m{n}-{k}", move)
                move_s[copied].append(time.perf_counter() - started)
            ids.append(table.id)
        durable = service.durable = Durable(service.store, settings, copies)
        for table_id in ids[1::2]:  # those played without copies get theirs now
            table, _state = await service.read(table_id)
            blob = await client.get(keys.state_key(table_id))
            assert isinstance(blob, bytes)
            await durable.save(table, decode_state(blob))
        used = [await service.store.memory_usage(t) for t in ids]
        index_key = keys.games_key(namespace, players[0].player_id)
        index = int(await client.memory_usage(index_key) or 0)
        indexed = int(await client.zcard(index_key))
        reads = []
        for _ in range(5):
            started = time.perf_counter()
            mine = await service.my_games(players[0].player_id)
            reads.append(time.perf_counter() - started)
        print(f"tables={tables} moves_each={moves} redis={url}")
        print(
            f"redis_bytes_per_idle_turn_based_table: mean={statistics.mean(used):.0f} "
            f"median={statistics.median(used):.0f} max={max(used)}"
        )
        print(f"my_games_index_bytes (a player who sat at {indexed} tables): {index}")
        print(
            f"my_games_read_ms ({len(mine['games'])} tables read, at most MAX_LISTED): "
            f"median={1000 * statistics.median(reads):.1f} min={1000 * min(reads):.1f}"
        )
        for copied, label in ((False, "without"), (True, "with")):
            ms = sorted(1000 * x for x in move_s[copied])
            print(
                f"move_ms {label} the SQL copy: median={statistics.median(ms):.2f} "
                f"p95={ms[int(0.95 * (len(ms) - 1))]:.2f} (n={len(ms)})"
            )
        # Page-out: the due work once the tables have been idle long enough.
        clock.ms += settings.turn_based_page_out_seconds * 1000
        for table_id in ids:
            await service.store.make_due_now([table_id], clock.ms)
        for _ in range(10):
            claimed = await service.store.claim_due(clock.ms, 60_000, 1000)
            if not claimed:
                break
            for table_id in claimed:
                await service.run_due(table_id)
        out = [await service.store.memory_usage(t) for t in ids]
        paged = len(ids) - int(await client.exists(*(keys.state_key(t) for t in ids)))
        print(
            f"redis_bytes_per_paged_out_table: mean={statistics.mean(out):.0f} "
            f"max={max(out)} ({paged} of {len(ids)} paged out; the version key is left)"
        )
        reads = []
        for _ in range(5):
            started = time.perf_counter()
            mine = await service.my_games(players[0].player_id)
            reads.append(time.perf_counter() - started)
        print(
            f"my_games_read_ms, tables paged out ({len(mine['games'])} read from SQL): "
            f"median={1000 * statistics.median(reads):.1f}"
        )
        before = copies.reads
        page_in = []
        for table_id in ids:
            service.forget(table_id)
            started = time.perf_counter()
            await service.read(table_id)
            page_in.append(time.perf_counter() - started)
        print(
            f"page_in: sql_reads_per_page_in={(copies.reads - before) / len(ids):.2f} "
            f"median_ms={1000 * statistics.median(page_in):.2f} (a read of a paged-out table)"
        )
    finally:
        cursor = 0
        while True:
            cursor, found = await client.scan(cursor, match=f"*{namespace}*", count=1000)
            if found:
                await client.delete(*found)
            if cursor == 0:
                break
        for table_id in ids:
            await client.delete(*keys.table_keys(table_id))
        await client.aclose()
        database.dispose()
        folder.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--database", default=None, help="a migrated database (else SQLite)")
    args = parser.parse_args()
    asyncio.run(run(args.tables, args.moves, args.redis, args.database))


if __name__ == "__main__":
    main()
