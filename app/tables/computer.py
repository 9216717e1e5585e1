"""Computer players for the table writer: ``app.bots.choose_move`` off the event loop.

Searches run in a process pool (``HEARTS_BOT_WORKERS``), or in one thread of the server
process when that is 0 (tests, tiny deployments). The bot gets only its seat's view (the
dict its browser would get) and a seed derived from the table's seed and the move number,
so a game with computer players replays exactly.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from app.bots import DEFAULT_BUDGET_MS, LEVELS, choose_move
from app.workers import exit_with_parent

log = logging.getLogger(__name__)
T = TypeVar("T")

# The level that plays for a person who is away or left (fast and sensible).
STAND_IN_LEVEL = "standard"
# Rough search time of Expert's simulated pass (ms of one core), for the natural delay.
EXPERT_PASS_MS = 1500


def bot_seed(table_seed: int, move_no: int) -> int:
    """The seed of the computer's decision at move ``move_no`` of a game."""
    return table_seed * 100_000 + move_no


class ComputerPlayers:
    """Runs ``choose_move`` in a worker process (or a thread) and awaits it."""

    def __init__(self, workers: int = 0, *, budget_ms: int = 0, hard_cap_ms: int = 0) -> None:
        self.workers = workers
        self.budget_ms = budget_ms or None
        self.hard_cap_ms = float(hard_cap_ms) if hard_cap_ms else None
        self._executor: Executor | None = None
        # Told each decision's level and wall time in seconds (app/metrics.py).
        self.decided: Callable[[str, float], None] | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.workers <= 0:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="bots")
            else:
                # spawn: a clean interpreter per worker (forking a process with an event loop
                # and threads running is not safe); each imports only the bots and the engine,
                # and ends with the server process.
                self._executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=exit_with_parent,
                    initargs=("app.bots", os.getpid()),
                )
        return self._executor

    def start(self) -> None:
        """Start the workers now, so the first computer move does not wait for them."""
        pool = self._pool()
        for _ in range(max(1, self.workers)):
            pool.submit(abs, 0)

    def expected_ms(self, level: str, phase: str) -> int:
        """About how long a decision of ``level`` searches (to shorten the natural delay)."""
        if level == "expert" and phase == "pass":
            return EXPERT_PASS_MS
        if level in ("pro", "expert") and phase == "play":
            return self.budget_ms or DEFAULT_BUDGET_MS[level]
        return 0

    async def choose(
        self,
        level: str,
        view: Mapping[str, Any],
        seed: int,
        options: Mapping[str, object] | None = None,
    ) -> dict[str, object]:
        """The move ``level`` makes from ``view`` (JSON). Raises ValueError on a bad level."""
        if level not in LEVELS:
            raise ValueError(f"unknown computer level {level!r}")
        loop = asyncio.get_running_loop()
        args = (level, dict(view), seed, self.budget_ms, options, self.hard_cap_ms)
        for attempt in (1, 2):
            try:
                started = time.perf_counter()
                move = await loop.run_in_executor(self._pool(), choose_move, *args)
                if self.decided is not None:
                    self.decided(level, time.perf_counter() - started)
                return move
            except BrokenProcessPool:
                # A worker died (killed, out of memory): start a fresh pool and try once more.
                log.error("computer player pool broke (attempt %d); restarting it", attempt)
                self._reset()
        raise RuntimeError("the computer player pool keeps failing")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the same workers (a CPU-bound check, e.g. a claim's exact search,
        that must not hold the event loop); ``fn`` and its arguments must pickle."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), fn, *args)
        except BrokenProcessPool:
            log.error("computer player pool broke; restarting it")
            self._reset()
            return await loop.run_in_executor(self._pool(), fn, *args)

    def _reset(self, wait: bool = False) -> None:
        old, self._executor = self._executor, None
        if old is not None:
            old.shutdown(wait=wait, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (waiting for them, so their resources are released cleanly)."""
        self._reset(wait=True)
