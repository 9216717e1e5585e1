"""The durable write path: finished hands and games go through Redis streams to SQL.

The live table never waits on SQL: its commit script XADDs the records to the results stream
of the table's shard (app.store.keys: one stream per shard, ``keys.SHARDS`` of them, each in
its shard's slot). `OutboxWorker`s (one or more per process, on any number of instances) read
every shard's stream as one consumer group per stream, write the records they take in SQL
transactions of up to ``records_per_transaction`` records each (idempotent, see
`app.db.results`; new records are gathered for up to ``gather_ms`` to fill one), and
acknowledge and delete them only after the commit. A transaction that fails for another reason
than an unreachable database is rolled back whole and its records are written again one by
one, so a record that fails alone neither blocks nor loses the others. While the database is
down a worker keeps its records pending and retries with backoff; if a worker dies, another
claims its pending records after `claim_idle_ms`. Nothing is trimmed by length, so a long
outage loses nothing (the streams grow, which Redis's append-only file keeps across a
restart). A record that can never be written goes to the
dead letters beside its stream (``<stream>:dead``, same slot), in the step that acknowledges
it.

The streams of all shards cannot be read in one blocking XREADGROUP on Redis Cluster (their
keys are in different slots), so a worker reads them all in one pipelined round trip and,
when none had anything, waits ``IDLE_POLL_S`` before the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import sqlalchemy as sa

from app.db.database import Database
from app.db.deployment import DeploymentMismatch, claim, read_database_id
from app.db.events import BadEvent, GameRecord, HandRecord, parse_event
from app.db.results import write_event, write_records
from app.metrics import record_sql_write
from app.store import keys
from app.store.records import EVENT_KINDS, FIELD, encode_event

__all__ = [
    "EVENT_KINDS",
    "FIELD",
    "GROUP",
    "OutboxWorker",
    "dead_letter_key",
    "encode_event",
    "enqueue",
    "pending_count",
]

log = logging.getLogger(__name__)

GROUP = "sql-writer"
DEFAULT_NAMESPACE = "hearts"

# Errors that mean "the database is unreachable or failed over": retry without limit.
_UNAVAILABLE = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
)


def dead_letter_key(stream: str) -> str:
    return keys.dead_letters_key(stream)


async def enqueue(
    redis: Any,
    event: Mapping[str, Any],
    *,
    namespace: str = DEFAULT_NAMESPACE,
    stream: str | None = None,
) -> None:
    """Add a finished-hand or finished-game record to the results stream of its table's
    shard, or to ``stream`` (one XADD). The commit script adds them itself; this is for
    callers outside a commit (tests, tools).

    Delivery to SQL is at least once from here and exactly once in SQL: enqueueing the same
    record twice (e.g. after a retried move) writes it once.
    """
    if stream is None:
        stream = keys.results_key(namespace, keys.shard_of(str(event.get("table_id", ""))))
    await redis.xadd(stream, {FIELD: encode_event(event)})


def _field(fields: Mapping[Any, Any]) -> bytes | str | None:
    value: bytes | str | None = fields.get(FIELD.encode()) if fields else None
    if value is None and fields:
        value = fields.get(FIELD)
    return value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


# With nothing to write, the worker looks for new records at least this far apart.
IDLE_POLL_S = 0.25


class OutboxWorker:
    """Moves results records from Redis to SQL; run several, anywhere, safely."""

    def __init__(
        self,
        redis: Any,
        database: Database,
        *,
        namespace: str | None = None,
        streams: Sequence[str] | None = None,
        stream: str | None = None,
        group: str = GROUP,
        consumer: str | None = None,
        batch: int = 50,
        block_ms: int = 2000,
        claim_idle_ms: int = 60_000,
        retry_base: float = 0.5,
        retry_max: float = 30.0,
        max_attempts: int = 10,
        records_per_transaction: int = 50,
        gather_ms: int = 50,
    ) -> None:
        self.redis = redis
        # The Redis namespace whose streams these are: before taking a record the worker
        # checks that the namespace belongs to its database (app.db.deployment); None skips
        # the check.
        self.namespace = namespace
        self._identity_checked = namespace is None
        self.database = database
        # Every shard's stream of the namespace, unless told which (``stream``: just one).
        if streams is None:
            streams = [stream] if stream is not None else []
        self.streams: tuple[str, ...] = tuple(streams) or keys.results_keys(
            namespace or DEFAULT_NAMESPACE
        )
        # Kept as given, as in other services' constructors (alike in form only).
        self.group = group
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.batch = batch
        # One stream: XREADGROUP blocks this long for new records. Several (in several
        # slots): they are polled, IDLE_POLL_S apart (at most this long) while all are idle.
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.retry_base = retry_base
        self.retry_max = retry_max
        self.max_attempts = max_attempts
        # Records written in one SQL transaction, at most; and how long a read of new records
        # that brought fewer waits to read again before writing (0: never waits).
        if records_per_transaction < 1 or gather_ms < 0:
            raise ValueError("records_per_transaction must be >= 1 and gather_ms >= 0")
        self.records_per_transaction = records_per_transaction
        self.gather_ms = gather_ms
        self.transactions = 0  # SQL transactions this worker committed
        self.written = 0  # records this worker committed
        self.duplicates = 0  # records found already written
        self.dead = 0  # records sent to the dead letters
        self._attempts: dict[tuple[str, str], int] = {}  # by (stream, entry id)
        self._failures = 0  # consecutive database failures, for the backoff
        self._groups_ready: set[str] = set()
        # Streams where this consumer may hold records it has not finished (all, at first).
        self._pending: set[str] = set(self.streams)
        # Records of dead consumers are looked for at most this often (and at the start).
        self._claim_every_s = min(claim_idle_ms / 4000, 5.0)
        self._claimed_at = float("-inf")
        self._first = 0  # the stream served first (rotates, so none waits behind the others)

    @property
    def stream(self) -> str:
        """The stream, for a worker of one stream."""
        if len(self.streams) != 1:
            raise AttributeError("this worker reads several streams")
        return self.streams[0]

    async def ensure_group(self) -> None:
        missing = [s for s in self.streams if s not in self._groups_ready]
        if not missing:
            return
        pipe = self.redis.pipeline(transaction=False)
        for stream in missing:
            pipe.xgroup_create(stream, self.group, id="0", mkstream=True)
        replies = await pipe.execute(raise_on_error=False)
        for stream, reply in zip(missing, replies, strict=True):
            # redis.ResponseError; fakeredis raises its own subclass
            if isinstance(reply, Exception) and "BUSYGROUP" not in str(reply):
                raise reply
            self._groups_ready.add(stream)

    async def check_identity(self) -> None:
        """Once: claim the namespace for this worker's database, or raise
        ``DeploymentMismatch`` (its streams hold another deployment's results). Raises the
        driver's error while the database does not answer (the caller backs off)."""
        if self._identity_checked or self.namespace is None:
            return
        database_id = await asyncio.to_thread(read_database_id, self.database)
        if database_id is not None:  # None: not migrated yet, and writing fails anyway
            await claim(self.redis, self.namespace, database_id)
        self._identity_checked = True

    async def run(self, stop_event: asyncio.Event) -> None:
        """Work until `stop_event` is set. Survives Redis and database outages."""
        log.info(
            "outbox worker %s started on %d stream(s) (%s...)",
            self.consumer,
            len(self.streams),
            self.streams[0],
        )
        loop = asyncio.get_running_loop()
        while not stop_event.is_set():
            before = self.handled
            started = loop.time()
            try:
                await self.check_identity()
                await self.ensure_group()
                ok = await self.step()
            except asyncio.CancelledError:
                raise
            except DeploymentMismatch as error:
                log.critical("outbox worker %s stops: %s", self.consumer, error)
                return
            except Exception as error:  # Redis down, or anything unexpected: back off, go on
                if "NOGROUP" in str(error):
                    self._groups_ready.clear()
                log.warning("outbox worker %s: %s", self.consumer, error)
                ok = False
            if ok:
                self._failures = 0
                if self.handled == before:
                    # Nothing to do. A real Redis blocked in XREADGROUP until block_ms ran
                    # out (one stream); polled streams and the in-process stand-in answer at
                    # once, so wait out the rest of an idle poll here instead of spinning.
                    idle = min(IDLE_POLL_S, self.block_ms / 1000) - (loop.time() - started)
                    if idle > 0:
                        await _wait(stop_event, idle)
                continue
            self._failures += 1
            delay = min(self.retry_max, self.retry_base * 2 ** min(self._failures - 1, 16))
            await _wait(stop_event, delay * random.uniform(0.75, 1.0))
        log.info("outbox worker %s stopped", self.consumer)

    async def step(self, block_ms: int | None = None) -> bool:
        """Handle one batch: this consumer's pending records first (earlier failures), then
        records left by dead consumers, then new ones. False when the database failed."""
        entries = await self._read_pending()
        if not entries:
            entries = await self._claim()
        if not entries:
            block = self.block_ms if block_ms is None else block_ms
            entries = await self._read_new(block)
            if entries and block and self.gather_ms and len(entries) < self.records_per_transaction:
                # A few new records: give the tables a moment to finish more, so that one
                # transaction carries several (a bounded wait: gather_ms once).
                await asyncio.sleep(self.gather_ms / 1000)
                entries += await self._read_new(0)
        size = self.records_per_transaction
        for start in range(0, len(entries), size):
            if not await self._write_batch(entries[start : start + size]):
                return False
        return True

    async def _write_batch(self, entries: Sequence[tuple[str, Any, Any]]) -> bool:
        """Write records in one SQL transaction, then acknowledge them (one MULTI per stream).
        Records that cannot be read go to the dead letters first. If the transaction fails but
        the database answers, each record is written alone (`_handle`: its retries and dead
        letter as before). False when the database failed."""
        batch: list[tuple[str, str, Any, HandRecord | GameRecord]] = []
        skipped: list[tuple[str, str]] = []  # deleted or foreign entries: nothing to write
        for stream, raw_id, fields in entries:
            entry_id = _text(raw_id)
            raw = _field(fields or {})
            if raw is None:
                skipped.append((stream, entry_id))
                continue
            try:
                record = parse_event(orjson.loads(raw))
            except (orjson.JSONDecodeError, BadEvent) as error:
                await self._dead_letter(stream, entry_id, raw, str(error))
                continue
            batch.append((stream, entry_id, fields, record))
        for stream in {s for s, _ in skipped}:
            await self._ack(stream, *[i for s, i in skipped if s == stream])
        if not batch:
            return True
        try:
            started = time.perf_counter()
            outcomes = await asyncio.to_thread(
                write_records, self.database, [record for *_, record in batch]
            )
            seconds = time.perf_counter() - started
        except _UNAVAILABLE as error:
            log.warning(
                "outbox: database unavailable, will retry %d records: %s", len(batch), error
            )
            return False
        except Exception as error:
            log.warning(
                "outbox: a transaction of %d records failed (%s): one by one", len(batch), error
            )
            for stream, entry_id, fields, _ in batch:
                if not await self._handle(stream, entry_id, fields):
                    return False
            return True
        self.transactions += "written" in outcomes
        self.written += outcomes.count("written")
        self.duplicates += outcomes.count("duplicate")
        for stream, entry_id, *_ in batch:
            self._attempts.pop((stream, entry_id), None)
        for stream in dict.fromkeys(s for s, *_ in batch):
            ids = [i for s, i, *_ in batch if s == stream]
            share = seconds * len(ids) / len(batch)
            await self._ack(stream, *ids, sql_seconds=share)
        return True

    async def drain(self) -> None:
        """Handle everything available now, then return (tests, shutdown)."""
        await self.check_identity()
        await self.ensure_group()
        self._claimed_at = float("-inf")
        while True:
            before = self.handled
            if not await self.step(block_ms=0) or self.handled == before:
                return

    @property
    def handled(self) -> int:
        """Records this worker has finished with: written, duplicates and dead letters."""
        return self.written + self.duplicates + self.dead

    def _rotated(self, streams: Sequence[str]) -> list[str]:
        """``streams`` from the one served first in this round on."""
        if not streams:
            return []
        first = self._first % len(streams)
        return [*streams[first:], *streams[:first]]

    async def _read_pending(self) -> list[tuple[str, Any, Any]]:
        """This consumer's records not finished yet (a failed write), in the streams that may
        hold some."""
        streams = self._rotated([s for s in self.streams if s in self._pending])
        if not streams:
            return []
        replies = await self._read_each(streams, "0", block_ms=None)
        found: list[tuple[str, Any, Any]] = []
        for stream, entries in zip(streams, replies, strict=True):
            if entries:
                found.extend((stream, i, f) for i, f in entries)
            else:
                self._pending.discard(stream)
        return found

    async def _read_new(self, block_ms: int) -> list[tuple[str, Any, Any]]:
        streams = self._rotated(self.streams)
        self._first += 1
        replies = await self._read_each(streams, ">", block_ms=block_ms or None)
        found: list[tuple[str, Any, Any]] = []
        for stream, entries in zip(streams, replies, strict=True):
            if entries:
                self._pending.add(stream)  # delivered to this consumer until acknowledged
                found.extend((stream, i, f) for i, f in entries)
        return found

    async def _read_each(
        self, streams: Sequence[str], start: str, *, block_ms: int | None
    ) -> list[list[tuple[Any, Any]]]:
        """XREADGROUP on each stream: one blocking call for one stream, else one pipeline
        (a blocking read of several streams is refused on Cluster: several slots)."""
        if len(streams) == 1:
            kwargs: dict[str, Any] = {"count": self.batch}
            if block_ms:
                kwargs["block"] = block_ms
            reply = await self.redis.xreadgroup(
                self.group, self.consumer, {streams[0]: start}, **kwargs
            )
            return [list(reply[0][1]) if reply else []]
        pipe = self.redis.pipeline(transaction=False)
        for stream in streams:
            pipe.xreadgroup(self.group, self.consumer, {stream: start}, count=self.batch)
        replies = await pipe.execute()
        return [list(reply[0][1]) if reply else [] for reply in replies]

    async def _claim(self) -> list[tuple[str, Any, Any]]:
        """Records delivered to consumers that went quiet for ``claim_idle_ms``."""
        now = time.monotonic()
        if now - self._claimed_at < self._claim_every_s:
            return []
        self._claimed_at = now
        streams = self._rotated(self.streams)
        pipe = self.redis.pipeline(transaction=False)
        for stream in streams:
            pipe.xautoclaim(
                stream,
                self.group,
                self.consumer,
                min_idle_time=self.claim_idle_ms,
                start_id="0-0",
                count=self.batch,
            )
        replies = await pipe.execute()
        found: list[tuple[str, Any, Any]] = []
        for stream, reply in zip(streams, replies, strict=True):
            claimed = list(reply[1]) if reply and len(reply) > 1 else []
            # Entries deleted while pending come back without fields (or are listed apart).
            claimed = [entry for entry in claimed if entry and entry[1]]
            if len(reply) > 2 and reply[2]:
                await self._ack(stream, *[_text(i) for i in reply[2]])
            if claimed:
                self._pending.add(stream)
                found.extend((stream, i, f) for i, f in claimed)
        # A full batch claimed somewhere: there may be more, look again next step.
        if any(len(r[1]) >= self.batch for r in replies if r and len(r) > 1):
            self._claimed_at = float("-inf")
        return found

    async def _handle(self, stream: str, entry_id: str, fields: Mapping[Any, Any] | None) -> bool:
        raw = _field(fields or {})
        if raw is None:  # deleted or foreign entry: nothing to write
            await self._ack(stream, entry_id)
            return True
        try:
            event = orjson.loads(raw)
            started = time.perf_counter()
            outcome = await asyncio.to_thread(write_event, self.database, event)
            seconds = time.perf_counter() - started
        except (orjson.JSONDecodeError, BadEvent) as error:
            await self._dead_letter(stream, entry_id, raw, str(error))
            return True
        except _UNAVAILABLE as error:
            log.warning("outbox: database unavailable, will retry %s: %s", entry_id, error)
            return False
        except Exception as error:
            # A race lost on a unique key, a deadlock, a bug: retry a few times, then set aside.
            attempts = self._attempts.get((stream, entry_id), 0) + 1
            self._attempts[stream, entry_id] = attempts
            if attempts >= self.max_attempts:
                await self._dead_letter(stream, entry_id, raw, f"{type(error).__name__}: {error}")
                return True
            log.warning("outbox: attempt %d of %s failed: %s", attempts, entry_id, error)
            return False
        self._attempts.pop((stream, entry_id), None)
        if outcome == "written":
            self.written += 1
            self.transactions += 1
        else:
            self.duplicates += 1
        await self._ack(stream, entry_id, sql_seconds=seconds)
        return True

    async def _ack(
        self,
        stream: str,
        *entry_ids: str,
        sql_seconds: float | None = None,
        dead: Mapping[str, Any] | None = None,
    ) -> None:
        """Acknowledge and delete records, in one transaction (one slot: the stream, its
        dead letters and its SQL times share its tag) with what goes with it: a dead letter,
        the write's time for /metrics."""
        if not entry_ids:
            return
        pipe = self.redis.pipeline(transaction=True)
        if dead is not None:
            pipe.xadd(keys.dead_letters_key(stream), dict(dead))
        pipe.xack(stream, self.group, *entry_ids)
        pipe.xdel(stream, *entry_ids)
        if sql_seconds is not None:
            record_sql_write(pipe, stream, sql_seconds, count=len(entry_ids))
        await pipe.execute()

    async def _dead_letter(self, stream: str, entry_id: str, raw: bytes | str, error: str) -> None:
        key = keys.dead_letters_key(stream)
        log.error("outbox: record %s set aside in %s: %s", entry_id, key, error)
        await self._ack(stream, entry_id, dead={FIELD: raw, "error": error[:1000], "id": entry_id})
        self._attempts.pop((stream, entry_id), None)
        self.dead += 1


async def _wait(stop_event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop_event.wait(), timeout=seconds)


async def pending_count(redis: Any, *, namespace: str = DEFAULT_NAMESPACE) -> int:
    """Records not yet written to SQL (in every shard's stream, delivered or not)."""
    pipe = redis.pipeline(transaction=False)
    for stream in keys.results_keys(namespace):
        pipe.xlen(stream)
    return sum(int(n) for n in await pipe.execute())
