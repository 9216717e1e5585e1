"""The SQL side of an event's reminders (app.notify kind ``event_soon``, sent by
app.compete.events_runner): which events are due a reminder, and taking the sending of one
with a compare-and-set on ``event.reminded_at``, so that however many instances poll, one
sends it. Kept apart from app.compete.events_store, which keeps the events' results."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select

from app.db import Database
from app.db.compete_models import Event, EventEntry
from app.db.models import as_utc


def due_to_remind(db: Database, before: datetime, limit: int) -> list[int]:
    """Events still taking registrations that start at or before ``before`` and whose players
    were not reminded yet."""
    with db.session() as session:
        rows = session.exec(
            select(Event.id)
            .where(
                Event.state == "registering",
                col(Event.starts_at) <= before,
                col(Event.reminded_at).is_(None),
            )
            .order_by(col(Event.starts_at))
            .limit(limit)
        ).all()
        return [r for r in rows if r is not None]


def claim_reminder(db: Database, event_id: int, now: datetime) -> dict[str, Any] | None:
    """Take the sending of an event's reminder: ``reminded_at`` goes from None to ``now`` on one
    instance only (a compare-and-set). That instance gets the event's name, start and the
    players registered (not withdrawn); every other gets None. An event that has started
    already is marked and not reminded (None): its players hear of their tables instead."""
    with db.session() as session:
        moved = session.execute(
            sa.update(Event)
            .where(col(Event.id) == event_id, col(Event.reminded_at).is_(None))
            .values(reminded_at=now)
        )
        session.commit()
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            return None
        event = session.get(Event, event_id)
        if event is None or event.state != "registering" or as_utc(event.starts_at) <= now:
            return None
        players = session.exec(
            select(EventEntry.player_id)
            .where(col(EventEntry.event_id) == event_id, col(EventEntry.withdrawn).is_(False))
            .order_by(col(EventEntry.player_id))
        ).all()
        return {
            "name": event.name,
            "starts_at": as_utc(event.starts_at),
            "players": list(players),
        }
