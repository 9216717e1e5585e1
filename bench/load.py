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
import asyncio
import base64
import contextlib
import multiprocessing
import os
import random
import statistics
import struct
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

from app.store import keys

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-key-0123456789"


# -- servers ---------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


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


# -- Redis: one server or each node of a Cluster ----------------------------------------------


def is_cluster(url: str) -> bool:
    return url.split("://", 1)[0] in ("redis+cluster", "rediss+cluster")


def cluster_client(url: str) -> Any:
    """A redis-py Cluster client for ``redis+cluster://host:port[,host:port...]``."""
    from redis.cluster import ClusterNode, RedisCluster

    scheme, rest = url.split("://", 1)
    rest = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    nodes = [
        ClusterNode(h, int(p))  # type: ignore[no-untyped-call]
        for h, p in (x.rsplit(":", 1) for x in rest.split(","))
    ]
    return RedisCluster(startup_nodes=nodes, ssl=scheme.startswith("rediss"))


def redis_client(url: str) -> Any:
    """A client that routes each key to its node (a Cluster client on a cluster URL)."""
    return cluster_client(url) if is_cluster(url) else redis.Redis.from_url(url)


def redis_nodes(url: str) -> list[tuple[str, Any]]:
    """(name, client) of each Redis server: the one of ``redis://``, or every master and
    replica of a Cluster (a replica's name ends with ``(replica)``)."""
    if not is_cluster(url):
        client = redis.Redis.from_url(url)
        kwargs = client.connection_pool.connection_kwargs
        return [(f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}", client)]
    cluster = cluster_client(url)
    out = []
    for node in sorted(cluster.get_nodes(), key=lambda n: (n.server_type != "primary", n.port)):
        name = f"{node.host}:{node.port}" + ("" if node.server_type == "primary" else " (replica)")
        out.append(
            (name, redis.Redis(host=node.host, port=node.port, ssl=url.startswith("rediss")))
        )
    cluster.close()
    return out


INFO_FIELDS = (
    "cmdstat_evalsha",  # the calls of EVALSHA (INFO commandstats)
    "used_cpu_sys",
    "used_cpu_user",
    "total_commands_processed",
    "total_net_input_bytes",
    "total_net_output_bytes",
    "used_memory",
)


def redis_info(nodes: list[tuple[str, Any]]) -> list[dict[str, float]]:
    """The INFO counters bench.load reports, per node."""
    out = []
    for _, client in nodes:
        info = client.info("all")
        info["cmdstat_evalsha"] = (info.get("cmdstat_evalsha") or {}).get("calls", 0)
        out.append({name: float(info.get(name, 0)) for name in INFO_FIELDS})
    return out


def redis_deltas(
    before: list[dict[str, float]], after: list[dict[str, float]]
) -> list[dict[str, float]]:
    return [{k: a[k] - b[k] for k in INFO_FIELDS} for b, a in zip(before, after, strict=True)]


def namespace_keys(nodes: list[tuple[str, Any]], namespace: str) -> list[tuple[Any, bytes]]:
    """Every key whose name holds ``namespace`` (the run's own global and per-shard keys),
    with the node that holds it (masters only: a replica refuses the delete)."""
    found = []
    for name, client in nodes:
        if name.endswith("(replica)"):
            continue
        for key in client.scan_iter(match=f"*{namespace}*", count=1000):
            found.append((client, key))
    return found


def results_streams(nodes: list[tuple[str, Any]], namespace: str) -> list[tuple[Any, bytes]]:
    """The run's results streams (one, or one per shard), once records were written."""
    return [
        (client, key)
        for client, key in namespace_keys(nodes, namespace)
        if key.endswith(b":results") and client.type(key) == b"stream"
    ]


@contextlib.contextmanager
def servers(
    count: int, redis_url: str, namespace: str, extra_env: dict[str, str]
) -> Iterator[list[tuple[str, int]]]:
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
                # from one address: the per-player and per-address limits (README "Limits and
                # fair play") are lifted, as a deployment behind one proxy would configure.
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
            proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env)
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


# -- a minimal WebSocket client ----------------------------------------------------------------

OP_TEXT, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x8, 0x9, 0xA


