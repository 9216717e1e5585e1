"""Arena events in SQL: the arena's own steps over the events' tables (event, event_entry,
event_seat; app.compete.events_store keeps the rest: making one, registering, withdrawing,
the standings). The rules are app.compete.arena's.

An arena's games are its "rounds": each table it starts takes the next round number (the
event's ``current_round`` counts the tables started) and is table 0 of it, so a table is
made, followed and scored by the scheduler as a round's table is (app.compete.events_runner).
A player is at a table while a seat of theirs has no score yet; waiting while registered,
not withdrawn, not paused and at no table.

The scheduler's steps are compare-and-set updates under the event's row lock (PostgreSQL;
SQLite has one writer at a time), so two instances running them together seat a player once
and score a game once. Every function runs in a worker thread and raises ``EventError`` for
anything refused; a refused call changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.compete import arena, events_store
from app.compete.events import EventError, EventLimits, points_of, round_results
from app.db import Database
from app.db.compete_models import ClubMember, Event, EventEntry, EventSeat
from app.db.models import as_utc, utcnow


def arenas_among(db: Database, event_ids: Sequence[int]) -> set[int]:
    """Which of these events are arenas."""
    if not event_ids:
        return set()
    with db.session() as session:
        rows = session.exec(
            select(Event.id).where(col(Event.id).in_(list(event_ids)), Event.format == "arena")
        ).all()
        return {r for r in rows if r is not None}


def _move(
    session: Session, event_id: int, was: str, to: str, *when: sa.ColumnElement[bool]
) -> bool:
    """The arena's state goes from ``was`` to ``to`` if ``when`` holds, in one UPDATE (so
    one call of several at once moves it): True for that call."""
    moved = session.execute(
        sa.update(Event)
        .where(
            col(Event.id) == event_id,
            col(Event.format) == "arena",
            col(Event.state) == was,
            *when,
        )
        .values(state=to)
    )
    return bool(moved.rowcount)  # type: ignore[attr-defined]


def start(db: Database, event_id: int, now: datetime) -> bool:
    """The arena's window opens: every registered player is free to sit down from now. True
    for the one call that started it."""
    with db.session() as session:
        moved = _move(session, event_id, "registering", "running", col(Event.starts_at) <= now)
        if not moved:
            session.rollback()
            return False
        session.execute(
            sa.update(EventEntry).where(col(EventEntry.event_id) == event_id).values(free_since=now)
        )
        session.commit()
        return True


def _locked(session: Session, event_id: int) -> Event | None:
    return session.exec(select(Event).where(col(Event.id) == event_id).with_for_update()).first()


def _at_tables(event_id: int) -> Any:
    """The players of the event at a table now (a seat of theirs not scored yet)."""
    return select(EventSeat.player_id).where(
        col(EventSeat.event_id) == event_id,
        col(EventSeat.score).is_(None),
        col(EventSeat.player_id).is_not(None),
    )


def seat_waiting(
    db: Database, event_id: int, now: datetime, fill_seconds: float, last_call_seconds: float
) -> list[int]:
    """Seat the players waiting (arena.seat_waiting) while the window lets a table start; the
    round numbers of the tables started (none: nobody to seat, or another instance did)."""
    with db.session() as session:
        event = _locked(session, event_id)
        if (
            event is None
            or event.format != "arena"
            or event.state != "running"
            or event.ends_at is None
            or not arena.may_start(now, as_utc(event.ends_at), last_call_seconds)
        ):
            return []
        entries = session.exec(
            select(EventEntry).where(
                col(EventEntry.event_id) == event_id,
                col(EventEntry.withdrawn).is_(False),
                col(EventEntry.paused).is_(False),
                col(EventEntry.player_id).not_in(_at_tables(event_id)),
            )
        ).all()
        opened = as_utc(event.starts_at)
        met = _last_met(session, event_id)
        waiting = [
            arena.Waiting(
                e.player_id,
                e.table_points,
                e.game_points,
                (now - as_utc(e.free_since or opened)).total_seconds(),
                frozenset(met.get(e.player_id, ())),
                e.rounds,
            )
            for e in entries
        ]
        tables = arena.seat_waiting(waiting, event.table_size, event.seed, fill_seconds)
        if not tables:
            return []
        first = event.current_round + 1
        moved = session.execute(
            sa.update(Event)
            .where(col(Event.id) == event_id, col(Event.current_round) == event.current_round)
            .values(current_round=event.current_round + len(tables))
        )
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            session.rollback()
            return []
        for n, table in enumerate(tables):
            for seat, player in enumerate(table):
                session.add(
                    EventSeat(
                        event_id=event_id,
                        round=first + n,
                        table_no=0,
                        seat=seat,
                        player_id=player,
                    )
                )
        session.commit()
        return list(range(first, first + len(tables)))


def _last_met(session: Session, event_id: int) -> dict[str, set[str]]:
    """Each player's opponents in their last game of the arena (humans only)."""
    last = (
        select(EventSeat.player_id, sa.func.max(EventSeat.round).label("game"))
        .where(col(EventSeat.event_id) == event_id, col(EventSeat.player_id).is_not(None))
        .group_by(col(EventSeat.player_id))
        .subquery()
    )
    pairs = session.execute(
        sa.select(last.c.player_id, col(EventSeat.player_id)).join(
            EventSeat,
            sa.and_(
                col(EventSeat.event_id) == event_id,
                col(EventSeat.round) == last.c.game,
                col(EventSeat.player_id).is_not(None),
                col(EventSeat.player_id) != last.c.player_id,
            ),
        )
    ).all()
    out: dict[str, set[str]] = {}
    for player, mate in pairs:
        out.setdefault(player, set()).add(mate)
    return out


