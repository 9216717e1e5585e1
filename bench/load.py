"""Load benchmark: T tables x (4 scripted players + S spectators) over real WebSockets.

    python -m bench.load                      # 200 tables, 1 then 2 instances, local Redis
    python -m bench.load --tables 50 --instances 1
    python -m bench.load --address 127.0.0.1:8000 --secret KEY   # a running server
    python -m bench.load --tables 20 --instances 1 --soak-minutes 20 --rate 100   # a soak

Starts ``python -m app`` instance(s) on the given Redis (unless --address), opens every socket,
plays complete hands as fast as the protocol allows (each player moves as soon as its view says
so) and prints moves/s, the p50/p99 time from a move sent to the last view of it delivered to
every socket of its table, Redis memory per table, server memory per socket, the server
process's CPU per move apart from its worker processes' (results writer, computer players), and
Redis's side of it: commands, bytes in and out (on the masters) and CPU per move, each node of a
Cluster apart (replicas too: their CPU is what replication costs).
Timings belong here, not in the tests.

    python -m bench.load --cluster                    # on the local Redis Cluster (.ci/run)
    python -m bench.load --redis-url redis+cluster://10.0.0.5:7000,10.0.0.6:7000
    python -m bench.load --instances 2 --failover 15  # a master killed mid-run (bench/failover.py)

The load generator's client processes are bench/load_client.py; the Redis nodes and their
INFO counters, bench/load_redis.py (every node a Cluster reports, not only the URL's first).

The Redis figures are INFO deltas over the measured run (``used_cpu_sys`` + ``used_cpu_user``,
``total_commands_processed``, ``total_net_input_bytes`` / ``total_net_output_bytes``): on a
Redis that other clients use at the same time they count those clients too, so measure on a
Redis of the benchmark's own (docs/scaling.md).

With ``--soak-minutes M`` the tables play game after game (the host asks for a rematch at
each game's end) at a paced ``--rate`` of moves per second in all, and each minute prints the
server's memory per socket (RSS growth since before the sockets opened, over the sockets) and
that minute's p99, so a leak or a slowdown shows as a figure that keeps rising.

The load generator shares the machine with the servers and Redis, so it is made cheap: several
client processes (``--clients``), each a uvloop with a minimal WebSocket client written on
asyncio's Protocol (no per-message task, zero mask key, frames parsed by hand) that reads a
state's version and status with ``bytes.find`` and parses JSON only when its seat has a move to
make. Every socket of a table lives in the same client process, so latencies use one clock.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import redis

from app.store import keys
from bench.load_client import client_process
from bench.load_redis import (
    close_all,
    namespace_keys,
    redis_client,
    redis_deltas,
    redis_info,
    redis_nodes,
    results_streams,
)
from bench.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-key-0123456789"


# -- servers ---------------------------------------------------------------------------------


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and of its worker processes (results writer,
    computer players), in seconds."""
    own, workers = cpu_split(pid)
    return own + workers