def frame(payload: bytes, opcode: int = OP_TEXT) -> bytes:
    """A client frame with a zero mask key (masking with zeros leaves the payload as it is)."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + b"\0\0\0\0" + payload


class WsClient(asyncio.Protocol):
    """One socket: handshake, then unmasked server frames parsed from a byte buffer."""

    def __init__(self, host: str, path: str, on_text: Any) -> None:
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n\r\n"
        ).encode()
        self.on_text = on_text
        self.buf = bytearray()
        self.open = asyncio.get_running_loop().create_future()
        self.closed = asyncio.get_running_loop().create_future()
        self.transport: Any = None
        self.upgraded = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # uvloop's transports are not asyncio.Transport subclasses
        self.transport.write(self.request)

    def send(self, payload: bytes) -> None:
        assert self.transport is not None
        self.transport.write(frame(payload))

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.open.set_exception(RuntimeError(bytes(buf[:end]).decode(errors="replace")))
                return
            del buf[: end + 4]
            self.upgraded = True
            self.open.set_result(None)
        pos = 0
        size = len(buf)
        while size - pos >= 2:
            b0 = buf[pos]
            n = buf[pos + 1] & 0x7F
            head = 2
            if n == 126:
                if size - pos < 4:
                    break
                n = (buf[pos + 2] << 8) | buf[pos + 3]
                head = 4
            elif n == 127:
                if size - pos < 10:
                    break
                n = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if size - pos < head + n:
                break
            payload = bytes(buf[pos + head : pos + head + n])
            pos += head + n
            opcode = b0 & 0x0F
            if opcode == OP_TEXT:
                self.on_text(payload)
            elif opcode == OP_PING:
                assert self.transport is not None
                self.transport.write(frame(payload, OP_PONG))
            elif opcode == OP_CLOSE:
                assert self.transport is not None
                self.transport.close()
        if pos:
            del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.open.done():
            self.open.set_exception(exc or ConnectionError("closed before the upgrade"))
        if not self.closed.done():
            self.closed.set_result(None)


# -- one client process ------------------------------------------------------------------------


@dataclass
class TableRun:
    table_id: str
    sent: dict[int, float] = field(default_factory=dict)  # version of a move -> send time
    passes: set[int] = field(default_factory=set)  # versions of pass moves
    arrivals: list[dict[int, float]] = field(default_factory=list)  # per socket: version -> t
    moves: int = 0
    over: bool = False
    games: int = 0  # games finished (a soak plays several)
    started_at: float = 0.0
    ended_at: float = 0.0


def random_move(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random move among those a view's ``legal`` offers, as the protocol writes it."""
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


class Seat:
    """A scripted player (seat 0-3) or a spectator (seat None) on one table."""

    def __init__(
        self,
        run: TableRun,
        seat: int | None,
        rng: random.Random,
        done: Any,
        think_ms: float,
        soak: bool = False,
    ) -> None:
        self.think = think_ms / 1000
        self.soak = soak  # play game after game: the host asks for a rematch at each end
        self.rematched = -1  # the version a rematch was asked at
        self.run = run
        self.seat = seat
        self.rng = rng
        self.done = done
        self.arrivals: dict[int, float] = {}
        run.arrivals.append(self.arrivals)
        self.ws: WsClient | None = None
        self.acted = -1
        self.n = 0
        self.pending: dict[bytes, tuple[float, bool]] = {}
        self.playing = False  # set when the measured run starts
        self.states = 0
        self.acks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def on_text(self, data: bytes) -> None:
        if data.startswith(b'{"type":"state"'):
            self.states += 1
            i = data.find(b'"version":') + 10
            j = data.find(b",", i)
            version = int(data[i:j])
            self.arrivals.setdefault(version, time.perf_counter())
            run = self.run
            if self.soak and self.playing and data.find(b'"status":"over"') >= 0:
                if self.seat == 0 and version > self.rematched:
                    self.rematched = version
                    run.games += 1
                    assert self.ws is not None
                    self.ws.send(orjson.dumps({"type": "rematch", "id": f"rematch-{version}"}))
                return
            if not run.over and data.find(b'"status":"over"') >= 0 and self.playing:
                run.over = True
                run.ended_at = time.perf_counter()
                self.done()
            if (
                self.seat is None
                or not self.playing
                or run.over
                or version <= self.acted
                or data.find(b'"legal":{') < 0
            ):
                return
            self.act(orjson.loads(data), version)
        elif data.startswith(b'{"type":"ack"'):
            msg = orjson.loads(data)
            mid = msg["id"].encode()
            sent = self.pending.pop(mid, None)
            if sent is not None:
                self.run.sent[msg["version"]] = sent[0]
                if sent[1]:
                    self.run.passes.add(msg["version"])
                self.run.moves += 1
            elif msg["id"].startswith("setup"):
                self.acks.put_nowait(msg)
        elif data.startswith(b'{"type":"error"'):
            msg = orjson.loads(data)
            self.pending.pop(str(msg.get("id", "")).encode(), None)
            if msg.get("code") == "stale_version":
                self.acted = -1
            elif msg.get("id", "").startswith("setup"):
                self.acks.put_nowait(msg)

    def act(self, msg: dict[str, Any], version: int) -> None:
        legal = msg["view"]["legal"]
        kind = legal["type"]
        move = random_move(legal, self.rng)
        self.acted = version
        self.n += 1
        mid = f"{self.seat}-{self.n}"
        payload = orjson.dumps({"type": "move", "id": mid, "move": move})  # as the front end
        is_pass = kind == "pass"
        if self.think:
            asyncio.get_running_loop().call_later(self.think, self.send_move, mid, payload, is_pass)
        else:
            self.send_move(mid, payload, is_pass)

    def send_move(self, mid: str, payload: bytes, is_pass: bool) -> None:
        self.pending[mid.encode()] = (time.perf_counter(), is_pass)
        assert self.ws is not None
        self.ws.send(payload)

    async def connect(self, address: str, token: str | None, compact: bool) -> None:
        host, port = address.rsplit(":", 1)
        loop = asyncio.get_running_loop()
        _, proto = await loop.create_connection(
            lambda: WsClient(address, f"/ws/tables/{self.run.table_id}", self.on_text),
            host,
            int(port),
        )
        await proto.open
        self.ws = proto
        hello: dict[str, Any] = {"type": "hello", "token": token}
        if compact:
            hello["compact"] = True
        proto.send(orjson.dumps(hello))

    def start_game(self) -> None:
        self.run.started_at = time.perf_counter()
        assert self.ws is not None
        self.ws.send(orjson.dumps({"type": "start", "id": "go"}))

    async def command(self, kind: str, **fields: Any) -> dict[str, Any]:
        assert self.ws is not None
        self.ws.send(orjson.dumps({"type": kind, "id": f"setup-{kind}", **fields}))
        return await asyncio.wait_for(self.acks.get(), 60)


