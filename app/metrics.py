"""Prometheus metrics (``/metrics``): what an operator watches, at almost no cost per move.

The move path only bumps counters and observes histograms in this process (no I/O). What
lives in Redis (the due sets' lag, the results streams and their dead letters, the SQL write
times the results writers record; one of each per shard) is read when Prometheus scrapes, in
two pipelined round trips with a time limit. One registry per app, so tests can build as many
apps as they like.

Not public by default: ``HEARTS_METRICS_TOKEN`` opens ``/metrics`` on the app's own port to
requests carrying ``Authorization: Bearer <token>``; ``HEARTS_METRICS_PORT`` serves it on a
port of its own (for a network only Prometheus reaches). With neither, ``/metrics`` is 404.
docs/operations.md "Operations" lists every series.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from app.store import keys

if TYPE_CHECKING:
    from app.realtime.hub import Hubs
    from app.realtime.relay import Relay
    from app.settings import Settings
    from app.store import TableStore
    from app.tables.service import TableService


class Services(Protocol):
    """What a scrape reads of the app's services (``app.services.Services`` is one): the hubs
    and the tables' cache of this instance, and Redis through the store."""

    settings: Settings
    redis: Any
    store: TableStore
    tables: TableService
    hubs: Hubs
    relay: Relay | None


log = logging.getLogger(__name__)

# Seconds. Delivery: a commit's round trip plus the views and sends (about a millisecond on an
# idle server); bots: Random/Standard take microseconds, Pro tens of ms, Expert up to seconds.
DELIVERY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BOT_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# SQL writes of finished hands and games (app.db.outbox records them in Redis, see below).
SQL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
SCRAPE_TIMEOUT_SECONDS = 2.0
# The results writers (one per instance, in processes of their own) add each write's time to
# one hash next to the record's stream (one per shard, app.store.keys.sql_time_key): fields
# "b<i>" (writes at most SQL_BUCKETS[i]), "n" (all writes) and "sum" (seconds). Updated in
# the transaction that acknowledges the record; a scrape adds up the shards.
SQL_TIME_TTL_SECONDS = 7 * 86_400


def record_sql_write(pipe: Any, stream: str, seconds: float, count: int = 1) -> None:
    """Queue on ``pipe`` the commands that count ``count`` SQL writes of ``seconds`` in all
    (records written in one transaction: each counts its share of the transaction's time)."""
    key = keys.sql_time_key(stream)
    share = seconds / max(count, 1)
    for i, bound in enumerate(SQL_BUCKETS):
        if share <= bound:
            pipe.hincrby(key, f"b{i}", count)
            break
    pipe.hincrby(key, "n", count)
    pipe.hincrbyfloat(key, "sum", seconds)
    pipe.expire(key, SQL_TIME_TTL_SECONDS)


class _SqlWrites:
    """A collector for the SQL write histogram read from Redis at the last scrape."""

    def __init__(self) -> None:
        self.fields: dict[str, float] = {}

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(
            "hearts_sql_write_seconds",
            "Time to write one finished hand or game to SQL, by every results writer of the "
            "deployment together (the same figure on each instance)",
        )
        running = 0.0
        buckets: list[tuple[str, float]] = []
        for i, bound in enumerate(SQL_BUCKETS):
            running += self.fields.get(f"b{i}", 0.0)
            buckets.append((repr(bound), running))
        buckets.append(("+Inf", self.fields.get("n", 0.0)))
        family.add_metric([], buckets, self.fields.get("sum", 0.0))
        yield family

    def describe(self) -> Iterable[Metric]:
        return list(self.collect())


