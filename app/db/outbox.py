"""The durable write path: finished hands and games go through a Redis stream to SQL.

The live table never waits on SQL: it calls `enqueue` (one XADD) and goes on. `OutboxWorker`s
(one or more per process, on any number of instances) read the stream as one consumer group,
write each record in one SQL transaction (idempotent, see `app.db.results`), and acknowledge and
delete it only after the commit. While the database is down a worker keeps its records pending
and retries with backoff; if a worker dies, another claims its pending records after
`claim_idle_ms`. Nothing is trimmed by length, so a long outage loses nothing (the stream grows,
which Redis's append-only file keeps across a restart).
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
from collections.abc import Mapping
from typing import Any

import orjson
import sqlalchemy as sa

from app.db.database import Database
from app.db.deployment import DeploymentMismatch, claim, read_database_id
from app.db.events import EVENT_SCHEMA, BadEvent
from app.db.results import write_event
from app.metrics import record_sql_write

log = logging.getLogger(__name__)

# One hash tag for the stream and its dead letters, so the design holds on Redis Cluster.
STREAM_KEY = "{hearts:outbox}:results"
GROUP = "sql-writer"
FIELD = "event"
EVENT_KINDS = ("hand", "game")

# Errors that mean "the database is unreachable or failed over": retry without limit.
_UNAVAILABLE = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
)


def dead_letter_key(stream: str) -> str:
    return stream + ":dead"


def encode_event(event: Mapping[str, Any]) -> bytes:
    """The stream field value of an event (for a caller that XADDs it itself, e.g. in Lua)."""
    if not isinstance(event, Mapping) or event.get("kind") not in EVENT_KINDS:
        raise ValueError("an outbox event is an object whose 'kind' is 'hand' or 'game'")
    body = dict(event)
    body.setdefault("v", EVENT_SCHEMA)
    return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)


async def enqueue(redis: Any, event: Mapping[str, Any], *, stream: str = STREAM_KEY) -> None:
    """Add a finished-hand or finished-game record to the outbox stream (one XADD).

    Delivery to SQL is at least once from here and exactly once in SQL: enqueueing the same
    record twice (e.g. after a retried move) writes it once.
    """
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
    """Moves outbox records from Redis to SQL; run several, anywhere, safely."""

    def __init__(
        self,
        redis: Any,
        database: Database,
        *,
        stream: str = STREAM_KEY,
        group: str = GROUP,
        consumer: str | None = None,
        batch: int = 50,
        block_ms: int = 2000,
        claim_idle_ms: int = 60_000,
        retry_base: float = 0.5,
        retry_max: float = 30.0,
        max_attempts: int = 10,
        namespace: str | None = None,
    ) -> None:
        self.redis = redis
        # The Redis namespace whose stream this is: before taking a record the worker checks
        # that the namespace belongs to its database (app.db.deployment); None skips the check.
        self.namespace = namespace
        self._identity_checked = namespace is None
        self.database = database
        self.stream = stream
        self.group = group
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.batch = batch
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.retry_base = retry_base
        self.retry_max = retry_max
        self.max_attempts = max_attempts
        self.written = 0  # records this worker committed
        self.duplicates = 0  # records found already written
        self.dead = 0  # records sent to the dead-letter stream
        self._attempts: dict[str, int] = {}
        self._failures = 0  # consecutive database failures, for the backoff
        self._group_ready = False

    async def ensure_group(self) -> None:
        if self._group_ready:
            return
        try:
            await self.redis.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except Exception as error:  # redis.ResponseError; fakeredis raises its own subclass
            if "BUSYGROUP" not in str(error):
                raise
        self._group_ready = True

    async def check_identity(self) -> None:
        """Once: claim the namespace for this worker's database, or raise
        ``DeploymentMismatch`` (its stream holds another deployment's results). Raises the
        driver's error while the database does not answer (the caller backs off)."""
        if self._identity_checked or self.namespace is None:
            return
        database_id = await asyncio.to_thread(read_database_id, self.database)
        if database_id is not None:  # None: not migrated yet, and writing fails anyway
            await claim(self.redis, self.namespace, database_id)
        self._identity_checked = True

    async def run(self, stop_event: asyncio.Event) -> None:
        """Work until `stop_event` is set. Survives Redis and database outages."""
        log.info("outbox worker %s started on %s", self.consumer, self.stream)
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
                    self._group_ready = False
                log.warning("outbox worker %s: %s", self.consumer, error)
                ok = False
            if ok:
                self._failures = 0
                if self.handled == before:
                    # Nothing to do. A real Redis blocked in XREADGROUP until block_ms ran
                    # out; the in-process stand-in answers at once, so wait out the rest of an
                    # idle poll here instead of spinning on a core.
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
        entries = await self._read("0", block_ms=None)
        if not entries:
            entries = await self._claim()
        if not entries:
            entries = await self._read(
                ">", block_ms=self.block_ms if block_ms is None else block_ms
            )
        for entry_id, fields in entries:
            if not await self._handle(_text(entry_id), fields):
                return False
        return True

    async def drain(self) -> None:
        """Handle everything available now, then return (tests, shutdown)."""
        await self.check_identity()
        await self.ensure_group()
        while True:
            before = self.handled
            if not await self.step(block_ms=0) or self.handled == before:
                return

    @property
    def handled(self) -> int:
        """Records this worker has finished with: written, duplicates and dead letters."""
        return self.written + self.duplicates + self.dead

    async def _read(self, start: str, *, block_ms: int | None) -> list[tuple[Any, Any]]:
        kwargs: dict[str, Any] = {"count": self.batch}
        if block_ms:
            kwargs["block"] = block_ms
        reply = await self.redis.xreadgroup(
            self.group, self.consumer, {self.stream: start}, **kwargs
        )
        if not reply:
            return []
        _name, entries = reply[0]
        return list(entries)

    async def _claim(self) -> list[tuple[Any, Any]]:
        reply = await self.redis.xautoclaim(
            self.stream,
            self.group,
            self.consumer,
            min_idle_time=self.claim_idle_ms,
            start_id="0-0",
            count=self.batch,
        )
        claimed = list(reply[1]) if reply and len(reply) > 1 else []
        # Entries deleted while pending come back without fields (or are listed apart).
        for entry in list(claimed):
            if not entry or not entry[1]:
                claimed.remove(entry)
        if len(reply) > 2 and reply[2]:
            await self._ack(*[_text(i) for i in reply[2]])
        return claimed

    async def _handle(self, entry_id: str, fields: Mapping[Any, Any] | None) -> bool:
        raw = _field(fields or {})
        if raw is None:  # deleted or foreign entry: nothing to write
            await self._ack(entry_id)
            return True
        try:
            event = orjson.loads(raw)
            started = time.perf_counter()
            outcome = await asyncio.to_thread(write_event, self.database, event)
            seconds = time.perf_counter() - started
        except (orjson.JSONDecodeError, BadEvent) as error:
            await self._dead_letter(entry_id, raw, str(error))
            return True
        except _UNAVAILABLE as error:
            log.warning("outbox: database unavailable, will retry %s: %s", entry_id, error)
            return False
        except Exception as error:
            # A race lost on a unique key, a deadlock, a bug: retry a few times, then set aside.
            attempts = self._attempts.get(entry_id, 0) + 1
            self._attempts[entry_id] = attempts
            if attempts >= self.max_attempts:
                await self._dead_letter(entry_id, raw, f"{type(error).__name__}: {error}")
                return True
            log.warning("outbox: attempt %d of %s failed: %s", attempts, entry_id, error)
            return False
        self._attempts.pop(entry_id, None)
        if outcome == "written":
            self.written += 1
        else:
            self.duplicates += 1
        await self._ack(entry_id, sql_seconds=seconds)
        return True

    async def _ack(self, *entry_ids: str, sql_seconds: float | None = None) -> None:
        if not entry_ids:
            return
        pipe = self.redis.pipeline(transaction=True)
        pipe.xack(self.stream, self.group, *entry_ids)
        pipe.xdel(self.stream, *entry_ids)
        if sql_seconds is not None:  # the write's time, for /metrics (same round trip)
            record_sql_write(pipe, self.stream, sql_seconds)
        await pipe.execute()

    async def _dead_letter(self, entry_id: str, raw: bytes | str, error: str) -> None:
        key = dead_letter_key(self.stream)
        log.error("outbox: record %s set aside in %s: %s", entry_id, key, error)
        await self.redis.xadd(key, {FIELD: raw, "error": error[:1000], "id": entry_id})
        self._attempts.pop(entry_id, None)
        self.dead += 1
        await self._ack(entry_id)


async def _wait(stop_event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop_event.wait(), timeout=seconds)


async def pending_count(redis: Any, *, stream: str = STREAM_KEY) -> int:
    """Records not yet written to SQL (in the stream, delivered or not)."""
    return int(await redis.xlen(stream))