def delivered(run: TableRun, versions: list[int]) -> Iterator[tuple[float, float, bool]]:
    """(send time, ms until every socket of the table had the move's view, a play rather than
    a pass) for the moves of ``versions`` that reached every socket."""
    for version in versions:
        sent = run.sent[version]
        last = 0.0
        for arrivals in run.arrivals:
            at = arrivals.get(version)
            if at is None:  # a later version arrived first (coalesced): the first after
                at = min((t for v, t in arrivals.items() if v >= version), default=None)
            if at is not None and at > last:
                last = at
        if last:
            yield sent, (last - sent) * 1000, version not in run.passes


def harvest(run: TableRun, before: float) -> list[tuple[float, bool]]:
    """A soak's running figures: the latencies of the moves sent before ``before`` (long
    enough ago to be delivered), forgotten with the arrivals they needed, so that a long run
    keeps no growing history in the load generator."""
    done = sorted(v for v, t in run.sent.items() if t < before)
    out = [(latency, play) for _, latency, play in delivered(run, done)]
    for version in done:
        del run.sent[version]
        run.passes.discard(version)
    if done:
        keep = min(run.sent, default=done[-1] + 1)
        for arrivals in run.arrivals:
            for version in [v for v in arrivals if v < keep]:
                del arrivals[version]
    return out


async def answered(seats: list[Seat], timeout: float) -> int:
    """Wait until every move sent has its answer (ack or error), at most ``timeout`` seconds;
    the number still unanswered. A table is over as soon as one of its sockets has the last
    view, and the mover's ack can come after it (the other instance has the published view
    before the mover's has the commit's reply): counting the acks then missed the last moves
    of the tables that ended last (22,387 of 22,400 in one run on the cluster)."""
    deadline = time.perf_counter() + timeout
    while any(s.pending for s in seats) and time.perf_counter() < deadline:
        await asyncio.sleep(0.005)
    return sum(len(s.pending) for s in seats)


