"""What a review's loss means in points: the map from the evaluation's raw loss to the loss shown,
and the most one hand can cost.

The evaluation's raw loss of a move (its expected points minus the best move's, by the Expert's
model over the deals the seat could face) is not yet an unbiased estimate of what the move cost:
the best move is the minimum of noisy estimates (so the made move looks worse than it is), and the
Expert's model of play is not the table's.  ``bench.review --calibrate`` plays positions out
from the true deal with the move made and with the best move (paired) and fits, per preset, a
shrinkage ratio (measured over raw) on training deals, kept as one knot of a piecewise-linear map
(``KNOTS``: the map takes more knots, a per-band fit, though on the sample sizes measured so far
that followed noise); :func:`calibrated` applies it.  docs/bots.md ("Calibration") shows the fit
and its check on held-out deals.
"""

from __future__ import annotations

from app import engine
from app.engine import tables_for

# the review's budget (units a play, units a pass) the knots below were fitted at: the review's
# default (``ReviewBudget``); a review at another budget uses the same knots
FITTED_UNITS = (800, 2400)
# presets reviewed at a multiple of the budget: the dummy game's raw losses agree with the
# measured ones at 1,600 / 4,800 units, not at 800 / 2,400 (its top band over-states them, and a
# ratio under-states the lowest; docs/bots.md "Calibration")
BUDGET_SCALE: dict[str, int] = {"two-player-dummy": 2}

# per preset: (raw loss, shown loss) knots, raw increasing, fitted by ``python -m bench.review
# --calibrate`` at the review's default budget; below the first knot the map is the straight
# line from (0, 0), past the last one it keeps the last knot's ratio (one knot: a ratio).  A
# preset without its own fit uses its family's (``FAMILY``); no fit at all: the raw loss.
KNOTS: dict[str, tuple[tuple[float, float], ...]] = {
    # fitted 2026-11-29 at 800 / 2,400 units on 2 x 24 to 2 x 78 deals per preset
    # (docs/bots.md "Calibration")
    "classic": ((1.0, 0.558),),
    "classic-3": ((1.0, 0.656),),
    "classic-5": ((1.0, 0.815),),
    "double-hearts": ((1.0, 0.6),),
    "two-player-28": ((1.0, 0.374),),
    # the dummy game (at twice the budget, ``BUDGET_SCALE``): its ratio came out 0.91 at 1,600 /
    # 4,800 and the raw loss agreed with the measured one in every band (the shrunk one not in
    # the lowest): none
}

# the fitted preset a preset without its own fit borrows (same game, same deck)
FAMILY: dict[str, str] = {
    "classic-3-jokers": "classic-3",
    "classic-5-jokers": "classic-5",
    "omnibus": "classic",
    "hooligan": "classic",
    "spot-hearts": "classic",
    "double-hearts-3": "double-hearts",
}


def knots_for(preset: str) -> tuple[tuple[float, float], ...]:
    """The calibration knots of ``preset`` (its own, else its family's, else none)."""
    return KNOTS.get(preset) or KNOTS.get(FAMILY.get(preset, ""), ())


def apply_knots(knots: tuple[tuple[float, float], ...], raw: float) -> float:
    """The piecewise-linear map through (0, 0) and ``knots`` at ``raw`` (>= 0 in, >= 0 out)."""
    if raw <= 0 or not knots:
        return max(raw, 0.0)
    x0, y0 = 0.0, 0.0
    for x1, y1 in knots:
        if raw <= x1:
            return max(0.0, y0 + (y1 - y0) * (raw - x0) / (x1 - x0))
        x0, y0 = x1, y1
    return max(0.0, raw * y0 / x0)


def budget_scale(preset: str) -> int:
    """How many times the review's budget ``preset``'s decisions are evaluated with."""
    return BUDGET_SCALE.get(preset, 1)


def calibrated(preset: str, raw: float) -> float:
    """The loss shown for a move whose raw loss (by the evaluation) is ``raw``."""
    return apply_knots(knots_for(preset), raw)


def hand_cost(rules: engine.Rules) -> float:
    """The most one hand can cost a seat: its highest possible points in a hand (another player's
    moon, every point card) minus its lowest (a moon of its own where the shooter subtracts, the
    bonus cards, the no-trick bonus).  26 in classic."""
    t = tables_for(rules)
    high = t.pos_total
    low = sum(v * g.bit_count() for g, v in t.neg_groups)
    if rules.moon == "self" or rules.moon == "choice":
        low -= t.pos_total
    if rules.no_trick_bonus and t.game == "classic":
        low -= 5
    return float(high - low)
