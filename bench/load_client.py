"""bench.load's load generator: one client process's tables, players and spectators.

Each socket is a minimal WebSocket client on asyncio's Protocol (no per-message task, zero
mask key, frames parsed by hand) that reads a state's version and status with ``bytes.find``
and parses JSON only when its seat has a move to make. Every socket of a table lives in the
same client process, so latencies use one clock.

A socket the server closes comes back as the page's does (static/js/socket.js,
static/js/table.js): not after a "do not come back" code (4400, 4401, 4403, 4404, 4429, 4008);
after 1012 (an instance stopping) within a random 0-0.5 s; otherwise after 0.3 s doubling to
5 s (plus up to 0.2 s), the count reset once it is welcomed again. It says hello with the last
version it saw, and once welcomed sends again, with their ids, the moves that have no answer
yet. A move answered ``store_unavailable`` is sent again after its ``retry_after``, five times
at most. A failover run (bench/failover.py) counts what this costs: reconnections, moves sent
again, the longest a table went without a new version, and acknowledged moves that a table
later went back over (a socket of the table got a lower version than one it had).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import random
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

OP_TEXT, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x8, 0x9, 0xA

# Close codes after which the page does not come back by itself (docs/protocol.md).
FINAL_CLOSE = frozenset({4400, 4401, 4403, 4404, 4429, 4008})
SERVICE_RESTART = 1012
CLOSE_UNKNOWN_TABLE = 4404
# A command answered store_unavailable is sent again this many times at most (as the page).
STORE_RETRIES = 5


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


def reconnect_delay(close_code: int | None, attempt: int, rng: random.Random) -> float | None:
    """Seconds before the page opens a closed socket again; None: it does not (a final code)."""
    if close_code in FINAL_CLOSE:
        return None
    if close_code == SERVICE_RESTART:
        return rng.random() * 0.5
    return min(5.0, 0.3 * 2.0**attempt) + rng.random() * 0.2


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
        self.close_code: int | None = None  # the server's close frame's code, if it sent one

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # uvloop's transports are not asyncio.Transport subclasses
        self.transport.write(self.request)

    def send(self, payload: bytes) -> bool:
        """Write one frame; False when the socket is closed or closing (nothing written)."""
        transport = self.transport
        if transport is None or self.closed.done() or transport.is_closing():
            return False
        transport.write(frame(payload))
        return True

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.open.set_exception(RuntimeError(bytes(buf[:end]).decode(errors="replace")))
                self.transport.close()
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
                self.transport.write(frame(payload, OP_PONG))
            elif opcode == OP_CLOSE:
                if len(payload) >= 2:
                    self.close_code = int.from_bytes(payload[:2], "big")
                self.transport.close()
                break
        if pos:
            del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.open.done():
            self.open.set_exception(exc or ConnectionError("closed before the upgrade"))
        if not self.closed.done():
            self.closed.set_result(None)


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
    acked_at: list[float] = field(default_factory=list)  # when each move's ack came
    top: int = -1  # the newest version any socket of the table had
    top_at: float = 0.0  # when it came
    longest_wait: float = 0.0  # seconds the table went without a new version, at most
    longest_wait_end: float = 0.0  # when that wait ended
    lost: set[int] = field(default_factory=set)  # acked versions the table went back over
    stuck: bool = False  # no new version for the run's stall limit: given up
    gone: bool = False  # the server said the table is unknown (4404): its Redis lost it

    def new_version(self, version: int, now: float) -> None:
        """A socket of the table has ``version``: the wait since the last new one ends."""
        if version > self.top:
            if self.top_at and self.started_at and not self.over:
                wait = now - self.top_at
                if wait > self.longest_wait:
                    self.longest_wait, self.longest_wait_end = wait, now
            self.top, self.top_at = version, now

    def went_back(self, to: int, had: int) -> None:
        """A socket that had version ``had`` got ``to`` (lower): the table's Redis lost the
        versions in between, and the acknowledged moves among them with it."""
        self.lost.update(v for v in self.sent if to < v <= had)
        self.top = min(self.top, to)


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
        self.payloads: dict[bytes, bytes] = {}  # what each pending move sent (to send again)
        self.retries: dict[bytes, int] = {}  # store_unavailable answers per pending move
        self.playing = False  # set when the measured run starts
        self.states = 0
        self.acks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seen = -1  # the newest version this socket had (hello's last_version)
        # Where and how to come back after the server closed the socket.
        self.address = ""
        self.token: str | None = None
        self.compact = True
        self.attempt = 0
        self.stopped = False
        self.final: int | None = None  # a "do not come back" close code
        self.reconnects = 0
        self.resent = 0
        self.unavailable = 0  # store_unavailable answers to moves
        self.gave_up = 0  # moves still refused after STORE_RETRIES resends

    def on_text(self, data: bytes) -> None:
        if data.startswith(b'{"type":"state"'):
            self.states += 1
            i = data.find(b'"version":') + 10
            j = data.find(b",", i)
            version = int(data[i:j])
            now = time.perf_counter()
            self.arrivals.setdefault(version, now)
            run = self.run
            if version < self.seen:  # the table went back: its Redis lost versions
                run.went_back(version, self.seen)
                self.acted = -1
            self.seen = version
            run.new_version(version, now)
            if self.soak and self.playing and data.find(b'"status":"over"') >= 0:
                if self.seat == 0 and version > self.rematched:
                    self.rematched = version
                    run.games += 1
                    self.send(orjson.dumps({"type": "rematch", "id": f"rematch-{version}"}))
                return
            if not run.over and data.find(b'"status":"over"') >= 0 and self.playing:
                run.over = True
                run.ended_at = now
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
            self.payloads.pop(mid, None)
            self.retries.pop(mid, None)
            if sent is not None:
                self.run.sent[msg["version"]] = sent[0]
                self.run.acked_at.append(time.perf_counter())
                if sent[1]:
                    self.run.passes.add(msg["version"])
                self.run.moves += 1
            elif msg["id"].startswith("setup"):
                self.acks.put_nowait(msg)
        elif data.startswith(b'{"type":"welcome"'):
            self.attempt = 0
            for payload in list(self.payloads.values()):  # as the page's resendPending
                if self.send(payload):
                    self.resent += 1
        elif data.startswith(b'{"type":"error"'):
            self.on_error(orjson.loads(data))

    def on_error(self, msg: dict[str, Any]) -> None:
        mid = str(msg.get("id") or "").encode()
        if msg.get("code") == "unknown_table" and not mid:
            self.table_gone()  # its Redis lost it (restarted without its file)
            return
        if msg.get("code") == "store_unavailable" and mid in self.pending:
            self.unavailable += 1
            tries = self.retries.get(mid, 0) + 1
            if tries <= STORE_RETRIES:  # nothing was applied: the same id again, later
                self.retries[mid] = tries
                wait = min(max(float(msg.get("retry_after") or 2), 0.5), 30.0)
                asyncio.get_running_loop().call_later(wait, self.send_again, mid)
                return
            self.gave_up += 1
        self.pending.pop(mid, None)
        self.payloads.pop(mid, None)
        self.retries.pop(mid, None)
        if msg.get("code") == "stale_version":
            self.acted = -1
        elif str(msg.get("id") or "").startswith("setup"):
            self.acks.put_nowait(msg)

    def send_again(self, mid: bytes) -> None:
        payload = self.payloads.get(mid)
        if payload is not None and self.send(payload):
            self.resent += 1

    def send(self, payload: bytes) -> bool:
        """Send on the socket if it is open; False otherwise (a pending move then goes out
        again once the socket is welcomed back)."""
        return self.ws is not None and self.ws.send(payload)

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
        key = mid.encode()
        self.pending[key] = (time.perf_counter(), is_pass)
        self.payloads[key] = payload
        self.send(payload)

    async def connect(self, address: str, token: str | None, compact: bool) -> None:
        self.address, self.token, self.compact = address, token, compact
        await self._open()

    async def _open(self) -> None:
        host, port = self.address.rsplit(":", 1)
        loop = asyncio.get_running_loop()
        _, proto = await loop.create_connection(
            lambda: WsClient(self.address, f"/ws/tables/{self.run.table_id}", self.on_text),
            host,
            int(port),
        )
        await proto.open
        self.ws = proto
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        if self.compact:
            hello["compact"] = True
        if self.seen >= 0:
            hello["last_version"] = self.seen
        proto.send(orjson.dumps(hello))
        proto.closed.add_done_callback(lambda _: self._closed(proto))

    def _closed(self, proto: WsClient) -> None:
        if self.stopped or proto is not self.ws:
            return
        delay = reconnect_delay(proto.close_code, self.attempt, self.rng)
        if delay is None:
            self.final = proto.close_code
            if proto.close_code == CLOSE_UNKNOWN_TABLE:
                self.table_gone()
            return
        self.attempt += 1
        asyncio.get_running_loop().call_later(delay, self._reconnect)

    def table_gone(self) -> None:
        """The server no longer knows the table (an error or a close saying unknown_table)."""
        if not self.run.over:
            self.run.gone = self.run.over = True  # nothing to play: it ends here
            self.done()

    def _reconnect(self) -> None:
        if self.stopped:
            return
        task = asyncio.ensure_future(self._open())
        task.add_done_callback(self._reconnected)

    def _reconnected(self, task: asyncio.Future[None]) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:  # refused, or closed before the upgrade: again
            delay = reconnect_delay(None, self.attempt, self.rng)
            self.attempt += 1
            asyncio.get_running_loop().call_later(delay or 0.3, self._reconnect)
            return
        self.reconnects += 1

    def stop(self) -> None:
        self.stopped = True
        if self.ws is not None and self.ws.transport is not None:
            self.ws.transport.close()

    def start_game(self) -> None:
        self.run.started_at = time.perf_counter()
        self.run.top_at = self.run.started_at
        self.send(orjson.dumps({"type": "start", "id": "go"}))

    async def command(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.send(orjson.dumps({"type": kind, "id": f"setup-{kind}", **fields}))
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


async def watch_stalls(tables: list[TableRun], stall_s: float, one_done: Any) -> None:
    """End a table that had no new version for ``stall_s`` seconds (counted as stuck), so a
    run that broke a table still ends and reports."""
    while True:
        await asyncio.sleep(1.0)
        now = time.perf_counter()
        for run in tables:
            if not run.over and run.started_at and now - run.top_at > stall_s:
                run.stuck = run.over = True
                one_done()


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
    stalls = None
    if job.get("stall_s"):
        stalls = asyncio.ensure_future(watch_stalls(tables, job["stall_s"], one_done))
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
    if stalls is not None:
        stalls.cancel()
    for s in seats:
        s.stop()
    for run in tables:
        for sent, latency, play in delivered(run, list(run.sent)):
            latencies.append(latency)
            timeline.append((sent - start, latency))
            if play:
                play_latencies.append(latency)
    longest = max(tables, key=lambda r: r.longest_wait, default=None)
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
            "acked_at": [t for r in tables for t in r.acked_at],
            "lost_acked": sum(len(r.lost) for r in tables),
            "longest_wait": longest.longest_wait if longest else 0.0,
            "longest_wait_end": longest.longest_wait_end if longest else 0.0,
            "longest_wait_table": longest.table_id if longest else "",
            "reconnects": sum(s.reconnects for s in seats),
            "resent": sum(s.resent for s in seats),
            "store_unavailable": sum(s.unavailable for s in seats),
            "gave_up": sum(s.gave_up for s in seats),
            "stuck": sum(r.stuck for r in tables),
            "gone": sum(r.gone for r in tables),
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
