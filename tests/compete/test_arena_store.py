"""Arena events in SQL (app.compete.arena_store) on SQLite and PostgreSQL: the window opens,
the players waiting sit down (a short table filled by computers after the wait), a game's
table points go into the standings at once and its players sit down again, pause and come
back, a latecomer is paused, no table starts near the end and the arena ends after its last
table; two instances seating or scoring at once do it once."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import select

from app.compete import arena_store as ar
from app.compete import events_store as ev
from app.compete.events import EventError, EventLimits
from app.db import Database
from app.db.compete_models import EventEntry, EventSeat
from tests.compete.standins import add_players

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
START = NOW + timedelta(minutes=5)
LIMITS = EventLimits()
PLAYERS = [f"p{i}" for i in range(9)]
FILL, LAST_CALL = 20.0, 60.0


@pytest.fixture
def people(database: Database) -> Database:
    return add_players(database, PLAYERS)


def _arena(db: Database, players: list[str], minutes: int = 30, **kw: Any) -> int:
    spec: dict[str, Any] = {
        "name": "Hourly Arena",
        "format": "arena",
        "preset": "classic",
        "rounds": 1,
        "starts_at": START,
        "grace_seconds": 60,
        "points_by_place": None,
        "club_id": None,
        "limits": LIMITS,
        "now": NOW,
        "ends_at": START + timedelta(minutes=minutes),
    }
    spec.update(kw)
    eid = int(ev.create_event(db, "p0", **spec)["id"])
    for p in players:
        ar.register(db, eid, p, LIMITS, NOW)
    return eid


def _at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def _seats(db: Database, eid: int) -> list[EventSeat]:
    with db.session() as session:
        return list(session.exec(select(EventSeat).where(EventSeat.event_id == eid)).all())


def _table(db: Database, eid: int, round_no: int) -> list[str | None]:
    seats = sorted((s for s in _seats(db, eid) if s.round == round_no), key=lambda s: s.seat)
    return [s.player_id for s in seats]


def _entries(db: Database, eid: int) -> dict[str, EventEntry]:
    with db.session() as session:
        rows = session.exec(select(EventEntry).where(EventEntry.event_id == eid)).all()
        return {e.player_id: e for e in rows}


def _playing(db: Database, eid: int) -> list[str]:
    return [s.player_id for s in _seats(db, eid) if s.score is None and s.player_id]


def test_players_sit_down_as_soon_as_a_tables_worth_waits(people: Database) -> None:
    eid = _arena(people, PLAYERS[:6])
    assert ar.seat_waiting(people, eid, _at(1), FILL, LAST_CALL) == []  # not started yet
    assert ar.start(people, eid, _at(0)) and not ar.start(people, eid, _at(0))
    assert ar.seat_waiting(people, eid, _at(1), FILL, LAST_CALL) == [1]
    first = [p for p in _table(people, eid, 1) if p]
    assert len(set(first)) == 4
    assert ar.seat_waiting(people, eid, _at(5), FILL, LAST_CALL) == []  # two wait for more
    assert ar.seat_waiting(people, eid, _at(21), FILL, LAST_CALL) == [2]  # their wait is over
    second = _table(people, eid, 2)
    assert second[2:] == [None, None] and set(second[:2]) == set(PLAYERS[:6]) - set(first)
    assert sorted(_playing(people, eid)) == PLAYERS[:6]
    assert ar.open_rounds(people, eid) == [1, 2]
    # game 1 ends: its table points go in at once and its players sit down together again
    assert ar.record_game(people, eid, 1, 0, [3, 26, 0, 97], _at(30))
    assert not ar.record_game(people, eid, 1, 0, [3, 26, 0, 97], _at(30))  # once
    entries = _entries(people, eid)
    assert [entries[p].table_points for p in first] == [4.0, 2.0, 6.0, 0.0]
    assert [entries[p].game_points for p in first] == [3, 26, 0, 97]
    assert all(entries[p].rounds == 1 for p in first)
    assert ar.seat_waiting(people, eid, _at(31), FILL, LAST_CALL) == [3]
    assert set(_table(people, eid, 3)) == set(first)
    assert ar.open_rounds(people, eid) == [2, 3]
    page = ar.view(people, eid, first[0], _at(31))
    assert page["my_table"]["round"] == 3 and page["my_table"]["table_id"] is None
    assert page["games"] == 1 and page["seconds_left"] == 30 * 60 - 31


def test_tables_back_at_once_are_mixed_and_first_games_known(people: Database) -> None:
    """Four games end together, each table's players level in the standings (by them alone
    the same four would meet again): the new tables mix them, nobody with one they just
    played; and each player's first game is known (who hears the arena has started)."""
    many = [f"q{i:02d}" for i in range(16)]
    add_players(people, many)
    eid = _arena(people, many)
    assert ar.start(people, eid, _at(0))
    assert ar.seat_waiting(people, eid, _at(1), FILL, LAST_CALL) == [1, 2, 3, 4]
    games = [[p for p in _table(people, eid, r) if p] for r in (1, 2, 3, 4)]
    assert ar.first_games(people, eid, 1, games[0]) == games[0]
    for r in (1, 2, 3, 4):  # a tie at each table; game 1 has the best scores
        assert ar.record_game(people, eid, r, 0, [5 * r] * 4, _at(40))
    assert ar.seat_waiting(people, eid, _at(41), FILL, LAST_CALL) == [5, 6, 7, 8]
    met = {frozenset((a, b)) for g in games for a in g for b in g if a != b}
    for r in (5, 6, 7, 8):
        table = [p for p in _table(people, eid, r) if p]
        assert len(table) == 4
        assert not {frozenset((a, b)) for a in table for b in table if a != b} & met
        assert ar.first_games(people, eid, r, table) == []
    assert set(_table(people, eid, 5)) & set(games[0])  # a leader of game 1 at the first


