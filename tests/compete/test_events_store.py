"""Events in SQL (app.compete.events_store) on SQLite and PostgreSQL: making one, who sees
and registers, a Swiss event of 9 players over 3 rounds played to its end with a latecomer and
a no-show, a duplicate round, each scheduler step done once (two tables' scores recorded at
once included), and the standings' pages."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from app.compete import clubs, event_standings
from app.compete import events_store as ev
from app.compete.clubs import ClubLimits
from app.compete.events import EventError, EventLimits
from app.compete.swiss import Standing, after_round, order
from app.db import Database
from app.db.compete_models import EventEntry, EventSeat
from tests.compete.standins import add_players

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
LIMITS = EventLimits()
PLAYERS = [f"p{i}" for i in range(9)]


@pytest.fixture
def people(database: Database) -> Database:
    return add_players(database, [*PLAYERS, "ann", "bob", "out"])


def _code(call: object, *args: object, **kw: object) -> str:
    with pytest.raises(EventError) as err:
        call(*args, **kw)  # type: ignore[operator]
    return err.value.code


def _make(db: Database, by: str = "ann", **kw: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": "Sunday Swiss",
        "format": "swiss",
        "preset": "classic",
        "rounds": 3,
        "starts_at": NOW + timedelta(hours=1),
        "grace_seconds": 60,
        "points_by_place": None,
        "club_id": None,
        "limits": LIMITS,
        "now": NOW,
    }
    spec.update(kw)
    return ev.create_event(db, by, **spec)


def _entries(db: Database, event_id: int) -> dict[str, EventEntry]:
    from sqlmodel import select

    with db.session() as session:
        rows = session.exec(select(EventEntry).where(EventEntry.event_id == event_id)).all()
        return {e.player_id: e for e in rows}


def test_making_an_event_and_what_is_refused(people: Database) -> None:
    made = _make(people)
    assert made["table_size"] == 4 and made["points_by_place"] == [6, 4, 2, 0]
    assert made["state"] == "registering" and made["entries"] == 0
    three = _make(people, preset="classic-3", points_by_place=[3, 1, 0], format="duplicate")
    assert three["table_size"] == 3 and three["points_by_place"] == [3, 1, 0]
    bad: list[tuple[dict[str, Any], str]] = [
        ({"name": ""}, "bad_name"),
        ({"format": "knockout"}, "bad_format"),
        ({"preset": "chess"}, "bad_preset"),
        ({"rounds": 0}, "bad_rounds"),
        ({"rounds": LIMITS.rounds_max + 1}, "bad_rounds"),
        ({"starts_at": NOW - timedelta(minutes=1)}, "bad_start"),
        ({"starts_at": NOW + timedelta(days=LIMITS.days_ahead_max + 1)}, "bad_start"),
        ({"grace_seconds": -1}, "bad_grace"),
        ({"points_by_place": [1, 2, 3, 4]}, "bad_points"),
        ({"club_id": 99}, "not_member"),
    ]
    for change, code in bad:
        assert _code(_make, people, **change) == code, change
    assert len(ev.list_events(people, None, None, 50)) == 2
    for _ in range(LIMITS.open_events_per_player - 2):
        _make(people)
    assert _code(_make, people) == "too_many_events"
    assert len(ev.list_events(people, None, None, 50)) == LIMITS.open_events_per_player


def test_a_club_event_is_its_members_only(people: Database) -> None:
    club = clubs.create_club(people, "ann", "Friday Hearts", True, ClubLimits())
    clubs.join(people, club["id"], "bob", None, ClubLimits())
    made = _make(people, club_id=club["id"])
    eid = made["id"]
    assert [e["id"] for e in ev.list_events(people, "bob", None, 50)] == [eid]
    assert [e["id"] for e in ev.list_events(people, "bob", club["id"], 50)] == [eid]
    assert ev.list_events(people, "out", None, 50) == []
    assert ev.list_events(people, None, None, 50) == []
    assert _code(ev.list_events, people, "out", club["id"], 50) == "not_member"
    assert _code(ev.event_page, people, eid, "out") == "unknown_event"
    assert _code(ev.event_page, people, eid, None) == "unknown_event"
    assert _code(ev.register, people, eid, "out", LIMITS) == "unknown_event"
    assert _code(event_standings.standings, people, eid, "out", None, 10) == "unknown_event"
    ev.register(people, eid, "bob", LIMITS)
    assert ev.event_page(people, eid, "bob")["registered"] is True
    assert _code(ev.register, people, eid, "bob", LIMITS) == "already_registered"
    ev.withdraw(people, eid, "bob")
    assert ev.event_page(people, eid, "bob")["registered"] is False
    assert ev.event_page(people, eid, "ann")["entries"] == 0
    assert _code(ev.withdraw, people, eid, "bob") == "not_registered"


def test_entries_max(people: Database) -> None:
    eid = _make(people)["id"]
    small = EventLimits(entries_max=2)
    ev.register(people, eid, "p0", small)
    ev.register(people, eid, "p1", small)
    assert _code(ev.register, people, eid, "p2", small) == "event_full"
    assert ev.event_page(people, eid, None)["entries"] == 2


def _play_round(db: Database, eid: int, rnd: int, tables: list[list[str | None]]) -> None:
    """Each table's final scores: seat i takes 5 * i + table_no points."""
    for table_no, table in enumerate(tables):
        scores = [5 * i + table_no for i in range(len(table))]
        done = ev.record_table(db, eid, rnd, table_no, scores)
        assert done == (table_no == len(tables) - 1)