def open_rounds(db: Database, event_id: int) -> list[int]:
    """The arena's tables still playing (or still to be made): their round numbers."""
    with db.session() as session:
        rows = session.exec(
            select(EventSeat.round)
            .where(col(EventSeat.event_id) == event_id, col(EventSeat.score).is_(None))
            .distinct()
            .order_by(col(EventSeat.round))
        ).all()
        return list(rows)


def first_games(db: Database, event_id: int, round_no: int, players: Sequence[str]) -> list[str]:
    """Those of ``players`` (seated at game ``round_no``) for whom it is their first game of
    the arena: no seat of theirs in an earlier one."""
    if not players:
        return []
    with db.session() as session:
        before = set(
            session.exec(
                select(EventSeat.player_id).where(
                    col(EventSeat.event_id) == event_id,
                    col(EventSeat.round) < round_no,
                    col(EventSeat.player_id).in_(list(players)),
                )
            ).all()
        )
    return [p for p in players if p not in before]


def record_game(
    db: Database,
    event_id: int,
    round_no: int,
    table_no: int,
    scores: Sequence[int],
    now: datetime | None = None,
) -> bool:
    """A game's final scores, once: its table points by place go into the standings at once,
    its players are free to sit down again, and one whose seat a computer played all game
    long (late) is paused until they come back. True for the call that recorded it."""
    now = now or utcnow()
    with db.session() as session:
        scored = events_store.score_table(session, event_id, round_no, table_no, scores)
        if scored is None:
            session.rollback()
            return False
        event, seats = scored
        seating = [None if s.late else s.player_id for s in seats]
        points = points_of(event.points_by_place)
        for result in round_results("arena", [seating], [list(scores)], points):
            session.execute(
                sa.update(EventEntry)
                .where(
                    col(EventEntry.event_id) == event_id,
                    col(EventEntry.player_id) == result.player_id,
                )
                .values(
                    table_points=EventEntry.table_points + result.table_points,
                    game_points=EventEntry.game_points + result.game_points,
                    rounds=EventEntry.rounds + 1,
                    last_seen_round=round_no,
                    free_since=now,
                )
            )
        absent = [s.player_id for s in seats if s.late and s.player_id]
        if absent:
            session.execute(
                sa.update(EventEntry)
                .where(
                    col(EventEntry.event_id) == event_id,
                    col(EventEntry.player_id).in_(absent),
                )
                .values(paused=True, free_since=now)
            )
        session.commit()
        return True


