"""The application factory: ``create_app(settings)`` builds one server instance.

Nothing is created at import time. Start-up connects Redis (or the in-process stand-in),
opens the database (applying migrations when asked), and starts this instance's background
work: the pub/sub listener, the due loop (bot turns, timers) and the results outbox worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool

from app.api import security, strict
from app.api.accounts import router as accounts_router
from app.api.replay_rooms import router as replay_rooms_router
from app.api.reviews import router as reviews_router
from app.api.reviews import socket_router as review_socket_router
from app.api.routes import router as api_router
from app.api.sessions import SessionChanges
from app.api.static import CompressReads, StaticSite
from app.compete.api import router as daily_router
from app.compete.club_api import router as clubs_router
from app.compete.daily import DailyService
from app.compete.events_api import router as events_router
from app.compete.events_runner import EventRunner
from app.db import Database, deployment
from app.db.copies import SqlCopies
from app.db.secret import stored_secret
from app.friends.api import router as friends_router
from app.friends.hub import FriendsHub
from app.friends.seating import refuse_blocked
from app.identity import Identity
from app.logs import configure as configure_logs
from app.metrics import Metrics, MetricsServer, token_matches
from app.notify.account import router as notify_account_router
from app.notify.api import router as notify_router
from app.notify.setup import build as build_notifier
from app.outbox_process import run_outbox_process
from app.realtime.endpoint import relayed_table_socket
from app.realtime.endpoint import router as ws_router
from app.realtime.hub import Hubs
from app.realtime.relay import Relay
from app.services import Services
from app.settings import Settings, load_settings
from app.stopping import Deadline, cancel_until_done, run_within
from app.store import Fanout, TableStore, keys, make_fast, make_redis
from app.tables import TableError, TableService
from app.tables.computer import ComputerPlayers
from app.tables.due import run_due_loop
from app.tables.durable import Durable

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"


def create_app(
    settings: Settings | None = None,
    *,
    fake_redis_server: Any = None,
    clock: Callable[[], float] | None = None,
) -> FastAPI:
    """A new app. ``fake_redis_server`` lets tests share one fakeredis between apps;
    ``clock`` (epoch ms) lets them drive the tables' time (turn-based clocks over days)."""
    settings = settings or load_settings()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Here, not in create_app: the server (uvicorn, fastapi run) has set up its logging.
        if settings.log_format == "json":
            configure_logs(settings.log_format, settings.log_level)
        try:
            services = await start_services(
                settings, fake_redis_server=fake_redis_server, metrics=metrics, clock=clock
            )
        except deployment.DeploymentMismatch as error:
            log.critical("hearts-server cannot start: %s", error)
            raise
        app.state.services = services
        if services.relay is not None:
            services.relay.app = app

        def going() -> None:
            # SIGTERM, before the server closes the sockets: new ones are sent away (1012),
            # and no other instance relays to this one meanwhile (app/realtime/relay.py).
            services.hubs.closing = True
            if services.relay is not None:
                services.relay.going()

        app.state.going = going
        # app.api.deps reads these names (docs/persistence.md).
        app.state.database = services.database
        app.state.redis = services.redis
        app.state.secret_key = services.settings.effective_secret()
        metrics_server = None
        if settings.metrics_port:
            metrics_server = MetricsServer(
                metrics, services, settings.metrics_host or settings.host, settings.metrics_port
            )
            await metrics_server.start()
        try:
            yield
        finally:
            # SIGTERM: by now the server has stopped listening, sent 1012 ("service restart")
            # to the open sockets and let their handlers finish the command in hand; what is
            # left is handing this instance's due work back (app.tables.due) and stopping.
            services.hubs.closing = True
            log.info("instance %s shutting down", services.instance_id)
            if metrics_server is not None:
                await run_within(metrics_server.stop(), 3, "the metrics server")
            await stop_services(services)

    app = FastAPI(title="Hearts Online", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.metrics = metrics
    app.add_middleware(SessionChanges)
    # gzip for GET answers (the API's JSON; app/api/static.py), never for sockets or POSTs.
    app.add_middleware(CompressReads)
    # Security headers on every response (errors too) and the Origin check: app/api/security.py.
    security.install(app, allowed_origins=settings.allowed_origins)
    # Error answers stay encodable whatever the input held (app/api/strict.py).
    strict.install(app)
    app.include_router(api_router)
    app.include_router(ws_router)
    app.include_router(accounts_router)  # accounts, profiles, history, ratings, replays
    app.include_router(friends_router)  # friends, presence, invitations (app/friends)
    app.include_router(daily_router)  # the daily challenge (app/compete)
    app.include_router(clubs_router)  # clubs (app/compete/clubs.py)
    app.include_router(events_router)  # events (app/compete/events*.py)
    app.include_router(reviews_router)  # game reviews (app/api/reviews.py)
    app.include_router(review_socket_router)
    app.include_router(replay_rooms_router)  # shared replay rooms (app/api/replay_rooms.py)
    app.include_router(notify_router)  # notification choices, push subscriptions (app/notify)
    app.include_router(notify_account_router)  # e-mail address, password reset, unsubscribe

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        services: Services = app.state.services
        await services.redis.ping()
        return JSONResponse(
            {
                "ok": True,
                "instance": services.instance_id,
                "tables": len(services.hubs.tables),
                "sockets": services.hubs.sockets,
            }
        )

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        """Readiness: Redis and the database each answer (503 when either does not). /healthz
        stays the liveness check (the process and its Redis), for restarts."""
        services: Services = app.state.services
        redis_ok = await _answers(services.redis.ping())
        database_ok = await _answers(run_in_threadpool(_database_answers, services.database))
        ok = redis_ok and database_ok
        return JSONResponse(
            {"ok": ok, "redis": redis_ok, "database": database_ok},
            status_code=200 if ok else 503,
            headers=None if ok else {"Retry-After": "5"},
        )

    @app.get("/metrics", include_in_schema=False)
    async def metrics_route(request: Request) -> Response:
        """Prometheus metrics for a bearer of HEARTS_METRICS_TOKEN; 404 to anyone else (and
        always without a token: then they are on HEARTS_METRICS_PORT, or nowhere)."""
        if not token_matches(request.headers.get("authorization"), settings.metrics_token):
            return Response(b"Not Found", 404, media_type="text/plain")  # as an unknown path
        body = await metrics.exposition(app.state.services)
        return Response(body, media_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})

    if STATIC_DIR.is_dir() and (STATIC_DIR / "index.html").exists():
        # Compressed once, versioned URLs cached for a year, index.html revalidated
        # (app/api/static.py). Inside the security middleware like every response.
        site = StaticSite(STATIC_DIR)
        app.state.static = site
        app.mount("/", site, name="static")
    return app


