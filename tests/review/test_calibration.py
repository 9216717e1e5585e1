"""The review's calibration map and the most one hand can cost."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app import engine
from app.review import ReviewBudget, mark_of
from app.review.analysis import cap_hand
from app.review.calibration import (
    FITTED_UNITS,
    KNOTS,
    apply_knots,
    calibrated,
    hand_cost,
    knots_for,
)
from app.settings import Settings


@pytest.mark.parametrize(
    ("preset", "options", "cost"),
    [
        ("classic", None, 26),  # 0 to 26 (another's moon)
        ("classic-5", None, 26),
        ("double-hearts", None, 52),  # hearts count double
        ("two-player-28", None, 20),
        ("omnibus", None, 36),  # the JD: -10
        ("classic", {"moon": "self"}, 52),  # the shooter's own -26
        ("classic", {"no_trick_bonus": True}, 31),  # -5 for taking no trick
        ("two-player-dummy", None, 62),  # 26 + 10 (JD) + 26 (moon: self)
    ],
)
def test_hand_cost(preset: str, options: dict[str, object] | None, cost: int) -> None:
    assert hand_cost(engine.make_rules(preset, options)) == cost


knots = st.lists(st.tuples(st.floats(0.01, 20), st.floats(0, 20)), min_size=1, max_size=5).map(
    lambda ks: tuple(sorted({round(x, 3): y for x, y in ks}.items()))
)


@settings(max_examples=200, deadline=None)
@given(knots, st.floats(0, 60), st.floats(0, 60))
def test_the_map_is_non_negative_and_goes_through_the_knots(
    ks: tuple[tuple[float, float], ...], a: float, b: float
) -> None:
    assert apply_knots(ks, 0.0) == 0.0
    assert apply_knots(ks, a) >= 0
    for x, y in ks:
        assert apply_knots(ks, x) == pytest.approx(y)
    # increasing knots give an increasing map
    inc = tuple((x, float(i + 1)) for i, (x, _) in enumerate(ks))
    lo, hi = min(a, b), max(a, b)
    assert apply_knots(inc, lo) <= apply_knots(inc, hi) + 1e-9


def test_a_preset_without_a_fit_borrows_its_familys() -> None:
    for preset, family in (("omnibus", "classic"), ("double-hearts-3", "double-hearts")):
        assert knots_for(preset) == KNOTS.get(family, ())
        assert calibrated(preset, 2.0) == calibrated(family, 2.0)
    assert calibrated("no-such-preset", 2.0) == 2.0


def _entry(loss: float) -> dict[str, Any]:
    made = {"type": "play", "card": "QS"}
    return {
        "made": made,
        "loss": loss,
        "mark": mark_of(loss),
        "expected_best": 1.0,
        "expected_made": round(1.0 + loss, 2),
        "options": [
            {"move": {"type": "play", "card": "2S"}, "expected": 1.0},
            {"move": made, "expected": round(1.0 + loss, 2)},
        ],
    }


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 30).map(lambda x: round(x, 2)), max_size=14),
    st.sampled_from([20, 26, 52]),
)
def test_a_capped_hand_sums_to_at_most_its_cost(losses: list[float], cost: int) -> None:
    entries = [_entry(x) for x in losses]
    capped = cap_hand(entries, float(cost))
    assert capped == (sum(losses) > cost)
    assert sum(e["loss"] for e in entries) <= cost
    for e, before in zip(entries, losses, strict=True):
        assert 0 <= e["loss"] <= before
        assert e["mark"] == mark_of(e["loss"])
        assert e["expected_made"] == pytest.approx(e["expected_best"] + e["loss"], abs=0.011)
        assert e["options"][1]["expected"] == e["expected_made"]
        if not capped:
            assert e["loss"] == before


def test_the_default_budget_is_the_one_the_calibration_was_fitted_at() -> None:
    """The review (``ReviewBudget``) and the review jobs (``HEARTS_REVIEW_UNITS``, a pass three
    times a play) run by default at the budget the losses' ratios were fitted at."""
    budget = ReviewBudget()
    assert (budget.play_units, budget.pass_units) == FITTED_UNITS
    units = Settings.model_fields["review_units"].default
    assert (units, 3 * units) == FITTED_UNITS
