"""Stored game reviews (table ``game_review``) and their job state, in SQL.

A review of one seat of one finished game is computed once and read by anyone who may read
the game. Its row is also the job: ``queued`` when asked for, ``running`` while an instance
holds its lease (``lease_owner`` until ``lease_until``, renewed as it works), ``done`` with
its result, or ``failed``. An instance that dies stops renewing; once the lease has run out
any instance claims the job (one conditional UPDATE, so exactly one wins) and computes it
again. Runs in a thread (the routes and the job runner
call it off the event loop).

The queue is bounded (``request``'s ``queue_max``: reviews queued or running on the whole
deployment) and served round robin between requesters (``claimable``): a player who asked for
many reviews gets their next one after everyone else's first, not before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from app.db.database import Database
from app.db.models import GameReview, as_utc, utcnow

# A job taken over this many times (each instance that held it died, or it kept failing) is
# marked failed instead of being tried again: a review that kills its instance must not go
# round every instance.
MAX_ATTEMPTS = 3


class QueueFull(Exception):
    """As many reviews as the deployment allows are queued or running already."""


def _count_waiting(session: Any) -> int:
    """Reviews queued or running (whether its lease holds or ran out: it will be taken
    again)."""
    waiting = col(GameReview.status).in_(("queued", "running"))
    return int(session.exec(select(sa.func.count()).select_from(GameReview).where(waiting)).one())


def pending(db: Database) -> int:
    """Reviews queued or running now, on the whole deployment."""
    with db.session() as session:
        return _count_waiting(session)


@dataclass(frozen=True)
class Claimed:
    """A job an instance holds: what it needs to go on."""

    game_id: int
    seat: int
    budget: int
    attempts: int


def read(db: Database, game_id: int, seat: int) -> GameReview | None:
    with db.session() as session:
        return session.get(GameReview, (game_id, seat))


def read_game(db: Database, game_id: int) -> list[GameReview]:
    """Every stored review of a game (any status), by seat."""
    with db.session() as session:
        rows = session.exec(
            select(GameReview).where(GameReview.game_id == game_id).order_by(col(GameReview.seat))
        ).all()
        return list(rows)


def request(
    db: Database,
    game_id: int,
    seat: int,
    player_id: str | None,
    budget: int,
    queue_max: int | None = None,
) -> tuple[GameReview, bool]:
    """The review of (game, seat), asked for now if there is none yet (or it failed): the row
    and whether this call queued a job. ``QueueFull`` (nothing queued) when ``queue_max``
    reviews are queued or running already."""
    with db.session() as session:
        row = session.get(GameReview, (game_id, seat))
        if row is not None and row.status != "failed":
            return row, False
        if queue_max is not None and _count_waiting(session) >= queue_max:
            raise QueueFull
        if row is None:
            row = GameReview(game_id=game_id, seat=seat, budget=budget, requested_by=player_id)
        else:  # failed before: ask again, from the start
            row.status, row.progress, row.result = "queued", 0.0, None
            row.error, row.attempts, row.lease_owner, row.lease_until = None, 0, None, None
            row.budget, row.requested_by, row.created_at = budget, player_id, utcnow()
            row.started_at = row.finished_at = None
        session.add(row)
        try:
            session.commit()
        except IntegrityError:  # asked for at the same moment elsewhere: that one stands
            session.rollback()
            found = session.get(GameReview, (game_id, seat))
            assert found is not None
            return found, False
        session.refresh(row)
        return row, True


def claimable(db: Database, limit: int = 5) -> list[tuple[int, int]]:
    """Jobs nobody holds: queued, or running under a lease that ran out (its instance died);
    round robin between requesters: everyone's oldest first (oldest of those first), then
    everyone's second, and so on."""
    now = utcnow()
    turn = (
        sa.func.row_number()
        .over(partition_by=col(GameReview.requested_by), order_by=col(GameReview.created_at))
        .label("turn")
    )
    free = (
        sa.select(col(GameReview.game_id), col(GameReview.seat), col(GameReview.created_at), turn)
        .where(
            sa.or_(
                col(GameReview.status) == "queued",
                sa.and_(col(GameReview.status) == "running", col(GameReview.lease_until) < now),
            )
        )
        .subquery()
    )
    with db.session() as session:
        rows = session.execute(
            sa.select(free.c.game_id, free.c.seat)
            .order_by(free.c.turn, free.c.created_at)
            .limit(limit)
        ).all()
        return [(int(g), int(s)) for g, s in rows]


