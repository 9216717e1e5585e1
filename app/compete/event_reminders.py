"""The SQL side of what players are told of events before they start (app.notify): who hears
that a club's event was scheduled (``event_scheduled``, sent by the route that made it), and
the reminder before the start (``event_soon``, sent by app.compete.events_runner): which
events are due one, and taking the sending of one with a compare-and-set on
``event.reminded_at``, so that however many instances poll, one sends it. Kept apart from
app.compete.events_store, which keeps the events' results."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select

from app.db import Database
from app.db.compete_models import Club, ClubMember, Event, EventEntry
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


def club_news(db: Database, event_id: int, maker: str) -> dict[str, Any] | None:
    """Who hears that a club's event was just scheduled (``event_scheduled``): the club's
    members at that moment but its maker, with the club's and the event's names. None for an
    event open to all (nobody is told: it is listed in the lobby's events)."""
    with db.session() as session:
        event = session.get(Event, event_id)
        if event is None or event.club_id is None:
            return None
        club = session.get(Club, event.club_id)
        members = session.exec(
            select(ClubMember.player_id)
            .where(col(ClubMember.club_id) == event.club_id, col(ClubMember.player_id) != maker)
            .order_by(col(ClubMember.player_id))
        ).all()
        return {
            "club_name": club.name if club else "",
            "event_name": event.name,
            "players": list(members),
        }
