"""What players are told of events (app.compete.event_reminders and events_runner, kinds
``event_scheduled``, ``event_soon`` and ``event_started`` of app.notify) on SQLite and
PostgreSQL: a club's members but its maker hear of its new event; two runners sharing one
database send each reminder once, not before its time, not to a player who withdrew, nor to one
who registered after it went (who hears of their table like everyone), and tell each seated
player once that their round's table is ready."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import col

from app.compete import clubs, event_reminders
from app.compete import events_store as ev
from app.compete.clubs import ClubLimits
from app.compete.events import EventLimits
from app.compete.events_runner import EventRunner
from app.db import Database
from app.db.compete_models import Event
from app.db.models import utcnow
from tests.compete.standins import Tables, Told, add_players

pytestmark = pytest.mark.asyncio

LIMITS = EventLimits()
PLAYERS = ["ann", "bob", "cat", "dan", "eve"]


@pytest.fixture
def people(database: Database) -> Database:
    return add_players(database, PLAYERS)


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


async def test_who_registers_after_the_reminder_hears_of_the_table_only(people: Database) -> None:
    """The reminder went to those registered then; a player registering afterwards (they have
    just seen the start on the event's page) gets no reminder of their own, and hears of the
    event again when their table is ready, like everyone seated."""
    eid = _event(people, 5)
    for pid in ("ann", "bob"):
        ev.register(people, eid, pid, LIMITS)
    told, tables = Told(), Tables()
    first, second = _runners(people, told, 10, tables)
    await first.step()
    assert sorted(p for p, k, _ in told.sent if k == "event_soon") == ["ann", "bob"]
    ev.register(people, eid, "cat", LIMITS)
    await asyncio.gather(first.step(), second.step())
    assert not [k for p, k, _ in told.sent if p == "cat"]
    with people.session() as session:  # the start comes
        session.execute(
            sa.update(Event)
            .where(col(Event.id) == eid)
            .values(starts_at=utcnow() - timedelta(seconds=1))
        )
        session.commit()
    await asyncio.gather(first.step(), second.step())
    assert [k for p, k, _ in told.sent if p == "cat"] == ["event_started"]
    assert sorted(p for p, k, _ in told.sent if k == "event_started") == ["ann", "bob", "cat"]
    assert len(told.sent) == 5


async def test_a_clubs_members_but_its_maker_hear_of_its_new_event(people: Database) -> None:
    club = clubs.create_club(people, "ann", "Oak", True, ClubLimits())
    for pid in ("bob", "cat"):
        clubs.join(people, club["id"], pid, None, ClubLimits())
    now = utcnow()
    spec: dict[str, Any] = {
        "format": "swiss",
        "preset": "classic",
        "rounds": 1,
        "starts_at": now + timedelta(days=1),
        "grace_seconds": 60,
        "points_by_place": None,
        "limits": LIMITS,
        "now": now,
    }
    made = ev.create_event(people, "bob", name="Cup", club_id=club["id"], **spec)
    news = event_reminders.club_news(people, made["id"], "bob")
    assert news == {"club_name": "Oak", "event_name": "Cup", "players": ["ann", "cat"]}
    open_one = ev.create_event(people, "bob", name="Open", club_id=None, **spec)
    assert event_reminders.club_news(people, open_one["id"], "bob") is None
    assert event_reminders.club_news(people, 10_000, "bob") is None
