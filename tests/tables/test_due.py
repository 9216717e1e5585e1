"""The due loop's account of work that failed: Redis away is a warning (the item stays
claimed and comes back after its lease), anything else an error."""

from __future__ import annotations

import asyncio
import logging
import time
from types import SimpleNamespace
from typing import Any, cast

import fakeredis
import pytest

from app.store import StoreUnavailable, TableStore
from app.tables.due import run_due_loop


class OneItem:
    """A store with one due table, claimed once; the service's work on it raises ``error``."""

    def __init__(self, error: BaseException, stop: asyncio.Event) -> None:
        self.error = error
        self.stop = stop
        self.claims = 0
        self.settings = SimpleNamespace(due_lease_seconds=10.0, due_poll_seconds=0.01)
        self.store = self

    def clock(self) -> float:  # the service's clock (epoch ms)
        return time.time() * 1000

    async def claim_due(self, now_ms: float, lease_ms: float, count: int) -> list[str]:
        self.claims += 1
        return ["t1"] if self.claims == 1 else []

    async def run_due(self, table_id: str) -> None:
        self.stop.set()
        raise self.error

    async def make_due_now(self, table_ids: list[str], now_ms: float) -> None:
        pass


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("error", "level"),
    [
        (StoreUnavailable("lost the Redis connection: Redis closed the connection"), "WARNING"),
        (ValueError("a bug"), "ERROR"),
    ],
)
async def test_failed_due_work_is_a_warning_only_when_redis_is_away(
    error: BaseException, level: str, caplog: pytest.LogCaptureFixture
) -> None:
    stop = asyncio.Event()
    service: Any = OneItem(error, stop)
    with caplog.at_level(logging.WARNING, logger="app.tables.due"):
        await asyncio.wait_for(run_due_loop(service, stop), 10)
    said = [(r.levelname, r.getMessage()) for r in caplog.records if "t1" in r.getMessage()]
    assert [lvl for lvl, _ in said] == [level], said


class Recorder:
    """A service over a real TableStore (the stand-in) whose due work records the table."""

    def __init__(self, poll_seconds: float, server: fakeredis.FakeServer) -> None:
        self.settings = SimpleNamespace(due_lease_seconds=10.0, due_poll_seconds=poll_seconds)
        self.store = TableStore(fakeredis.FakeAsyncRedis(server=server), namespace="due-wake")
        self.ran: asyncio.Queue[str] = asyncio.Queue()

    def clock(self) -> float:
        return time.time() * 1000

    async def run_due(self, table_id: str) -> None:
        await self.ran.put(table_id)


@pytest.mark.asyncio
async def test_a_due_time_written_here_is_acted_on_when_due_not_at_the_next_poll() -> None:
    """The poll is 30 s apart here: a computer's turn this instance wrote 50 ms ahead is acted
    on as it comes due (an early wake), one written by another instance at the next poll."""
    stop = asyncio.Event()
    server = fakeredis.FakeServer()
    service: Any = Recorder(30, server)
    loop_task = asyncio.create_task(run_due_loop(service, stop))
    try:
        while service.store.due_written is None:  # the loop started, and polled once
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        written = time.monotonic()
        await service.store.commit(
            "t-here",
            expected_version=0,
            blob=b"s",
            message=b"m",
            ttl_seconds=60,
            due=service.clock() + 50,
        )
        assert await asyncio.wait_for(service.ran.get(), 15) == "t-here"
        assert time.monotonic() - written >= 0.04  # not before it was due
        # written behind this instance's back (another instance): no wake, the poll finds it
        other = Recorder(30, server)
        await service.store.set_due_if_version("t-here", 1, None)
        await other.store.commit(
            "t-there",
            expected_version=0,
            blob=b"s",
            message=b"m",
            ttl_seconds=60,
            due=service.clock(),
        )
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(service.ran.get(), 0.5)
    finally:
        stop.set()
        await asyncio.wait_for(loop_task, 10)
    assert service.store.due_written is None  # the loop let go of the store


class MovesTwice(Recorder):
    """Due work like a computer's move followed by another computer's turn: it writes the
    next turn due at once, then takes a moment to finish (publishing, notices)."""

    def __init__(self, server: fakeredis.FakeServer) -> None:
        super().__init__(30, server)
        self.version = 1
        self.runs: list[float] = []

    async def run_due(self, table_id: str) -> None:
        self.runs.append(time.monotonic())
        if len(self.runs) == 1:
            await self.store.set_due_if_version(table_id, self.version, self.clock())
            await asyncio.sleep(0.3)
        await self.ran.put(table_id)


@pytest.mark.asyncio
async def test_a_turn_due_while_its_table_is_still_worked_on_here_runs_when_that_ends() -> None:
    """The next computer's turn, written due at once by the work still running on the table,
    is claimed while that work finishes; it runs as soon as the work ends, not after the
    claim's 10 s lease (a turn-based game with two computers in a row waited 10 s a move)."""
    stop = asyncio.Event()
    service = MovesTwice(fakeredis.FakeServer())
    await service.store.commit(
        "t-two", expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, due=service.clock()
    )
    loop_task = asyncio.create_task(run_due_loop(cast(Any, service), stop))
    try:
        for _ in range(2):
            assert await asyncio.wait_for(service.ran.get(), 5) == "t-two"
    finally:
        stop.set()
        await asyncio.wait_for(loop_task, 10)
    first, second = service.runs
    assert second - first < 2, service.runs