def finish_if_over(db: Database, event_id: int, now: datetime) -> bool:
    """The arena ends once its window has closed and its last table has finished (True for
    the call that ended it)."""
    with db.session() as session:
        playing = (
            select(EventSeat.round)
            .where(col(EventSeat.event_id) == event_id, col(EventSeat.score).is_(None))
            .exists()
        )
        moved = _move(session, event_id, "running", "finished", col(Event.ends_at) <= now, ~playing)
        session.commit()
        return moved


def _arena(session: Session, event_id: int, player_id: str) -> Event:
    event = session.get(Event, event_id)
    if event is None or (
        event.club_id is not None and session.get(ClubMember, (event.club_id, player_id)) is None
    ):
        raise EventError(404, "unknown_event", "no such event")
    if event.format != "arena":
        raise EventError(409, "not_arena", "only an arena's players pause")
    return event


def pause(db: Database, event_id: int, player_id: str, paused: bool, now: datetime) -> None:
    """Pause (not seated again after the game one plays now, if any) or come back (waiting
    from now). Saying it twice changes nothing more."""
    with db.session() as session:
        event = _arena(session, event_id, player_id)
        entry = events_store.entry_in_play(session, event, player_id)
        if entry.paused != paused:
            entry.paused = paused
            entry.free_since = now
            session.add(entry)
            session.commit()


def register(
    db: Database, event_id: int, player_id: str, limits: EventLimits, now: datetime
) -> None:
    """Register (events_store.register), and, as in lichess's Arena, join an arena already
    running while its window is open (one who withdrew comes back with their points)."""
    with db.session() as session:
        event = session.get(Event, event_id)
        running_arena = (
            event is not None
            and event.format == "arena"
            and event.state == "running"
            and (
                event.club_id is None
                or session.get(ClubMember, (event.club_id, player_id)) is not None
            )
        )
    if not running_arena or event is None:
        events_store.register(db, event_id, player_id, limits)
        return
    if event.ends_at is None or not arena.may_start(now, as_utc(event.ends_at), 0):
        raise EventError(409, "registration_closed", "the arena's time is up")
    with db.session() as session:
        entry = session.get(EventEntry, (event_id, player_id))
        if entry is not None and not entry.withdrawn:
            raise EventError(409, "already_registered", "you are registered already")
        if entry is not None:
            entry.withdrawn, entry.paused, entry.free_since = False, False, now
            session.add(entry)
            session.commit()
            return
        events_store.add_entry(session, event, player_id, limits, now)
        session.commit()


def view(db: Database, event_id: int, viewer: str | None, now: datetime) -> dict[str, Any]:
    """What an arena's page adds to the event's: the seconds left in the window, the games
    finished (the standings change with each), and the viewer's pause and table now (its
    table id once made)."""
    with db.session() as session:
        event = session.get(Event, event_id)
        if event is None or event.ends_at is None:
            return {}
        games = session.exec(
            select(sa.func.count(sa.distinct(col(EventSeat.round)))).where(
                col(EventSeat.event_id) == event_id, col(EventSeat.score).is_not(None)
            )
        ).one()
        out: dict[str, Any] = {
            "seconds_left": max(0, round(arena.seconds_left(now, as_utc(event.ends_at)))),
            "games": int(games),
            "paused": False,
            "my_table": None,
        }
        entry = session.get(EventEntry, (event_id, viewer)) if viewer else None
        if entry is None:
            return out
        out["paused"] = entry.paused
        seat = session.exec(
            select(EventSeat)
            .where(
                col(EventSeat.event_id) == event_id,
                col(EventSeat.player_id) == viewer,
                col(EventSeat.score).is_(None),
            )
            .order_by(col(EventSeat.round).desc())
        ).first()
        if seat is not None:
            out["my_table"] = events_store.my_table(seat)
        return out
