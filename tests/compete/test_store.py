"""The daily challenge in SQL, on SQLite and PostgreSQL: deals recorded once and in order from
the stored hands, matchpoints per version, leaderboards by keyset pages, refresh, month, streak.

The hands are written as the results writer writes them (a game row per table, a hand row per
finished hand); the human is seat 0."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from sqlmodel import select

from app.compete import store
from app.db import Database
from app.db.compete_models import DailyAttempt, DailyResult
from app.db.models import Game, Hand, Player

DAY = date(2026, 11, 27)
DEALS = 3


def _player(db: Database, pid: str, *, guest: bool = False) -> None:
    with db.session() as session:
        session.add(Player(id=pid, name=pid, is_guest=guest))
        session.commit()


def _attempt(db: Database, pid: str, version: int, day: date = DAY) -> DailyAttempt:
    attempt, created = store.begin_attempt(db, day, "classic", pid, pid, version)
    assert created and attempt.id is not None
    store.set_table(db, attempt.id, f"t-{pid}-{day}")
    found = store.find_attempt(db, day, "classic", pid)
    assert found is not None
    return found


def _hands(db: Database, table_id: str, points: list[int], first: int = 0) -> None:
    """Hands ``first``.. of the table's game, seat 0 taking ``points[i]`` in each."""
    with db.session() as session:
        game = session.exec(
            select(Game).where(Game.table_id == table_id, Game.game_no == 1)
        ).first()
        if game is None:
            game = Game(table_id=table_id, game_no=1, variant="classic", players=4)
            session.add(game)
            session.flush()
        for i, p in enumerate(points, start=first):
            session.add(
                Hand(game_id=game.id, hand_no=i, points=[p, 26 - p, 0, 0], moves=[[0, {"n": i}]])
            )
        session.commit()


def _play(db: Database, pid: str, version: int, points: list[int], **kw: Any) -> DailyAttempt:
    _player(db, pid, guest=kw.get("guest", False))
    attempt = _attempt(db, pid, version, kw.get("day", DAY))
    _hands(db, attempt.table_id, points)
    assert attempt.id is not None
    store.record_deals(db, attempt.id, DEALS)
    return attempt


def test_deals_are_recorded_once_and_in_order(database: Database) -> None:
    _player(database, "ann")
    attempt = _attempt(database, "ann", 0)
    assert attempt.id is not None
    assert store.record_deals(database, attempt.id, DEALS) == 0  # nothing stored yet
    _hands(database, attempt.table_id, [4])
    assert store.record_deals(database, attempt.id, DEALS) == 1
    assert store.record_deals(database, attempt.id, DEALS) == 0  # recorded once
    _hands(database, attempt.table_id, [0, 13], first=1)
    assert store.record_deals(database, attempt.id, DEALS) == 2
    summary = store.attempt_summary(database, attempt.id)
    assert summary is not None
    assert (summary["deals_done"], summary["points"], summary["finished"]) == (3, 17, True)
    assert summary["percent"] == 50.0  # alone: nobody to compare with
    # the same player cannot have a second attempt that day
    again, created = store.begin_attempt(database, DAY, "classic", "ann", "ann", 1)
    assert not created and again.id == attempt.id


def test_a_deal_another_caller_recorded_first_is_no_error(database: Database) -> None:
    """Two callers record the same deal at once (another instance's loop, the player's own
    status request): the one whose insert meets the other's result, at a query's autoflush
    or at the commit, records nothing and says so; it answered a 500 to the player."""
    _player(database, "ann")
    attempt = _attempt(database, "ann", 0)
    assert attempt.id is not None
    _hands(database, attempt.table_id, [4, 0])
    with database.session() as session:  # the other caller's deal 0, its attempt not yet seen
        session.add(
            DailyResult(
                attempt_id=attempt.id,
                deal_no=0,
                day=DAY,
                preset="classic",
                version=0,
                points=4,
                moves=[],
            )
        )
        session.commit()
    assert store.record_deals(database, attempt.id, DEALS) == 0
    found = store.find_attempt(database, DAY, "classic", "ann")
    assert found is not None and found.deals_done == 0  # nothing of this call kept


def test_matchpoints_compare_the_same_version_only(database: Database) -> None:
    a = _play(database, "ann", 0, [0, 5, 10])
    b = _play(database, "bob", 0, [5, 5, 0])
    c = _play(database, "cat", 1, [26, 26, 26])  # another version: compared with nobody
    assert a.id and b.id and c.id
    ann = store.attempt_summary(database, a.id)
    bob = store.attempt_summary(database, b.id)
    cat = store.attempt_summary(database, c.id)
    assert ann and bob and cat
    # ann beats bob on deal 0, ties deal 1, loses deal 2: 1.5 of 3
    assert [d["matchpoints"] for d in ann["deals"]] == [1.0, 0.5, 0.0]
    assert ann["percent"] == 50.0 and bob["percent"] == 50.0
    assert cat["percent"] == 50.0 and [d["of"] for d in cat["deals"]] == [0, 0, 0]


