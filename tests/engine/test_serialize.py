"""The state's JSON: the checked load and the trusted fast load give the same state."""

from __future__ import annotations

import json
import random

import pytest

from app.engine import (
    PRESETS,
    GameState,
    Trick,
    apply,
    legal_moves,
    make_rules,
    new_game,
    seats_to_act,
    state_from_json,
    state_to_json,
    view,
)


def _games(seed: int) -> list[list[GameState]]:
    """Every state of a whole random game of every preset."""
    games = []
    for name in PRESETS:
        s = new_game(make_rules(name), seed)
        rng = random.Random(seed)
        states = [s]
        while s.phase != "over":
            seat = seats_to_act(s)[0]
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))
            states.append(s)
        games.append(states)
    return games


def test_trusted_load_equals_the_checked_load_for_every_preset() -> None:
    # The trusted load is compared with the original at every state of a whole game of every
    # preset, and with the checked load at every fifth state and at each hand's first and last
    # (the checked load replays the hand in play: at every state this test took 35 s). That the
    # checked load gives back every state it is given is test_properties.py's
    # test_json_round_trip_and_replay, at every state of its games.
    for states in _games(1):
        for i, s in enumerate(states):
            stored = json.loads(json.dumps(state_to_json(s)))  # as it comes back from Redis
            fast = state_from_json(stored, trusted=True)
            assert fast == s
            assert state_to_json(fast) == state_to_json(s)
            assert all(isinstance(getattr(fast, f), tuple) for f in ("hands", "scores", "tricks"))
            assert all(isinstance(tr, Trick) for tr in fast.tricks + fast.prev_tricks)
            hands = {states[j].hand_no for j in (i - 1, i + 1) if 0 <= j < len(states)}
            if i % 5 == 0 or hands != {s.hand_no}:  # (the game's first and last state too)
                assert state_from_json(stored) == fast
                for seat in (None, *range(s.players)):
                    assert view(fast, seat) == view(s, seat)


def test_trusted_load_plays_on_like_the_original() -> None:
    s = new_game(make_rules("classic"), 9)
    rng = random.Random(9)
    while s.phase != "over":
        s = state_from_json(json.loads(json.dumps(state_to_json(s))), trusted=True)
        seat = seats_to_act(s)[0]
        moves = legal_moves(s, seat)
        assert moves
        s = apply(s, seat, rng.choice(moves))
    assert s.winners


def test_trusted_load_shares_nothing_with_the_json() -> None:
    s = _games(3)[0][30]  # classic, in the middle of the first hand
    stored = json.loads(json.dumps(state_to_json(s)))
    fast = state_from_json(stored, trusted=True)
    stored["hands"][0] = 0
    stored["tricks"][0][0][0] = 99
    stored["rules"]["players"] = 7
    assert fast == s and fast.tricks


def test_trusted_load_still_refuses_another_schema() -> None:
    stored = state_to_json(new_game(make_rules("classic"), 1))
    with pytest.raises(ValueError):
        state_from_json(stored | {"schema": 9}, trusted=True)


def test_the_parts_kept_between_states_give_the_same_json() -> None:
    # state_to_json keeps the JSON of the tuples successive states share (last hand's tricks,
    # score sheet, layouts): a whole game encodes as it does with nothing kept.
    from app.engine import serialize

    for states in _games(4):
        kept = [json.dumps(state_to_json(s)) for s in states]
        fresh = []
        for s in states:
            serialize._parts.clear()
            fresh.append(json.dumps(state_to_json(s)))
        assert kept == fresh
    s = _games(5)[0][-1]  # the parts are shared, not copied, while they are the same tuple
    assert state_to_json(s)["history"] is state_to_json(s)["history"]
