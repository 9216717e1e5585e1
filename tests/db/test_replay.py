"""Replays rebuilt from SQL equal the live game."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from app import engine
from app.db import Database
from app.db.models import Game, Hand
from app.db.players import create_guest
from app.db.replay import ReplayError, replay_game, replay_stored
from app.db.results import write_event
from tests.db.helpers import play_random_game, seats_of

CASES = [
    ("classic", {"end": "hands", "hands": 3}),
    ("classic-3-jokers", {"end": "hands", "hands": 2}),
    ("two-player-dummy", {"end": "hands", "hands": 2}),
    ("two-player-28", {}),
    ("double-hearts-3", {"end": "hands", "hands": 2}),
]


def _stored(database: Database) -> tuple[Game, list[Hand]]:
    with database.session() as session:
        game = session.exec(select(Game)).one()
        hands = list(session.exec(select(Hand)).all())
    return game, hands


@pytest.mark.parametrize(("preset", "options"), CASES)
def test_replay_equals_the_live_game(
    sqlite_database: Database, preset: str, options: dict[str, Any]
) -> None:
    players = engine.make_rules(preset, options).players
    people = [create_guest(sqlite_database, f"P{i}").id for i in range(players)]
    events, live = play_random_game(preset, options, 1234, seats_of(*people), rng_seed=7)
    for event in events:
        assert write_event(sqlite_database, event) == "written"
    game, hands = _stored(sqlite_database)
    replay = replay_stored(game, hands)
    assert replay["matches_record"]
    assert replay["totals"] == live["totals"] == game.totals
    assert [h["result"]["points"] for h in replay["hands"]] == live["results"]
    assert all(h["complete"] for h in replay["hands"])
    text = engine.double_card_str if preset.startswith("double") else engine.card_str
    replay_tricks = [
        [[p["card"] for p in t["plays"]] for t in h["tricks"]] for h in replay["hands"]
    ]
    live_tricks = [[[text(c) for c in t] for t in hand] for hand in live["tricks"]]
    assert replay_tricks == live_tricks
    # Every hand shows every holder's deal once the game is over.
    first = replay["hands"][0]
    assert sum(len(h["cards"]) for h in first["deal"]) >= len(first["tricks"]) * players
    # The whole-game moves and the per-hand moves replay to the same state.
    state = engine.replay(
        engine.make_rules(preset, options),
        1234,
        [(seat, engine.move_from_json(m)) for hand in hands for seat, m in hand.moves],
    )
    assert engine.state_to_json(state) == live["final_state"]


def test_replay_from_hand_moves_when_the_game_record_has_none(sqlite_database: Database) -> None:
    events, live = play_random_game(
        "classic",
        {"end": "hands", "hands": 2},
        99,
        seats_of(None, None, None, None, bots={0: "easy", 1: "easy", 2: "easy", 3: "easy"}),
        rng_seed=3,
    )
    events[-1]["moves"] = []
    for event in events:
        write_event(sqlite_database, event)
    game, hands = _stored(sqlite_database)
    assert game.moves is None
    assert replay_stored(game, hands)["totals"] == live["totals"]


def test_abandoned_game_replays_as_far_as_it_went() -> None:
    events, _ = play_random_game("classic", {"end": "hands", "hands": 1}, 5, seats_of(*"abcd"), 1)
    moves = events[-1]["moves"][:20]  # passes, then a few cards
    replay = replay_game("classic", {}, 5, moves)
    assert replay["phase"] == "play"
    [hand] = replay["hands"]
    assert not hand["complete"]
    assert sum(len(t["plays"]) for t in hand["tricks"]) == 20 - 4


def test_moves_the_computer_made_for_a_player_out_of_time_are_marked() -> None:
    events, _ = play_random_game("classic", {"end": "hands", "hands": 1}, 5, seats_of(*"abcd"), 1)
    moves = [[seat, dict(move)] for seat, move in events[-1]["moves"]]
    passed, played = moves[0], moves[6]  # a pass, and a card of the first or second trick
    passed[1]["timeout"] = played[1]["timeout"] = True
    replay = replay_game("classic", {"end": "hands", "hands": 1}, 5, moves)
    [hand] = replay["hands"]
    marked = [m for m in hand["moves"] if m.get("timeout")]
    assert [m["seat"] for m in marked] == [passed[0], played[0]]
    plays = [p for t in hand["tricks"] for p in t["plays"] if p.get("timeout")]
    assert [(p["seat"], p["card"]) for p in plays] == [(played[0], played[1]["card"])]
    # The same game unmarked: no mark anywhere, the same result.
    plain = replay_game("classic", {"end": "hands", "hands": 1}, 5, events[-1]["moves"])
    assert plain["totals"] == replay["totals"]
    assert not any(p.get("timeout") for t in plain["hands"][0]["tricks"] for p in t["plays"])


@pytest.mark.parametrize(
    ("preset", "seed", "moves", "fragment"),
    [
        ("nope", 1, [], "cannot set up"),
        ("classic", None, [], "no seed"),
        ("classic", 1, [[0, {"type": "play", "card": "2C"}]], "move 0"),
        ("classic", 1, [[0, {"type": "fly"}]], "move 0"),
    ],
)
def test_unreplayable_records(
    preset: str, seed: int | None, moves: list[Any], fragment: str
) -> None:
    with pytest.raises(ReplayError, match=fragment):
        replay_game(preset, {}, seed, moves)
