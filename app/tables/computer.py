"""Computer players for the table writer: ``app.bots.choose_move`` off the event loop.

Searches run in a process pool (``HEARTS_BOT_WORKERS``), or in one thread of the server
process when that is 0 (tests, tiny deployments). The bot gets only its seat's view (the
dict its browser would get) and a seed derived from the table's seed and the move number,
so a game with computer players replays exactly.

Also the computer's turn at a table (``computer_move``, ``apply_computer_move``): the due work
asks it when a computer seat is due.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from app import engine
from app.bots import DEFAULT_BUDGET_MS, LEVELS, choose_move
from app.engine import GameState
from app.tables.change import Change, public_move
from app.tables.model import Seat, Table
from app.workers import worker_pool

log = logging.getLogger(__name__)
T = TypeVar("T")

# Computer levels a seat may ask for (app.bots: Easy, Standard, Pro, Expert).
BOT_LEVELS: tuple[str, ...] = tuple(LEVELS)
# The level that plays for a person who is away or left (fast and sensible).
STAND_IN_LEVEL = "standard"
BOT_MEMO_SIZE = 2000  # computer decisions kept for a retried compare-and-set
# Rough search time of Expert's simulated pass (ms of one core), for the natural delay.
EXPERT_PASS_MS = 1500
# Claim checks an instance lets wait behind the one running in their own worker; more are
# refused (``ChecksBusy``) rather than queued without end.
CHECKS_WAITING = 4


class ChecksBusy(Exception):
    """Every claim check place of this instance is taken."""


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
        # Claim checks: their own single worker (a process when the computers have processes,
        # else a thread), so that a check (up to ~1.3 s of CPU in the dummy game) never waits
        # for a computer's move nor delays one; and how many are running or waiting.
        self._checks: Executor | None = None
        self.checks = 0
        # Told each decision's level and wall time in seconds (app/metrics.py).
        self.decided: Callable[[str, float], None] | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = worker_pool(self.workers, "bots", "app.bots")
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

    def _check_pool(self) -> Executor:
        if self._checks is None:
            self._checks = worker_pool(min(self.workers, 1), "claim-checks", "app.engine.claim")
        return self._checks

    def checks_full(self) -> bool:
        """Whether a claim check asked for now would be refused (``ChecksBusy``)."""
        return self.checks > CHECKS_WAITING

    async def check(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` (a claim's exact check) in the claim checks' own worker, never the
        computer players' pool; at most ``CHECKS_WAITING`` wait behind the one running, else
        ``ChecksBusy`` at once (nothing run)."""
        if self.checks_full():
            raise ChecksBusy
        self.checks += 1
        loop = asyncio.get_running_loop()
        try:
            try:
                return await loop.run_in_executor(self._check_pool(), fn, *args)
            except BrokenProcessPool:
                log.error("claim check worker broke; restarting it")
                old, self._checks = self._checks, None
                if old is not None:
                    old.shutdown(wait=False, cancel_futures=True)
                return await loop.run_in_executor(self._check_pool(), fn, *args)
        finally:
            self.checks -= 1

    def _reset(self, wait: bool = False) -> None:
        old, self._executor = self._executor, None
        if old is not None:
            old.shutdown(wait=wait, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (waiting for them, so their resources are released cleanly)."""
        self._reset(wait=True)
        checks, self._checks = self._checks, None
        if checks is not None:
            checks.shutdown(wait=True, cancel_futures=True)


# Computer decisions by position: (table, game, move number, seat, level) -> move JSON.
BotMemo = dict[tuple[str, int, int, int, str], dict[str, object]]


def level_of(seat: Seat) -> str:
    if seat.kind == "bot" and seat.level in BOT_LEVELS:
        return seat.level
    return STAND_IN_LEVEL  # a person away, or an unknown level


async def computer_move(
    computer: ComputerPlayers, memo: BotMemo, table: Table, state: GameState, seat_no: int
) -> engine.Move:
    """The computer's move for ``seat_no``, decided from that seat's view only. A lost
    compare-and-set at the same position reuses the decision kept in ``memo`` (it would be
    the same: the view and the seed are the same); a new position searches again."""
    level = level_of(table.seats[seat_no])
    key = (table.id, table.game_no, table.move_no, seat_no, level)
    move_json = memo.get(key)
    if move_json is None:
        seat_view = engine.view(state, seat_no)
        try:
            move_json = await computer.choose(
                level, seat_view, bot_seed(table.seed, table.move_no), table.options
            )
        except Exception:
            log.exception("computer player %s failed at table %s", level, table.id)
            return engine.legal_moves(state, seat_no)[0]
        if len(memo) >= BOT_MEMO_SIZE:
            memo.clear()
        memo[key] = move_json
    try:
        return engine.move_from_json(move_json)
    except engine.IllegalMove:
        log.error("computer player %s made no move at table %s: %r", level, table.id, move_json)
        return engine.legal_moves(state, seat_no)[0]


def apply_computer_move(
    table: Table, state: GameState, seat_no: int, move: engine.Move, change: Change
) -> None:
    """Play ``move`` for ``seat_no`` into ``change`` (a legal move instead if it is refused)."""
    try:
        new_state = engine.apply(state, seat_no, move)
    except engine.IllegalMove as exc:
        log.error("computer move %s refused at table %s: %s", move, table.id, exc.code)
        move = engine.legal_moves(state, seat_no)[0]
        new_state = engine.apply(state, seat_no, move)
    seat = table.seats[seat_no]
    if seat.owner_id is not None or seat.kind == "human":
        seat.replaced_hand = seat.replaced_game = True
    change.new_state = new_state
    stored = engine.move_to_json(move)
    event = {"kind": "move", "seat": seat_no, "move": public_move(move), "computer": True}
    if seat.forced:
        # The player's time ran out (a turn-based table): this one move was the computer's,
        # marked so in the stored moves too (the replay shows it; the engine ignores it).
        seat.forced = False
        event["timeout"] = True
        stored = {**stored, "timeout": True}
    change.moves.append([seat_no, stored])
    change.events.append(event)