def test_the_leaderboard_pages_by_percentage_and_refreshes(database: Database) -> None:
    a = _play(database, "ann", 0, [0, 0, 0])
    # ann finished first, alone: 50%; then three others on her version, all worse
    for name, pts in (("bob", 5), ("cat", 6), ("dan", 7)):
        _play(database, name, 0, [pts, pts, pts])
    lines, players = store.day_page(database, DAY, "classic", None, 10)
    assert players == 4
    before = {line["name"]: line["percent"] for line in lines}
    assert before["ann"] == 50.0  # as when she finished
    assert store.refresh(database, DAY, "classic", 60)
    assert not store.refresh(database, DAY, "classic", 60)  # nothing new since
    lines, _ = store.day_page(database, DAY, "classic", None, 10)
    assert [(x["name"], x["percent"]) for x in lines] == [
        ("ann", 100.0),
        ("bob", 66.67),
        ("cat", 33.33),
        ("dan", 0.0),
    ]
    first, _ = store.day_page(database, DAY, "classic", None, 2)
    last = first[-1]
    second, _ = store.day_page(database, DAY, "classic", (last["key"], last["attempt"]), 2)
    assert [x["name"] for x in first + second] == ["ann", "bob", "cat", "dan"]
    # the month moved with the refresh: ann's total is her day's new percentage
    month = store.month_page(database, "2026-11", "classic", None, 10)
    assert [(m["name"], m["total"], m["days"]) for m in month][0] == ("ann", 100.0, 1)
    assert a.id is not None


def test_ties_page_without_loss_or_repeat(database: Database) -> None:
    for i in range(7):
        _play(database, f"p{i}", 0, [3, 3, 3])
    seen: list[str] = []
    after = None
    while True:
        lines, _ = store.day_page(database, DAY, "classic", after, 3)
        seen += [x["name"] for x in lines]
        if len(lines) < 3:
            break
        after = (lines[-1]["key"], lines[-1]["attempt"])
    assert sorted(seen) == [f"p{i}" for i in range(7)]


def test_a_registered_players_streak(database: Database) -> None:
    _play(database, "ann", 0, [1, 1, 1], day=DAY - timedelta(days=1))
    _play(database, "gus", 0, [1, 1, 1], guest=True)
    a2 = _attempt(database, "ann", 0, DAY)
    _hands(database, a2.table_id, [0, 0, 0])
    assert a2.id is not None
    store.record_deals(database, a2.id, DEALS)
    assert store.streak_of(database, "ann", DAY) == {"current": 2, "best": 2}
    assert store.streak_of(database, "ann", DAY + timedelta(days=2)) == {"current": 0, "best": 2}
    assert store.streak_of(database, "gus", DAY) == {"current": 0, "best": 0}


def test_a_deal_is_shown_only_once_played(database: Database) -> None:
    a = _play(database, "ann", 0, [4, 8, 0])
    _player(database, "bob")
    b = _attempt(database, "bob", 0)
    _hands(database, b.table_id, [2])
    assert b.id is not None
    store.record_deals(database, b.id, DEALS)
    assert store.deal_facts(database, b, 1, None) is None  # bob has not played deal 1
    facts = store.deal_facts(database, b, 0, None)
    assert facts is not None and facts.other is not None
    assert (facts.result.points, facts.other.points, facts.other_name) == (2, 4, "ann")
    assert facts.counts == {2: 1, 4: 1}
    assert a.id is not None
    none = store.deal_facts(database, b, 0, with_attempt=a.id + 100)
    assert none is not None and none.other is None


def test_the_secret_is_made_once(database: Database) -> None:
    first = store.stored_secret(database)
    assert len(first) >= 32 and store.stored_secret(database) == first


@pytest.mark.parametrize("status", ["queued"])
def test_a_par_is_queued_leased_and_finished(database: Database, status: str) -> None:
    assert store.par_of(database, DAY, "classic", 0, 1, queue=False) is None
    row = store.par_of(database, DAY, "classic", 0, 1, queue=True)
    assert row is not None and row.status == status
    taken = store.take_par(database, "A", 60)
    assert taken is not None and taken.lease_owner == "A"
    assert store.take_par(database, "B", 60) is None  # leased to A
    store.finish_par(database, taken, 3, [[0, {"type": "play", "card": "2C"}]])
    done = store.par_of(database, DAY, "classic", 0, 1, queue=False)
    assert done is not None and (done.status, done.points) == ("done", 3)
