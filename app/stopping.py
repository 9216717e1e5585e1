"""Stopping background work within a bounded time, whatever an awaited library does.

A cancelled task ends only if the code it awaits lets the ``CancelledError`` through. Some
libraries swallow it now and then (a Redis client's read racing its own timeout, seen with
redis-py and with the in-process stand-in): the task then goes on with its loop, and a stop
that cancels it once and awaits it waits for ever. That hung the server's shutdown and the
test suite with it. So every stop on the shutdown path goes through these helpers:

- :func:`cancel_until_done` cancels a task again and again until it is done, for at most a
  given time; a task still running then is logged with its stack and left behind;
- :func:`run_within` runs a stop step (a coroutine) for at most a given time and, past it,
  cancels it the same way and goes on;
- :class:`Deadline` shares one time limit among the steps of a whole shutdown
  (``HEARTS_SHUTDOWN_TIMEOUT_SECONDS``), so SIGTERM and a test's teardown always end.

Nothing here imports the rest of the application: any module may use it.
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Awaitable
from typing import Any

log = logging.getLogger(__name__)

# How long to wait for a task between two cancellations.
RECANCEL_SECONDS = 0.25
# How long one part's stop waits for one of its tasks once cancelled, before leaving it.
STOP_SECONDS = 3.0


class Deadline:
    """One time limit for a sequence of steps: each takes what is left (or less)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds

    def left(self, cap: float | None = None) -> float:
        """Seconds left (never negative), at most ``cap``."""
        remaining = max(0.0, self.ends - time.monotonic())
        return remaining if cap is None else min(cap, remaining)


def _stack(task: asyncio.Task[Any]) -> str:
    buffer = io.StringIO()
    try:
        task.print_stack(file=buffer)
    except Exception as error:  # pragma: no cover - print_stack of a broken task
        buffer.write(f"(stack unavailable: {error!r})")
    return buffer.getvalue()


async def cancel_until_done(task: asyncio.Task[Any], seconds: float, what: str) -> bool:
    """Cancel ``task`` until it is done, for at most ``seconds``; True if it ended.

    The task's own outcome (an error, a cancellation) is consumed: a stop does not fail
    because what it stopped failed. A task that outlives the limit is logged, with its stack,
    and left behind."""
    ends = time.monotonic() + seconds
    while not task.done():
        task.cancel()
        remaining = ends - time.monotonic()
        if remaining <= 0:
            break
        await asyncio.wait({task}, timeout=min(RECANCEL_SECONDS, remaining))
    if not task.done():
        log.error(
            "%s did not stop within %.1f s of being cancelled; left behind. Its stack:\n%s",
            what,
            seconds,
            _stack(task),
        )
        return False
    if not task.cancelled() and task.exception() is not None:
        log.debug("%s ended with %r", what, task.exception())
    return True


async def run_within(step: Awaitable[Any], seconds: float, what: str) -> bool:
    """Run ``step`` for at most ``seconds``; past that, cancel it (as :func:`cancel_until_done`
    does, with a short grace) and go on. True if it finished in time without an error; an
    error is logged, never raised, so one failed step does not skip the next ones."""
    task = asyncio.ensure_future(step)
    try:
        done, _ = await asyncio.wait({task}, timeout=max(0.0, seconds))
    except asyncio.CancelledError:
        await cancel_until_done(task, RECANCEL_SECONDS * 4, what)
        raise
    if not done:
        log.error("%s did not finish within %.1f s; cancelling it", what, seconds)
        await cancel_until_done(task, RECANCEL_SECONDS * 4, what)
        return False
    if task.cancelled():
        return False
    error = task.exception()
    if error is not None:
        log.error("%s failed: %r", what, error, exc_info=error)
        return False
    return True
