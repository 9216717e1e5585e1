"""A per-test time limit that turns a hang into one failed test with its stacks.

A test that hangs (a server that never stops, a task that swallows its cancellation, a socket
read that never returns) must not block the run: CI would wait for its own limit and nothing
would land. Each test (setup, call and teardown, so a module fixture's teardown is covered by
the test it ends after) runs under a watchdog thread. When the limit passes, the watchdog
writes the stack of every thread and of every unfinished asyncio task (of every event loop,
the test's own and those in TestClient portal threads) to stderr, then interrupts the main
thread with a signal whose handler raises :class:`HangTimeout`: the test fails with the
stacks in its report and the run goes on. If the main thread is still stuck after a grace
period (a C call that ignores signals, a loop that cannot close), the stacks are written again
and the process exits with status 3: under pytest-xdist the worker is reported as crashed
with that test named, and without xdist the run ends with a failure, never a hang.

The limit is ``HEARTS_TEST_TIMEOUT`` seconds (default 300; 0 turns the guard off), or a
test's own ``@pytest.mark.hang_timeout(seconds)``; the grace period is
``HEARTS_TEST_TIMEOUT_GRACE`` seconds (default 60). The stacks are written past pytest's output
capture (as pytest-timeout does), so they reach the terminal even when the process exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import sys
import threading
import traceback
from collections.abc import Generator
from typing import Any

import pytest

DEFAULT_SECONDS = 300.0
DEFAULT_GRACE_SECONDS = 60.0
SIGNAL = signal.SIGUSR2


class HangTimeout(pytest.fail.Exception):  # type: ignore[misc,name-defined]
    """Raised in the main thread when a test ran past its limit."""


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "")
    try:
        return float(raw) if raw else default
    except ValueError:
        raise pytest.UsageError(f"{name} must be a number of seconds, not {raw!r}") from None


def limit_for(item: pytest.Item) -> float:
    marker = item.get_closest_marker("hang_timeout")
    if marker is not None and marker.args:
        return float(marker.args[0])
    return _seconds("HEARTS_TEST_TIMEOUT", DEFAULT_SECONDS)


def dump_stacks() -> str:
    """Every thread's stack and every unfinished asyncio task's stack, as text."""
    out = io.StringIO()
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        out.write(f"\n--- thread {names.get(ident, '?')} ({ident}) ---\n")
        out.write("".join(traceback.format_stack(frame)))
    tasks: list[asyncio.Task[Any]] = []
    try:
        # Every task of every loop (asyncio.all_tasks needs a running loop and sees one).
        registry = getattr(asyncio.tasks, "_all_tasks", ())
        tasks = [task for task in list(registry) if not task.done()]
    except Exception as error:  # pragma: no cover - an interpreter without the registry
        out.write(f"\n(asyncio tasks unavailable: {error!r})\n")
    for task in tasks:
        state = f"cancelling={task.cancelling()}" if hasattr(task, "cancelling") else ""
        out.write(f"\n--- asyncio task {task.get_name()} {state} ---\n")
        buffer = io.StringIO()
        try:
            task.print_stack(file=buffer)
        except Exception as error:
            buffer.write(f"(stack unavailable: {error!r})\n")
        out.write(buffer.getvalue())
    return out.getvalue()


def _write(config: pytest.Config, text: str) -> None:
    """Write ``text`` to the terminal past pytest's capture of the test's output."""
    capman: Any = config.pluginmanager.getplugin("capturemanager")
    suspended = False
    if capman is not None:
        try:
            capman.suspend_global_capture(in_=True)
            suspended = True
        except Exception:
            suspended = False
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    finally:
        if suspended:
            with contextlib.suppress(Exception):
                capman.resume_global_capture()


class _Watchdog:
    def __init__(self, config: pytest.Config, nodeid: str, seconds: float) -> None:
        self.config = config
        self.nodeid = nodeid
        self.seconds = seconds
        self.grace = _seconds("HEARTS_TEST_TIMEOUT_GRACE", DEFAULT_GRACE_SECONDS)
        self.finished = threading.Event()
        self.fired = False
        self.stacks = ""
        self.thread = threading.Thread(target=self._run, name="hang-guard", daemon=True)

    def _run(self) -> None:
        if self.finished.wait(self.seconds):
            return
        self.fired = True
        self.stacks = dump_stacks()
        _write(
            self.config,
            f"\n=== hang guard: {self.nodeid} still running after {self.seconds:.0f} s; "
            f"stacks of every thread and asyncio task: ===\n{self.stacks}\n",
        )
        signal.pthread_kill(threading.main_thread().ident or 0, SIGNAL)
        if self.finished.wait(self.grace):
            return
        _write(
            self.config,
            f"\n=== hang guard: {self.nodeid} did not end {self.grace:.0f} s after it was "
            f"interrupted; exiting with status 3. Stacks now: ===\n{dump_stacks()}\n",
        )
        os._exit(3)


_current: _Watchdog | None = None


def _interrupted(signum: int, frame: Any) -> None:
    watchdog = _current
    if watchdog is None or watchdog.finished.is_set():
        return  # the test ended meanwhile
    raise HangTimeout(
        f"{watchdog.nodeid} ran past its {watchdog.seconds:.0f} s limit (hang guard); "
        f"stacks when it fired:\n{watchdog.stacks}",
        pytrace=True,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "hang_timeout(seconds): this test's own limit for the hang guard"
    )
    if threading.current_thread() is threading.main_thread():
        signal.signal(SIGNAL, _interrupted)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    global _current
    seconds = limit_for(item)
    if seconds <= 0:
        yield
        return
    watchdog = _Watchdog(item.config, item.nodeid, seconds)
    _current = watchdog
    watchdog.thread.start()
    try:
        yield
    finally:
        watchdog.finished.set()
        _current = None
