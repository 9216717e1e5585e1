"""Private Redis servers to break on purpose, for the tests and bench.failover.

LocalCluster: six ``redis-server --cluster-enabled yes`` processes on free local ports, joined
by ``redis-cli --cluster create`` as 3 masters with a replica each, and a short node timeout so
a replica takes over within a couple of seconds (tests/store/local_cluster.py hands it to the
tests). LocalRedis: one ``redis-server`` on a free port, with or without its append-only file,
to kill and start again. The shared Redis and test cluster (6379, 7101-7106) are never touched.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from redis.crc import key_slot

from bench.ports import free_port

# Node timeout of the private cluster: a master that stops answering is failed over in about
# this plus an election (a second or two).
NODE_TIMEOUT_MS = 1000


def _command(client: redis.Redis, *args: Any) -> Any:
    return client.execute_command(*args)  # type: ignore[no-untyped-call]


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _ports(first: int = 7201) -> list[int]:
    """Six free ports (and their cluster bus ports, +10000) from ``first`` on, by tens. Each
    pytest-xdist worker looks in its own block (gw1 500 higher than gw0, ...): two workers
    starting a cluster at the same moment would otherwise both find the same ports free."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    first += 500 * (int(worker) if worker.isdigit() else 0)
    for base in range(first, first + 400, 10):
        ports = list(range(base, base + 6))
        if all(_free(p) and _free(p + 10000) for p in ports):
            return ports
    raise RuntimeError("no six free ports for a private Redis Cluster")