def test_standings_add_up_to_the_points_handed_out(people: Database) -> None:
    eid = _arena(people, PLAYERS[:8])
    ar.start(people, eid, _at(0))
    handed = 0.0
    for n in range(6):
        t = 10.0 * n + 1
        for round_no in ar.seat_waiting(people, eid, _at(t), FILL, LAST_CALL):
            assert ar.record_game(people, eid, round_no, 0, [n, 2 * n, 26, 26], _at(t + 1))
            handed += 6 + 4 + (2 + 0) / 2 * 2
        playing = _playing(people, eid)
        assert len(playing) == len(set(playing))
    entries = _entries(people, eid)
    assert sum(e.table_points for e in entries.values()) == handed > 0
    assert sum(e.rounds for e in entries.values()) == 4 * len(_seats(people, eid)) // 4


def test_pause_and_come_back(people: Database) -> None:
    eid = _arena(people, PLAYERS[:5])
    ar.pause(people, eid, "p4", True, NOW)  # before the start too
    ar.start(people, eid, _at(0))
    assert ar.seat_waiting(people, eid, _at(1), FILL, LAST_CALL) == [1]
    assert "p4" not in _playing(people, eid)
    assert ar.seat_waiting(people, eid, _at(100), FILL, LAST_CALL) == []  # paused: not seated
    assert ar.view(people, eid, "p4", _at(100))["paused"]
    ar.pause(people, eid, "p4", False, _at(100))
    assert ar.seat_waiting(people, eid, _at(101), FILL, LAST_CALL) == []  # waits from now
    assert ar.seat_waiting(people, eid, _at(121), FILL, LAST_CALL) == [2]
    assert _table(people, eid, 2) == ["p4", None, None, None]
    # paused while playing: the game plays on, and they are not seated after it
    first = [p for p in _table(people, eid, 1) if p]
    ar.pause(people, eid, first[0], True, _at(122))
    ar.record_game(people, eid, 1, 0, [1, 2, 3, 20], _at(130))
    assert ar.seat_waiting(people, eid, _at(200), FILL, LAST_CALL) == [3]
    assert first[0] not in _table(people, eid, 3)


def test_a_player_a_computer_played_for_is_paused(people: Database) -> None:
    eid = _arena(people, PLAYERS[:4])
    ar.start(people, eid, _at(0))
    ar.seat_waiting(people, eid, _at(1), FILL, LAST_CALL)
    table = _table(people, eid, 1)
    gone = table[1]
    assert gone is not None
    ev.late(people, eid, 1, [gone])
    ar.record_game(people, eid, 1, 0, [0, 10, 5, 11], _at(50))
    entries = _entries(people, eid)
    assert entries[gone].paused and entries[gone].rounds == 0 and entries[gone].table_points == 0
    assert [entries[p].table_points for p in table if p] == [6.0, 0.0, 4.0, 0.0]
    assert ar.seat_waiting(people, eid, _at(80), FILL, LAST_CALL) == [2]
    assert gone not in _table(people, eid, 2)


