"""The events' reminders (app.compete.events_runner, kinds ``event_soon`` and
``event_started`` of app.notify) on SQLite and PostgreSQL: two runners sharing one database
send each reminder once, not before its time, not to a player who withdrew, and tell each
seated player once that their round's table is ready."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import col

from app.compete import event_reminders
from app.compete import events_store as ev
from app.compete.events import EventLimits
from app.compete.events_runner import EventRunner
from app.db import Database
from app.db.compete_models import Event
from app.db.models import Player, utcnow
from tests.compete.standins import Tables, Told

pytestmark = pytest.mark.asyncio

LIMITS = EventLimits()
PLAYERS = ["ann", "bob", "cat", "dan", "eve"]


@pytest.fixture
def people(database: Database) -> Database:
    with database.session() as session:
        for pid in PLAYERS:
            session.add(Player(id=pid, name=pid.title(), is_guest=False))
        session.commit()
    return database


def _event(db: Database, minutes: float, name: str = "Sunday Swiss") -> int:
    now = utcnow()
    made = ev.create_event(
        db,
        "ann",
        name=name,
        format="swiss",
        preset="classic",
        rounds=1,
        starts_at=now + timedelta(minutes=minutes),
        grace_seconds=60,
        points_by_place=None,
        club_id=None,
        limits=LIMITS,
        now=now,
    )
    return int(made["id"])


def _runners(db: Database, told: Told, minutes: int, tables: Any = None) -> list[EventRunner]:
    return [
        EventRunner(db, tables, f"instance-{n}", notify=told, remind_minutes=minutes)
        for n in range(2)
    ]


async def test_the_reminder_goes_once_across_two_runners(people: Database) -> None:
    eid = _event(people, 5)
    for pid in PLAYERS:
        ev.register(people, eid, pid, LIMITS)
    ev.withdraw(people, eid, "eve")  # withdrew before the start: not reminded
    told = Told()
    first, second = _runners(people, told, 10)
    for _ in range(3):
        await asyncio.gather(first.step(), second.step())
    assert sorted(p for p, _, _ in told.sent) == ["ann", "bob", "cat", "dan"]
    assert {k for _, k, _ in told.sent} == {"event_soon"}
    data = told.sent[0][2]
    assert data["event"] == eid and data["event_name"] == "Sunday Swiss"
    assert data["minutes"] in (4, 5)  # rounded up: 5 at once, 4 on a slow machine


async def test_no_reminder_before_its_time(people: Database) -> None:
    eid = _event(people, 30)
    ev.register(people, eid, "ann", LIMITS)
    told = Told()
    for runner in _runners(people, told, 10):
        await runner.step()
    assert told.sent == []
    with people.session() as session:
        event = session.get(Event, eid)
        assert event is not None and event.reminded_at is None
    # 31 minutes ahead, the start is in the window: reminded once
    later = _runners(people, told, 31)
    await asyncio.gather(*(runner.step() for runner in later))
    await later[0].step()
    assert [(p, k) for p, k, _ in told.sent] == [("ann", "event_soon")]
    assert told.sent[0][2]["minutes"] in (29, 30)


async def test_no_reminder_when_off_or_once_the_event_started(people: Database) -> None:
    eid = _event(people, 5)
    ev.register(people, eid, "ann", LIMITS)
    told = Told()
    for runner in _runners(people, told, 0):  # 0: no reminders
        await runner.step()
    assert told.sent == []
    # the start passed before any instance reminded (all were down): nothing said of it
    with people.session() as session:
        session.execute(
            sa.update(Event)
            .where(col(Event.id) == eid)
            .values(starts_at=utcnow() - timedelta(minutes=1))
        )
        session.commit()
    assert event_reminders.claim_reminder(people, eid, utcnow()) is None
    assert event_reminders.claim_reminder(people, eid, utcnow()) is None


async def test_each_seated_player_hears_once_that_the_table_is_ready(people: Database) -> None:
    eid = _event(people, 5, name="Friday cup")
    for pid in PLAYERS:
        ev.register(people, eid, pid, LIMITS)
    assert ev.start_round(people, eid, 1)  # 5 players: a table of 4, one of 1 and 3 computers
    told, tables = Told(), Tables()
    first, second = _runners(people, told, 10, tables)
    await asyncio.gather(first.step(), second.step())
    await asyncio.gather(first.step(), second.step())
    assert len(tables.made) == 2  # each table made by one runner only
    started = [(p, d) for p, k, d in told.sent if k == "event_started"]
    assert sorted(p for p, _ in started) == sorted(PLAYERS)
    assert all(d == {"event": eid, "event_name": "Friday cup"} for _, d in started)
    assert not [k for _, k, _ in told.sent if k == "event_soon"]  # started: no reminder
