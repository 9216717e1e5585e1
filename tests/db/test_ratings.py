"""Pairwise Elo on known results, and through the SQL writer."""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from app.db import Database
from app.db.models import Game, Rating, RatingChange
from app.db.players import create_guest
from app.db.ratings import Contestant, expected_score, pairwise_elo
from app.db.results import write_event
from tests.db.helpers import game_event, seats_of


def test_expected_score() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)


def test_four_new_players_in_order() -> None:
    deltas = pairwise_elo([Contestant(1500, t) for t in (10, 50, 80, 100)])
    assert deltas == pytest.approx([20.0, 20 / 3, -20 / 3, -20.0])


def test_ties_share() -> None:
    deltas = pairwise_elo([Contestant(1500, 40), Contestant(1500, 40), Contestant(1500, 100)])
    assert deltas == pytest.approx([10.0, 10.0, -20.0])


def test_established_players_move_slower_and_upsets_pay_more() -> None:
    strong, weak = Contestant(1700, 90, rated_games=50), Contestant(1300, 20, rated_games=50)
    deltas = pairwise_elo([strong, weak])
    assert deltas[1] == pytest.approx(20 * (1 - expected_score(1300, 1700)))
    assert deltas[0] == pytest.approx(-deltas[1])


def test_bots_are_fixed_half_weight_anchors() -> None:
    human = Contestant(1500, 10)
    bots = [Contestant(1500, t, is_bot=True) for t in (50, 60, 100)]
    deltas = pairwise_elo([human, *bots])
    assert deltas == pytest.approx([10.0, 0.0, 0.0, 0.0])


def test_ratings_applied_once_per_game_and_history_kept(database: Database) -> None:
    players = [create_guest(database, name) for name in "ABCD"]
    seats = seats_of(*(p.id for p in players))
    write_event(database, game_event(seats, [10, 50, 80, 100], game_no=1))
    write_event(database, game_event(seats, [10, 50, 80, 100], game_no=1))  # duplicate
    write_event(database, game_event(seats, [100, 80, 50, 10], game_no=2))
    with database.session() as session:
        ratings = {r.player_id: (r.rating, r.games) for r in session.exec(select(Rating)).all()}
        history = session.exec(
            select(RatingChange)
            .where(RatingChange.player_id == players[0].id)
            .order_by(col(RatingChange.id))
        ).all()
        assert all(g.rated for g in session.exec(select(Game)).all())
    a = ratings[players[0].id]
    assert a[1] == 2
    assert [round(h.before, 2) for h in history] == [1500.0, 1520.0]
    assert history[1].after == a[0]
    # After game 1 A is 1520, D 1480; in game 2 D wins everything against higher ratings.
    assert ratings[players[3].id][0] > 1500.0 > ratings[players[0].id][0]


def test_replaced_seat_still_counts_for_its_player(sqlite_database: Database) -> None:
    a, b = create_guest(sqlite_database, "A"), create_guest(sqlite_database, "B")
    seats = seats_of(a.id, b.id)
    seats[1]["replaced_by_bot"] = True
    write_event(sqlite_database, game_event(seats, [0, 100], preset="two-player-28"))
    with sqlite_database.session() as session:
        rows = {r.player_id: r.rating for r in session.exec(select(Rating)).all()}
    assert rows == {a.id: 1520.0, b.id: 1480.0}


def test_same_player_twice_is_not_rated(sqlite_database: Database) -> None:
    a = create_guest(sqlite_database, "A")
    write_event(sqlite_database, game_event(seats_of(a.id, a.id), [0, 100]))
    with sqlite_database.session() as session:
        assert session.exec(select(Rating)).all() == []