READY_TIMEOUT_SECONDS = 3.0


async def _answers(check: Any) -> bool:
    """Whether the awaitable ``check`` completes without error within the readiness timeout."""
    try:
        await asyncio.wait_for(check, READY_TIMEOUT_SECONDS)
    except Exception:
        return False
    return True


def _database_answers(database: Database) -> None:
    import sqlalchemy as sa

    with database.engine.connect() as connection:
        connection.execute(sa.text("SELECT 1"))


async def start_services(
    settings: Settings,
    *,
    fake_redis_server: Any = None,
    metrics: Metrics | None = None,
    clock: Callable[[], float] | None = None,
) -> Services:
    from app.db import make_database, upgrade_to_head

    instance_id = settings.instance_id or secrets.token_hex(4)
    redis = make_redis(settings.redis_url, fake_server=fake_redis_server)
    await redis.ping()
    if settings.migrate_on_start:
        await run_in_threadpool(upgrade_to_head, settings.database_url)
    database = make_database(settings.database_url)
    if not settings.secret_key:
        # The embedded default (one process, no key given): the key this database keeps, so
        # a restart signs nobody out (app.db.secret). Settings refuse a shared Redis without.
        stored = await run_in_threadpool(stored_secret, database)
        settings = settings.model_copy(update={"secret_key": stored})
    # The Redis namespace belongs to one database: refuse to share its results stream with
    # another deployment (app.db.deployment; raises DeploymentMismatch).
    await deployment.check(redis, settings.redis_namespace, database)
    # Finished hands and games are added to the results streams (one per shard) by the
    # commit script itself.
    store = TableStore(
        redis,
        namespace=settings.redis_namespace,
        log_size=settings.event_log_size,
        fast=None if settings.uses_memory_redis else make_fast(settings.redis_url),
        wait_replicas=settings.redis_wait_replicas,
        wait_timeout_ms=settings.redis_wait_timeout_ms,
    )
    computer = ComputerPlayers(
        settings.bot_workers,
        budget_ms=settings.bot_budget_ms,
        hard_cap_ms=settings.bot_hard_cap_ms,
    )
    computer.start()
    tables = TableService(
        store,
        settings,
        instance_id=instance_id,
        computer=computer,
        find_game_id=functools.partial(find_game_id, database),
    )
    if clock is not None:
        tables.clock = clock
    # Turn-based tables are copied to SQL on each commit and restored or paged in from it.
    tables.durable = Durable(store, settings, SqlCopies(database), tables.find_game_id)
    tables.rated_rules.gate = functools.partial(rated_gate, database, settings.rated_min_games)
    tables.seat_gate = functools.partial(refuse_blocked, database)  # blocks hold at every seat
    fanout = Fanout(
        redis, keys.instance_channel(settings.redis_namespace, instance_id), direct=store.fast
    )
    await fanout.start()
    identity = Identity(database, settings.effective_secret())
    await fanout.subscribe(
        keys.sessions_channel(settings.redis_namespace), identity.on_sessions_changed
    )
    services = Services(
        settings=settings,
        instance_id=instance_id,
        redis=redis,
        store=store,
        tables=tables,
        fanout=fanout,
        hubs=Hubs(tables, fanout, store),
        database=database,
        identity=identity,
    )
    if metrics is not None:
        services.metrics = metrics
    # Counters and histograms only on the move path (app/metrics.py).
    computer.decided = services.metrics.bot_decided
    services.hubs.delivered = services.metrics.delivery.observe
    if settings.ws_relay:
        services.relay = Relay(
            store,
            fanout,
            settings.redis_namespace,
            instance_id,
            settings.ws_count_lease_seconds * 1000.0,
            max_message_bytes=settings.ws_max_message_bytes,
        )
        services.relay.handler = relayed_table_socket
        await services.relay.start()
    services.friends = FriendsHub(
        redis,
        database,
        fanout,
        settings.redis_namespace,
        instance_id,
        read_table=tables.read,
        lobby_line=services.hubs.lobby.line,
        heartbeat_seconds=settings.presence_heartbeat_seconds,
        ttl_seconds=settings.presence_expiry_seconds,
        invite_check_seconds=settings.presence_invite_check_seconds,
    )
    services.hubs.lobby.feed.listeners.append(services.friends.lobby_tables_changed)
    await services.friends.start()
    services.notifier = build_notifier(
        settings, database, sockets=tables.sockets, clock=tables.clock, redis=redis
    )
    await services.notifier.start()
    # A turn-based table's "your turn", "time almost up" and "game over" (app.tables.writer):
    # to the notifier (push, e-mail, when away), and to the player's open pages (My games).
    notifier, friends = services.notifier, services.friends

    async def notify(
        player_id: str,
        kind: str,
        *,
        table_id: str | None = None,
        data: Mapping[str, object] | None = None,
    ) -> None:
        if table_id is not None:
            friends.games_changed([player_id], table_id)
        await notifier.send(player_id, kind, table_id=table_id, data=data)

    tables.notify = notify
    stop = asyncio.Event()
    services.background.append(stop)
    services.background.append(asyncio.create_task(run_due_loop(tables, stop), name="due"))
    if settings.run_outbox_worker and settings.uses_memory_redis:
        # The in-process stand-in cannot be shared with another process.
        from app.db.outbox import OutboxWorker

        worker = OutboxWorker(redis, database, namespace=settings.redis_namespace)
        services.background.append(asyncio.create_task(worker.run(stop), name="outbox"))
    elif settings.run_outbox_worker:
        outbox = OutboxProcess(settings)
        outbox.start()
        services.background.append(outbox)
        services.background.append(asyncio.create_task(outbox.watch(stop), name="outbox"))
    if settings.run_review_jobs:
        from app.jobs.review import ReviewRunner

        services.reviews = ReviewRunner(
            database,
            redis,
            settings.redis_namespace,
            owner=instance_id,
            workers=settings.review_workers,
            lease_seconds=settings.review_lease_seconds,
            poll_seconds=settings.review_poll_seconds,
            cpu_seconds_per_decision=settings.review_cpu_seconds_per_decision,
        )
        services.background.append(asyncio.create_task(services.reviews.run(stop), name="reviews"))
    services.daily = DailyService(settings, database, tables, tables.clock, instance_id)
    services.background.append(asyncio.create_task(services.daily.run(stop), name="daily"))
    events = EventRunner(database, tables, instance_id, settings.events_hands_per_round)
    services.background.append(asyncio.create_task(events.run(stop), name="events"))
    # Turn-based games Redis lost whole (the embedded stand-in restarted, a Redis flushed):
    # back from SQL with their clocks and My games entries (app.tables.durable).
    services.background.append(
        asyncio.create_task(restore_lost(tables, tables.durable), name="restore-lost")
    )
    log.info("instance %s up (redis %s)", instance_id, settings.redis_url.split("@")[-1])
    return services


