"""The events' scheduler (app.compete.events_runner) in the app with its embedded defaults:
an event starts when due, each round's tables are made as ordinary competition tables (the
event's seed, no chat, not listed), the computer plays for players away, a no-show leaves,
the scores are recorded and the standings are swiss.py's over the stored scores; a round
completed by an instance that died before seating the next is carried on by another."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from app.compete import event_standings, events_store
from app.compete.events import points_of
from app.compete.events_runner import EventRunner
from app.compete.swiss import Standing, after_round, order
from app.db import Database
from app.db.compete_models import Event, EventSeat
from app.main import create_app
from tests.compete.standins import Tables, Told, embedded_settings, registered_event
from tests.compete.standins import guest as _guest

PEOPLE = ["ann", "bob", "cat", "dan"]


def _wait(what: Any, seconds: float) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_an_event_runs_its_rounds(tmp_path: Path) -> None:
    settings = embedded_settings(
        tmp_path,
        "events",
        bot_delay_min_ms=0,
        bot_delay_max_ms=0,
        events_hands_per_round=1,
    )
    app = create_app(settings)
    with TestClient(app) as client:
        db = app.state.services.database
        people = [_guest(client, f"P{i}") for i in range(5)]
        start = datetime.now(UTC) + timedelta(seconds=2)
        made = client.post(
            "/api/events",
            json={"name": "Quick", "starts_at": start.isoformat(), "rounds": 2, "grace_seconds": 3},
            headers=people[0][0],
        )
        assert made.status_code == 201, made.text
        eid = made.json()["id"]
        for headers, _ in people:
            assert client.post(f"/api/events/{eid}/register", headers=headers).status_code == 200
        ids = [pid for _, pid in people]

        def tables_of(rnd: int) -> list[dict[str, Any]]:
            found = events_store.round_tables(db, eid, rnd)
            if found and all(
                t["table_id"] and not t["table_id"].startswith("making:") for t in found
            ):
                return found
            return []

        # four players come to their tables as soon as the round is seated (3 s of grace);
        # the fifth never does: late, their seat played by the computer, then a no-show
        _wait(lambda: events_store.round_tables(db, eid, 1), 30)
        for pid in ids[:4]:
            events_store.seen(db, eid, 1, pid)
        first = _wait(lambda: tables_of(1), 30)
        assert len(first) == 2  # 5 players: 4 and 1 with three computers
        page = client.get(f"/api/events/{eid}", headers=people[0][0]).json()
        assert page["my_table"]["table_id"] in {t["table_id"] for t in first}
        # the table is an ordinary competition table: no chat, not listed, no seed shown
        tid = page["my_table"]["table_id"]
        assert client.portal is not None
        table, _ = client.portal.call(app.state.services.tables.read, tid)
        assert table.private and table.compete["kind"] == "event"
        assert "seed" not in str(table.public_json()["compete"])
        assert table.seat_of(ids[0]) is not None
        listed = client.get("/api/tables").json()
        assert tid not in str(listed)

        def finished() -> bool:
            return bool(events_store.event_page(db, eid, None)["state"] == "finished")

        _wait(lambda: events_store.round_tables(db, eid, 2), 240)
        for pid in ids[:4]:
            events_store.seen(db, eid, 2, pid)
        _wait(finished, 240)
        with db.session() as session:
            seats = session.exec(select(EventSeat).where(EventSeat.event_id == eid)).all()
            event = session.get(Event, eid)
            assert event is not None
            seed = event.seed
        model = {pid: Standing(pid) for pid in ids}
        for rnd in (1, 2):
            mine = sorted((s for s in seats if s.round == rnd), key=lambda s: (s.table_no, s.seat))
            assert all(s.score is not None and s.table_id for s in mine)
            by_table: dict[int, list[EventSeat]] = {}
            for s in mine:
                by_table.setdefault(s.table_no, []).append(s)
            tables = [[None if s.late else s.player_id for s in t] for t in by_table.values()]
            scores = [[int(s.score or 0) for s in t] for t in by_table.values()]
            model = after_round(model, tables, scores, [6, 4, 2, 0])
        assert {s.player_id for s in seats if s.late} == {ids[4]}
        round2 = {s.player_id for s in seats if s.round == 2 and s.player_id}
        assert round2 == set(ids[:4])  # the no-show was seated no more
        lines = client.get(f"/api/events/{eid}/standings").json()["lines"]
        want = order((model[p] for p in ids[:4]), seed)
        assert [(x["player_id"], x["table_points"], x["game_points"]) for x in lines] == [
            (s.player_id, s.table_points, s.game_points) for s in want
        ]


@pytest.mark.asyncio
async def test_a_round_whose_last_scores_went_in_is_followed_by_the_next(
    database: Database,
) -> None:
    """The instance whose scores completed round 1 died before seating round 2: the next poll
    of another instance seats it and makes its tables (on SQLite and PostgreSQL)."""
    now = datetime.now(UTC)
    eid = registered_event(
        database,
        PEOPLE,
        name="Cut short",
        format="swiss",
        rounds=2,
        now=now,
    )
    tables = Tables()
    runner = EventRunner(database, tables, "survivor", notify=Told(), remind_minutes=0)
    assert events_store.start_round(database, eid, 1)
    await runner.step()  # makes round 1's table
    (table_id,) = tables.made
    # the dead instance: recorded the table's scores, the round's last, and died
    assert events_store.record_table(database, eid, 1, 0, [3, 5, 8, 10])
    await runner.step()
    page = events_store.event_page(database, eid, PEOPLE[0])
    assert page["current_round"] == 2 and page["state"] == "running"
    assert len(tables.made) == 2  # round 2's table made in the same poll
    assert page["my_table"]["table_id"] == "T2"
    tables.end("T2", [1, 2, 3, 20])
    await runner.step()
    assert events_store.event_page(database, eid, None)["state"] == "finished"
    lines = event_standings.standings(database, eid, None, None, 10)["lines"]
    assert [x["rounds"] for x in lines] == [2] * 4


@pytest.mark.asyncio
async def test_a_no_show_whose_game_ended_within_the_grace_time_scores_nothing(
    database: Database,
) -> None:
    """Computers play fast: a table whose only absent player's game ended before the grace
    time ran out is recorded with that player late (the computer's score is not theirs), the
    others' places as usual (on SQLite and PostgreSQL)."""
    eid = registered_event(
        database, PEOPLE, name="Empty chair", format="swiss", rounds=1, now=datetime.now(UTC)
    )
    tables = Tables(absent={PEOPLE[3]})  # never came; the grace time is 60 s
    runner = EventRunner(database, tables, "only", notify=Told(), remind_minutes=0)
    assert events_store.start_round(database, eid, 1)
    await runner.step()
    (table_id,) = tables.made
    await runner.step()  # the three come to the table
    with database.session() as session:
        seat_of = {
            s.player_id: s.seat
            for s in session.exec(select(EventSeat).where(EventSeat.event_id == eid)).all()
        }
    # The computer's game in the absent seat scored best; the seats are drawn, so put the
    # scores where the players sit.
    scores = [0] * 4
    for player, score in zip(PEOPLE, [5, 8, 11, 2], strict=True):
        scores[seat_of[player]] = score
    tables.end(table_id, scores)
    await runner.step()
    assert events_store.event_page(database, eid, None)["state"] == "finished"
    with database.session() as session:
        seats = session.exec(select(EventSeat).where(EventSeat.event_id == eid)).all()
        event = session.exec(select(Event).where(Event.id == eid)).one()
    by_place = points_of(event.points_by_place)
    assert {s.player_id for s in seats if s.late} == {PEOPLE[3]}
    lines = event_standings.standings(database, eid, None, None, 10)["lines"]
    points = {x["player_id"]: x["table_points"] for x in lines}
    assert PEOPLE[3] not in points or points[PEOPLE[3]] == 0
    # The others' places count the computer's game: second, third and fourth.
    assert [points[p] for p in PEOPLE[:3]] == list(by_place[1:])
