"""Writing outbox records to SQL: exactly once, tolerant parsing, bad records refused."""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from app.db import Database
from app.db.events import BadEvent, parse_event
from app.db.models import Game, GameSeat, Hand, HandScore, RatingChange
from app.db.players import create_guest, delete_player
from app.db.results import write_event
from tests.db.helpers import game_event, hand_event, seats_of


def test_hands_then_game_written_once(database: Database) -> None:
    a, b = create_guest(database, "A"), create_guest(database, "B")
    seats = seats_of(a.id, b.id, None, None, bots={2: "easy", 3: "pro"})
    first = hand_event(seats, hand_no=0, points=[0, 26, 0, 0], moons=[1])
    assert write_event(database, first) == "written"
    assert write_event(database, first) == "duplicate"
    assert write_event(database, hand_event(seats, hand_no=1, points=[13, 5, 4, 4])) == "written"
    done = game_event(seats, [13, 31, 4, 4])
    assert write_event(database, done) == "written"
    assert write_event(database, done) == "duplicate"
    # A late duplicate of a hand after the game is still a duplicate.
    assert write_event(database, first) == "duplicate"
    with database.session() as session:
        game = session.exec(select(Game)).one()
        assert (game.status, game.hands_played, game.totals, game.winners) == (
            "finished",
            2,
            [13, 31, 4, 4],
            [2, 3],
        )
        assert game.seed == "42"
        seats_rows = session.exec(select(GameSeat).order_by(col(GameSeat.seat))).all()
        assert [s.player_id for s in seats_rows] == [a.id, b.id, None, None]
        assert [s.name for s in seats_rows] == ["A", "B", None, None]
        assert [s.bot_level for s in seats_rows] == [None, None, "easy", "pro"]
        assert [s.won for s in seats_rows] == [False, False, True, True]
        assert len(session.exec(select(Hand)).all()) == 2
        scores = session.exec(select(HandScore).where(HandScore.player_id == b.id)).all()
        assert sorted(s.points for s in scores) == [5, 26]
        assert [s.shot_moon for s in scores].count(True) == 1
        assert len(session.exec(select(RatingChange)).all()) == 2


def test_game_record_alone_creates_the_game(database: Database) -> None:
    a = create_guest(database, "A")
    seats = seats_of(a.id, None, bots={1: "standard"})
    assert write_event(database, game_event(seats, [100, 50], preset="two-player-28")) == "written"
    with database.session() as session:
        assert session.exec(select(Game.variant)).one() == "two-player-28"


def test_abandoned_game_is_not_rated(database: Database) -> None:
    a, b = create_guest(database, "A"), create_guest(database, "B")
    event = game_event(seats_of(a.id, b.id), [10, 20], ended="abandoned")
    assert write_event(database, event) == "written"
    with database.session() as session:
        game = session.exec(select(Game)).one()
        assert (game.status, game.rated) == ("abandoned", False)


def test_unknown_player_becomes_an_anonymous_seat(sqlite_database: Database) -> None:
    a = create_guest(sqlite_database, "A")
    gone = create_guest(sqlite_database, "Gone")
    delete_player(sqlite_database, gone.id)
    event = game_event(seats_of(a.id, gone.id, "never-existed"), [1, 2, 3])
    assert write_event(sqlite_database, event) == "written"
    with sqlite_database.session() as session:
        ids = session.exec(select(GameSeat.player_id).order_by(col(GameSeat.seat))).all()
    assert ids == [a.id, None, None]


