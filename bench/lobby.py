"""What one lobby read costs, with 100 and with 10,000 public tables.

    python -m bench.lobby                              # the in-process Redis stand-in
    python -m bench.lobby --redis redis://127.0.0.1:6379/0
    python -m bench.lobby --sizes 100,10000 --reads 300

For each size a server process (``python -m bench.lobby --serve``: the real app under uvicorn)
fills its Redis with that many public tables, each through the table commit script with a
lobby line made by ``Table.lobby_json`` (4 seats: a person, a computer and open seats), then
serves. This process then reads the lobby as a client would and prints, for the HTTP page
(``GET /api/tables``) and the first ``/ws/lobby`` message: bytes, latency p50/p99, and the
server's CPU per read (its process CPU time over the reads, less its idle rate; Linux
``/proc``). Last, 10 clients read the lobby over HTTP as fast as they can while ``/healthz``
is timed every 50 ms. With a real Redis the tables live in a namespace of their own, removed
at the end. Timings belong here, not in the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

import httpx
import orjson
import websockets

from bench.ports import free_port

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
NAMES = ["Alice", "Bob", "Chandra", "Dmitri", "Eun-ji", "Farah", "Gustavo", "Hiroshi"]
PRESETS = ["classic", "classic", "classic-3", "omnibus", "double-hearts", "two-player-dummy"]


# -- the server side (a child process) --------------------------------------------------------


async def fill(store: Any, tables: int, prefix: str) -> int:
    """``tables`` public tables, committed as the table service would; the lobby's bytes."""
    from app import engine
    from app.tables.model import Seat, Table

    now = time.time() * 1000
    ttl = 3600
    total = 0
    for i in range(tables):
        rules = engine.make_rules(PRESETS[i % len(PRESETS)], {})
        seats = [Seat() for _ in range(rules.players)]
        seats[0] = Seat(kind="human", player_id=f"{prefix}p{i}", name=NAMES[i % len(NAMES)])
        if rules.players > 2 and i % 3:
            seats[1] = Seat(kind="bot", level="standard")
        table = Table(
            id=f"{prefix}x{i:05d}",
            preset=PRESETS[i % len(PRESETS)],
            options=rules.to_options(),
            players=rules.players,
            private=False,
            invite=None,
            host=f"{prefix}p{i}",
            seats=seats,
            turn_timer=30,
            created_ms=now - (tables - i) * 1000,
            updated_ms=now,
        )
        line = orjson.dumps(table.lobby_json(now + ttl * 1000))
        total += len(line)
        result = await store.commit(
            table.id,
            expected_version=0,
            blob=orjson.dumps(table.to_json()),
            message=b'{"v":1,"s":1,"events":[]}',
            ttl_seconds=ttl,
            lobby_summary=line,
        )
        assert result.ok, table.id
    return total


def serve(args: argparse.Namespace) -> None:
    import fakeredis
    import uvicorn

    from app.__main__ import tune_gc
    from app.main import create_app
    from app.settings import Settings
    from app.store import TableStore, make_redis

    folder = tempfile.mkdtemp(prefix="hearts-bench-lobby-")
    settings = Settings(
        redis_url=args.redis or "memory://",
        redis_namespace=args.namespace,
        database_url=f"sqlite:///{folder}/bench.sqlite3",
        secret_key="bench-lobby-secret-0123456789",
        run_outbox_worker=False,
        bot_workers=0,
        port=args.port,
        log_level="warning",
    )
    fake = fakeredis.FakeServer() if settings.uses_memory_redis else None

    async def setup() -> int:
        client = make_redis(settings.redis_url, fake_server=fake)
        store = TableStore(client, namespace=args.namespace)
        total = await fill(store, args.serve, args.namespace)
        await client.aclose()
        return total

    lobby_bytes = asyncio.run(setup())
    print(f"filled {args.serve} {lobby_bytes}", flush=True)
    app = create_app(settings, fake_redis_server=fake)
    tune_gc()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", ws="websockets-sansio")