def cpu_split(pid: int) -> tuple[float, float]:
    """User + system CPU seconds of a process, and of its worker processes."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    own = sum(int(fields[i]) for i in (11, 12)) / ticks  # utime, stime
    workers = 0.0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            for child in (task / "children").read_text().split():
                workers += cpu_seconds(int(child))
    return own, workers


@contextlib.contextmanager
def servers(
    count: int,
    redis_url: str,
    namespace: str,
    extra_env: dict[str, str],
    log_dir: Path | None = None,
) -> Iterator[list[tuple[str, int]]]:
    """Start ``count`` instances; with ``log_dir`` each writes its log there
    (``server<i>.log``, one JSON object a line) instead of to this terminal."""
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
                # No pause between hands (--hands 2 and up): the players move at once.
                "HEARTS_HAND_PAUSE_MS": "0",
                "HEARTS_WS_RATE_PER_SECOND": "1000",
                "HEARTS_LOG_LEVEL": "warning",
                "HEARTS_MIGRATE_ON_START": "true" if i == 0 else "false",
                "HEARTS_INSTANCE_ID": f"bench{i}",
                "HEARTS_BOT_WORKERS": "0",
                # One bench player creates every table, and every simulated player connects
                # from one address: the per-player and per-address limits (docs/limits.md) are
                # lifted, as a deployment behind one proxy would configure.
                "HEARTS_MAX_TABLES_PER_HOST": "0",
                "HEARTS_MAX_TABLES_PER_ADDRESS": "0",
                "HEARTS_MAX_GUESTS_PER_ADDRESS": "0",
                "HEARTS_WS_SOCKETS_PER_ADDRESS": "100000",
                "HEARTS_WS_SOCKETS_PER_PLAYER": "10000",  # the 4 bench players sit everywhere
                "HEARTS_WS_CONNECTS_PER_MINUTE_PER_PLAYER": "100000",
                "HEARTS_WS_CONNECTS_PER_MINUTE_PER_ADDRESS": "1000000",
                "HEARTS_WS_PLAYER_RATE_PER_SECOND": "1000",
                "HEARTS_WS_ADDRESS_RATE_PER_SECOND": "1000000",
                **extra_env,
            }
            log = None if log_dir is None else (log_dir / f"server{i}.log").open("wb")
            if log is not None:
                env["HEARTS_LOG_FORMAT"] = "json"
            proc = subprocess.Popen(
                [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=log, stderr=log
            )
            if log is not None:
                log.close()  # the server has its own copy
            procs.append(proc)
            address = f"127.0.0.1:{port}"
            deadline = time.monotonic() + 60
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


# -- the run -------------------------------------------------------------------------------------


def setup_tables(address: str, tables: int, hands: int) -> tuple[list[str], list[str]]:
    with httpx.Client(base_url=f"http://{address}", timeout=30) as http:
        tokens = []
        for i in range(4):
            r = http.post("/api/guest", json={"name": f"Bench{i}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
        ids = []
        for _ in range(tables):
            r = http.post(
                "/api/tables",
                json={
                    "preset": "classic",
                    "options": {"end": "hands", "hands": hands},
                    "turn_timer": 0,
                },
                headers={"Authorization": f"Bearer {tokens[0]}"},
            )
            r.raise_for_status()
            ids.append(r.json()["table"]["id"])
    return tokens, ids


def run_load(
    addresses: list[str], pids: list[int], args: argparse.Namespace, fault: Any = None
) -> dict[str, Any]:
    """One measured run. ``fault`` (bench/failover.py) is told when play starts
    (``begin(start)``) and breaks Redis at its moment, in a thread of its own."""
    nodes = redis_nodes(args.redis_url)
    info_setup = redis_info(nodes) if not args.address else []
    tokens, ids = setup_tables(addresses[0], args.tables, args.hands)
    per_table = 4 + args.spectators
    sockets = args.tables * per_table
    clients = max(1, min(args.clients, args.tables))  # a process with no table has no end
    think_ms = args.think_ms
    if args.rate:  # each table moves one at a time: tables / rate seconds between its moves
        think_ms = 1000 * args.tables / args.rate
    jobs: list[dict[str, Any]] = [
        {
            "tables": [],
            "tokens": tokens,
            "compact": args.compact,
            "timeout": args.timeout,
            "think_ms": think_ms,
            "stagger_ms": args.stagger_ms,
            "soak_s": args.soak_minutes * 60,
            "stall_s": getattr(args, "stall_seconds", 0.0),
        }
        for _ in range(clients)
    ]
    for t, table_id in enumerate(ids):
        # Players and spectators of a table spread over the instances.
        spec = {
            "id": table_id,
            "addresses": [addresses[(t + i) % len(addresses)] for i in range(per_table)],
        }
        jobs[t % clients]["tables"].append(spec)
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(clients + 1)
    results = ctx.Queue()
    rss_before = [rss_kb(p) for p in pids]
    procs = [ctx.Process(target=client_process, args=(job, barrier, results)) for job in jobs]
    for proc in procs:
        proc.start()
    barrier.wait(timeout=args.timeout)
    if fault is not None:
        fault.begin(time.perf_counter())
    rss_sockets = [rss_kb(p) for p in pids]
    cpu_before = [cpu_split(p) for p in pids]
    info_before = redis_info(nodes)
    if args.soak_minutes:
        soak_report(results, clients, pids, rss_before, sockets, args.soak_minutes)
    got = [results.get(timeout=args.timeout + 60) for _ in procs]
    cpu_after = [cpu_split(p) for p in pids]
    info_after = redis_info(nodes)
    # The results writer finishes the last tables' records after the run: its CPU until the
    # results streams are empty (servers this run started) counts in the "until written"
    # figure.
    namespace = getattr(args, "namespace", None)
    streams = results_streams(nodes, namespace) if namespace else []
    if streams:

        def left_in() -> int:
            with contextlib.suppress(redis.RedisError):  # a node away: nothing to wait for
                return sum(int(client.xlen(key)) for client, key in streams)
            return 0

        left, progress = left_in(), time.monotonic()
        while left and time.monotonic() < progress + 3:  # no writer: gives up after 3 s
            time.sleep(0.1)
            now_left = left_in()
            if now_left < left:
                left, progress = now_left, time.monotonic()
    cpu_written = [cpu_split(p) for p in pids] if namespace else cpu_after
    for proc in procs:
        proc.join(30)
    errors = [g["error"] for g in got if "error" in g]
    if errors:
        raise SystemExit(f"a client process failed: {errors[0]}")
    moves = sum(g["moves"] for g in got)
    unanswered = sum(g["unanswered"] for g in got)
    elapsed = max(g["end"] for g in got) - min(g["start"] for g in got)
    latencies = sorted(x for g in got for x in g["latencies"])
    plays = sorted(x for g in got for x in g["play_latencies"])
    if args.timeline:
        windows: dict[int, list[float]] = {}
        for at, latency in (x for g in got for x in g["timeline"]):
            windows.setdefault(int(at), []).append(latency)
        for second, values in sorted(windows.items()):
            values.sort()
            print(
                f"  t={second:3d}s moves={len(values):5d} p50 {percentile(values, 0.5):6.1f} ms"
                f" p99 {percentile(values, 0.99):6.1f} ms",
                flush=True,
            )
    client = redis_client(args.redis_url)
    table_bytes = []
    with contextlib.suppress(redis.RedisError):  # a Redis a failover run left without data
        for tid in ids[:20]:
            total = 0
            for key in keys.table_keys(tid):  # named as the app names them
                total += int(client.memory_usage(key) or 0)
            table_bytes.append(total)
    client.close()
    # Redis: the run's INFO deltas per node (CPU, commands, bytes), and used_memory grown
    # from before the tables were made to when every socket was open (masters only).
    run = redis_deltas(info_before, info_after)
    grown = (
        sum(
            d["used_memory"]
            for node, d in zip(nodes, redis_deltas(info_setup, info_before), strict=True)
            if node.master
        )
        if info_setup
        else 0.0
    )
    close_all(nodes)
    per_move = 1 / moves if moves else 0.0
    per_socket = [
        (after - before) * 1024 / max(1, sockets / len(pids))
        for before, after in zip(rss_before, rss_sockets, strict=True)
    ]
    own_cpu = sum(a[0] - b[0] for a, b in zip(cpu_after, cpu_before, strict=True))
    worker_cpu = sum(a[1] - b[1] for a, b in zip(cpu_after, cpu_before, strict=True))
    written_cpu = sum(a[1] - b[1] for a, b in zip(cpu_written, cpu_before, strict=True))
    server_cpu = own_cpu + worker_cpu
    redis_cpu = [(d["used_cpu_sys"] + d["used_cpu_user"]) * 1e6 * per_move for d in run]
    # Commands and bytes on the masters: a replica's are its master's writes again.
    masters = [d for node, d in zip(nodes, run, strict=True) if node.master]
    return {
        "instances": len(addresses),
        "tables": args.tables,
        "sockets": sockets,
        "moves": moves,
        "unanswered": unanswered,
        "games": sum(g["games"] for g in got),
        "seconds": elapsed,
        "moves_per_s": moves / elapsed if elapsed else 0.0,
        "p50_ms": statistics.median(latencies) if latencies else 0.0,
        "p99_ms": percentile(latencies, 0.99),
        "play_p99_ms": percentile(plays, 0.99),
        "redis_bytes_per_table": statistics.mean(table_bytes) if table_bytes else 0,
        "server_bytes_per_socket": statistics.mean(per_socket) if per_socket else 0,
        "server_cpu_us_per_move": server_cpu / moves * 1e6 if moves and pids else 0.0,
        "process_cpu_us_per_move": own_cpu / moves * 1e6 if moves and pids else 0.0,
        "worker_cpu_us_per_move": worker_cpu / moves * 1e6 if moves and pids else 0.0,
        "written_cpu_us_per_move": written_cpu / moves * 1e6 if moves and pids else 0.0,
        "client_cpu_s": sum(g["cpu"] for g in got),
        "redis_used_bytes_per_table": grown / args.tables if args.tables else 0.0,
        "redis_nodes": [node.name for node in nodes],
        "redis_cpu_us_per_move": redis_cpu,
        "redis_commands_per_move": sum(d["total_commands_processed"] for d in masters) * per_move,
        "redis_scripts_per_move": sum(d["cmdstat_evalsha"] for d in masters) * per_move,
        "redis_in_bytes_per_move": sum(d["total_net_input_bytes"] for d in masters) * per_move,
        "redis_out_bytes_per_move": sum(d["total_net_output_bytes"] for d in masters) * per_move,
        "load": os.getloadavg()[0],
        "think_ms": think_ms,
        # What a failover run reports (bench/failover.py); zeros on a quiet run.
        "acked_at": sorted(t for g in got for t in g["acked_at"]),
        "start": min(g["start"] for g in got),
        **{
            name: sum(g[name] for g in got)
            for name in (
                "lost_acked",
                "reconnects",
                "resent",
                "store_unavailable",
                "gave_up",
                "stuck",
                "gone",
            )
        },
        "longest_wait": max(g["longest_wait"] for g in got),
        **{
            name: max(got, key=lambda g: g["longest_wait"])[name]
            for name in ("longest_wait_end", "longest_wait_table")
        },
    }


def soak_report(
    results: Any, clients: int, pids: list[int], rss_before: list[int], sockets: int, minutes: int
) -> None:
    """Each minute of a soak: moves, p99 and the servers' memory per socket (RSS growth since
    before the sockets opened, over the sockets), once every client process has reported."""
    pending: dict[int, list[list[float]]] = {}
    for _ in range(clients * minutes):
        got = results.get(timeout=120)
        if "error" in got:
            raise SystemExit(f"a client process failed: {got['error']}")
        pending.setdefault(got["minute"], []).append(got["latencies"])
        if len(pending[got["minute"]]) < clients:
            continue
        values = sorted(x for part in pending.pop(got["minute"]) for x in part)
        rss = [rss_kb(p) for p in pids]
        growth = sum(rss) - sum(rss_before)
        print(
            f"  minute {got['minute']:3d}: moves={len(values):6d} ({len(values) / 60:.0f}/s)"
            f" p50 {percentile(values, 0.5):6.1f} ms p99 {percentile(values, 0.99):6.1f} ms;"
            f" server RSS {sum(rss) / 1024:.1f} MB, {growth / max(1, sockets):.1f} KB/socket",
            flush=True,
        )


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of sorted values (0 for none)."""
    return values[max(0, int(len(values) * q) - 1)] if values else 0.0