async def restore_lost(tables: TableService, durable: Durable) -> None:
    try:
        await durable.restore_lost(tables.clock(), tables.games)
    except Exception:  # an outage at start: each table still comes back when it is opened
        log.exception("turn-based tables Redis lost were not restored at start")


async def rated_gate(database: Database, min_games: int, player_id: str) -> None:
    """Refuse a player SQL does not let sit at a rated table (app.db.rated), off the loop."""
    from app.db.rated import rated_refusal

    refusal = await run_in_threadpool(rated_refusal, database, player_id, min_games)
    if refusal is not None:
        raise TableError(*refusal)


async def find_game_id(database: Database, table_id: str, game_no: int) -> int | None:
    """A finished game's id in SQL (for its replay link), off the event loop."""
    from app.db.stats import ended_game_id

    return await run_in_threadpool(ended_game_id, database, table_id, game_no)


class OutboxProcess:
    """The results writer (app.db.outbox) in a process of its own.

    Writing a record to SQL costs milliseconds of Python; in the server process that time
    holds the interpreter lock away from the event loop (measured with bench.load: about a
    fifth of the server's CPU, and the p99 of the moves around the end of a hand). Its own
    process takes it off the move path. It is restarted if it dies; a record it was writing
    is taken over by a worker after ``claim_idle_ms`` and written once (docs/persistence.md).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.process: Any = None

    def start(self) -> None:
        import multiprocessing
        import os

        ctx = multiprocessing.get_context("spawn")
        self.process = ctx.Process(
            target=run_outbox_process,  # imports little before its parent watch starts
            args=(
                self.settings.redis_url,
                self.settings.database_url,
                self.settings.log_level,
                os.getpid(),
                self.settings.redis_namespace,
                self.settings.log_format,
            ),
            name="hearts-outbox",
            daemon=True,
        )
        self.process.start()

    async def watch(self, stop: asyncio.Event, every: float = 5.0) -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)
            if not stop.is_set() and not self.process.is_alive():
                log.error(
                    "the results writer exited (%s); starting it again", self.process.exitcode
                )
                self.start()

    async def stop(self) -> None:
        process = self.process
        if process is None:
            return
        process.terminate()  # SIGTERM: it finishes the record in hand and exits
        await run_in_threadpool(process.join, 10)
        if process.is_alive():
            process.kill()
            await run_in_threadpool(process.join, 5)


async def stop_services(services: Services) -> None:
    """Stop this instance's own work, every step within one deadline
    (``HEARTS_SHUTDOWN_TIMEOUT_SECONDS``): a step that does not end in its share is cancelled
    until done or left behind with its stack logged (app/stopping.py), and the next one runs."""
    deadline = Deadline(services.settings.shutdown_timeout_seconds)
    for item in services.background:
        if isinstance(item, asyncio.Event):
            item.set()
    for item in services.background:
        if isinstance(item, OutboxProcess):
            await run_within(item.stop(), deadline.left(15), "the results writer process")
    for item in services.background:
        if isinstance(item, asyncio.Task):
            # Told to stop by the event: a few seconds to hand its work back, then cancelled.
            done, _ = await asyncio.wait({item}, timeout=deadline.left(5))
            if not done:
                await cancel_until_done(item, deadline.left(2), f"task {item.get_name()}")
    steps: list[tuple[str, Callable[[], Awaitable[object]]]] = []
    if services.friends is not None:
        steps.append(("presence and friends (FriendsHub.stop)", services.friends.stop))
    if services.relay is not None:
        steps.append(("relayed sockets (Relay.stop)", services.relay.stop))
    steps += [
        ("the notifier", services.notifier.stop),
        ("table hubs and the lobby (Hubs.close)", services.hubs.close),
        ("pub/sub (Fanout.stop)", services.fanout.stop),
    ]
    for what, stop in steps:
        await run_within(stop(), deadline.left(5), what)
    # The process pool's shutdown joins its workers: in a thread, so it is bounded too.
    await run_within(
        asyncio.to_thread(services.tables.computer.close), deadline.left(5), "computer players"
    )
    if services.store.fast is not None:
        await run_within(services.store.fast.aclose(), deadline.left(2), "the move-path client")
    await run_within(services.redis.aclose(), deadline.left(2), "the Redis client")
    await run_within(
        asyncio.to_thread(services.database.dispose), deadline.left(2), "the database pool"
    )


_MODULE_APP: FastAPI | None = None


def __dir__() -> list[str]:
    """The module's names and ``app``: tools that look for an app by listing a module's names
    (``fastapi run app/main.py``) find it, and build it only when they ask for it."""
    return sorted([*globals(), "app"])


def __getattr__(name: str) -> Any:
    """``app.main:app``, the conventional entry point (``uvicorn app.main:app``), built from the
    environment's settings on first use (PEP 562): importing this module still builds nothing,
    so tests and tools that import it never read the environment."""
    global _MODULE_APP
    if name == "app":
        if _MODULE_APP is None:
            _MODULE_APP = create_app(load_settings())
        return _MODULE_APP
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
