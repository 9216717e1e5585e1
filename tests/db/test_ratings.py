"""Weng-Lin ratings with uncertainty: the pure model, and through the SQL writer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from app.db import Database
from app.db.models import Game, Rating, RatingChange
from app.db.players import create_guest
from app.db.ratings import (
    BOT_RATINGS,
    NEW_PLAYER,
    PROVISIONAL_DEVIATION,
    Contestant,
    SeatResult,
    Skill,
    anchor,
    game_updates,
    is_provisional,
    places,
    rate_game,
    replay,
)
from app.db.results import write_event
from tests.db.helpers import game_event, seats_of


def test_places_share_ties_and_put_leavers_last() -> None:
    cs = [Contestant(NEW_PLAYER, t) for t in (40, 10, 40, 100)]
    assert places(cs) == [1, 0, 1, 2]
    cs[1] = Contestant(NEW_PLAYER, 0, left=True)  # the best total, but left
    assert places(cs) == [0, 2, 0, 1]


def test_four_new_players_in_order() -> None:
    after = rate_game([Contestant(NEW_PLAYER, t) for t in (10, 50, 80, 100)])
    ratings = [s.rating for s in after]
    assert ratings == sorted(ratings, reverse=True)
    assert ratings[0] > 1500 > ratings[3]
    assert all(s.deviation < NEW_PLAYER.deviation for s in after)


def test_ties_share() -> None:
    a, b, c = rate_game([Contestant(NEW_PLAYER, t) for t in (40, 40, 100)])
    assert a == b and a.rating > 1500 > c.rating


def test_upsets_pay_more() -> None:
    strong, weak = Skill(1700, 80), Skill(1300, 80)
    won_as_expected = rate_game([Contestant(strong, 10), Contestant(weak, 90)])
    upset = rate_game([Contestant(strong, 90), Contestant(weak, 10)])
    assert upset[1].rating - weak.rating > won_as_expected[0].rating - strong.rating > 0


def test_bots_are_fixed_anchors() -> None:
    human = Contestant(NEW_PLAYER, 10)
    bots = [Contestant(anchor(level), t, is_bot=True) for level, t in (("easy", 50), ("pro", 60))]
    after = rate_game([human, *bots])
    assert after[1:] == [b.skill for b in bots]
    assert after[1].rating == BOT_RATINGS["easy"]
    # beating an Expert is worth more than beating an Easy computer
    easy = rate_game([human, Contestant(anchor("easy"), 50, is_bot=True)])[0]
    expert = rate_game([human, Contestant(anchor("expert"), 50, is_bot=True)])[0]
    assert expert.rating > easy.rating > 1500


def test_leaving_costs_as_much_as_finishing_last() -> None:
    seats = [Contestant(NEW_PLAYER, t) for t in (30, 50, 80)]
    finished_last = rate_game([*seats, Contestant(NEW_PLAYER, 100)])[3]
    left_leading = rate_game([*seats, Contestant(NEW_PLAYER, 0, left=True)])[3]
    assert left_leading == finished_last
    assert left_leading.rating < 1500


def test_provisional_until_the_deviation_is_small() -> None:
    skill = NEW_PLAYER
    games = 0
    while is_provisional(skill.deviation):
        field = [Contestant(anchor("standard"), t, is_bot=True) for t in (40, 60, 90)]
        skill = rate_game([Contestant(skill, 50), *field])[0]
        games += 1
    assert skill.deviation <= PROVISIONAL_DEVIATION
    assert 5 <= games <= 20  # established after a dozen games or so, not after one


_seat = st.builds(
    SeatResult,
    player_id=st.sampled_from(["p1", "p2", "p3", "p4", "p5", None]),
    bot_level=st.sampled_from([None, "easy", "standard", "pro", "expert"]),
    total=st.integers(-26, 130),
    left=st.booleans(),
)
_game = st.tuples(st.lists(_seat, min_size=2, max_size=5), st.booleans())


@settings(max_examples=60, deadline=None)
@given(st.lists(_game, max_size=12))
def test_replay_is_deterministic_and_rounded(games: list[tuple[list[SeatResult], bool]]) -> None:
    first, history = replay(games)
    again, history_again = replay([(list(s), a) for s, a in games])
    assert first == again and history == history_again
    for updates in history:
        for u in updates:
            assert round(u.after.rating, 2) == u.after.rating
            assert 0 < u.after.deviation <= NEW_PLAYER.deviation + 10


@settings(max_examples=60, deadline=None)
@given(st.lists(_game, min_size=2, max_size=8))
def test_incremental_updates_equal_the_replay(games: list[tuple[list[SeatResult], bool]]) -> None:
    """Applying each game's updates to the stored skills, as the writer does, gives what the
    replay of the same games in the same order gives; an abandoned game moves only leavers."""
    skills: dict[str, Skill] = {}
    for seats, abandoned in games:
        for u in game_updates(seats, dict(skills), only_leavers=abandoned):
            seat = next(s for s in seats if s.player_id == u.player_id)
            assert seat.left or not abandoned
            skills[u.player_id] = u.after
    assert skills == replay(games)[0]


def test_ratings_applied_once_per_game_and_history_kept(database: Database) -> None:
    players = [create_guest(database, name) for name in "ABCD"]
    seats = seats_of(*(p.id for p in players))
    write_event(database, game_event(seats, [10, 50, 80, 100], game_no=1))
    write_event(database, game_event(seats, [10, 50, 80, 100], game_no=1))  # duplicate
    write_event(database, game_event(seats, [100, 80, 50, 10], game_no=2))
    with database.session() as session:
        ratings = {
            r.player_id: (r.rating, r.deviation, r.games)
            for r in session.exec(select(Rating)).all()
        }
        history = session.exec(
            select(RatingChange)
            .where(RatingChange.player_id == players[0].id)
            .order_by(col(RatingChange.id))
        ).all()
        assert all(g.rated for g in session.exec(select(Game)).all())
    a = ratings[players[0].id]
    assert a[2] == 2
    assert history[0].before == 1500.0
    assert history[1].before == history[0].after
    assert (history[1].after, history[1].deviation) == a[:2]
    expected, _ = replay(
        [
            ([SeatResult(p.id, None, t) for p, t in zip(players, totals, strict=True)], False)
            for totals in ([10, 50, 80, 100], [100, 80, 50, 10])
        ]
    )
    assert {pid: (s.rating, s.deviation) for pid, s in expected.items()} == {
        pid: r[:2] for pid, r in ratings.items()
    }


def test_a_casual_tables_games_are_not_rated(sqlite_database: Database) -> None:
    a, b = create_guest(sqlite_database, "A"), create_guest(sqlite_database, "B")
    write_event(sqlite_database, game_event(seats_of(a.id, b.id), [0, 100], rated=False))
    with sqlite_database.session() as session:
        assert session.exec(select(Rating)).all() == []
        assert not session.exec(select(Game)).one().rated


def test_replaced_seat_still_counts_for_its_player(sqlite_database: Database) -> None:
    a, b = create_guest(sqlite_database, "A"), create_guest(sqlite_database, "B")
    seats = seats_of(a.id, b.id)
    seats[1]["replaced_by_bot"] = True
    write_event(sqlite_database, game_event(seats, [0, 100], preset="two-player-28"))
    with sqlite_database.session() as session:
        rows = {r.player_id: r.rating for r in session.exec(select(Rating)).all()}
    assert rows[a.id] > 1500 > rows[b.id]


def test_a_leaver_is_rated_last_even_in_an_abandoned_game(sqlite_database: Database) -> None:
    a, b, c = (create_guest(sqlite_database, n) for n in "ABC")
    seats = seats_of(a.id, b.id, c.id)
    seats[0]["left"] = True  # A led when leaving; the game was then abandoned
    write_event(sqlite_database, game_event(seats, [5, 40, 60], ended="abandoned"))
    with sqlite_database.session() as session:
        rows = {r.player_id: r for r in session.exec(select(Rating)).all()}
        game = session.exec(select(Game)).one()
    assert game.rated and game.status == "abandoned"
    assert set(rows) == {a.id}  # only the leaver's rating moves in an abandoned game
    assert rows[a.id].rating < 1500


def test_an_abandoned_game_without_a_leaver_is_not_rated(sqlite_database: Database) -> None:
    a, b = create_guest(sqlite_database, "A"), create_guest(sqlite_database, "B")
    write_event(sqlite_database, game_event(seats_of(a.id, b.id), [5, 40], ended="abandoned"))
    with sqlite_database.session() as session:
        assert session.exec(select(Rating)).all() == []


def test_same_player_twice_is_not_rated(sqlite_database: Database) -> None:
    a = create_guest(sqlite_database, "A")
    write_event(sqlite_database, game_event(seats_of(a.id, a.id), [0, 100]))
    with sqlite_database.session() as session:
        assert session.exec(select(Rating)).all() == []


@pytest.mark.parametrize("bad", ["yes", 2, [True]])
def test_a_bad_rated_or_left_flag_is_refused(sqlite_database: Database, bad: object) -> None:
    from app.db.events import BadEvent

    a, b = create_guest(sqlite_database, "A"), create_guest(sqlite_database, "B")
    event = game_event(seats_of(a.id, b.id), [0, 100])
    event["rated"] = bad
    with pytest.raises(BadEvent):
        write_event(sqlite_database, event)
    event = game_event(seats_of(a.id, b.id), [0, 100])
    event["seats"][0]["left"] = bad
    with pytest.raises(BadEvent):
        write_event(sqlite_database, event)
