"""The outbox: exactly once with several workers, and nothing lost in a database outage."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col, func, select

from app.db import Database, make_database, results, upgrade_to_head
from app.db.events import parse_event
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


@contextlib.asynccontextmanager
async def _running(*workers: OutboxWorker) -> AsyncIterator[None]:
    """``workers`` running while the block runs, then stopped and waited for."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(w.run(stop)) for w in workers]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*tasks)


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

    async def drained() -> bool:
        return bool(await any_redis.xlen(stream_key) == 0)

    async with _running(*workers):
        await _until(drained, "the stream to drain")
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

    async def drained() -> bool:
        return await pending_count(redis_client, namespace=namespace) == 0

    async with _running(*workers):
        await _until(drained, "every shard's stream to drain")
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

    async def failing() -> bool:
        return worker._failures >= 3

    async def drained() -> bool:
        return bool(await redis.xlen(stream) == 0)

    async with _running(worker):
        await _until(failing, "the worker to meet the outage")
        assert _counts(check) == (0, 0, 0)
        assert await redis.xlen(stream) == len(events)
        await come_back()
        await _until(drained, "the stream to drain after the outage")
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

    async def written() -> bool:
        return worker.written == 1

    async with _running(worker):
        await asyncio.sleep(1.0)
        assert steps <= 8, f"{steps} steps in 1 s with nothing to write"
        players = [create_guest(sqlite_database, f"Q{i}") for i in range(4)]
        seats = seats_of(*(p.id for p in players))
        await enqueue(fake_redis, game_event(seats, [26, 0, 0, 0], game_no=0), stream=stream_key)
        await _until(written, "the new record to be written", limit=5.0)


class _FailOnce:
    """Makes the ``nth`` game record written (from 1) raise once, as a transient SQL error
    in the middle of a batch would; later calls write normally."""

    def __init__(self, nth: int) -> None:
        self.nth = nth
        self.calls = 0
        self.write = results._write_game

    def __call__(self, session: Any, record: Any) -> Any:
        self.calls += 1
        if self.calls == self.nth:
            raise RuntimeError("injected failure")
        return self.write(session, record)


def _commits(db: Database) -> list[int]:
    """A list that grows by one at each commit on ``db``'s engine."""
    seen: list[int] = []
    sa.event.listen(db.engine, "commit", lambda _connection: seen.append(1))
    return seen


@pytest.mark.asyncio
async def test_a_batch_of_records_is_one_transaction(
    database: Database, fake_redis: Any, stream_key: str
) -> None:
    events = _events(database)
    for event in events:
        await enqueue(fake_redis, event, stream=stream_key)
    commits = _commits(database)
    worker = OutboxWorker(fake_redis, database, stream=stream_key, batch=100, gather_ms=0)
    await worker.drain()
    assert (worker.written, worker.transactions, len(commits)) == (len(events), 1, 1)
    assert _counts(database) == (GAMES, GAMES * HANDS, GAMES * 4)
    # /metrics counts every record, each with its share of the transaction's time.
    times = await fake_redis.hgetall(keys.sql_time_key(stream_key))
    buckets = sum(int(v) for k, v in times.items() if k.startswith(b"b"))
    assert int(times[b"n"]) == buckets == len(events)
    assert float(times[b"sum"]) > 0
    # Bounded: at most records_per_transaction records in each.
    for event in events:
        await enqueue(fake_redis, event, stream=stream_key)
    again = OutboxWorker(
        fake_redis, database, stream=stream_key, batch=100, records_per_transaction=7
    )
    await again.drain()
    assert (again.written, again.duplicates, again.transactions) == (0, len(events), 0)
    assert len(commits) == 1  # duplicates only: nothing committed
    assert await fake_redis.xlen(stream_key) == 0


