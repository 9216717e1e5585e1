"""Hints (app/review/hint.py): the suggestion is a legal move, the figures add up, the words
say them, a hint is computed from the asking seat's view only, and a player who follows every
hint is never told by the review that a move was a mistake, in every preset."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app import engine
from app.bots import choose_move
from app.bots.knowledge import card_of
from app.engine.rules import PRESETS
from app.review.analysis import ReviewBudget, review_seat
from app.review.hint import hint, words
from tests.review.test_analysis import ONE_HAND, _twin_games

SMALL = {"play_units": 100, "pass_units": 200, "cap_ms": 1e9}


def _views(preset: str, seed: int, seat: int) -> list[dict[str, Any]]:
    """The seat's views at each of its passes and plays in a one-hand game of bots."""
    rules = engine.make_rules(preset, ONE_HAND)
    s = engine.new_game(rules, seed)
    out = []
    n = 0
    while s.phase != "over":
        who = engine.seats_to_act(s)[0]
        v = engine.view(s, who)
        if who == seat and s.phase in ("pass", "play"):
            out.append(v)
        s = engine.apply(s, who, engine.move_from_json(choose_move("standard", v, n)))
        n += 1
    return out


def _cards(move: dict[str, Any]) -> list[str]:
    return list(move.get("cards", [])) if move["type"] == "pass" else [move["card"]]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_hints_a_legal_move_of_the_seats_own_cards(preset: str) -> None:
    rules = engine.make_rules(preset, ONE_HAND)
    views = _views(preset, 5, 0)
    assert views
    for view in views[:6]:
        h = hint(view, rules, seed=1, **SMALL)
        legal = view["legal"]
        assert h["kind"] == legal["type"]
        assert h["text"]
        hand = {card_of(c) for c in view["hand"]} | {card_of(c) for c in view.get("half_dummy", [])}
        for o in [{"move": h["best"]}, *h["options"]]:
            assert {card_of(c) for c in _cards(o["move"])} <= hand
        # every card the words name is the seat's own
        named = set(re.findall(r"\b(?:10|[2-9TJQKA])[CDSH]\b", h["text"]))
        assert {card_of(c) for c in named} <= hand
        if h["kind"] == "play":
            assert h["best"]["card"] in [c.split("/")[0] for c in legal["cards"]] or any(
                c.startswith(h["best"]["card"]) for c in legal["cards"]
            )
        if h["options"]:
            assert h["options"][0]["move"] == h["best"] and h["options"][0]["more"] == 0
            mores = [o["more"] for o in h["options"]]
            assert all(x >= 0 for x in mores)
            for o in h["options"]:
                assert o["expected"] == round(h["options"][0]["expected"] + o["more"], 2)
        assert "seed" not in str(h).lower()


@pytest.mark.parametrize(("preset", "seed"), [("classic", 21), ("double-hearts", 24)])
def test_a_hint_reads_only_the_seats_view(preset: str, seed: int) -> None:
    """Two deals that differ only in cards the seat cannot see: the same view gets the same
    hint, though the hidden hands differ."""
    dec_a, dec_b, rules = _twin_games(preset, seed, 0)
    same = 0
    for a, b in zip(dec_a, dec_b, strict=False):
        if a.view == b.view and a.made["type"] == "play":
            assert hint(a.view, rules, seed=3, **SMALL) == hint(b.view, rules, seed=3, **SMALL)
            same += 1
    assert same >= 2


def test_the_words_say_the_figures() -> None:
    options = [
        {"move": {"type": "play", "card": "2S"}, "expected": 2.0, "more": 0.0},
        {"move": {"type": "play", "card": "QS"}, "expected": 15.5, "more": 13.5},
        {"move": {"type": "play", "card": "3S"}, "expected": 2.02, "more": 0.02},
    ]
    assert words(options) == (
        "Play the 2S: about 2 points this hand (play the QS: about 13.5 points more;"
        " play the 3S: about the same)."
    )
    one = [{"move": {"type": "pass", "cards": ["QS", "AH", "KH"]}, "expected": 0.6, "more": 0}]
    assert words(one) == "Pass QS, AH, KH: about 0.6 points this hand."


def test_nothing_to_decide_gives_no_hint() -> None:
    rules = engine.make_rules("classic")
    s = engine.new_game(rules, 1)
    view = engine.view(s, 0)
    view = dict(view, legal=None)
    assert hint(view, rules, seed=0)["kind"] is None


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_player_who_follows_every_hint_loses_nothing_in_the_review(preset: str) -> None:
    """The hint is the review's verdict before the move: the same random numbers for the same
    position and the same budget (the dummy game's doubled in both), so a seat that plays
    each hinted move is reviewed at 0 points lost on every decision, pass and play alike."""
    rules = engine.make_rules(preset, ONE_HAND)
    budget = ReviewBudget(play_units=60, pass_units=120, seed=4)
    units = {"play_units": budget.play_units, "pass_units": budget.pass_units, "cap_ms": 1e9}
    s = engine.new_game(rules, 11)
    moves: list[list[Any]] = []
    hinted = 0
    while s.phase != "over":
        who = engine.seats_to_act(s)[0]
        view = engine.view(s, who, sheet=False)  # what the table's hint is given
        move = None
        if who == 0:
            h = hint(view, rules, seed=budget.seed, **units)
            if h["options"]:  # a choice the review judges (else no figures to agree with)
                move = h["best"]
                hinted += 1
        if move is None:
            move = choose_move("standard", view, len(moves))
        moves.append([who, move])
        s = engine.apply(s, who, engine.move_from_json(move))
    assert hinted >= 3, "too few choices to test anything"
    record = {"preset": preset, "options": rules.to_options(), "seed": 11, "moves": moves}
    review = review_seat(record, 0, budget=budget)
    judged = [d for hand in review["hands"] for d in hand["decisions"]]
    assert len(judged) >= hinted
    assert all(d["loss"] == 0 and d["mark"] is None for d in judged), [
        (d["index"], d["made"], d["best"], d["loss"]) for d in judged if d["loss"]
    ]
