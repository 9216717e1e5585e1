"""The events' scheduler's arena part (app.compete.arena_runner in events_runner): two
runners polling together over the stand-in tables seat each player once, make each table
once, record each game once and seat its players again in the same poll, and end the arena
once its window has closed and its last table is in; then the real app with 1-hand games
plays an arena of several games to its end (on the embedded defaults)."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlmodel import select

from app.compete import events_store
from app.compete.events_runner import EventRunner
from app.compete.swiss import table_points
from app.db import Database
from app.db.compete_models import Event, EventEntry, EventSeat
from app.main import create_app
from tests.compete.standins import Tables, Told, embedded_settings, registered_event
from tests.compete.standins import guest as _guest
from tests.compete.test_events_runner import _wait

PEOPLE = [f"a{i}" for i in range(6)]


def _open_window(db: Database, eid: int, seconds: float) -> None:
    """The arena started a moment ago and its window closes ``seconds`` from now."""
    now = datetime.now(UTC)
    with db.session() as session:
        session.execute(
            sa.update(Event)
            .where(Event.id == eid)  # type: ignore[arg-type]
            .values(starts_at=now - timedelta(seconds=1), ends_at=now + timedelta(seconds=seconds))
        )
        session.commit()


def _seats(db: Database, eid: int) -> list[EventSeat]:
    with db.session() as session:
        return list(session.exec(select(EventSeat).where(EventSeat.event_id == eid)).all())


def _check_standings(db: Database, eid: int) -> float:
    """The standings are the sum of each scored game's table points (computers' and
    latecomers' seats earn nobody anything); the total handed out."""
    games: dict[int, list[EventSeat]] = {}
    for s in _seats(db, eid):
        games.setdefault(s.round, []).append(s)
    want: dict[str, float] = {}
    for seats in games.values():
        seats.sort(key=lambda s: s.seat)
        assert all(s.score is not None for s in seats)
        got = table_points([int(s.score or 0) for s in seats], [6, 4, 2, 0])
        for s, p in zip(seats, got, strict=True):
            if s.player_id and not s.late:
                want[s.player_id] = want.get(s.player_id, 0.0) + p
    with db.session() as session:
        entries = session.exec(select(EventEntry).where(EventEntry.event_id == eid)).all()
        have = {e.player_id: e.table_points for e in entries if e.table_points}
    # A player whose games all placed last has an entry with 0 points: the same as none.
    assert have == {player: points for player, points in want.items() if points}
    return sum(want.values())


@pytest.mark.asyncio
async def test_two_runners_seat_once_and_reseat_at_once(database: Database) -> None:
    now = datetime.now(UTC)
    eid = registered_event(
        database,
        PEOPLE,
        name="Arena",
        format="arena",
        rounds=1,
        now=now,
        ends_at=now + timedelta(minutes=31),
    )
    _open_window(database, eid, 600)
    tables, told = Tables(), Told()
    runners = [EventRunner(database, tables, name, notify=told, remind_minutes=0) for name in "AB"]
    for r in runners:
        r.arena_fill_seconds, r.arena_last_call_seconds = 0, 0

    async def both() -> None:
        await asyncio.gather(*(r.step() for r in runners))

    def playing() -> list[str]:
        return [s.player_id for s in _seats(database, eid) if s.score is None and s.player_id]

    await both()  # starts the arena, seats all six (4, and 2 with computers), makes the tables
    await both()
    assert sorted(playing()) == PEOPLE  # each at one table
    assert sorted(tables.made) == ["T1", "T2"]  # each made once
    assert sorted(p for p, kind, _ in told.sent if kind == "event_started") == PEOPLE
    first = {s.player_id for s in _seats(database, eid) if s.round == 1}
    tables.end("T1", [0, 5, 9, 12])
    await both()  # recorded once, its players seated again and their table made at once
    assert sorted(playing()) == PEOPLE
    assert sorted(tables.made) == ["T1", "T2", "T3"]
    assert {s.player_id for s in _seats(database, eid) if s.round == 3} == first
    # The arena started once for each: T3 reaches its players on the event's page, and
    # nobody hears "the event has started" again.
    assert sorted(p for p, kind, _ in told.sent if kind == "event_started") == PEOPLE
    assert _check_standings_partial(database, eid) == 12
    _open_window(database, eid, -1)  # the window closes: the tables playing finish
    tables.end("T2", [1, 2, 3, 4])
    await both()
    assert sorted(tables.made) == ["T1", "T2", "T3"]  # no new table
    assert events_store.event_page(database, eid, None)["state"] == "running"
    tables.end("T3", [4, 3, 2, 1])
    await both()
    assert events_store.event_page(database, eid, None)["state"] == "finished"
    assert _check_standings(database, eid) == 12 + 10 + 12


def _check_standings_partial(db: Database, eid: int) -> float:
    with db.session() as session:
        entries = session.exec(select(EventEntry).where(EventEntry.event_id == eid)).all()
        return sum(e.table_points for e in entries)


def test_an_arena_plays_several_games_to_its_end(tmp_path: Path) -> None:
    settings = embedded_settings(
        tmp_path,
        "arena",
        bot_delay_min_ms=0,
        bot_delay_max_ms=0,
        events_hands_per_round=1,
        events_arena_fill_seconds=0,
        events_arena_last_call_seconds=0,
        hand_pause_ms=0,
        disconnect_grace_seconds=0,
        due_poll_seconds=0.02,  # computers' moves come due at once
    )
    app = create_app(settings)
    with TestClient(app) as client:
        db = app.state.services.database
        people = [_guest(client, f"P{i}") for i in range(4)]
        start = datetime.now(UTC) + timedelta(seconds=2)
        made = client.post(
            "/api/events",
            json={
                "name": "Quick Arena",
                "format": "arena",
                "starts_at": start.isoformat(),
                "minutes": 5,
                "grace_seconds": 600,
            },
            headers=people[0][0],
        )
        assert made.status_code == 201, made.text
        assert made.json()["ends_at"] == (start + timedelta(minutes=5)).isoformat()
        eid = made.json()["id"]
        for headers, _ in people:
            assert client.post(f"/api/events/{eid}/register", headers=headers).status_code == 200

        def page() -> dict[str, Any]:
            return dict(client.get(f"/api/events/{eid}", headers=people[0][0]).json())

        # The four come to each game they are seated at (what their table's socket tells the
        # runner); one who never came scores nothing for the computer's game and is paused.
        here = threading.Event()

        def at_their_tables() -> None:
            while not here.wait(0.05):
                with db.session() as session:
                    event = session.get(Event, eid)
                    game = event.current_round if event is not None else 0
                for _, pid in people:
                    events_store.seen(db, eid, game, pid)

        coming = threading.Thread(target=at_their_tables, daemon=True)
        coming.start()
        try:
            seated = _wait(lambda: (page()["my_table"] or {}).get("table_id"), 30)
            assert seated and page()["seconds_left"] > 200
            _wait(lambda: page()["games"] >= 2, 120)  # re-seated as soon as each game ended
            _open_window(db, eid, 0)
            _wait(lambda: page()["state"] == "finished", 60)
        finally:
            here.set()
            coming.join(5)
        games = page()["games"]
        assert games >= 2 and page()["my_table"] is None
        assert _check_standings(db, eid) == games * 12
        lines = client.get(f"/api/events/{eid}/standings").json()["lines"]
        assert sorted(x["rounds"] for x in lines) == [games] * 4