# -- the client side --------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(address: str, pid: int, reads: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as http:
        for _ in range(20):  # warm up (the first read loads the index)
            await http.get("/api/tables")
        # The server's idle CPU rate (due loop, pub/sub), to take off the reads' CPU.
        c0, t0 = cpu_seconds(pid), time.perf_counter()
        await asyncio.sleep(1.0)
        idle_rate = (cpu_seconds(pid) - c0) / (time.perf_counter() - t0)

        lat: list[float] = []
        size = 0
        c0, t0 = cpu_seconds(pid), time.perf_counter()
        for _ in range(reads):
            s = time.perf_counter()
            r = await http.get("/api/tables")
            lat.append(time.perf_counter() - s)
            size = len(r.content)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(pid) - c0 - idle_rate * wall
        out["http"] = (size, pct(lat, 0.5), pct(lat, 0.99), cpu / reads, r.json()["total"])

        lat = []
        c0, t0 = cpu_seconds(pid), time.perf_counter()
        for _ in range(reads):
            s = time.perf_counter()
            async with websockets.connect(f"ws://{address}/ws/lobby", max_size=2**24) as ws:
                first = await ws.recv()
                lat.append(time.perf_counter() - s)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(pid) - c0 - idle_rate * wall
        out["ws"] = (len(first), pct(lat, 0.5), pct(lat, 0.99), cpu / reads)

        # /healthz while 10 clients read the lobby as fast as they can.
        stop = asyncio.Event()

        async def reader() -> int:
            n = 0
            async with httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as own:
                while not stop.is_set():
                    await own.get("/api/tables")
                    n += 1
            return n

        tasks = [asyncio.create_task(reader()) for _ in range(10)]
        health: list[float] = []
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 3.0:
            s = time.perf_counter()
            await http.get("/healthz")
            health.append(time.perf_counter() - s)
            await asyncio.sleep(0.05)
        stop.set()
        done = sum(await asyncio.gather(*tasks))
        out["healthz"] = (pct(health, 0.5), pct(health, 0.99), max(health), done / 3.0)
    return out


def run_size(tables: int, args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    port = free_port()
    namespace = "benchlobby" + uuid.uuid4().hex[:8]
    cmd = [sys.executable, "-m", "bench.lobby", "--serve", str(tables), "--port", str(port)]
    cmd += ["--namespace", namespace]
    if args.redis:
        cmd += ["--redis", args.redis]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        filled = proc.stdout.readline().split()
        if not filled or filled[0] != "filled":
            raise RuntimeError("the bench server did not start")
        address = f"127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(f"http://{address}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        result = asyncio.run(measure(address, proc.pid, args.reads))
        return result, int(filled[2])
    finally:
        proc.terminate()
        proc.wait(10)
        if args.redis:
            import redis

            from app.store import keys

            client = redis.Redis.from_url(args.redis)
            for i in range(0, tables, 500):
                ids = [f"{namespace}x{j:05d}" for j in range(i, min(tables, i + 500))]
                client.delete(*[k for t in ids for k in keys.table_keys(t)])
            for key in (*keys.shard_keys(namespace), keys.database_key(namespace)):
                client.delete(key)
            client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="", help="a real Redis URL (default: the stand-in)")
    parser.add_argument("--sizes", default="100,10000", help="lobby sizes, comma-separated")
    parser.add_argument("--reads", type=int, default=200, help="reads timed per size and kind")
    parser.add_argument("--serve", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--namespace", default="hearts", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
        return
    backend = args.redis or "the in-process stand-in (memory://)"
    print(f"lobby reads, {args.reads} each, Redis: {backend}")
    print(
        f"{'tables':>7} {'whole lobby':>12} | {'read':<9} {'bytes':>6} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'CPU us/read':>11}"
    )
    for tables in (int(s) for s in args.sizes.split(",")):
        result, whole = run_size(tables, args)
        size, p50, p99, cpu, total = result["http"]
        assert total == tables, (total, tables)
        print(
            f"{tables:>7} {whole / 1e6:>9.2f} MB | {'HTTP page':<9} {size:>6} {p50 * 1e3:>7.2f} "
            f"{p99 * 1e3:>7.2f} {cpu * 1e6:>11.0f}"
        )
        size, p50, p99, cpu = result["ws"]
        print(
            f"{'':>7} {'':>12} | {'WS first':<9} {size:>6} {p50 * 1e3:>7.2f} "
            f"{p99 * 1e3:>7.2f} {cpu * 1e6:>11.0f}"
        )
        h50, h99, hmax, rate = result["healthz"]
        print(
            f"{'':>7} {'':>12} | /healthz under 10 lobby readers ({rate:.0f} reads/s): "
            f"p50 {h50 * 1e3:.1f} ms, p99 {h99 * 1e3:.1f} ms, max {hmax * 1e3:.1f} ms"
        )


if __name__ == "__main__":
    main()