class Metrics:
    """One app's registry and the instruments the move path touches."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        # One declaration per metric (name, help, labels, registry): Prometheus's form, repeated
        # by design.
        self.commands = Counter(
            "hearts_commands",
            "Table commands by type and outcome (ok, duplicate, refused)",
            ["type", "outcome"],
            registry=r,
        )
        self.errors = Counter(
            "hearts_command_errors", "Refused table commands by error code", ["code"], registry=r
        )
        self.delivery = Histogram(
            "hearts_move_delivery_seconds",
            "From a table change's commit to its state being sent to this instance's sockets",
            buckets=DELIVERY_BUCKETS,
            registry=r,
        )
        self.bot_decision = Histogram(
            "hearts_bot_decision_seconds",
            "Time a computer player took to choose a move, by level",
            ["level"],
            buckets=BOT_BUCKETS,
            registry=r,
        )
        self.sockets = Gauge(
            "hearts_open_sockets", "Open WebSockets on this instance", ["kind"], registry=r
        )
        self.tables = Gauge(
            "hearts_tables",
            "Tables with sockets on this instance, by status (waiting, playing, over)",
            ["status"],
            registry=r,
        )
        self.due_lag = Gauge(
            "hearts_due_lag_seconds",
            "How late the oldest unclaimed due item (bot turn, timer) is (0 when none is)",
            registry=r,
        )
        self.due_overdue = Gauge(
            "hearts_due_overdue", "Due items whose time has come, not claimed yet", registry=r
        )
        self.outbox_backlog = Gauge(
            "hearts_outbox_backlog",
            "Finished hands and games in the results stream, not yet written to SQL",
            registry=r,
        )
        self.dead_letters = Gauge(
            "hearts_outbox_dead_letters",
            "Results set aside in the dead-letter stream (each needs an operator)",
            registry=r,
        )
        self.scrape_errors = Counter(
            "hearts_metrics_scrape_errors",
            "Scrapes whose Redis reads failed or timed out (their gauges keep the last values)",
            registry=r,
        )
        self.sql_writes = _SqlWrites()
        r.register(self.sql_writes)
        self._ok: dict[str, Any] = {}
        self._errors: dict[str, Any] = {}

    # -- the move path: counters only --------------------------------------------------------

    def command(self, kind: str, outcome: str) -> None:
        key = kind + "/" + outcome
        child = self._ok.get(key)
        if child is None:
            child = self._ok[key] = self.commands.labels(kind, outcome)
        child.inc()

    def refused(self, kind: str, code: str) -> None:
        self.command(kind, "refused")
        child = self._errors.get(code)
        if child is None:
            child = self._errors[code] = self.errors.labels(code)
        child.inc()

    def bot_decided(self, level: str, seconds: float) -> None:
        self.bot_decision.labels(level).observe(seconds)

    # -- scrape time -------------------------------------------------------------------------

    async def refresh(self, services: Services) -> None:
        """Read the gauges (this process's sockets and tables, then one bounded Redis trip)."""
        hubs = services.hubs
        self.sockets.labels("table").set(sum(len(h.conns) for h in hubs.tables.values()))
        self.sockets.labels("lobby").set(len(hubs.lobby.conns))
        # Table sockets accepted here and passed on to their table's home, and those served
        # here for another instance (counted in "table" too): app/realtime/relay.py.
        relay = services.relay
        self.sockets.labels("relayed_out").set(len(relay.edges) if relay is not None else 0)
        self.sockets.labels("relayed_in").set(len(relay.homes) if relay is not None else 0)
        counts = {"waiting": 0, "playing": 0, "over": 0}
        cache = services.tables._read_cache  # the copies this instance last read or wrote
        for table_id in hubs.tables:
            cached = cache.get(table_id)
            if cached is not None:
                counts[cached[1].status] = counts.get(cached[1].status, 0) + 1
        for status, count in counts.items():
            self.tables.labels(status).set(count)
        try:
            await asyncio.wait_for(self._read_redis(services), SCRAPE_TIMEOUT_SECONDS)
        except Exception as error:  # Redis down or slow: the scrape still answers
            log.warning("metrics: could not read Redis: %r", error)
            self.scrape_errors.inc()

    async def _read_redis(self, services: Services) -> None:
        # Every shard's due set, results stream, dead letters and SQL times, added up.
        now_ms = time.time() * 1000
        oldest, overdue = await services.store.due_overview(now_ms)
        streams = keys.results_keys(services.settings.redis_namespace)
        pipe = services.redis.pipeline(transaction=False)
        for stream in streams:
            pipe.xlen(stream)
            pipe.xlen(keys.dead_letters_key(stream))
            pipe.hgetall(keys.sql_time_key(stream))
        replies = await pipe.execute()
        self.due_lag.set(max(0.0, (now_ms - oldest) / 1000) if oldest is not None else 0.0)
        self.due_overdue.set(overdue)
        self.outbox_backlog.set(sum(int(n) for n in replies[0::3]))
        self.dead_letters.set(sum(int(n) for n in replies[1::3]))
        fields: dict[str, float] = {}
        for sql in replies[2::3]:
            for k, v in sql.items():
                fields[_text(k)] = fields.get(_text(k), 0.0) + float(v)
        self.sql_writes.fields = fields

    async def exposition(self, services: Services) -> bytes:
        await self.refresh(services)
        return generate_latest(self.registry)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def token_matches(authorization: str | None, token: str) -> bool:
    """Whether an Authorization header carries the bearer ``token`` (constant-time)."""
    if not authorization or not token:
        return False
    scheme, _, given = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip(), token)


class MetricsServer:
    """``/metrics`` on a port of its own (``HEARTS_METRICS_PORT``): a few lines of HTTP/1.1 on
    the app's event loop, so the Redis reads of a scrape share the app's connections."""

    def __init__(self, metrics: Metrics, services: Services, host: str, port: int) -> None:
        self.metrics = metrics
        self.services = services
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        log.info("metrics on http://%s:%d/metrics", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, path, *_ = request.split(b"\r\n", 1)[0].split(b" ")
            if method in (b"GET", b"HEAD") and path.split(b"?", 1)[0] == b"/metrics":
                body = await self.metrics.exposition(self.services)
                head = f"200 OK\r\nContent-Type: {CONTENT_TYPE_LATEST}"
            else:
                body, head = b"not found\n", "404 Not Found\r\nContent-Type: text/plain"
            lines = f"HTTP/1.1 {head}\r\nContent-Length: {len(body)}\r\nConnection: close"
            writer.write(lines.encode() + b"\r\n\r\n" + (b"" if method == b"HEAD" else body))
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            pass
        except Exception:
            log.exception("metrics: a scrape failed")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