def test_tolerant_spellings() -> None:
    record = parse_event(
        {
            "kind": "hand",
            "table": "X",
            "game": "3",
            "hand": 2.0,
            "variant": "omnibus",
            "seats": ["p1", None, {"player": "p3", "away": True}, {"bot": "easy"}],
            "points": [1, 2, 3, 20],
            "moon": [False, False, False, True],
            "direction": "right",
            "moves": [
                {"seat": 0, "type": "play", "card": "2C"},
                [1, {"type": "play", "card": "3C"}],
            ],
            "ended_at": 1767268800,
            "unknown_future_field": {"ignored": True},
        }
    )
    assert record.table_id == "X" and record.game_no == 3
    assert record.preset == "omnibus"
    assert [s.player_id for s in record.seats] == ["p1", None, "p3", None]
    assert record.seats[2].replaced_by_bot
    assert record.seats[3].bot_level == "easy"
    assert record.moons == (3,)  # type: ignore[union-attr]
    assert record.moves == [
        [0, {"type": "play", "card": "2C"}],
        [1, {"type": "play", "card": "3C"}],
    ]


@pytest.mark.parametrize(
    "event",
    [
        None,
        [],
        {"kind": "chat"},
        {"kind": "hand", "table_id": "T", "preset": "classic", "seats": []},
        {"kind": "hand", "table_id": "T", "preset": "classic", "seats": ["a"], "hand_no": "x"},
        {"kind": "hand", "table_id": "T", "preset": "classic", "seats": ["a"], "hand_no": 1},
        {"kind": "game", "table_id": "T", "preset": "classic", "seats": ["a"], "ended": "won"},
        {"kind": "game", "table_id": "T", "preset": "classic", "seats": ["a"], "totals": []},
        {
            "kind": "game",
            "table_id": "T",
            "preset": "classic",
            "seats": ["a"],
            "totals": [1],
            "winners": [3],
        },
        {"kind": "game", "table_id": "", "preset": "classic", "seats": ["a"], "totals": [1]},
        {
            "kind": "game",
            "table_id": "T",
            "preset": "classic",
            "seats": ["a"],
            "totals": [1],
            "moves": [[0, "QS"]],
        },
        {
            "kind": "game",
            "table_id": "T",
            "preset": "classic",
            "seats": ["a"],
            "totals": [1],
            "ended_at": "yesterday",
        },
    ],
)
def test_bad_events_are_refused(event: object) -> None:
    with pytest.raises(BadEvent):
        parse_event(event)


def test_records_in_the_table_service_shape(database: Database) -> None:
    """Hand records without preset or seats (the game record brings them), seats with kind and
    level, "dummy" among the winners, times in epoch milliseconds."""
    a, b = create_guest(database, "A"), create_guest(database, "B")
    base = {"table_id": "tbl", "game_no": 2}
    for hand_no, moon in ((0, None), (1, 1)):
        hand = {
            **base,
            "kind": "hand",
            "hand_no": hand_no,
            "dealer": 0,
            "direction": "left",
            "points": [3, 26, 10],
            "totals": [3, 26, 10],
            "moon": moon,
            "finished_ms": 1767268800000,
        }
        assert write_event(database, hand) == "written"
    game = {
        **base,
        "kind": "game",
        "preset": "two-player-dummy",
        "options": {},
        "seed": 2**70,
        "hands": 2,
        "totals": [60, 110, 20],
        "winners": ["dummy"],
        "seats": [
            {"seat": 0, "kind": "human", "player_id": a.id, "name": "A", "level": None},
            {"seat": 1, "kind": "human", "player_id": b.id, "name": "B", "level": "easy"},
        ],
        "started_ms": 1767265200000,
        "finished_ms": 1767268800000,
    }
    assert write_event(database, game) == "written"
    with database.session() as session:
        row = session.exec(select(Game)).one()
        assert (row.variant, row.players, row.winners, row.seed) == (
            "two-player-dummy",
            2,
            [2],
            str(2**70),
        )
        assert row.ended_at is not None and row.ended_at.year == 2026
        seats = session.exec(select(GameSeat).order_by(col(GameSeat.seat))).all()
        assert [(s.player_id, s.bot_level, s.won) for s in seats] == [
            (a.id, None, False),
            (b.id, None, False),
        ]
        scores = session.exec(select(HandScore).order_by(col(HandScore.scorer))).all()
        assert {(s.scorer, s.player_id) for s in scores} == {
            (0, a.id),
            (1, b.id),
            (2, None),
        }
        assert sum(s.shot_moon for s in scores) == 1