class LocalCluster:
    def __init__(self, first_port: int = 7201, node_timeout_ms: int = NODE_TIMEOUT_MS) -> None:
        self.ports = _ports(first_port)
        self.node_timeout_ms = node_timeout_ms
        self.dir = Path(tempfile.mkdtemp(prefix="hearts-cluster-"))
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.paused: set[int] = set()  # nodes stopped by pause() and not resumed

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports[:3])

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=1)

    def _start_node(self, port: int) -> None:
        node_dir = self.dir / str(port)
        node_dir.mkdir(exist_ok=True)
        self.procs[port] = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(port),
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                f"nodes-{port}.conf",
                "--cluster-node-timeout",
                str(self.node_timeout_ms),
                "--save",
                "",
                "--appendonly",
                "no",
                # A replica's first copy at once (not after the default 5 s wait): only a
                # replica that has synced can be promoted.
                "--repl-diskless-sync-delay",
                "0",
                "--dir",
                str(node_dir),
                "--logfile",
                str(node_dir / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def start(self) -> LocalCluster:
        for port in self.ports:
            self._start_node(port)
        for port in self.ports:
            self._wait(lambda port=port: bool(self.client(port).ping()), f"node {port} up")
        subprocess.run(
            ["redis-cli", "--cluster", "create"]
            + [f"127.0.0.1:{p}" for p in self.ports]
            + ["--cluster-replicas", "1", "--cluster-yes"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.wait_ok()
        self.wait_replicas()
        return self

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)  # a paused node must be able to die
                proc.kill()
        for proc in self.procs.values():
            proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def kill(self, port: int) -> None:
        """SIGKILL one node: a crash, its connections reset at once."""
        self.procs[port].kill()
        self.procs[port].wait(10)

    def restart(self, port: int) -> None:
        """Start a killed node again (its nodes.conf kept): it rejoins, as a replica if its
        slots went to another master meanwhile."""
        self._start_node(port)
        self._wait(lambda: bool(self.client(port).ping()), f"node {port} up")

    def pause(self, port: int) -> None:
        """SIGSTOP one node: it stops answering but keeps its connections open."""
        self.procs[port].send_signal(signal.SIGSTOP)
        self.paused.add(port)

    def resume(self, port: int) -> None:
        self.procs[port].send_signal(signal.SIGCONT)
        self.paused.discard(port)

    def alive(self) -> list[int]:
        """The nodes that answer: running and not paused (a stopped process still polls as
        running, and asking it would hang until the client's timeout)."""
        return [p for p, proc in self.procs.items() if proc.poll() is None and p not in self.paused]

    @staticmethod
    def _wait(check: object, what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if check():  # type: ignore[operator]
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"private cluster: {what} not within {timeout} s")
            time.sleep(0.1)

    def wait_ok(self, exclude: tuple[int, ...] = ()) -> None:
        """Every live node says cluster_state:ok and sees all 16384 slots served."""

        def ok() -> bool:
            for port in self.alive():
                if port in exclude:
                    continue
                info = self.client(port).cluster("info")
                if info.get("cluster_state") != "ok" or int(info["cluster_slots_ok"]) != 16384:
                    return False
            return True

        self._wait(ok, "cluster_state:ok")

    def wait_replicas(self) -> None:
        """Three masters, each with a replica that has synced (so it can take over)."""

        def synced() -> bool:
            masters = 0
            for port in self.alive():
                info = self.client(port).info("replication")
                if info["role"] == "slave" and info.get("master_link_status") != "up":
                    return False
                if info["role"] == "master":
                    masters += 1
                    if not info.get("connected_slaves"):
                        return False  # a node back from the dead, not yet told it is a replica
            return masters == 3

        def roles() -> str:
            out = []
            for port in self.alive():
                info = self.client(port).info("replication")
                out.append(f"{port}: {info['role']} {info.get('master_link_status', '')}")
            return ", ".join(out)

        try:
            self._wait(synced, "replicas in sync")
        except TimeoutError as exc:
            raise TimeoutError(f"{exc} ({roles()})") from None

    def master_of(self, key: str, ask: int | None = None) -> int:
        """The port of the master that serves ``key``'s slot, as node ``ask`` sees it."""
        slot = key_slot(key.encode())
        port = ask if ask is not None else next(p for p in self.alive())
        for start, end, master, *_ in _command(self.client(port), "CLUSTER SLOTS"):
            if start <= slot <= end:
                return int(master[1])
        raise LookupError(slot)

    def node_id(self, port: int) -> str:
        return str(_command(self.client(port), "CLUSTER MYID").decode())

    def move_slot(self, slot: int, target: int) -> None:
        """Give an empty slot (no keys to MIGRATE) to master ``target`` the way resharding does:
        IMPORTING on the target, MIGRATING on the owner, then NODE on the target (which bumps
        its config epoch, so the whole cluster takes the change) and on every other master.
        The old owner drops the slot's shard channels (SUNSUBSCRIBE to their subscribers)."""
        source = self._owner_of_slot(slot)
        target_id, source_id = self.node_id(target), self.node_id(source)
        _command(self.client(target), "CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        _command(self.client(source), "CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        _command(self.client(target), "CLUSTER", "SETSLOT", slot, "NODE", target_id)
        _command(self.client(source), "CLUSTER", "SETSLOT", slot, "NODE", target_id)
        for port in self.alive():
            if port not in (source, target) and _command(self.client(port), "ROLE")[0] == b"master":
                _command(self.client(port), "CLUSTER", "SETSLOT", slot, "NODE", target_id)

    def _owner_of_slot(self, slot: int) -> int:
        for start, end, master, *_ in _command(self.client(self.alive()[0]), "CLUSTER SLOTS"):
            if start <= slot <= end:
                return int(master[1])
        raise LookupError(slot)


class LocalRedis:
    """One redis-server on a free port in a temporary directory; ``appendonly``: with its
    append-only file (fsync every second, Redis's default), so a restart reads its data back.
    Without it (and without snapshots) a restart starts empty."""

    def __init__(self, appendonly: bool) -> None:
        self.port = free_port()
        self.appendonly = appendonly
        self.dir = Path(tempfile.mkdtemp(prefix="hearts-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=1)

    def start(self) -> LocalRedis:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "yes" if self.appendonly else "no",
                "--dir",
                str(self.dir),
                "--logfile",
                str(self.dir / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Ready once it answers and has read its append-only file back.
        LocalCluster._wait(
            lambda: (
                bool(self.client().ping()) and self.client().info("persistence")["loading"] == 0
            ),
            f"redis-server on {self.port} up",
        )
        return self

    def kill(self) -> None:
        """SIGKILL: a crash (no shutdown, no last write of the append-only file)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)
