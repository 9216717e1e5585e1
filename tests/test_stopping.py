"""Stopping within a bound (app/stopping.py), and the whole app's shutdown ending within its
deadline even when every background task it started swallows its cancellation, on the
embedded stand-in, one Redis and the cluster."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from app.main import create_app
from app.settings import Settings
from app.stopping import Deadline, cancel_until_done, run_within
from tests.conftest import REDIS_BACKENDS, backend_url


async def _swallow_until(released: asyncio.Event, coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro``; a cancellation it lets through is swallowed until ``released``, as a
    library that catches CancelledError and carries on would (the task keeps running)."""
    try:
        return await coro
    except asyncio.CancelledError:
        while not released.is_set():
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue
        raise


@pytest.mark.asyncio
async def test_cancel_until_done_ends_a_task_that_swallows_some_cancellations() -> None:
    swallowed = 0

    async def swallows_three() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed += 1
                if swallowed > 3:
                    raise

    task = asyncio.create_task(swallows_three())
    await asyncio.sleep(0)
    assert await cancel_until_done(task, 5, "test task")
    assert task.cancelled() and swallowed == 4


@pytest.mark.asyncio
async def test_cancel_until_done_leaves_a_task_that_never_ends_and_logs_its_stack(
    caplog: pytest.LogCaptureFixture,
) -> None:
    released = asyncio.Event()
    task = asyncio.create_task(_swallow_until(released, asyncio.sleep(3600)), name="mule")
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR, logger="app.stopping"):
        assert not await cancel_until_done(task, 0.5, "the mule")
    assert not task.done()
    assert "the mule did not stop within 0.5 s" in caplog.text
    assert "_swallow_until" in caplog.text  # its stack
    released.set()
    await asyncio.wait({task}, timeout=5)
    assert task.cancelled()


@pytest.mark.asyncio
async def test_run_within_bounds_a_step_and_reports_errors(
    caplog: pytest.LogCaptureFixture,
) -> None:
    released = asyncio.Event()

    async def hangs() -> None:
        await _swallow_until(released, asyncio.sleep(3600))

    async def fails() -> None:
        raise RuntimeError("broken stop")

    async def works() -> None:
        await asyncio.sleep(0)

    with caplog.at_level(logging.ERROR, logger="app.stopping"):
        assert not await run_within(hangs(), 0.2, "a hanging step")
        assert not await run_within(fails(), 1, "a failing step")
        assert await run_within(works(), 1, "a working step")
    assert "a hanging step did not finish within 0.2 s" in caplog.text
    assert "a failing step failed" in caplog.text
    released.set()


def test_deadline_shares_its_time() -> None:
    deadline = Deadline(10)
    assert 9 < deadline.left() <= 10
    assert deadline.left(2) == 2
    assert Deadline(0).left(5) == 0


SHUTDOWN_SECONDS = 4.0


@pytest.mark.parametrize("backend", REDIS_BACKENDS)
@pytest.mark.asyncio
async def test_the_app_stops_within_its_deadline_when_every_task_swallows_cancellation(
    backend: str, tmp_path: Path, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Every task the app starts (pub/sub listener, due loop, results writer, presence,
    reviews, the notifier...) swallows its cancellation; the shutdown still ends, having
    logged what did not stop (today's code waited for ever on the pub/sub listener)."""
    settings = Settings(
        redis_url=backend_url(backend),
        redis_namespace=namespace,
        database_url=f"sqlite:///{tmp_path}/hearts.sqlite3",
        secret_key="stopping-test-secret",
        shutdown_timeout_seconds=SHUTDOWN_SECONDS,
    )
    app = create_app(settings)
    loop = asyncio.get_running_loop()
    released = asyncio.Event()
    made: list[str] = []

    def stubborn(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        made.append(getattr(coro, "__qualname__", repr(coro)))
        return asyncio.Task(_swallow_until(released, coro), loop=loop, **kwargs)

    lifespan = app.router.lifespan_context(app)
    loop.set_task_factory(stubborn)
    try:
        await lifespan.__aenter__()
    finally:
        loop.set_task_factory(None)
    assert len(made) >= 3, made  # the listener, the due loop, presence at least
    try:
        await app.state.services.redis.ping()
        started = time.monotonic()
        with caplog.at_level(logging.ERROR, logger="app.stopping"):
            stopping = asyncio.ensure_future(lifespan.__aexit__(None, None, None))
            # The deadline, a second of grace for each step cancelled past it, and slack for
            # a loaded machine: the point is that it ends, not how fast.
            done, _ = await asyncio.wait({stopping}, timeout=SHUTDOWN_SECONDS + 30)
        took = time.monotonic() - started
        assert stopping in done, f"the shutdown had not ended after {took:.1f} s"
        assert stopping.exception() is None
        assert "did not stop within" in caplog.text or "did not finish within" in caplog.text
    finally:
        released.set()
        await asyncio.sleep(0.2)
