"""The due loop's account of work that failed: Redis away is a warning (the item stays
claimed and comes back after its lease), anything else an error."""

from __future__ import annotations

import asyncio
import logging
import time
from types import SimpleNamespace
from typing import Any

import pytest

from app.store import StoreUnavailable
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
