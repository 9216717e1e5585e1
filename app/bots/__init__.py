"""Computer players: Easy, Standard, Pro and Expert, for every game of RULES.md.

The server calls one function with the seat's view (the same dict its browser would get):

    move = choose_move("pro", view, seed=..., budget_ms=None, options=table_options)

and gets a JSON move (``{"type": "play", "card": "QS"}``, ``{"type": "pass", "cards": [...]}``,
a ``"face"`` on a Double Hearts lead, ``{"type": "direction", ...}``, ``{"type": "moon", ...}``)
to hand to ``move_from_json``.  ``BotPool.choose`` runs the same call in a worker process so the
event loop never waits on a search.  See docs/bots.md.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from .knowledge import Knowledge, rules_of
from .players import (
    DEFAULT_BUDGET_MS,
    HARD_CAP_MS,
    LEVELS,
    choose_direction,
    choose_moon,
    easy_pass,
    easy_play,
    expert_pass,
    expert_play,
    pass_json,
    play_json,
    pro_play,
    standard_decision,
    std_pass,
)

__all__ = ["DEFAULT_BUDGET_MS", "HARD_CAP_MS", "LEVELS", "BotPool", "choose_move"]


def choose_move(
    level: str,
    view: Mapping[str, Any],
    seed: int,
    budget_ms: int | None = None,
    options: Mapping[str, object] | None = None,
    hard_cap_ms: float | None = None,
) -> dict[str, object]:
    """The move ``level`` makes from ``view`` (a seat's view, nothing more).

    ``seed`` makes the decision exact to replay; ``budget_ms`` sizes the search of Pro and Expert
    (a number of rollouts, not a clock, so it replays too; the default suits the level);
    ``options`` are the table's rule options (public table settings) when the table is not a
    plain preset.  ``hard_cap_ms`` overrides the level's wall-clock safety cap (the only thing
    that can make a decision differ between two runs: it cuts a search short on an overloaded
    machine).  Raises ``ValueError`` when the seat has nothing to do.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    rules = rules_of(view, options)
    rng = random.Random(f"bot:{level}:{seed}")
    phase = view.get("phase")
    legal = view.get("legal")
    if not isinstance(legal, Mapping):
        raise ValueError("this seat has no move to make now")
    kind = legal.get("type")
    if kind == "direction":
        return choose_direction(view, rng, level)
    if kind == "moon":
        return choose_moon(view, rules, rng, level)
    budget = DEFAULT_BUDGET_MS[level] if budget_ms is None else budget_ms
    if kind == "pass":
        if level == "easy":
            return pass_json(easy_pass(view, rng))
        if level == "expert":
            return pass_json(expert_pass(view, rules, rng, hard_cap_ms, budget_ms))
        from app.engine import tables_for

        return pass_json(std_pass(view, tables_for(rules)))
    if kind != "play" or phase != "play":
        raise ValueError(f"cannot act on {kind!r} in phase {phase!r}")
    k = Knowledge(view, rules)
    if level == "easy":
        d = easy_play(k, rng)
    elif level == "standard":
        d = standard_decision(k)
    elif level == "pro":
        d = pro_play(k, rng, budget, hard_cap_ms)
    else:
        d = expert_play(k, rng, budget, hard_cap_ms)
    return play_json(k.t, d, not k.cur_cards)


class BotPool:
    """Runs decisions off the event loop, in a process pool sized by the server's settings."""

    def __init__(self, workers: int = 1, executor: Executor | None = None) -> None:
        self._own = executor is None
        self._executor: Executor = executor or ProcessPoolExecutor(max_workers=max(1, workers))

    # choose_move's own parameters, passed on as they are: the worker process runs choose_move.
    async def choose(
        self,
        level: str,
        view: Mapping[str, Any],
        seed: int,
        budget_ms: int | None = None,
        options: Mapping[str, object] | None = None,
        hard_cap_ms: float | None = None,
    ) -> dict[str, object]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, choose_move, level, dict(view), seed, budget_ms, options, hard_cap_ms
        )

    def close(self) -> None:
        if self._own:
            self._executor.shutdown(wait=False, cancel_futures=True)