def test_no_table_near_the_end_and_the_arena_ends_after_its_last_table(
    people: Database,
) -> None:
    eid = _arena(people, PLAYERS[:8], minutes=5)
    ar.start(people, eid, _at(0))
    assert ar.seat_waiting(people, eid, _at(200), FILL, LAST_CALL) == [1, 2]
    ar.record_game(people, eid, 1, 0, [1, 2, 3, 4], _at(241))
    assert ar.seat_waiting(people, eid, _at(241), FILL, LAST_CALL) == []  # 59 s left
    assert not ar.finish_if_over(people, eid, _at(300))  # table 2 still playing
    ar.record_game(people, eid, 2, 0, [1, 2, 3, 4], _at(320))
    assert not ar.finish_if_over(people, eid, _at(299))
    assert ar.finish_if_over(people, eid, _at(320))
    assert ev.event_page(people, eid, None)["state"] == "finished"
    with pytest.raises(EventError) as err:
        ar.pause(people, eid, "p0", True, _at(321))
    assert err.value.code == "event_over"


def test_joining_a_running_arena_and_what_is_refused(people: Database) -> None:
    eid = _arena(people, PLAYERS[:3], minutes=5)
    ar.start(people, eid, _at(0))
    ar.register(people, eid, "p3", LIMITS, _at(10))
    assert ar.seat_waiting(people, eid, _at(11), FILL, LAST_CALL) == [1]
    ev.withdraw(people, eid, "p1")
    assert ev.event_page(people, eid, None)["entries"] == 4
    ar.register(people, eid, "p1", LIMITS, _at(12))  # back, with their points
    assert not _entries(people, eid)["p1"].withdrawn
    for call, args, code in [
        (ar.register, ("p3", LIMITS, _at(13)), "already_registered"),
        (ar.register, ("p5", LIMITS, _at(300)), "registration_closed"),
        (ar.pause, ("p6", True, _at(13)), "not_registered"),
    ]:
        with pytest.raises(EventError) as err:
            call(people, eid, *args)  # type: ignore[operator]
        assert err.value.code == code
    swiss = _arena(people, [], format="swiss", ends_at=None)
    with pytest.raises(EventError) as err:
        ar.pause(people, swiss, "p0", True, NOW)
    assert err.value.code == "not_arena"
    assert ar.arenas_among(people, [eid, swiss]) == {eid}


def _slowly(db: Database, marker: str) -> Any:
    """Each statement that touches ``marker`` waits a little, so two threads' steps overlap."""

    def slow(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if marker in statement:
            time.sleep(0.2)

    sa.event.listen(db.engine, "before_cursor_execute", slow)
    return slow


def test_two_instances_seat_and_score_once(people: Database) -> None:
    """Two instances' runners take the same steps at the same moment: every player waiting is
    seated at one table, and a game's points go in once."""
    eid = _arena(people, PLAYERS[:8])
    ar.start(people, eid, _at(0))
    slow = _slowly(people, "event_entry")
    try:
        with ThreadPoolExecutor(2) as pool:
            got = list(
                pool.map(lambda _: ar.seat_waiting(people, eid, _at(1), FILL, LAST_CALL), (0, 1))
            )
        assert sorted(got) == [[], [1, 2]]
        playing = _playing(people, eid)
        assert sorted(playing) == PLAYERS[:8]
        with ThreadPoolExecutor(2) as pool:
            done = list(
                pool.map(lambda _: ar.record_game(people, eid, 1, 0, [0, 5, 9, 12], _at(9)), (0, 1))
            )
        assert sorted(done) == [False, True]
    finally:
        sa.event.remove(people.engine, "before_cursor_execute", slow)
    entries = _entries(people, eid)
    assert sum(e.table_points for e in entries.values()) == 12
    assert sum(e.rounds for e in entries.values()) == 4
