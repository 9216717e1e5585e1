"""The outbox: exactly once with several workers, and nothing lost in a database outage."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any

import orjson
import pytest
import sqlalchemy as sa
from sqlmodel import func, select

from app.db import Database, make_database, upgrade_to_head
from app.db.models import Game, Hand, Rating
from app.db.outbox import OutboxWorker, dead_letter_key, enqueue, pending_count
from app.db.players import create_guest
from app.store import keys
from tests.db.helpers import TcpProxy, game_event, hand_event, seats_of

GAMES = 6
HANDS = 4


async def _until(condition: Callable[[], Any], what: str, limit: float = 60.0) -> None:
    """Poll until the condition holds; the limit only guards against a hang."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not await condition():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        await asyncio.sleep(0.02)


def _events(db: Database) -> list[dict[str, Any]]:
    players = [create_guest(db, f"P{i}") for i in range(4)]
    seats = seats_of(*(p.id for p in players))
    events = []
    for game_no in range(GAMES):
        for hand_no in range(HANDS):
            events.append(hand_event(seats, game_no=game_no, hand_no=hand_no, points=[26, 0, 0, 0]))
        events.append(game_event(seats, [104, 0, 0, 0], game_no=game_no))
    return events


def _counts(db: Database) -> tuple[int, int, int]:
    with db.session() as session:
        games = session.exec(select(func.count()).select_from(Game)).one()
        hands = session.exec(select(func.count()).select_from(Hand)).one()
        rated = session.exec(select(func.sum(Rating.games))).one() or 0
    return games, hands, rated


@pytest.mark.asyncio
async def test_two_workers_write_each_record_once(
    database: Database, any_redis: Any, stream_key: str
) -> None:
    events = _events(database)
    # Every record enqueued twice: delivery to the stream is at least once.
    for event in events + events:
        await enqueue(any_redis, event, stream=stream_key)
    # claim_idle_ms=0: each worker also steals the other's in-flight records, so both workers
    # really do meet the same records.
    workers = [
        OutboxWorker(any_redis, database, stream=stream_key, block_ms=50, claim_idle_ms=0, batch=5)
        for _ in range(2)
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(w.run(stop)) for w in workers]

    async def drained() -> bool:
        return bool(await any_redis.xlen(stream_key) == 0)

    try:
        await _until(drained, "the stream to drain")
    finally:
        stop.set()
        await asyncio.gather(*tasks)
    assert sum(w.written for w in workers) == len(events)
    assert sum(w.duplicates for w in workers) >= len(events)
    assert sum(w.dead for w in workers) == 0
    assert _counts(database) == (GAMES, GAMES * HANDS, GAMES * 4)
    pending = await any_redis.xpending(stream_key, "sql-writer")
    assert pending["pending"] == 0


@pytest.mark.asyncio
async def test_workers_take_every_shards_records_once(
    database: Database, redis_client: Any, namespace: str
) -> None:
    """Records of many tables land in their shards' streams; two workers reading every
    shard (polled, no blocking read) write each once, and leave no stream pending; on one
    Redis, the stand-in and Redis Cluster (the streams on every master)."""
    players = [create_guest(database, f"S{i}") for i in range(4)]
    seats = seats_of(*(p.id for p in players))
    tables = [f"{namespace}-{i}" for i in range(40)]
    events = [game_event(seats, [104, 0, 0, 0], table_id=t) for t in tables]
    for event in events + events[:10]:  # some twice: delivery is at least once
        await enqueue(redis_client, event, namespace=namespace)
    streams = keys.results_keys(namespace)
    used = {keys.results_key(namespace, keys.shard_of(t)) for t in tables}
    assert len(used) > 20  # spread over the shards
    workers = [
        OutboxWorker(redis_client, database, streams=streams, block_ms=50, claim_idle_ms=0, batch=3)
        for _ in range(2)
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(w.run(stop)) for w in workers]

    async def drained() -> bool:
        return await pending_count(redis_client, namespace=namespace) == 0

    try:
        await _until(drained, "every shard's stream to drain")
    finally:
        stop.set()
        await asyncio.gather(*tasks)
    assert sum(w.written for w in workers) == len(events)
    assert sum(w.duplicates for w in workers) >= 10
    assert sum(w.dead for w in workers) == 0
    assert _counts(database)[0] == len(events)


@pytest.mark.asyncio
async def test_a_record_committed_by_a_dead_worker_is_not_written_twice(
    sqlite_database: Database, fake_redis: Any, stream_key: str
) -> None:
    event = game_event(seats_of(None, None, bots={0: "easy", 1: "pro"}), [10, 20])
    await enqueue(fake_redis, event, stream=stream_key)
    dying = OutboxWorker(fake_redis, sqlite_database, stream=stream_key, consumer="dying")
    await dying.ensure_group()
    # The dying worker reads and commits, then dies before its XACK.
    [(_, entries)] = await fake_redis.xreadgroup("sql-writer", "dying", {stream_key: ">"})
    from app.db.results import write_event

    assert write_event(sqlite_database, orjson.loads(entries[0][1][b"event"])) == "written"
    heir = OutboxWorker(fake_redis, sqlite_database, stream=stream_key, claim_idle_ms=0)
    await heir.drain()
    assert (heir.written, heir.duplicates) == (0, 1)
    assert await fake_redis.xlen(stream_key) == 0
    assert _counts(sqlite_database)[0] == 1


