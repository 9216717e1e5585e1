"""What notifications cost: how soon a "your turn" push leaves the server, and what an e-mail
costs to send.

    python -m bench.notify [--players 1000] [--rate 200] [--emails 200]

Pushes: ``--players`` players each have one device subscribed (SQLite, migrated); the push
service is bench/push_service.py in a process of its own, checking each push's VAPID
signature and decrypting it with the device's keys (RFC 8291) as a browser does, and timing its
arrival against the moment the producer called ``notifier.send`` (the payload's ``at``). One
"your turn" per player is sent at ``--rate`` a second (a steady stream of commits), then all of
them at once (a burst); printed: p50 / p90 / p99 / max latency and the server's CPU per push.
The presence check (has the player a socket on the table?) runs on Redis when one answers at
127.0.0.1:6379, on the in-process stand-in otherwise.

E-mails: ``--emails`` notification e-mails composed and sent through an in-process SMTP server
(aiosmtpd, no TLS), one at a time on one thread: ms of wall time and of CPU per e-mail.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import tempfile
import time
import uuid
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.ports import free_port


def _serve(conn: Connection, devices: int) -> None:
    """The push service's process: make devices, send their subscriptions, then time pushes
    until told to stop; send back the latencies (ms) and any refusal."""
    from bench.push_service import PushService

    async def run() -> None:
        async with PushService() as service:
            conn.send([service.device().subscription() for _ in range(devices)])
            while not conn.poll():
                await asyncio.sleep(0.05)
            conn.recv()
            latencies = [r.at * 1000 - float(r.payload["at"]) for r in service.received]
            conn.send((latencies, service.refused[:5]))

    asyncio.run(run())


def _percentiles(values: list[float]) -> str:
    if not values:
        return "none arrived"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return (
        f"p50 {at(0.5):7.1f} ms  p90 {at(0.9):7.1f} ms  p99 {at(0.99):7.1f} ms  "
        f"max {ordered[-1]:7.1f} ms"
    )


def _players(database: Any, subscriptions: list[dict[str, Any]]) -> list[str]:
    from app.db.models import Player, PushSubscription

    ids = []
    with database.session() as session:
        for i, sub in enumerate(subscriptions):
            player_id = uuid.uuid4().hex
            ids.append(player_id)
            session.add(Player(id=player_id, name=f"p{i}", is_guest=True))
            session.add(
                PushSubscription(
                    player_id=player_id,
                    endpoint=sub["endpoint"],
                    p256dh=sub["keys"]["p256dh"],
                    auth=sub["keys"]["auth"],
                )
            )
        session.commit()
    return ids


async def _presence() -> tuple[Any, str]:
    from app.store import make_redis
    from app.store.sockets import SocketCounts

    for url in ("redis://127.0.0.1:6379/15", "memory://"):
        redis = make_redis(url)
        try:
            await redis.ping()
        except Exception:
            continue
        return SocketCounts(redis, "bench", 60_000), url
    raise RuntimeError("no Redis")


async def pushes(players: int, rate: float) -> None:
    from app.db import make_database, upgrade_to_head
    from app.notify.setup import build
    from app.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="bench-notify-"))
    url = f"sqlite:///{folder / 'notify.sqlite3'}"
    upgrade_to_head(url)
    database = make_database(url)
    for phase, burst in (("steady", False), ("burst", True)):
        parent, child = multiprocessing.Pipe()
        peer = multiprocessing.get_context("spawn").Process(target=_serve, args=(child, players))
        peer.start()
        ids = _players(database, parent.recv())
        sockets, redis_url = await _presence()
        settings = Settings(
            secret_key="bench-secret-key-0123456789",
            database_url=url,
            push_private_endpoints=True,  # the push service is on this machine
        )
        notifier = build(settings, database, sockets=sockets, clock=lambda: time.time() * 1000)
        notifier.push.signer()  # the VAPID key made before the clock starts
        await notifier.start()
        cpu, wall = time.process_time(), time.perf_counter()
        for i, player_id in enumerate(ids):
            await notifier.send(player_id, "your_turn", table_id=f"bench-{i}")
            if not burst:
                await asyncio.sleep(max(0.0, wall + (i + 1) / rate - time.perf_counter()))
        await notifier.drain()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        await notifier.stop()
        parent.send("stop")
        latencies, refused = parent.recv()
        peer.join(10)
        what = f"{rate:g}/s" if not burst else "all at once"
        print(
            f"pushes, {phase} ({len(ids)} players, {what}, presence on {redis_url}): "
            f"{len(latencies)} arrived; {_percentiles(latencies)}; "
            f"server CPU {cpu / len(ids) * 1000:.2f} ms/push, wall {wall:.1f} s"
        )
        if refused:
            print("  refused by the push service:", refused)
        await sockets.redis.aclose()
    database.dispose()


def emails(count: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from aiosmtpd.controller import Controller

    from app.notify.mail import Links, MailChannel, Mailer, SmtpConfig
    from app.notify.service import Notice
    from app.notify.store import Address

    class Sink:
        got = 0

        async def handle_DATA(self, _s: Any, _session: Any, _envelope: Any) -> str:  # noqa: N802
            Sink.got += 1
            return "250 OK"

    port = free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    executor = ThreadPoolExecutor(1)
    try:
        mailer = Mailer(SmtpConfig(host="127.0.0.1", port=port, tls="none"), executor)
        channel = MailChannel(None, mailer, Links(lambda: "https://hearts.example", "k" * 32))  # type: ignore[arg-type]
        address = Address("p", "Ann", "ann@example.org", True)
        compose_cpu, send_wall, send_cpu = [], [], []
        for i in range(count):
            cpu = time.thread_time()
            message = channel.compose(Notice("p", "your_turn", f"T{i}"), address)
            compose_cpu.append(time.thread_time() - cpu)
            wall, cpu = time.perf_counter(), time.thread_time()
            mailer.send(message)
            send_wall.append(time.perf_counter() - wall)
            send_cpu.append(time.thread_time() - cpu)
        print(
            f"e-mails ({count}, SMTP in process, no TLS, a new connection each): compose "
            f"{statistics.median(compose_cpu) * 1000:.2f} ms CPU; send "
            f"{statistics.median(send_wall) * 1000:.2f} ms wall (p99 "
            f"{sorted(send_wall)[int(0.99 * count)] * 1000:.1f}), "
            f"{statistics.median(send_cpu) * 1000:.2f} ms CPU of the sending thread; "
            f"{Sink.got} taken by the server"
        )
    finally:
        controller.stop()
        executor.shutdown()


# argparse options, as every bench script declares its own.
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--emails", type=int, default=200)
    args = parser.parse_args()
    import logging

    logging.basicConfig(level=logging.WARNING)
    asyncio.run(pushes(args.players, args.rate))
    emails(args.emails)


if __name__ == "__main__":
    main()
