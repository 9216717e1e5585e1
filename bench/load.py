"""Load benchmark: T tables x (P scripted players + S spectators) over real WebSockets.

    python -m bench.load                      # 200 tables, 1 then 2 instances, local Redis
    python -m bench.load --tables 50 --instances 1
    python -m bench.load --address 127.0.0.1:8000   # a server that is already running

Starts ``python -m app`` instance(s) on the given Redis (unless --address), opens every
socket, plays complete hands as fast as the protocol allows (each player moves as soon as
its view says so) and prints moves/s, the p50/p99 time from a move sent to the last view of
it delivered to every socket of its table, Redis memory per table and server memory per
socket. Timings belong here, not in the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import redis
import websockets

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-key-0123456789"


@dataclass
class TableRun:
    table_id: str
    sent: dict[int, float] = field(default_factory=dict)  # version of a move -> send time
    arrivals: list[list[tuple[int, float]]] = field(default_factory=list)  # per socket
    moves: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def servers(count: int, redis_url: str, namespace: str) -> Iterator[list[tuple[str, int]]]:
    tmp = tempfile.mkdtemp(prefix="hearts-bench-")
    procs: list[subprocess.Popen[bytes]] = []
    out: list[tuple[str, int]] = []
    try:
        for i in range(count):
            port = free_port()
            env = {
                **os.environ,
                "HEARTS_REDIS_URL": redis_url,
                "HEARTS_REDIS_NAMESPACE": namespace,
                "HEARTS_DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
                "HEARTS_SECRET_KEY": SECRET,
                "HEARTS_PORT": str(port),
                "HEARTS_TURN_TIMER_SECONDS": "0",
                "HEARTS_WS_RATE_PER_SECOND": "1000",
                "HEARTS_LOG_LEVEL": "warning",
                "HEARTS_MIGRATE_ON_START": "true" if i == 0 else "false",
                "HEARTS_INSTANCE_ID": f"bench{i}",
            }
            proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env)
            procs.append(proc)
            address = f"127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"http://{address}/healthz", timeout=1).status_code == 200:
                        break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"server {i} did not start")
                time.sleep(0.1)
            out.append((address, proc.pid))
        yield out
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    legal = view.get("legal")
    if not legal:
        return None
    kind = legal["type"]
    if kind == "pass":
        return {"type": "pass", "cards": rng.sample(legal["cards"], legal["count"])}
    if kind == "play":
        move: dict[str, Any] = {"type": "play", "card": rng.choice(legal["cards"])}
        if legal.get("faces"):
            move["face"] = rng.choice(legal["faces"])
        return move
    if kind == "direction":
        return {"type": "direction", "direction": rng.choice(legal["directions"])}
    return {"type": "moon", "choice": rng.choice(legal["choices"])}


async def socket_task(
    address: str,
    run: TableRun,
    token: str | None,
    slot: int,
    player: bool,
    ready: asyncio.Barrier,
    go: asyncio.Event,
) -> None:
    rng = random.Random(slot)
    arrivals: list[tuple[int, float]] = []
    run.arrivals.append(arrivals)
    url = f"ws://{address}/ws/tables/{run.table_id}"
    async with websockets.connect(url, max_size=2**22, compression=None) as ws:
        await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
        await ready.wait()
        await go.wait()
        acted = -1
        n = 0
        pending: dict[str, float] = {}
        latest: dict[str, Any] | None = None
        async for raw in ws:
            msg = orjson.loads(raw)
            kind = msg["type"]
            if kind == "state":
                arrivals.append((msg["version"], time.perf_counter()))
                latest = msg
                if msg["table"]["status"] == "over":
                    run.done.set()
                    return
            elif kind == "ack" and msg["id"] in pending:
                run.sent[msg["version"]] = pending.pop(msg["id"])
                run.moves += 1
            elif kind == "error":
                pending.pop(msg.get("id", ""), None)
                acted = -1 if msg.get("code") == "stale_version" else acted
            if run.done.is_set():
                return
            if player and latest is not None and latest["view"] and latest["version"] > acted:
                move = pick(latest["view"], rng)
                if move is not None:
                    acted = latest["version"]
                    n += 1
                    mid = f"{slot}-{n}"
                    pending[mid] = time.perf_counter()
                    await ws.send(
                        orjson.dumps(
                            {"type": "move", "id": mid, "move": move, "version": acted}
                        ).decode()
                    )


async def run_load(
    addresses: list[str], pids: list[int], args: argparse.Namespace, namespace: str
) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://{addresses[0]}", timeout=30) as http:
        tokens = []
        for i in range(4):
            r = await http.post("/api/guest", json={"name": f"Bench{i}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
        runs: list[TableRun] = []
        for _ in range(args.tables):
            r = await http.post(
                "/api/tables",
                json={
                    "preset": "classic",
                    "options": {"end": "hands", "hands": args.hands},
                    "turn_timer": 0,
                },
                headers={"Authorization": f"Bearer {tokens[0]}"},
            )
            r.raise_for_status()
            runs.append(TableRun(r.json()["table"]["id"]))
    rss_before = [rss_kb(p) for p in pids]
    sockets = args.tables * (4 + args.spectators)
    ready = asyncio.Barrier(sockets + 1)
    go = asyncio.Event()
    tasks = []
    slot = 0
    for t, run in enumerate(runs):
        for seat in range(4):
            address = addresses[(t + seat) % len(addresses)]
            tasks.append(
                asyncio.create_task(socket_task(address, run, tokens[seat], slot, True, ready, go))
            )
            slot += 1
        for s in range(args.spectators):
            address = addresses[(t + s + 1) % len(addresses)]
            tasks.append(
                asyncio.create_task(socket_task(address, run, None, slot, False, ready, go))
            )
            slot += 1
        if t % 20 == 19:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(ready.wait(), 120)
    # Seat the players and start every table (over the HTTP-less path: one socket command).
    # Seat the players and start every table.
    await asyncio.gather(
        *(
            seat_and_start(addresses[t % len(addresses)], run.table_id, tokens)
            for t, run in enumerate(runs)
        )
    )
    await asyncio.sleep(1.0)
    rss_sockets = [rss_kb(p) for p in pids]
    start = time.perf_counter()
    go.set()
    await asyncio.wait_for(asyncio.gather(*(r.done.wait() for r in runs)), args.timeout)
    elapsed = time.perf_counter() - start
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    moves = sum(r.moves for r in runs)
    latencies = []
    for run in runs:
        for version, sent in run.sent.items():
            last = 0.0
            for arrivals in run.arrivals:
                first = next((at for v, at in arrivals if v >= version), None)
                if first is not None:
                    last = max(last, first)
            if last:
                latencies.append((last - sent) * 1000)
    latencies.sort()
    client = redis.Redis.from_url(args.redis_url)
    sample = [r.table_id for r in runs[:20]]
    table_bytes = []
    for tid in sample:
        total = 0
        for suffix in (":ver", ":state", ":log"):
            total += int(client.memory_usage("{table:" + tid + "}" + suffix) or 0)
        table_bytes.append(total)
    client.close()
    per_socket = [
        (after - before) * 1024 / max(1, sockets / len(pids))
        for before, after in zip(rss_before, rss_sockets, strict=True)
    ]
    return {
        "instances": len(addresses),
        "tables": args.tables,
        "sockets": sockets,
        "moves": moves,
        "seconds": elapsed,
        "moves_per_s": moves / elapsed if elapsed else 0.0,
        "p50_ms": statistics.median(latencies) if latencies else 0.0,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] if latencies else 0.0,
        "redis_bytes_per_table": statistics.mean(table_bytes) if table_bytes else 0,
        "server_bytes_per_socket": statistics.mean(per_socket) if per_socket else 0,
    }


async def seat_and_start(address: str, table_id: str, tokens: list[str]) -> None:
    """Seat players 1-3 and start, each over its own short-lived socket."""
    for seat in (1, 2, 3, 0):
        url = f"ws://{address}/ws/tables/{table_id}"
        async with websockets.connect(url, compression=None) as ws:
            await ws.send(orjson.dumps({"type": "hello", "token": tokens[seat]}).decode())
            kind, fields = ("sit", {"seat": seat}) if seat else ("start", {})
            await ws.send(orjson.dumps({"type": kind, "id": "setup", **fields}).decode())
            async for raw in ws:
                msg = orjson.loads(raw)
                if msg.get("id") == "setup":
                    if msg["type"] != "ack":
                        raise SystemExit(f"setup failed: {msg}")
                    break


def report(result: dict[str, Any]) -> None:
    print(
        f"instances={result['instances']} tables={result['tables']} sockets={result['sockets']}"
        f" moves={result['moves']} in {result['seconds']:.1f}s:"
        f" {result['moves_per_s']:.0f} moves/s,"
        f" move->last view p50 {result['p50_ms']:.1f} ms p99 {result['p99_ms']:.1f} ms;"
        f" Redis {result['redis_bytes_per_table'] / 1024:.1f} KB/table,"
        f" server {result['server_bytes_per_socket'] / 1024:.1f} KB/socket",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--spectators", type=int, default=2)
    parser.add_argument("--hands", type=int, default=1, help="hands per table (end=hands)")
    parser.add_argument(
        "--instances", type=int, nargs="*", default=[1, 2], help="runs with 1 and/or 2 servers"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--address", help="use a running server instead of starting one")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    if args.address:
        namespace = "hearts"
        report(asyncio.run(run_load([args.address], [], args, namespace)))
        return
    for count in args.instances:
        namespace = "bench" + uuid.uuid4().hex[:8]
        with servers(count, args.redis_url, namespace) as started:
            addresses = [a for a, _ in started]
            pids = [p for _, p in started]
            report(asyncio.run(run_load(addresses, pids, args, namespace)))


if __name__ == "__main__":
    main()
