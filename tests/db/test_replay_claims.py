"""A stored game with a claim (issue 19) replays: the claimed tricks and the hand's result."""

from __future__ import annotations

import random

from app import engine
from app.db.replay import replay_game
from app.engine.claim import claim_wins_all


def test_a_claim_replays_as_its_tricks() -> None:
    rules = engine.make_rules("classic", {"end": "hands", "hands": 1})
    rng = random.Random(4)
    s = engine.new_game(rules, 11)
    moves: list[list[object]] = []
    while s.phase != "over":
        seat = engine.seats_to_act(s)[0]
        claim = s.phase == "play" and claim_wins_all(s, seat)
        move = engine.Claim() if claim else rng.choice(engine.legal_moves(s, seat))
        moves.append([seat, engine.move_to_json(move)])
        s = engine.apply(s, seat, move)
    assert moves[-1][1] == {"type": "claim"}
    got = replay_game("classic", rules.to_options(), 11, moves)
    (hand,) = got["hands"]
    assert hand["complete"] and hand["play_start"] is not None
    assert len(hand["tricks"]) == 13
    assert hand["result"]["points"] == list(s.history[0].points)
    assert got["totals"] == list(s.scores)