@pytest.mark.asyncio
async def test_a_failure_inside_a_batch_leaves_none_of_its_effects(
    database: Database, fake_redis: Any, stream_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The third game record of a batch fails: nothing of the batch is in SQL (not the hands
    and games before it), and the retry writes each record exactly once."""
    events = _events(database)
    monkeypatch.setattr(results, "_write_game", _FailOnce(3))
    with pytest.raises(RuntimeError, match="injected"):
        results.write_records(database, [parse_event(e) for e in events])
    assert _counts(database) == (0, 0, 0)

    for event in events:
        await enqueue(fake_redis, event, stream=stream_key)
    failing = _FailOnce(3)
    monkeypatch.setattr(results, "_write_game", failing)
    commits = _commits(database)
    worker = OutboxWorker(fake_redis, database, stream=stream_key, batch=100, gather_ms=0)
    await worker.drain()
    assert failing.calls > 3  # it failed, then the records were written one by one
    assert (worker.written, worker.duplicates, worker.dead) == (len(events), 0, 0)
    assert len(commits) == len(events)
    assert _counts(database) == (GAMES, GAMES * HANDS, GAMES * 4)
    assert await fake_redis.xlen(stream_key) == 0


@pytest.mark.asyncio
async def test_a_record_that_always_fails_does_not_hold_up_its_batch(
    database: Database, fake_redis: Any, stream_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record whose write always fails (but whose data parses) is retried alone and set
    aside after max_attempts; the other records of its batch are each written once."""
    events = _events(database)
    poison = dict(events[7], table_id="poison")
    write_hand = results._write_hand

    def refuse_poison(session: Any, record: Any) -> Any:
        if record.table_id == "poison":
            raise RuntimeError("this record's write always fails")
        return write_hand(session, record)

    monkeypatch.setattr(results, "_write_hand", refuse_poison)
    for event in [*events[:7], poison, *events[7:]]:
        await enqueue(fake_redis, event, stream=stream_key)
    worker = OutboxWorker(
        fake_redis, database, stream=stream_key, batch=100, gather_ms=0, max_attempts=2
    )
    for _ in range(3):  # a failed step ends a drain; the retry comes with the next
        await worker.drain()
    assert (worker.written, worker.dead) == (len(events), 1)
    assert _counts(database) == (GAMES, GAMES * HANDS, GAMES * 4)
    assert await fake_redis.xlen(stream_key) == 0
    [(_, dead)] = await fake_redis.xrange(dead_letter_key(stream_key))
    assert b"always fails" in dead[b"error"]


def test_bad_batch_settings_are_refused(sqlite_database: Database, fake_redis: Any) -> None:
    with pytest.raises(ValueError, match="records_per_transaction"):
        OutboxWorker(fake_redis, sqlite_database, stream="s", records_per_transaction=0)
    with pytest.raises(ValueError, match="gather_ms"):
        OutboxWorker(fake_redis, sqlite_database, stream="s", gather_ms=-1)


def _snapshot(db: Database) -> list[Any]:
    with db.session() as session:
        games = [
            (g.table_id, g.game_no, g.status, g.hands_played, g.totals)
            for g in session.exec(select(Game).order_by(col(Game.table_id), col(Game.game_no)))
        ]
        hands = session.exec(
            select(Game.table_id, Game.game_no, Hand.hand_no, Hand.points)
            .join(Hand, col(Hand.game_id) == col(Game.id))
            .order_by(col(Game.table_id), col(Game.game_no), col(Hand.hand_no))
        ).all()
        ratings = session.exec(
            select(Rating.player_id, Rating.games, Rating.rating).order_by(col(Rating.player_id))
        ).all()
    return [games, list(map(tuple, hands)), list(map(tuple, ratings))]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    order=st.lists(st.integers(0, 9), min_size=1, max_size=24),
    size=st.integers(1, 8),
)
def test_batches_write_what_one_by_one_writes(
    tmp_path: Path, migrated_sqlite_file: Path, order: list[int], size: int
) -> None:
    """Any sequence of records (repeats, a game before its hands) written in transactions of
    any size leaves SQL as writing them one at a time does."""
    base = tmp_path / f"{uuid.uuid4().hex}.sqlite3"
    shutil.copyfile(migrated_sqlite_file, base)
    setup = make_database(f"sqlite:///{base}")
    seats = seats_of(*(create_guest(setup, f"H{i}").id for i in range(4)))
    setup.dispose()
    pool = [
        *(
            hand_event(seats, table_id=t, hand_no=h, points=[0, 26, 0, 0])
            for t in "AB"
            for h in (0, 1, 2)
        ),
        *(game_event(seats, [0, 78, 0, 0], table_id=t) for t in "AB"),
        game_event(seats, [50, 26, 0, 0], table_id="C"),
        hand_event(seats, table_id="C", hand_no=0, points=[13, 13, 0, 0]),
    ]
    records = [parse_event(pool[i % len(pool)]) for i in order]
    one, batched = (tmp_path / f"{uuid.uuid4().hex}.sqlite3" for _ in range(2))
    shutil.copyfile(base, one)
    shutil.copyfile(base, batched)
    alone, together = make_database(f"sqlite:///{one}"), make_database(f"sqlite:///{batched}")
    try:
        expected = [results.write_records(alone, [r])[0] for r in records]
        got = [
            outcome
            for start in range(0, len(records), size)
            for outcome in results.write_records(together, records[start : start + size])
        ]
        assert got == expected
        assert _snapshot(together) == _snapshot(alone)
    finally:
        alone.dispose()
        together.dispose()
