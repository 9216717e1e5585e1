"""Every level plays whole games at tables with the auto_end option (issue 19): a hand may end
before its last trick, and the views and searches carry on into the next hand."""

from __future__ import annotations

import pytest

from app.bots import LEVELS, choose_move
from app.engine import apply, make_rules, move_from_json, new_game, seats_to_act, view

SMALL_BUDGET = 3  # ms: a few rollouts, enough to exercise the search


@pytest.mark.parametrize(
    "preset", ["classic", "two-player-dummy", "two-player-28", "double-hearts"]
)
def test_every_level_plays_games_that_end_by_themselves(preset: str) -> None:
    rules = make_rules(preset, {"auto_end": True, "end": "hands", "hands": 3})
    levels = list(LEVELS)
    s = new_game(rules, 5)
    k = 0
    while s.phase != "over":
        for seat in seats_to_act(s):
            level = levels[(seat + s.hand_no) % len(levels)]
            mv = choose_move(level, view(s, seat), seed=k, budget_ms=SMALL_BUDGET, hard_cap_ms=1e9)
            s = apply(s, seat, move_from_json(mv))
            k += 1
            if s.phase != "pass":
                break
    assert len(s.history) == 3
    played = [sum(r.tricks_won) for r in s.history]
    assert all(0 < p <= s.t.hand_size for p in played)
    if preset == "classic":
        assert min(played) < s.t.hand_size  # this seed has a hand that ended by itself