def test_a_swiss_event_of_nine_over_three_rounds(people: Database) -> None:
    eid = _make(people)["id"]
    for p in PLAYERS:
        ev.register(people, eid, p, LIMITS)
    assert ev.due_to_start(people, NOW, 10) == []
    assert ev.due_to_start(people, NOW + timedelta(hours=1), 10) == [eid]
    # the model: swiss.py's own functions, fed the same scores
    model = {p: Standing(p) for p in PLAYERS}
    seed = _seed(people, eid)
    for rnd in (1, 2, 3):
        tables = ev.start_round(people, eid, rnd)
        assert tables is not None and len(tables) == 3
        assert ev.start_round(people, eid, rnd) is None  # once
        assert ev.start_round(people, eid, rnd + 1) is None  # not before this one is over
        assert tables[2].count(None) == 3  # 9 players: the last table has one and 3 computers
        assert [p for t in tables for p in t if p] == [
            s.player_id for s in order(model.values(), seed)
        ]
        for t in tables:
            for who in t:
                if who:
                    ev.seen(people, eid, rnd, who)
        page = ev.event_page(people, eid, tables[0][0])
        assert page["my_table"]["round"] == rnd and page["my_table"]["table_no"] == 0
        _play_round(people, eid, rnd, tables)
        assert ev.record_table(people, eid, rnd, 0, [0, 0, 0, 0]) is False  # once
        scores = [[5 * i + n for i in range(4)] for n in range(3)]
        model = after_round(model, tables, scores, [6, 4, 2, 0])
    assert ev.event_page(people, eid, None)["state"] == "finished"
    assert ev.start_round(people, eid, 4) is None
    lines = event_standings.standings(people, eid, None, None, 100)["lines"]
    want = order(model.values(), seed)
    assert [(x["player_id"], x["table_points"], x["game_points"], x["rounds"]) for x in lines] == [
        (s.player_id, s.table_points, s.game_points, 3) for s in want
    ]
    # players level on table and Hearts points share a place (1, 2, 3, 3, 5, ...)
    level = [(x["table_points"], x["game_points"]) for x in lines]
    assert [x["place"] for x in lines] == [
        1 + sum((-tp, gp) < (-t, g) for tp, gp in level) for t, g in level
    ]


def _seed(db: Database, eid: int) -> str:
    from app.db.compete_models import Event

    with db.session() as session:
        event = session.get(Event, eid)
        assert event is not None
        return event.seed


def test_a_latecomer_plays_on_and_a_no_show_leaves(people: Database) -> None:
    eid = _make(people, rounds=3)["id"]
    for p in PLAYERS[:8]:
        ev.register(people, eid, p, LIMITS)
    tables = ev.start_round(people, eid, 1)
    assert tables is not None and len(tables) == 2
    seated = [p for t in tables for p in t if p]
    late_one, never = seated[0], seated[1]
    for p in seated[2:]:
        ev.seen(people, eid, 1, p)
    ev.late(people, eid, 1, [late_one, never])
    ev.seen(people, eid, 1, late_one)  # came after the grace time: a computer plays the round
    _play_round(people, eid, 1, tables)
    entries = _entries(people, eid)
    assert entries[late_one].rounds == 0 and entries[late_one].table_points == 0
    assert entries[never].rounds == 0
    tables2 = ev.start_round(people, eid, 2)
    assert tables2 is not None
    seated2 = {p for t in tables2 for p in t if p}
    assert late_one in seated2 and never not in seated2
    assert len(seated2) == 7 and sum(t.count(None) for t in tables2) == 1
    assert _entries(people, eid)[never].withdrawn
    lines = event_standings.standings(people, eid, None, None, 100)["lines"]
    assert never not in {x["player_id"] for x in lines} and len(lines) == 7
    # a player who withdraws mid-event leaves the standings and is seated no more
    ev.withdraw(people, eid, late_one)
    for p in seated2:
        ev.seen(people, eid, 2, p)
    _play_round(people, eid, 2, tables2)
    tables3 = ev.start_round(people, eid, 3)
    assert tables3 is not None and late_one not in {p for t in tables3 for p in t}


