"""bench.load under a Redis failure, measured from outside: a master of a Redis Cluster killed
or paused, or one Redis killed and started again, while the tables play.

    python -m bench.load --instances 2 --hands 4 --think-ms 100 --failover 15
    python -m bench.load --instances 2 --hands 4 --think-ms 100 --failover 15 --failover-mode pause
    python -m bench.load --instances 2 --hands 4 --think-ms 100 --failover 15 \\
        --server-env HEARTS_REDIS_WAIT_REPLICAS=1
    python -m bench.load --instances 2 --hands 4 --think-ms 100 --restart-redis 15 [--no-aof]

The run gets Redis servers of its own (bench/local_redis.py, free ports): a 3+3 cluster for
``--failover`` (node timeout ``--node-timeout-ms``), one redis-server for ``--restart-redis``
(with its append-only file unless ``--no-aof``). SECONDS after play started:

- ``kill``: SIGKILL of the master that serves slot 0 (a third of the tables); its replica takes
  over once the others see it fail (the node timeout, then an election);
- ``pause``: SIGSTOP of that master (it keeps its connections open and silent); it gets SIGCONT
  ``--pause-resume`` seconds after its replica took over, and comes back as a replica;
- ``--restart-redis``: SIGKILL of the one Redis, started again ``--down-seconds`` later on the
  same files.

The clients keep playing and come back as the page does (bench/load_client.py). Printed after
the usual line: moves acknowledged before the fault, during it (until the cluster serves every
slot again, or the restarted Redis has read its data back) and after; the longest any table
went without a new version; moves never answered (0 expected); acknowledged moves a table then
went back over (0 expected with HEARTS_REDIS_WAIT_REPLICAS=1); sockets reopened, moves sent
again and store_unavailable answers; tables stuck (no new version for ``--stall-seconds``) or
gone (4404: a Redis without its file lost them); and the error lines of the instances' logs
(0 expected), the first few quoted.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import redis

from bench.load import report, run_load, servers
from bench.load_redis import close_all, namespace_keys, redis_nodes
from bench.local_redis import LocalCluster, LocalRedis

# A key of slot 0: the master that serves it is the one broken.
VICTIM_KEY = "{3560}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("failover (bench/failover.py)")
    group.add_argument(
        "--failover",
        type=float,
        metavar="SECONDS",
        help="on a private 3+3 Redis Cluster, break the first table's master this long after"
        " play starts (see --failover-mode)",
    )
    group.add_argument("--failover-mode", choices=("kill", "pause"), default="kill")
    group.add_argument(
        "--restart-redis",
        type=float,
        metavar="SECONDS",
        help="on a private redis-server, kill it this long after play starts and start it again",
    )
    group.add_argument(
        "--no-aof",
        dest="aof",
        action="store_false",
        help="--restart-redis without the append-only file (Redis comes back empty)",
    )
    group.add_argument("--down-seconds", type=float, default=2.0, help="Redis stays down so long")
    group.add_argument(
        "--node-timeout-ms",
        type=int,
        default=5000,
        help="the private cluster's cluster-node-timeout (how soon a master is failed over)",
    )
    group.add_argument(
        "--pause-resume",
        type=float,
        default=5.0,
        help="a paused master gets SIGCONT this long after its replica took over",
    )
    group.add_argument(
        "--stall-seconds",
        type=float,
        default=60.0,
        help="a table with no new version for this long is counted as stuck and given up",
    )


def wanted(args: argparse.Namespace) -> bool:
    return args.failover is not None or args.restart_redis is not None


class Fault:
    """Breaks Redis at its moment, in a thread, and notes when (perf_counter clock, as the
    client processes' acknowledgement times) it broke and when Redis served again."""

    def __init__(self, args: argparse.Namespace, target: LocalCluster | LocalRedis) -> None:
        self.args = args
        self.target = target
        self.victim = 0  # the port broken
        self.broken_at = 0.0
        self.served_at = 0.0  # every slot served again / the restarted Redis loaded
        self.error: BaseException | None = None
        self._thread: threading.Thread | None = None

    @property
    def at(self) -> float:
        return float(
            self.args.failover if self.args.failover is not None else self.args.restart_redis
        )

    def begin(self, start: float) -> None:
        self._thread = threading.Thread(target=self._run, args=(start,), daemon=True)
        self._thread.start()

    def finish(self) -> dict[str, Any]:
        if self._thread is not None:
            self._thread.join(120)
        if self.error is not None:
            raise SystemExit(f"the fault could not be made: {self.error!r}")
        return {
            "victim": self.victim,
            "broken_at": self.broken_at,
            "served_at": self.served_at,
            "recovery_s": self.served_at - self.broken_at if self.served_at else float("nan"),
        }

    def _run(self, start: float) -> None:
        try:
            time.sleep(max(0.0, start + self.at - time.perf_counter()))
            if isinstance(self.target, LocalCluster):
                self._break_master(self.target)
            else:
                self._restart(self.target)
        except BaseException as exc:  # reported by finish()
            self.error = exc

    def _break_master(self, cluster: LocalCluster) -> None:
        slot = 0  # its master serves a third of the tables, as any master does
        self.victim = cluster.master_of(VICTIM_KEY)
        self.broken_at = time.perf_counter()
        if self.args.failover_mode == "kill":
            cluster.kill(self.victim)
        else:
            cluster.pause(self.victim)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if _slot_served_elsewhere(cluster, slot, self.victim):
                self.served_at = time.perf_counter()
                break
            time.sleep(0.05)
        if self.args.failover_mode == "pause":
            time.sleep(self.args.pause_resume)
            cluster.resume(self.victim)

    def _restart(self, server: LocalRedis) -> None:
        self.victim = server.port
        self.broken_at = time.perf_counter()
        server.kill()
        time.sleep(self.args.down_seconds)
        server.start()  # returns once it has read its append-only file back
        self.served_at = time.perf_counter()


def _slot_served_elsewhere(cluster: LocalCluster, slot: int, victim: int) -> bool:
    """A live node other than the victim says cluster_state:ok and gives ``slot`` to a master
    other than the victim."""
    for port in cluster.alive():
        if port == victim:
            continue
        try:
            client = cluster.client(port)
            if client.cluster("info").get("cluster_state") != "ok":
                return False
            for start, end, master, *_ in client.execute_command("CLUSTER SLOTS"):  # type: ignore[no-untyped-call]
                if start <= slot <= end:
                    return int(master[1]) != victim
        except redis.RedisError:
            continue
    return False


def log_errors(log_dir: Path) -> tuple[list[str], int]:
    """The error lines of the instances' logs (level error or critical, or a traceback written
    outside the JSON log), and how many warnings."""
    errors: list[str] = []
    warnings = 0
    for path in sorted(log_dir.glob("server*.log")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                if "Traceback" in line or "Error" in line:
                    errors.append(f"{path.name}: {line.strip()}")
                continue
            level = str(record.get("level", "")) if isinstance(record, dict) else ""
            if level in ("error", "critical"):
                message = str(record.get("message", ""))
                trace = str(record.get("exc_info", "")).strip().splitlines()
                errors.append(f"{path.name}: {message}" + (f" [{trace[-1]}]" if trace else ""))
            elif level == "warning":
                warnings += 1
    return errors, warnings


def windows(acked_at: list[float], broken_at: float, served_at: float) -> tuple[int, int, int]:
    """Moves acknowledged before the fault, during it (until Redis served again) and after."""
    before = sum(1 for t in acked_at if t < broken_at)
    during = sum(1 for t in acked_at if broken_at <= t < served_at)
    return before, during, len(acked_at) - before - during


def failover_report(
    result: dict[str, Any], fault: dict[str, Any], errors: list[str], warnings: int
) -> str:
    before, during, after = windows(result["acked_at"], fault["broken_at"], fault["served_at"])
    start, broken = result["start"], fault["broken_at"]
    wait_end = result["longest_wait_end"] - broken
    lines = [
        f"  fault at {broken - start:.1f}s on :{fault['victim']}, Redis served again"
        f" {fault['recovery_s']:.1f}s later;"
        f" moves acknowledged before {before} ({before / max(1e-9, broken - start):.0f}/s),"
        f" during {during}, after {after}",
        f"  longest wait of a table for its next version {result['longest_wait']:.2f}s"
        f" (table {result['longest_wait_table']}, ended {wait_end:+.1f}s from the fault);"
        f" unanswered moves {result['unanswered']};"
        f" acknowledged moves lost {result['lost_acked']}",
        f"  sockets reopened {result['reconnects']}, moves sent again {result['resent']},"
        f" store_unavailable answers {result['store_unavailable']}, moves given up"
        f" {result['gave_up']}; tables stuck {result['stuck']}, gone {result['gone']}",
        f"  server errors in the logs {len(errors)} (warnings {warnings})",
    ]
    lines += [f"    {line[:300]}" for line in errors[:5]]
    return "\n".join(lines)


def run(args: argparse.Namespace, extra: dict[str, str]) -> None:
    """bench.load's runs (one per --instances count) on a private Redis broken mid-run."""
    target: LocalCluster | LocalRedis
    if args.failover is not None:
        target = LocalCluster(7401, node_timeout_ms=args.node_timeout_ms).start()
    else:
        target = LocalRedis(appendonly=args.aof).start()
    try:
        args.redis_url = target.url
        for count in args.instances:
            if isinstance(target, LocalCluster):
                _whole(target)
            args.namespace = "bench" + uuid.uuid4().hex[:8]
            log_dir = Path(tempfile.mkdtemp(prefix="hearts-failover-"))
            fault = Fault(args, target)
            with servers(count, target.url, args.namespace, extra, log_dir) as started:
                result = run_load([a for a, _ in started], [p for _, p in started], args, fault)
            report(result)
            errors, warnings = log_errors(log_dir)
            print(failover_report(result, fault.finish(), errors, warnings), flush=True)
            print(f"  logs: {log_dir}; load average {os.getloadavg()}", flush=True)
            _drop(args.redis_url, args.namespace)
    finally:
        target.stop()


def _whole(cluster: LocalCluster) -> None:
    """Bring a cluster a previous run broke back to three masters with a synced replica each."""
    for port, proc in cluster.procs.items():
        if proc.poll() is not None:
            cluster.restart(port)
    for port in list(cluster.paused):
        cluster.resume(port)
    cluster.wait_ok()
    cluster.wait_replicas()


def _drop(url: str, namespace: str) -> None:
    try:
        nodes = redis_nodes(url)
    except SystemExit:
        return
    for client, key in namespace_keys(nodes, namespace):
        try:
            client.delete(key)
        except redis.RedisError:
            continue
    close_all(nodes)