def report(result: dict[str, Any]) -> None:
    used = (
        f" ({result['redis_used_bytes_per_table'] / 1024:.1f} KB/table used_memory with the"
        " sockets, due times, lobby)"
        if result["redis_used_bytes_per_table"]
        else ""
    )
    cpu = result["redis_cpu_us_per_move"]
    names = result["redis_nodes"]
    if len(cpu) == 1:
        nodes = f"{cpu[0]:.0f}"
    else:
        nodes = f"{sum(cpu):.0f} in all: " + " ".join(
            f"{n.split(' ')[0].rsplit(':', 1)[-1]}{'r' if 'replica' in n else ''} {c:.0f}"
            for n, c in zip(names, cpu, strict=True)
        )
    print(
        f"instances={result['instances']} tables={result['tables']} sockets={result['sockets']}"
        f"{' think=' + str(result['think_ms']) + 'ms' if result['think_ms'] else ''}"
        f"{' games=' + str(result['games']) if result['games'] else ''}"
        f" moves={result['moves']}"
        f"{' UNANSWERED=' + str(result['unanswered']) if result['unanswered'] else ''}"
        f" in {result['seconds']:.1f}s:"
        f" {result['moves_per_s']:.0f} moves/s,"
        f" move->last view p50 {result['p50_ms']:.1f} ms p99 {result['p99_ms']:.1f} ms"
        f" (plays only: p99 {result['play_p99_ms']:.1f} ms);"
        f" Redis {result['redis_bytes_per_table'] / 1024:.1f} KB/table"
        f"{used},"
        f" server {result['server_bytes_per_socket'] / 1024:.1f} KB/socket,"
        f" server CPU (with its worker processes) {result['server_cpu_us_per_move']:.0f} us/move"
        f" (server process {result['process_cpu_us_per_move']:.0f},"
        f" workers {result['worker_cpu_us_per_move']:.0f};"
        f" workers until the results were in SQL {result['written_cpu_us_per_move']:.0f}),"
        f" Redis {result['redis_commands_per_move']:.1f} commands/move"
        f" ({result['redis_scripts_per_move']:.2f} EVALSHA, the rest mostly their own calls),"
        f" {result['redis_in_bytes_per_move']:.0f} B in + {result['redis_out_bytes_per_move']:.0f}"
        f" B out per move, Redis CPU {nodes} us/move,"
        f" load generator CPU {result['client_cpu_s']:.1f} s"
        f" (load average {result['load']:.1f})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--spectators", type=int, default=2)
    parser.add_argument("--hands", type=int, default=1, help="hands per table (end=hands)")
    parser.add_argument(
        "--instances", type=int, nargs="*", default=[1, 2], help="runs with 1 and/or 2 servers"
    )
    parser.add_argument("--clients", type=int, default=2, help="load generator processes")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="a player waits this long before each move (0: as fast as the protocol allows);"
        " paces the load to measure latency below saturation",
    )
    parser.add_argument(
        "--soak-minutes",
        type=int,
        default=0,
        help="play game after game for this long, printing memory per socket and p99 each minute",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="moves per second in all, paced (sets --think-ms from --tables); for a soak",
    )
    parser.add_argument(
        "--full-views",
        dest="compact",
        action="store_false",
        help="ask for the full view on every change (not the compact protocol option)",
    )
    parser.add_argument(
        "--stagger-ms",
        type=float,
        default=1000.0,
        help="spread the tables' starts over this long (each client process)",
    )
    parser.add_argument(
        "--timeline", action="store_true", help="also print p50/p99 per second of the run"
    )
    parser.add_argument(
        "--redis-url",
        default=None,
        help="any HEARTS_REDIS_URL: redis://host:port/db (default redis://127.0.0.1:6379/0) or"
        " redis+cluster://host:port[,host:port...] (a Redis Cluster)",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="on the local Redis Cluster of .ci/run (redis+cluster://127.0.0.1:7101)"
        " unless --redis-url names another",
    )
    parser.add_argument("--address", help="use a running server instead of starting one")
    parser.add_argument("--pid", type=int, action="append", default=[], help="its process id")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the started servers (e.g. HEARTS_WS_PER_MESSAGE_DEFLATE=true)",
    )
    from bench import failover  # it builds on this module's run

    failover.add_arguments(parser)
    args = parser.parse_args()
    if failover.wanted(args):
        failover.run(args, dict(item.split("=", 1) for item in args.server_env))
        return
    if args.redis_url is None:
        args.redis_url = (
            "redis+cluster://127.0.0.1:7101" if args.cluster else "redis://127.0.0.1:6379/0"
        )
    if args.address:
        report(run_load([args.address], args.pid, args))
        return
    extra = dict(item.split("=", 1) for item in args.server_env)
    per_move: dict[int, float] = {}  # instances -> server CPU a move (us)
    for count in args.instances:
        namespace = "bench" + uuid.uuid4().hex[:8]
        try:
            args.namespace = namespace
            with servers(count, args.redis_url, namespace, extra) as started:
                result = run_load([a for a, _ in started], [p for _, p in started], args)
                report(result)
                per_move[count] = float(result["server_cpu_us_per_move"])
                if count > 1 and per_move.get(1):
                    # A table's sockets spread over the instances (relayed to its home unless
                    # HEARTS_WS_RELAY=0): what that costs against one instance, all told.
                    print(
                        f"server CPU a move on {count} instances / on 1:"
                        f" {per_move[count] / per_move[1]:.2f}"
                        f" ({per_move[count]:.0f} / {per_move[1]:.0f} us)"
                    )
        finally:
            # The namespace's global and per-shard keys have no expiry (the tables' keys do).
            nodes = redis_nodes(args.redis_url)
            for client, key in namespace_keys(nodes, namespace):
                client.delete(key)
            close_all(nodes)


if __name__ == "__main__":
    main()