@pytest.mark.asyncio
async def test_bad_records_go_to_the_dead_letter_stream(
    sqlite_database: Database, fake_redis: Any, stream_key: str
) -> None:
    await fake_redis.xadd(stream_key, {"event": b"not json"})
    await fake_redis.xadd(stream_key, {"event": orjson.dumps({"kind": "hand"})})
    await fake_redis.xadd(stream_key, {"other": b"x"})
    with pytest.raises(ValueError, match="kind"):
        await enqueue(fake_redis, {"kind": "chat"}, stream=stream_key)
    worker = OutboxWorker(fake_redis, sqlite_database, stream=stream_key)
    await worker.drain()
    assert worker.dead == 2
    assert await fake_redis.xlen(stream_key) == 0
    assert await fake_redis.xlen(dead_letter_key(stream_key)) == 2


async def _outage(
    database: Database, redis: Any, stream: str, go_down: Any, come_back: Any, check: Database
) -> None:
    events = _events(check)
    await go_down()
    for event in events:
        await enqueue(redis, event, stream=stream)
    worker = OutboxWorker(
        redis, database, stream=stream, block_ms=50, retry_base=0.01, retry_max=0.05
    )
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:

        async def failing() -> bool:
            return worker._failures >= 3

        await _until(failing, "the worker to meet the outage")
        assert _counts(check) == (0, 0, 0)
        assert await redis.xlen(stream) == len(events)
        await come_back()

        async def drained() -> bool:
            return bool(await redis.xlen(stream) == 0)

        await _until(drained, "the stream to drain after the outage")
    finally:
        stop.set()
        await task
    assert worker.written == len(events)
    assert _counts(check) == (GAMES, GAMES * HANDS, GAMES * 4)


def _ping(db: Database) -> None:
    with db.session() as session:
        session.execute(sa.text("SELECT 1"))


@pytest.mark.asyncio
async def test_postgres_outage_loses_nothing(pg_url: str, any_redis: Any, stream_key: str) -> None:
    """The worker's database goes through a proxy that is cut, then restored."""
    upgrade_to_head(pg_url)
    direct = make_database(pg_url)
    url = sa.make_url(pg_url)
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.up()
    through_proxy = make_database(url.set(port=proxy.port).render_as_string(hide_password=False))
    try:
        # Connect once before the outage, so the pool holds a connection that then breaks.
        # (in a thread: the proxy runs on this event loop)
        await asyncio.to_thread(_ping, through_proxy)
        await _outage(through_proxy, any_redis, stream_key, proxy.down, proxy.up, direct)
    finally:
        await proxy.down()
        through_proxy.dispose()
        direct.dispose()


@pytest.mark.asyncio
async def test_sqlite_outage_loses_nothing(
    sqlite_database: Database, fake_redis: Any, stream_key: str
) -> None:
    """SQLite has no server to stop: every new connection fails while 'down'."""
    worker_db = make_database(sqlite_database.url)
    down = False

    def refuse(*_args: Any) -> None:
        if down:
            raise sqlite3.OperationalError("unable to open database file (simulated outage)")

    sa.event.listen(worker_db.engine, "do_connect", refuse)

    async def go_down() -> None:
        nonlocal down
        down = True
        worker_db.engine.dispose()

    async def come_back() -> None:
        nonlocal down
        down = False

    try:
        await _outage(worker_db, fake_redis, stream_key, go_down, come_back, sqlite_database)
    finally:
        worker_db.dispose()


@pytest.mark.asyncio
async def test_an_idle_worker_does_not_spin(
    sqlite_database: Database, fake_redis: Any, stream_key: str
) -> None:
    """The in-process stand-in does not block in XREADGROUP: an idle worker must poll, not busy
    loop (it once burned a whole core in an idle embedded server), and still write new records
    promptly."""
    worker = OutboxWorker(fake_redis, sqlite_database, stream=stream_key, block_ms=2000)
    steps = 0
    step = worker.step

    async def counted(block_ms: int | None = None) -> bool:
        nonlocal steps
        steps += 1
        return await step(block_ms)

    worker.step = counted  # type: ignore[method-assign]
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        await asyncio.sleep(1.0)
        assert steps <= 8, f"{steps} steps in 1 s with nothing to write"
        players = [create_guest(sqlite_database, f"Q{i}") for i in range(4)]
        seats = seats_of(*(p.id for p in players))
        await enqueue(fake_redis, game_event(seats, [26, 0, 0, 0], game_no=0), stream=stream_key)

        async def written() -> bool:
            return worker.written == 1

        await _until(written, "the new record to be written", limit=5.0)
    finally:
        stop.set()
        await task
