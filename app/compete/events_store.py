"""Events in SQL: an event, its entries (the standings) and the seats of each round's tables
with their final scores (tables event, event_entry, event_seat). The rules are in
app.compete.events and app.compete.swiss; this module keeps their results.

Every function runs in a worker thread and raises ``EventError`` for anything refused; a
refused call changes nothing. The steps a scheduler takes (``start_round``, ``record_table``)
are compare-and-set updates, so two instances doing the same step do it once.

Who sees what: an event open to all is seen by anyone; a club's event by the club's members
only (others get ``unknown_event``, as for an event that does not exist), who alone register.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.compete.errors import checked_name
from app.compete.events import (
    EVENT_FORMATS,
    EventError,
    EventLimits,
    check_grace,
    check_points,
    check_rounds,
    check_start,
    default_points,
    no_shows,
    points_of,
    points_text,
    round_results,
)
from app.compete.swiss import Seat, Standing, seat_round, tie_break
from app.db import Database
from app.db.compete_models import ClubMember, Event, EventEntry, EventSeat
from app.db.models import Player, as_utc


def visible(session: Session, event_id: int, viewer: str | None) -> Event:
    """The event if the viewer may see it (a club's: its members only), else ``unknown_event``
    as for one that does not exist."""
    event = session.get(Event, event_id)
    if event is None or (
        event.club_id is not None
        and (viewer is None or session.get(ClubMember, (event.club_id, viewer)) is None)
    ):
        raise EventError(404, "unknown_event", "no such event")
    return event


def _summary(event: Event) -> dict[str, Any]:
    return {
        "id": event.id,
        "club_id": event.club_id,
        "name": event.name,
        "format": event.format,
        "preset": event.preset,
        "rounds": event.rounds,
        "table_size": event.table_size,
        "points_by_place": points_of(event.points_by_place),
        "grace_seconds": event.grace_seconds,
        "starts_at": as_utc(event.starts_at).isoformat(),
        "ends_at": as_utc(event.ends_at).isoformat() if event.ends_at else None,  # an arena's
        "state": event.state,
        "current_round": event.current_round,
        "entries": event.entries,
    }


def create_event(
    db: Database,
    player_id: str,
    *,
    name: object,
    format: str,
    preset: str,
    rounds: int,
    starts_at: datetime,
    grace_seconds: int,
    points_by_place: Sequence[float] | None,
    club_id: int | None,
    limits: EventLimits,
    now: datetime,
    ends_at: datetime | None = None,
) -> dict[str, Any]:
    from app.engine import PRESETS

    clean = checked_name(name, EventError, "an event's")
    if format not in EVENT_FORMATS:
        raise EventError(422, "bad_format", f"the format is one of {', '.join(EVENT_FORMATS)}")
    if preset not in PRESETS:
        raise EventError(422, "bad_preset", "no such game")
    table_size = PRESETS[preset].players
    points = check_points(
        default_points(table_size) if points_by_place is None else points_by_place, table_size
    )
    check_rounds(rounds, limits)
    check_start(starts_at, now, limits)
    check_grace(grace_seconds, limits)
    with db.session() as session:
        if club_id is not None and session.get(ClubMember, (club_id, player_id)) is None:
            raise EventError(403, "not_member", "only the club's members make its events")
        open_ones = session.exec(
            select(sa.func.count())
            .select_from(Event)
            .where(Event.created_by == player_id, col(Event.state) != "finished")
        ).one()
        if open_ones >= limits.open_events_per_player:
            raise EventError(
                429,
                "too_many_events",
                f"a player has {limits.open_events_per_player} events to come at most",
                {"limit": limits.open_events_per_player},
            )
        # The new row from the checked values, by name (alike in form to other constructor calls).
        event = Event(
            club_id=club_id,
            name=clean,
            format=format,
            preset=preset,
            rounds=rounds,
            table_size=table_size,
            points_by_place=points_text(points),
            grace_seconds=grace_seconds,
            seed=secrets.token_hex(16),
            starts_at=starts_at,
            ends_at=ends_at,
            created_by=player_id,
        )
        session.add(event)
        session.commit()
        session.refresh(event)
        return _summary(event)


def list_events(
    db: Database, viewer: str | None, club_id: int | None, limit: int
) -> list[dict[str, Any]]:
    """Events not finished (or of the last ones finished), soonest first: those open to all and
    those of the viewer's clubs; ``club_id``: that club's only (its members only)."""
    with db.session() as session:
        query = select(Event).where(Event.state != "finished")
        if club_id is not None:
            if viewer is None or session.get(ClubMember, (club_id, viewer)) is None:
                raise EventError(403, "not_member", "only the club's members see its events")
            query = query.where(Event.club_id == club_id)
        else:
            mine = select(ClubMember.club_id).where(ClubMember.player_id == (viewer or ""))
            query = query.where(sa.or_(col(Event.club_id).is_(None), col(Event.club_id).in_(mine)))
        rows = session.exec(query.order_by(col(Event.starts_at), col(Event.id)).limit(limit)).all()
        return [_summary(e) for e in rows]


def made(table_id: str | None) -> str | None:
    """A round's table id once made; None before, and while an instance holds the making
    (``making:<instance>:<time>``, the scheduler's claim, is nobody else's business)."""
    return None if table_id is None or table_id.startswith("making:") else table_id


def my_table(seat: EventSeat) -> dict[str, Any]:
    """A player's seat as their event page shows it: round, table, seat, the table id once
    made, and whether their seat went to a computer for being late."""
    return {
        "round": seat.round,
        "table_no": seat.table_no,
        "seat": seat.seat,
        "table_id": made(seat.table_id),
        "late": seat.late,
    }


def event_page(db: Database, event_id: int, viewer: str | None) -> dict[str, Any]:
    """The event, whether the viewer is registered, and their seat in the current round (its
    table id once the table is made)."""
    with db.session() as session:
        event = visible(session, event_id, viewer)
        out = _summary(event)
        entry = session.get(EventEntry, (event_id, viewer)) if viewer else None
        out["registered"] = entry is not None and not entry.withdrawn
        out["my_table"] = None
        if entry is not None and event.current_round > 0:
            seat = session.exec(
                select(EventSeat).where(
                    col(EventSeat.event_id) == event_id,
                    col(EventSeat.round) == event.current_round,
                    col(EventSeat.player_id) == viewer,
                )
            ).first()
            if seat is not None:
                out["my_table"] = my_table(seat)
        return out


def register(db: Database, event_id: int, player_id: str, limits: EventLimits) -> None:
    with db.session() as session:
        event = visible(session, event_id, player_id)
        if event.state != "registering":
            raise EventError(409, "registration_closed", "the event has started")
        if session.get(EventEntry, (event_id, player_id)) is not None:
            raise EventError(409, "already_registered", "you are registered already")
        add_entry(session, event, player_id, limits)
        session.commit()


def add_entry(
    session: Session,
    event: Event,
    player_id: str,
    limits: EventLimits,
    free_since: datetime | None = None,
) -> None:
    """A new entry of ``player_id`` in ``event``, counted in its ``entries`` (the caller
    commits); ``event_full`` at the limit. ``free_since``: an arena's player waiting from then."""
    event_id = event.id
    if event_id is None:
        raise ValueError("an event not stored yet takes no entries")
    if event.entries >= limits.entries_max:
        raise EventError(
            409,
            "event_full",
            f"an event has {limits.entries_max} players at most",
            {"limit": limits.entries_max},
        )
    session.add(
        EventEntry(
            event_id=event_id,
            player_id=player_id,
            tie=tie_break(event.seed, player_id) >> 1,  # fits a signed 64-bit column
            free_since=free_since,
        )
    )
    session.execute(
        sa.update(Event).where(col(Event.id) == event_id).values(entries=Event.entries + 1)
    )


def entry_in_play(session: Session, event: Event, player_id: str) -> EventEntry:
    """The player's entry in an event not over (to withdraw, to pause); ``not_registered``
    or ``event_over`` otherwise."""
    entry = session.get(EventEntry, (event.id, player_id))
    if entry is None or entry.withdrawn:
        raise EventError(409, "not_registered", "you are not registered")
    if event.state == "finished":
        raise EventError(409, "event_over", "the event is over")
    return entry


def withdraw(db: Database, event_id: int, player_id: str) -> None:
    """Before the start the entry goes; afterwards the player leaves the standings and is
    seated no more (a table they sit at now plays on)."""
    with db.session() as session:
        event = visible(session, event_id, player_id)
        entry = entry_in_play(session, event, player_id)
        if event.state == "registering":
            session.delete(entry)
            session.execute(
                sa.update(Event).where(col(Event.id) == event_id).values(entries=Event.entries - 1)
            )
        else:
            entry.withdrawn = True
            session.add(entry)
        session.commit()


# The scheduler's steps ---------------------------------------------------------------------


def due_to_start(db: Database, now: datetime, limit: int) -> list[int]:
    """Events whose registration is over and that have not started."""
    with db.session() as session:
        rows = session.exec(
            select(Event.id)
            .where(Event.state == "registering", col(Event.starts_at) <= now)
            .order_by(col(Event.starts_at))
            .limit(limit)
        ).all()
        return [r for r in rows if r is not None]


def start_round(db: Database, event_id: int, round_no: int) -> list[list[Seat]] | None:
    """Seat round ``round_no`` (no-shows leave the standings first; an event with fewer than
    two players left ends). None if the round was started already, or the one before is not
    over; the tables otherwise (empty when the event ended)."""
    with db.session() as session:
        event = session.get(Event, event_id)
        if event is None or event.state == "finished" or event.current_round != round_no - 1:
            return None
        if round_no > 1 and _unscored(session, event_id, round_no - 1):
            return None
        moved = session.execute(
            sa.update(Event)
            .where(col(Event.id) == event_id, col(Event.current_round) == round_no - 1)
            .values(current_round=round_no, state="running")
        )
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            return None
        # Plain rows and one bulk insert, not ORM objects: a round of 10,000 players is
        # seated in well under a second (python -m bench.compete --seat).
        entries = session.execute(
            sa.select(
                col(EventEntry.player_id),
                col(EventEntry.table_points),
                col(EventEntry.game_points),
                col(EventEntry.rounds),
                col(EventEntry.last_seen_round),
            ).where(col(EventEntry.event_id) == event_id, col(EventEntry.withdrawn).is_(False))
        ).all()
        gone = sorted(no_shows(((e.player_id, e.last_seen_round) for e in entries), round_no))
        for start in range(0, len(gone), 500):
            session.execute(
                sa.update(EventEntry)
                .where(
                    col(EventEntry.event_id) == event_id,
                    col(EventEntry.player_id).in_(gone[start : start + 500]),
                )
                .values(withdrawn=True)
            )
        left = set(gone)
        field = [
            Standing(e.player_id, e.table_points, e.game_points, e.rounds)
            for e in entries
            if e.player_id not in left
        ]
        if len(field) < 2:
            session.execute(
                sa.update(Event).where(col(Event.id) == event_id).values(state="finished")
            )
            session.commit()
            return []
        tables = seat_round(field, event.table_size, event.seed)
        session.execute(
            sa.insert(EventSeat),
            [
                {
                    "event_id": event_id,
                    "round": round_no,
                    "table_no": table_no,
                    "seat": seat,
                    "player_id": player,
                    "late": False,
                }
                for table_no, table in enumerate(tables)
                for seat, player in enumerate(table)
            ],
        )
        session.commit()
        return tables


def _at_table(event_id: int, round_no: int, table_no: int) -> tuple[sa.ColumnElement[bool], ...]:
    """The where-clauses of one table's seats in an event's round."""
    return (
        col(EventSeat.event_id) == event_id,
        col(EventSeat.round) == round_no,
        col(EventSeat.table_no) == table_no,
    )


def _unscored(session: Session, event_id: int, round_no: int) -> int:
    return int(
        session.exec(
            select(sa.func.count())
            .select_from(EventSeat)
            .where(
                col(EventSeat.event_id) == event_id,
                col(EventSeat.round) == round_no,
                col(EventSeat.score).is_(None),
            )
        ).one()
    )


def set_table(
    db: Database,
    event_id: int,
    round_no: int,
    table_no: int,
    table_id: str,
    marker: str | None = None,
) -> bool:
    """The ordinary table (app.tables) a round's table is played at. With ``marker`` (the
    claim ``claim_table`` took), only while the claim is still that one: False when another
    instance took the making over since (its table is the one the players are told of)."""
    with db.session() as session:
        moved = session.execute(
            sa.update(EventSeat)
            .where(
                *_at_table(event_id, round_no, table_no),
                *([] if marker is None else [col(EventSeat.table_id) == marker]),
            )
            .values(table_id=table_id)
        )
        session.commit()
        return bool(moved.rowcount)  # type: ignore[attr-defined]


def seen(db: Database, event_id: int, round_no: int, player_id: str) -> None:
    """The player sat down at their table of ``round_no`` (or came late to it)."""
    with db.session() as session:
        session.execute(
            sa.update(EventEntry)
            .where(
                col(EventEntry.event_id) == event_id,
                col(EventEntry.player_id) == player_id,
                col(EventEntry.last_seen_round) < round_no,
            )
            .values(last_seen_round=round_no)
        )
        session.commit()


def late(db: Database, event_id: int, round_no: int, player_ids: Sequence[str]) -> None:
    """The grace time is over: these players' seats go to computers for the round (not of
    those seen at the round already: one who came and went since is not late)."""
    with db.session() as session:
        came = select(EventEntry.player_id).where(
            col(EventEntry.event_id) == event_id, col(EventEntry.last_seen_round) >= round_no
        )
        session.execute(
            sa.update(EventSeat)
            .where(
                col(EventSeat.event_id) == event_id,
                col(EventSeat.round) == round_no,
                col(EventSeat.player_id).in_(list(player_ids)),
                col(EventSeat.player_id).not_in(came),
            )
            .values(late=True)
        )
        session.commit()


def record_table(
    db: Database, event_id: int, round_no: int, table_no: int, scores: Sequence[int]
) -> bool:
    """A table's final scores, once (a second call for the same table changes nothing). When
    it was the round's last table, the round's results go into the standings, and the event
    ends after its last round. True when this call completed the round.

    The event's row is locked first (PostgreSQL; SQLite has one writer at a time anyway):
    two instances recording the last two tables of a round at once would otherwise each count
    the other's table as unscored, and the round would never be applied."""
    with db.session() as session:
        scored = score_table(session, event_id, round_no, table_no, scores)
        if scored is None:
            session.rollback()
            return False
        event, _seats = scored
        session.flush()
        if _unscored(session, event_id, round_no):
            session.commit()
            return False
        _apply_round(session, event, round_no)
        session.commit()
        return True


def score_table(
    session: Session, event_id: int, round_no: int, table_no: int, scores: Sequence[int]
) -> tuple[Event, list[EventSeat]] | None:
    """In ``session``: the event's row locked (FOR UPDATE: on SQLite the write lock),
    then the table's seats given their final scores in one UPDATE, only if none had one yet.
    (The locked event, the table's seats) for the call that scored it, None for a table
    scored already (the caller rolls back)."""
    event = session.exec(select(Event).where(col(Event.id) == event_id).with_for_update()).first()
    if event is None:
        raise EventError(404, "unknown_event", "no such event")
    seats = session.exec(
        select(EventSeat)
        .where(
            *_at_table(event_id, round_no, table_no),
        )
        .order_by(col(EventSeat.seat))
    ).all()
    if not seats or len(seats) != len(scores):
        raise EventError(422, "bad_scores", "a score for every seat of the table")
    by_seat = {s.seat: int(v) for s, v in zip(seats, scores, strict=True)}
    done = session.execute(
        sa.update(EventSeat)
        .where(
            *_at_table(event_id, round_no, table_no),
            col(EventSeat.score).is_(None),
        )
        .values(score=sa.case(by_seat, value=col(EventSeat.seat)))
    )
    if done.rowcount != len(seats):  # type: ignore[attr-defined]
        return None
    return event, list(seats)


def _apply_round(session: Session, event: Event, round_no: int) -> None:
    rows = session.exec(
        select(EventSeat)
        .where(EventSeat.event_id == event.id, col(EventSeat.round) == round_no)
        .order_by(col(EventSeat.table_no), col(EventSeat.seat))
    ).all()
    tables: dict[int, list[EventSeat]] = {}
    for row in rows:
        tables.setdefault(row.table_no, []).append(row)
    seating: list[list[Seat]] = [
        [None if s.late else s.player_id for s in t] for t in tables.values()
    ]
    scores = [[s.score or 0 for s in t] for t in tables.values()]
    for result in round_results(event.format, seating, scores, points_of(event.points_by_place)):
        session.execute(
            sa.update(EventEntry)
            .where(
                col(EventEntry.event_id) == event.id,
                col(EventEntry.player_id) == result.player_id,
            )
            .values(
                table_points=EventEntry.table_points + result.table_points,
                game_points=EventEntry.game_points + result.game_points,
                rounds=EventEntry.rounds + 1,
                last_seen_round=round_no,  # they played the round
            )
        )
    if round_no >= event.rounds:
        session.execute(sa.update(Event).where(col(Event.id) == event.id).values(state="finished"))


def running_rounds(db: Database, limit: int) -> list[tuple[int, int]]:
    """(event, its current round) of the running events."""
    with db.session() as session:
        rows = session.exec(
            select(Event.id, Event.current_round)
            .where(col(Event.state) == "running")
            .order_by(col(Event.id))
            .limit(limit)
        ).all()
        return [(i, r) for i, r in rows if i is not None]


def round_tables(db: Database, event_id: int, round_no: int) -> list[dict[str, Any]]:
    """The round's tables: their table id (None before made, ``making:...`` while claimed),
    each seat's player (id and name, None for a computer), whether the scores are in."""
    with db.session() as session:
        event = session.get(Event, event_id)
        rows = session.exec(
            select(EventSeat, Player.name)
            .join(Player, col(Player.id) == col(EventSeat.player_id), isouter=True)
            .where(col(EventSeat.event_id) == event_id, col(EventSeat.round) == round_no)
            .order_by(col(EventSeat.table_no), col(EventSeat.seat))
        ).all()
    out: dict[int, dict[str, Any]] = {}
    for seat, name in rows:
        table = out.setdefault(
            seat.table_no,
            {
                "table_no": seat.table_no,
                "table_id": seat.table_id,
                "seats": [],
                "scored": seat.score is not None,
                "format": event.format if event else "swiss",
                "preset": event.preset if event else "classic",
                "seed": event.seed if event else "",
                "grace_seconds": event.grace_seconds if event else 0,
                "name": event.name if event else "",
            },
        )
        table["seats"].append({"player_id": seat.player_id, "name": name, "late": seat.late})
    return list(out.values())


def claim_table(
    db: Database, event_id: int, round_no: int, table_no: int, was: str | None, marker: str
) -> bool:
    """Take the making of a round's table: its table id goes from ``was`` (None, or a claim
    that is too old) to ``marker``, on one instance only."""
    with db.session() as session:
        same = col(EventSeat.table_id).is_(None) if was is None else col(EventSeat.table_id) == was
        moved = session.execute(
            sa.update(EventSeat)
            .where(
                *_at_table(event_id, round_no, table_no),
                same,
            )
            .values(table_id=marker)
        )
        session.commit()
        return bool(moved.rowcount)  # type: ignore[attr-defined]
