"""A hint at the table: the Expert's suggested card or pass for one seat, from that seat's view.

Pure: the same evaluation as the review (``app.bots.expert.evaluate_play`` / ``evaluate_pass``)
over the seat's view alone (``app.engine.view(state, seat)``: its hand, the cards played, the
passes it made and received), with the review's calibration of the differences between moves
(``calibration.py``), at the review's budget (800 units a play, 2,400 a pass: about half
the CPU of the 1,600 / 4,800 docs/bots.md "Hints" measured; the dummy game's doubled as the
review doubles it) and with the review's random numbers for the position
(``analysis.position_rng``), so a hint and the review of the move after it agree; cut at 0.9
s of wall clock.  The caller (the table's computer-player workers) decides who may ask and
how often.

``hint(view, rules, seed=...)`` returns (JSON-ready)::

    {"kind": "play",                          # or "pass"; None: nothing to decide now
     "best": {"type": "play", "card": "2S"},  # engine move JSON
     "options": [                             # the best few, best first
        {"move": {...}, "expected": 2.1, "more": 0.0},   # expected points in the hand;
        {"move": {...}, "expected": 4.4, "more": 2.3}],  # "more": above the best
     "text": "Play the 2S: about 2 points this hand ...",
     "deals": 180}                            # sampled deals behind the figures
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import engine
from app.bots.expert import Evaluation, evaluate_pass, evaluate_play
from app.bots.knowledge import Knowledge
from app.bots.players import Budget, pass_json, play_json

from .analysis import ReviewBudget, position_rng
from .calibration import budget_scale, calibrated

# the work of one hint, in the Expert's units (full rollouts): the review's budget, at which its
# calibration is fitted; and its wall-clock cap (ms)
PLAY_UNITS = ReviewBudget.play_units
PASS_UNITS = ReviewBudget.pass_units
CAP_MS = 900.0
# options shown
SHOWN = 3


def _points(x: float) -> str:
    whole = round(x)
    if abs(x) < 1:
        return f"{x:.1f} points"
    if abs(x - whole) < 0.25:
        return "1 point" if whole == 1 else f"{whole} points"
    return f"{x:.1f} points"


def _move_words(move: Mapping[str, Any]) -> str:
    if move["type"] == "pass":
        return "pass " + ", ".join(str(c) for c in move["cards"])
    face = f" ({move['face']} face)" if move.get("face") else ""
    return f"play the {move['card']}{face}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def words(options: list[dict[str, Any]]) -> str:
    """The options in plain words: the suggestion, then what each other option costs."""
    best = options[0]
    text = f"{_cap(_move_words(best['move']))}: about {_points(best['expected'])} this hand"
    others = [
        f"{_move_words(o['move'])}: about {_points(o['more'])} more"
        if o["more"] >= 0.05
        else f"{_move_words(o['move'])}: about the same"
        for o in options[1:]
    ]
    return text + (" (" + "; ".join(others) + ")." if others else ".")


def _options(preset: str, moves: list[dict[str, object]], ev: Evaluation) -> list[dict[str, Any]]:
    exp = ev.expected()
    b = ev.best_index()
    order = sorted(range(len(moves)), key=lambda j: (j != b, exp[j]))[:SHOWN]
    out = []
    base = round(exp[b], 2)
    for j in order:
        more = 0.0 if j == b else round(calibrated(preset, exp[j] - exp[b]), 2)
        out.append({"move": moves[j], "expected": round(base + more, 2), "more": more})
    return out


def hint(
    view: Mapping[str, Any],
    rules: engine.Rules,
    *,
    seed: int = ReviewBudget.seed,
    play_units: int = PLAY_UNITS,
    pass_units: int = PASS_UNITS,
    cap_ms: float = CAP_MS,
) -> dict[str, Any]:
    """The suggestion for the seat whose view this is (see the module docstring). ``seed``
    and the units are the review's (its random numbers for this position, and its budget,
    scaled as the review scales it for the preset), so the hint is the review's verdict on the
    position before the move: the move it suggests is the one the review finds best."""
    legal = view.get("legal")
    kind = legal.get("type") if isinstance(legal, Mapping) else None
    rng = position_rng(seed, view)
    scale = budget_scale(rules.preset)
    play_units, pass_units = scale * play_units, scale * pass_units
    if kind == "play":
        k = Knowledge(view, rules)
        ev = evaluate_play(k, rng, Budget(play_units, cap_ms))
        lead = not k.cur_cards
        moves = [play_json(k.t, d, lead) for d in ev.cands]
    elif kind == "pass":
        pv = evaluate_pass(view, rules, rng, pass_units, cap_ms)
        if isinstance(pv, int):  # not simulated: the Standard pass, no figures
            move = pass_json(pv)
            return {
                "kind": "pass",
                "best": move,
                "options": [],
                "text": f"{_cap(_move_words(move))}.",
                "deals": 0,
            }
        ev = pv
        moves = [pass_json(d) for d in ev.cands]
    else:
        return {"kind": None, "best": None, "options": [], "text": "", "deals": 0}
    if len(moves) == 1:
        return {
            "kind": kind,
            "best": moves[0],
            "options": [],
            "text": f"{_cap(_move_words(moves[0]))}: it is the only legal move.",
            "deals": 0,
        }
    options = _options(rules.preset, moves, ev)
    return {
        "kind": kind,
        "best": options[0]["move"],
        "options": options,
        "text": words(options),
        "deals": ev.worlds,
    }


def seat_hint(
    view: Mapping[str, Any],
    preset: str,
    options: Mapping[str, object],
    seed: int = 0,
    units: int = PLAY_UNITS,
) -> dict[str, Any]:
    """``hint`` for the seat whose view this is, at a table of ``preset`` with ``options``:
    what the table's hint worker runs (arguments that pickle; the view is all it sees).
    ``units``: a play's, as the server's reviews are given (``HEARTS_REVIEW_UNITS``; a pass
    three times as many, as the review job does), so the two agree on any setting."""
    return hint(
        view,
        engine.make_rules(preset, options),
        seed=seed,
        play_units=units,
        pass_units=3 * units,
    )