async def client_main(job: dict[str, Any], barrier: Any, results: Any) -> None:
    tables: list[TableRun] = []
    seats: list[Seat] = []
    remaining = len(job["tables"])
    all_over = asyncio.Event()
    if not remaining:  # more client processes than tables: nothing to wait for
        all_over.set()

    def one_done() -> None:
        nonlocal remaining
        remaining -= 1
        if remaining == 0:
            all_over.set()

    for spec in job["tables"]:
        run = TableRun(spec["id"])
        tables.append(run)
        for i, address in enumerate(spec["addresses"]):
            seat = i if i < 4 else None
            s = Seat(
                run,
                seat,
                random.Random(hash((spec["id"], i))),
                one_done,
                job["think_ms"],
                soak=job["soak_s"] > 0,
            )
            token = job["tokens"][i] if seat is not None else None
            await s.connect(address, token, job["compact"])
            seats.append(s)
        # Seat players 1-3 (player 0 created the table and sits already).
        for s in seats[-len(spec["addresses"]) :][1:4]:
            reply = await s.command("sit", seat=s.seat)
            if reply["type"] != "ack":
                raise SystemExit(f"sit failed: {reply}")
    await asyncio.sleep(0.5)
    await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
    start = time.perf_counter()
    for s in seats:
        s.playing = True
    hosts = [s for s in seats if s.seat == 0]
    gap = job["stagger_ms"] / 1000 / max(1, len(hosts))
    loop = asyncio.get_running_loop()
    for i, s in enumerate(hosts):
        # Tables start spread over --stagger-ms (not all in the same instant).
        loop.call_later(i * gap, s.start_game)
    latencies: list[float] = []
    play_latencies: list[float] = []
    timeline: list[tuple[float, float]] = []  # (seconds since the start, latency ms)
    if job["soak_s"] > 0:
        # A report each minute (the parent adds the server's memory), then the final one.
        minute = 0
        while (minute + 1) * 60 <= job["soak_s"]:
            minute += 1
            await asyncio.sleep(max(0.0, start + minute * 60 - time.perf_counter()))
            cut = time.perf_counter() - 2.0  # moves sent 2 s ago have been delivered
            values = [x for run in tables for x in harvest(run, cut)]
            latencies += [latency for latency, _ in values]
            play_latencies += [latency for latency, play in values if play]
            results.put({"minute": minute, "latencies": [latency for latency, _ in values]})
        await asyncio.sleep(max(0.0, start + job["soak_s"] - time.perf_counter()))
        for s in seats:
            s.playing = False  # no new moves; those under way are answered
        all_over.set()
        await asyncio.sleep(2.0)  # the last moves' views arrive
        for run in tables:
            values = harvest(run, time.perf_counter())
            latencies += [latency for latency, _ in values]
            play_latencies += [latency for latency, play in values if play]
    await asyncio.wait_for(all_over.wait(), job["timeout"])
    end = time.perf_counter() if not job["soak_s"] else start + job["soak_s"]
    unanswered = await answered(seats, 10.0)
    for run in tables:
        for sent, latency, play in delivered(run, list(run.sent)):
            latencies.append(latency)
            timeline.append((sent - start, latency))
            if play:
                play_latencies.append(latency)
    results.put(
        {
            "moves": sum(r.moves for r in tables),
            "unanswered": unanswered,
            "start": start,
            "end": end,
            "latencies": latencies,
            "play_latencies": play_latencies,
            "timeline": timeline,
            "table_ids": [r.table_id for r in tables],
            "games": sum(r.games for r in tables),
            "cpu": time.process_time(),
        }
    )
    await asyncio.sleep(0.2)


def client_process(job: dict[str, Any], barrier: Any, results: Any) -> None:
    import uvloop

    try:
        uvloop.run(client_main(job, barrier, results))
    except BaseException as exc:  # report and let the parent fail clearly
        results.put({"error": repr(exc)})
        with contextlib.suppress(Exception):
            barrier.abort()
        raise


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


def run_load(addresses: list[str], pids: list[int], args: argparse.Namespace) -> dict[str, Any]:
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
            return sum(int(client.xlen(key)) for client, key in streams)

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
            for (name, _), d in zip(nodes, redis_deltas(info_setup, info_before), strict=True)
            if not name.endswith("(replica)")
        )
        if info_setup
        else 0.0
    )
    for _, node in nodes:
        node.close()
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
    masters = [d for (name, _), d in zip(nodes, run, strict=True) if not name.endswith("(replica)")]
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
        "redis_nodes": [name for name, _ in nodes],
        "redis_cpu_us_per_move": redis_cpu,
        "redis_commands_per_move": sum(d["total_commands_processed"] for d in masters) * per_move,
        "redis_scripts_per_move": sum(d["cmdstat_evalsha"] for d in masters) * per_move,
        "redis_in_bytes_per_move": sum(d["total_net_input_bytes"] for d in masters) * per_move,
        "redis_out_bytes_per_move": sum(d["total_net_output_bytes"] for d in masters) * per_move,
        "load": os.getloadavg()[0],
        "think_ms": think_ms,
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
    args = parser.parse_args()
    if args.redis_url is None:
        args.redis_url = (
            "redis+cluster://127.0.0.1:7101" if args.cluster else "redis://127.0.0.1:6379/0"
        )
    if args.address:
        report(run_load([args.address], args.pid, args))
        return
    extra = dict(item.split("=", 1) for item in args.server_env)
    for count in args.instances:
        namespace = "bench" + uuid.uuid4().hex[:8]
        try:
            args.namespace = namespace
            with servers(count, args.redis_url, namespace, extra) as started:
                report(run_load([a for a, _ in started], [p for _, p in started], args))
        finally:
            # The namespace's global and per-shard keys have no expiry (the tables' keys do).
            nodes = redis_nodes(args.redis_url)
            for client, key in namespace_keys(nodes, namespace):
                client.delete(key)
            for _, client in nodes:
                client.close()


if __name__ == "__main__":
    main()