def test_a_duplicate_round_compares_seats(people: Database) -> None:
    eid = _make(people, format="duplicate", rounds=1)["id"]
    for p in PLAYERS[:8]:
        ev.register(people, eid, p, LIMITS)
    tables = ev.start_round(people, eid, 1)
    assert tables is not None
    ev.record_table(people, eid, 1, 0, [10, 10, 3, 3])
    assert ev.record_table(people, eid, 1, 1, [20, 5, 3, 0]) is True
    got: dict[str | None, float] = {p: e.table_points for p, e in _entries(people, eid).items()}
    t0, t1 = tables
    assert (got[t0[0]], got[t1[0]]) == (1, 0)  # seat 0: 10 beat 20
    assert (got[t0[1]], got[t1[1]]) == (0, 1)
    assert (got[t0[2]], got[t1[2]]) == (0.5, 0.5)
    assert (got[t0[3]], got[t1[3]]) == (0, 1)
    assert ev.event_page(people, eid, None)["state"] == "finished"


def test_an_event_with_too_few_players_ends(people: Database) -> None:
    eid = _make(people)["id"]
    ev.register(people, eid, "p0", LIMITS)
    assert ev.start_round(people, eid, 1) == []
    assert ev.event_page(people, eid, None)["state"] == "finished"
    assert _code(ev.register, people, eid, "p1", LIMITS) == "registration_closed"


def test_standings_pages(people: Database) -> None:
    eid = _make(people, rounds=1)["id"]
    for p in PLAYERS:
        ev.register(people, eid, p, LIMITS)
    tables = ev.start_round(people, eid, 1)
    assert tables is not None
    _play_round(people, eid, 1, tables)
    whole = event_standings.standings(people, eid, None, None, 100)["lines"]
    paged: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = event_standings.standings(people, eid, None, cursor, 2)
        paged += page["lines"]
        cursor = page["next"]
        if cursor is None:
            break
    assert paged == whole and len(whole) == 9
    for bad in ("x", "1_a_2_3_p", "-1_1.0_2_3_p"):
        assert _code(event_standings.standings, people, eid, None, bad, 2) == "bad_cursor"


def test_tables_of_a_round_are_kept(people: Database) -> None:
    eid = _make(people, rounds=1)["id"]
    for p in PLAYERS[:4]:
        ev.register(people, eid, p, LIMITS)
    tables = ev.start_round(people, eid, 1)
    assert tables is not None
    ev.set_table(people, eid, 1, 0, "tbl-1")
    from sqlmodel import select

    with people.session() as session:
        ids = {s.table_id for s in session.exec(select(EventSeat)).all()}
    assert ids == {"tbl-1"}
    assert ev.event_page(people, eid, PLAYERS[0])["my_table"]["table_id"] == "tbl-1"
    # while an instance holds the making, the player is told no table yet (not the claim)
    ev.claim_table(people, eid, 1, 0, "tbl-1", "making:A:1")
    assert ev.event_page(people, eid, PLAYERS[0])["my_table"]["table_id"] is None


def test_the_last_two_tables_recorded_at_once_apply_the_round_once(people: Database) -> None:
    """Two instances record the round's last two tables at the same moment (each waits a
    little between writing its scores and counting the round's unscored seats): the round
    goes into the standings once, by one of them."""
    eid = _make(people, rounds=2)["id"]
    for p in PLAYERS[:8]:
        ev.register(people, eid, p, LIMITS)
    tables = ev.start_round(people, eid, 1)
    assert tables is not None and len(tables) == 2

    def slow_count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "count(" in statement and "event_seat" in statement:
            time.sleep(0.5)

    sa.event.listen(people.engine, "before_cursor_execute", slow_count)
    try:
        with ThreadPoolExecutor(2) as pool:
            done = list(
                pool.map(lambda n: ev.record_table(people, eid, 1, n, [1, 2, 3, 4 + n]), (0, 1))
            )
    finally:
        sa.event.remove(people.engine, "before_cursor_execute", slow_count)
    assert sorted(done) == [False, True]
    entries = _entries(people, eid)
    assert sorted(e.rounds for e in entries.values()) == [1] * 8
    assert sum(e.table_points for e in entries.values()) == 2 * 12
    assert ev.start_round(people, eid, 2) is not None