def claim(
    db: Database, game_id: int, seat: int, owner: str, lease_seconds: float
) -> Claimed | None:
    """Take the job if nobody holds it (one conditional UPDATE: of several instances trying,
    one wins). None when it is held, finished, or was given up after ``MAX_ATTEMPTS``."""
    now = utcnow()
    free = sa.or_(
        col(GameReview.status) == "queued",
        sa.and_(col(GameReview.status) == "running", col(GameReview.lease_until) < now),
    )
    key = sa.and_(col(GameReview.game_id) == game_id, col(GameReview.seat) == seat)
    with db.session() as session:
        taken = session.execute(
            sa.update(GameReview)
            .where(key, free)
            .values(
                status="running",
                lease_owner=owner,
                lease_until=now + timedelta(seconds=lease_seconds),
                attempts=GameReview.attempts + 1,
                started_at=sa.func.coalesce(GameReview.started_at, now),
            )
        )
        session.commit()
        if taken.rowcount != 1:  # type: ignore[attr-defined]
            return None
        row = session.get(GameReview, (game_id, seat))
        assert row is not None
        if row.attempts > MAX_ATTEMPTS:
            row.status, row.error = "failed", "the review stopped its instance too many times"
            row.lease_owner = row.lease_until = None
            row.finished_at = now
            session.add(row)
            session.commit()
            return None
        return Claimed(game_id, seat, row.budget, row.attempts)


def _held(game_id: int, seat: int, owner: str) -> Any:
    return sa.and_(
        col(GameReview.game_id) == game_id,
        col(GameReview.seat) == seat,
        col(GameReview.status) == "running",
        col(GameReview.lease_owner) == owner,
    )


def _update_held(db: Database, game_id: int, seat: int, owner: str, **values: Any) -> bool:
    """Write ``values`` on the job only while this instance holds it; False when it no longer
    does (its lease ran out and another instance took it over)."""
    with db.session() as session:
        done = session.execute(
            sa.update(GameReview).where(_held(game_id, seat, owner)).values(**values)
        )
        session.commit()
        return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def renew(
    db: Database,
    game_id: int,
    seat: int,
    owner: str,
    lease_seconds: float,
    *,
    progress: float | None = None,
) -> bool:
    """Extend the lease (and store the progress); False when this instance no longer holds
    the job (its lease ran out and another took it over)."""
    values: dict[str, Any] = {"lease_until": utcnow() + timedelta(seconds=lease_seconds)}
    if progress is not None:
        values["progress"] = min(max(progress, 0.0), 1.0)
    return _update_held(db, game_id, seat, owner, **values)


def finish(db: Database, game_id: int, seat: int, owner: str, result: dict[str, Any]) -> bool:
    """Store the result (only while holding the job); False when another instance has it."""
    return _update_held(
        db,
        game_id,
        seat,
        owner,
        status="done",
        progress=1.0,
        result=result,
        lease_owner=None,
        lease_until=None,
        finished_at=utcnow(),
    )


def fail(db: Database, game_id: int, seat: int, owner: str, error: str) -> bool:
    return _update_held(
        db,
        game_id,
        seat,
        owner,
        status="failed",
        error=error[:200],
        lease_owner=None,
        lease_until=None,
        finished_at=utcnow(),
    )


def release(db: Database, game_id: int, seat: int, owner: str) -> bool:
    """Hand a held job back (this instance is stopping): queued again at once, so another
    instance takes it without waiting for the lease to run out."""
    return _update_held(
        db,
        game_id,
        seat,
        owner,
        status="queued",
        lease_owner=None,
        lease_until=None,
        attempts=GameReview.attempts - 1,
    )


def public(row: GameReview) -> dict[str, Any]:
    """What the API answers about a review (the result once done)."""
    return {
        "game_id": row.game_id,
        "seat": row.seat,
        "status": row.status,
        "progress": round(row.progress, 4),
        "budget": row.budget,
        "created_at": _iso(row.created_at),
        "finished_at": _iso(row.finished_at),
        "error": row.error,
        "result": row.result if row.status == "done" else None,
    }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else as_utc(value).isoformat().replace("+00:00", "Z")
