"""Game review: the Expert's evaluation of one seat's decisions in a finished game.

Pure: no I/O, no clock but the budget's safety caps, no global random.  The job that runs it, stores
it and shows it (worker, SQL, API, page) lives elsewhere and calls one function::

    from app.review import ReviewBudget, review_seat

    review = review_seat(record, seat, budget=ReviewBudget(seed=0), progress=callback)

``record`` (a mapping, what ``app/db/replay.py`` replays): ``"preset"`` (or ``"variant"``: the
game's preset name), ``"options"`` (the rule options, ``rules.to_options()``; may be empty or
None), ``"seed"`` (the game's deal seed, int or digit string) and ``"moves"`` (the game's move list,
``[[seat, move_json], ...]``: ``stored_moves(game, hands)``).  ``seat``: the reviewed seat
(0-based).  ``progress(fraction)`` is called with 0.0 first, after each evaluated decision,
and 1.0 last.
Raises :class:`ReviewError` (a ``ValueError``) when the record cannot be replayed.

Each decision is evaluated from the seat's view at that moment (``app.engine.view(state, seat)``:
its hand, the cards played, the passes it made and received), never from the hidden hands: the
evaluation function is handed only those views (``review_views``), so two games that give the
seat the same views give the same review.  The random numbers come from ``budget.seed`` and the
decision's index, not from the game's seed, so the review is reproducible and leaks nothing.

The returned dict (JSON-ready; the shape is stable)::

    {
      "seat": 0, "variant": "classic", "players": 4,
      "thresholds": {"inaccuracy": 0.5, "mistake": 1.5, "blunder": 4.0},
      "budget": {"play_units": 800, "pass_units": 2400, "seed": 0},
      "loss": 3.2,              # sum of the losses of every reviewed decision (points)
      "accuracy": 87.5,         # 100 * share of the decisions with loss < "inaccuracy";
                                # None when the seat had no decision with a choice
      "decisions": 24,          # decisions reviewed
      "marks": {"inaccuracy": 2, "mistake": 1, "blunder": 0},
      "cut": false,             # true if a wall-clock cap cut a search short (then not exact
                                # to reproduce)
      "hands": [
        {"hand": 0,             # hand number in the game (0-based)
         "loss": 1.1, "accuracy": 90.0,           # accuracy None: no decision in the hand
         "capped": false,       # true: the losses summed to more than one hand can cost the
                                # seat (``hand_cost``: 26 in classic) and were scaled down to it
         "decisions": [
           {"index": 17,        # position of the move in the game's move list
            "kind": "play",     # or "pass"
            "trick": 1,         # trick number (0-based) of a play; None for a pass
            "made": {"type": "play", "card": "QS"},   # engine move JSON, as recorded
            "best": {"type": "play", "card": "2S"},   # the evaluation's best move
            "expected_made": 6.4, "expected_best": 2.1,  # expected hand points of the seat
            "loss": 4.3,        # expected_made - expected_best, >= 0 (0 when made is best);
                                # the evaluation's difference, calibrated (calibration.py)
            "mark": "blunder",  # None, "inaccuracy", "mistake" or "blunder"
            "exact": false,     # true: every sampled deal was solved exactly (endgame search)
            "deals": 412,       # sampled deals the best move was evaluated on
            "moon": false,      # true: a play that took points on the way to the seat's own
                                # successful moon (never charged a loss)
            "options": [{"move": {...}, "expected": 2.1}, ...]}  # best first; a pass lists
                                # the best few candidate passes and the one made
         ]}
      ]
    }

Moves are engine move JSON (``{"type": "play", "card": "QS"}``, a ``"face"`` on a Double Hearts
lead, ``{"type": "pass", "cards": [...]}``).  Points are the seat's points in the hand (lower is
better).  See docs/bots.md, "Game review", for the thresholds, the accuracy and measured times.
"""

from __future__ import annotations

from .analysis import (
    THRESHOLDS,
    Decision,
    ReviewBudget,
    ReviewError,
    decisions_of,
    mark_of,
    review_seat,
    review_views,
)

__all__ = [
    "THRESHOLDS",
    "Decision",
    "ReviewBudget",
    "ReviewError",
    "decisions_of",
    "mark_of",
    "review_seat",
    "review_views",
]
