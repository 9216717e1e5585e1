"""bench/calibration.py: positions measured paired from the true deal, the fit and the table."""

from __future__ import annotations

import math

import pytest

from app import engine
from app.review import ReviewBudget
from bench import calibration as cal

SMALL = ReviewBudget(play_units=60, pass_units=120, seed=0)


def _row(raw: float, measured: float) -> dict[str, object]:
    return {"preset": "classic", "deal": 0, "raw": raw, "measured": measured, "cpu": 0.1}


def test_the_fit_is_the_ratio_of_measured_to_raw_losses() -> None:
    rows = [_row(x / 50, 0.5 * x / 50) for x in range(1, 600)]
    assert cal.fit(rows) == ((1.0, 0.5),)
    # positions below the floor (the best move made, or all but) do not count
    rows = [_row(2.0, 1.0), _row(4.0, 3.0), _row(0.0, 0.0), _row(0.01, 5.0)]
    assert cal.fit(rows) == ((1.0, round(4.0 / 6.0, 3)),)
    assert cal.fit([_row(1.0, -2.0)]) == ((1.0, 0.0),)  # never a negative loss
    assert cal.fit([]) == ()


def test_the_table_says_whether_predicted_and_measured_agree() -> None:
    good = [_row(1.0, m) for m in (0.0, 2.0) * 20]
    bad = [_row(2.0, m) for m in (8.0, 10.0) * 20]
    lines = cal.table(good + bad, (), "classic")
    assert "| 0.5-1.5 | 40 |" in lines[0] and lines[0].endswith("| yes |")
    assert "| 1.5-4 | 40 |" in lines[1] and lines[1].endswith("| no |")
    assert "| 4+ | 0 |" in lines[2]


def test_fields_pair_every_choice_of_the_others() -> None:
    t = engine.tables_for(engine.make_rules("classic"))
    fields = cal._fields(t)
    assert len(fields) == 8 and len(set(fields)) == 8
    assert all(m & 1 for m in fields)
    dummy = cal._fields(engine.tables_for(engine.make_rules("two-player-dummy")))
    assert sorted(dummy) == [0b0101, 0b1111]  # the seat and its half dummy; the other's pair


@pytest.mark.parametrize("preset", ["classic", "two-player-dummy"])
def test_positions_measure_both_moves_on_the_true_deal(preset: str) -> None:
    rows = list(cal.positions(preset, 3, SMALL))
    assert rows
    for r in rows:
        assert r["raw"] >= 0 and math.isfinite(r["measured"])
        assert r["kind"] in ("play", "pass")
    # the best move measured against itself costs nothing: a move made that is the best
    _rules, states, moves = cal._hand(preset, 3)
    index = next(i for i, (who, mv) in enumerate(moves) if who == 0 and mv["type"] == "play")
    a = cal._play_on(states[index], index, moves[index][1], moves)
    b = cal._play_on(states[index], index, moves[index][1], moves)
    assert a == b and len(a) == len(cal._fields(states[index].t))


def test_cross_fitting_never_shows_a_half_its_own_fit() -> None:
    first = [_row(2.0, 1.0)] * 10  # ratio 0.5
    second = [_row(2.0, 2.0)] * 10  # ratio 1.0
    rows, both = cal.cross(first, second)
    assert [r["shown"] for r in rows[:10]] == [2.0] * 10  # by the second half's ratio
    assert [r["shown"] for r in rows[10:]] == [1.0] * 10  # by the first half's ratio
    assert both == ((1.0, 0.75),)
