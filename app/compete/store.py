"""The daily challenge in SQL: attempts, results per deal, score counts, leaderboards.

Every function takes the ``Database`` and runs in a worker thread (the routes and the
refresh loop call them through ``run_in_threadpool``). What a read costs never depends on the
number of players: a deal's matchpoints and spread come from its score counts (one row per
points value), the leaderboards are read by keyset paging along an index
(``ix_daily_attempt_day_preset_percent_id``, ``ix_daily_month_month_preset_total_player_id``).
The percentages those indexes order by move as more players finish, so ``refresh`` recomputes
them in the background (one instance at a time: a lease on the day's ``daily_board`` row).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.compete.scoring import ScoreCounts, Total, total
from app.db import Database
from app.db.compete_models import (
    CompeteSecret,
    DailyAttempt,
    DailyBoard,
    DailyMonth,
    DailyPar,
    DailyResult,
    DailyScoreCount,
    DailyStreak,
)
from app.db.models import Game, Hand, Player, utcnow
from app.db.secret import kept_secret

HUMAN_SEAT = 0  # the player's seat at a daily table (the creator's)


def stored_secret(db: Database) -> str:
    """The secret kept in the database, made at random by the first caller."""
    return kept_secret(db, CompeteSecret)


# -- attempts ---------------------------------------------------------------------------------


def find_attempt(db: Database, day: date, preset: str, player_id: str) -> DailyAttempt | None:
    with db.session() as session:
        return _attempt_of(session, day, preset, player_id)


def _attempt_of(session: Session, day: date, preset: str, player_id: str) -> DailyAttempt | None:
    return session.exec(
        select(DailyAttempt).where(
            DailyAttempt.day == day,
            DailyAttempt.preset == preset,
            DailyAttempt.player_id == player_id,
        )
    ).first()


def begin_attempt(
    db: Database, day: date, preset: str, player_id: str, name: str, version: int
) -> tuple[DailyAttempt, bool]:
    """The player's attempt of the day: a new one (True), or the one they already have."""
    with db.session() as session:
        attempt = DailyAttempt(
            day=day, preset=preset, player_id=player_id, name=name, version=version, table_id=""
        )
        session.add(attempt)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
        else:
            session.refresh(attempt)
            return attempt, True
        found = _attempt_of(session, day, preset, player_id)
        assert found is not None
        return found, False


def set_table(db: Database, attempt_id: int, table_id: str) -> None:
    with db.session() as session:
        session.execute(
            sa.update(DailyAttempt)
            .where(col(DailyAttempt.id) == attempt_id)
            .values(table_id=table_id)
        )
        session.commit()


def drop_attempt(db: Database, attempt_id: int) -> None:
    """An attempt whose table could not be made (nothing was played): the player may retry."""
    with db.session() as session:
        session.execute(
            sa.delete(DailyAttempt).where(
                col(DailyAttempt.id) == attempt_id, col(DailyAttempt.deals_done) == 0
            )
        )
        session.commit()


def open_attempts(db: Database, since: datetime, limit: int) -> list[int]:
    """Attempts started since ``since`` that have deals still to record."""
    with db.session() as session:
        rows = session.exec(
            select(DailyAttempt.id)
            .where(
                col(DailyAttempt.finished_at).is_(None),
                DailyAttempt.started_at >= since,
                DailyAttempt.table_id != "",
            )
            .order_by(col(DailyAttempt.id))
            .limit(limit)
        ).all()
        return [int(r) for r in rows if r is not None]


# -- recording deals ----------------------------------------------------------------------------


def record_deals(db: Database, attempt_id: int, deals: int) -> int:
    """Record the deals of an attempt that its table finished since the last call (read from the
    hands the results writer stored), in one transaction; returns how many. Each deal is
    recorded once: a second caller doing the same at once (another instance's loop, the
    player's own status request) loses on the results' primary key, at whichever flush or
    commit meets it, and records nothing."""
    with db.session() as session:
        try:
            return _record_deals(session, attempt_id, deals)
        except IntegrityError:
            session.rollback()
            return 0


def _record_deals(session: Session, attempt_id: int, deals: int) -> int:
    attempt = session.get(DailyAttempt, attempt_id)
    if attempt is None or not attempt.table_id or attempt.deals_done >= deals:
        return 0
    game = session.exec(
        select(Game).where(Game.table_id == attempt.table_id, Game.game_no == 1)
    ).first()
    if game is None:
        return 0
    hands = session.exec(
        select(Hand)
        .where(Hand.game_id == game.id, Hand.hand_no >= attempt.deals_done)
        .order_by(col(Hand.hand_no))
    ).all()
    added = 0
    for hand in hands:
        if hand.hand_no != attempt.deals_done or hand.hand_no >= deals:
            break  # in order only (a hand not yet stored holds the later ones back)
        points = int(hand.points[HUMAN_SEAT])
        session.add(
            DailyResult(
                attempt_id=attempt_id,
                deal_no=hand.hand_no,
                day=attempt.day,
                preset=attempt.preset,
                version=attempt.version,
                points=points,
                moves=list(hand.moves),
            )
        )
        _count_score(session, attempt, hand.hand_no, points)
        attempt.deals_done += 1
        attempt.points += points
        added += 1
    if not added:
        return 0
    finished = attempt.deals_done >= deals
    board_key = {"day": attempt.day, "preset": attempt.preset}
    _bump(session, DailyBoard, board_key, {"results": added, "players": int(finished)})
    if finished:
        session.flush()
        attempt.finished_at = utcnow()
        attempt.percent = round(attempt_total(session, attempt).percent, 6)
        _add_to_month(session, attempt, attempt.percent, new_day=True)
        _extend_streak(session, attempt.player_id, attempt.day)
    session.add(attempt)
    session.commit()
    return added


def _count_score(session: Session, attempt: DailyAttempt, deal_no: int, points: int) -> None:
    key = {
        "day": attempt.day,
        "preset": attempt.preset,
        "deal_no": deal_no,
        "version": attempt.version,
        "points": points,
    }
    _bump(session, DailyScoreCount, key, {"count": 1})


def _bump(
    session: Session, model: Any, key: dict[str, Any], add: dict[str, Any], **new: Any
) -> None:
    """Add ``add`` to a row's counters in SQL (``count = count + 1``: two instances adding at
    once both count), or insert the row when there is none (one of two such inserts fails on
    the key, and its whole transaction is tried again later)."""
    where = [getattr(model, k) == v for k, v in key.items()]
    values = {k: getattr(model, k) + v for k, v in add.items()}
    done = session.execute(sa.update(model).where(*where).values(**values))
    if done.rowcount == 0:  # type: ignore[attr-defined]
        session.add(model(**key, **add, **new))
        session.flush()


def month_of(day: date) -> str:
    return day.strftime("%Y-%m")


def _add_to_month(
    session: Session, attempt: DailyAttempt, delta: float, *, new_day: bool = False
) -> None:
    key = {"month": month_of(attempt.day), "preset": attempt.preset, "player_id": attempt.player_id}
    _bump(
        session, DailyMonth, key, {"total": delta, "days": 1 if new_day else 0}, name=attempt.name
    )


def _extend_streak(session: Session, player_id: str, day: date) -> None:
    """A registered player's run of days: one more when yesterday was played, else 1."""
    player = session.get(Player, player_id)
    if player is None or player.is_guest:
        return
    streak = session.get(DailyStreak, player_id) or DailyStreak(player_id=player_id)
    if streak.last_day == day:
        return
    streak.current = streak.current + 1 if streak.last_day == day - timedelta(days=1) else 1
    streak.best = max(streak.best, streak.current)
    streak.last_day = day
    session.add(streak)


def streak_of(db: Database, player_id: str, today: date) -> dict[str, int]:
    """The streak as of ``today``: still running if the last day played is today or
    yesterday."""
    with db.session() as session:
        streak = session.get(DailyStreak, player_id)
    if streak is None or streak.last_day is None:
        return {"current": 0, "best": 0}
    running = streak.last_day >= today - timedelta(days=1)
    return {"current": streak.current if running else 0, "best": streak.best}


# -- matchpoints --------------------------------------------------------------------------------


def score_counts(
    session: Session, day: date, preset: str, deal_no: int, version: int
) -> dict[int, int]:
    rows = session.exec(
        select(DailyScoreCount.points, DailyScoreCount.count).where(
            DailyScoreCount.day == day,
            DailyScoreCount.preset == preset,
            DailyScoreCount.deal_no == deal_no,
            DailyScoreCount.version == version,
        )
    ).all()
    return {int(p): int(n) for p, n in rows if n}


def results_of(session: Session, attempt_id: int) -> list[DailyResult]:
    return list(
        session.exec(
            select(DailyResult)
            .where(DailyResult.attempt_id == attempt_id)
            .order_by(col(DailyResult.deal_no))
        ).all()
    )


def attempt_total(session: Session, attempt: DailyAttempt) -> Total:
    assert attempt.id is not None
    pairs: list[tuple[ScoreCounts, int]] = []
    for result in results_of(session, attempt.id):
        counts = score_counts(session, attempt.day, attempt.preset, result.deal_no, result.version)
        pairs.append((counts, result.points))
    return total(pairs)


@dataclass(frozen=True, slots=True)
class DealFacts:
    """One deal as one player played it, and how everyone on the same version did."""

    result: DailyResult
    counts: dict[int, int]
    other: DailyResult | None  # the other result shown beside the player's
    other_name: str | None


def deal_facts(
    db: Database, attempt: DailyAttempt, deal_no: int, with_attempt: int | None
) -> DealFacts | None:
    """None when the player has not finished that deal (nothing about it is shown then).
    The result shown beside theirs: ``with_attempt``'s on the same version if it played the
    deal (else none), by default the best other (fewest points, the earliest of equals)."""
    assert attempt.id is not None
    with db.session() as session:
        result = session.get(DailyResult, (attempt.id, deal_no))
        if result is None:
            return None
        counts = score_counts(session, attempt.day, attempt.preset, deal_no, result.version)
        query = select(DailyResult, DailyAttempt.name).join(
            DailyAttempt, col(DailyAttempt.id) == col(DailyResult.attempt_id)
        )
        query = query.where(
            DailyResult.day == attempt.day,
            DailyResult.preset == attempt.preset,
            DailyResult.deal_no == deal_no,
            DailyResult.version == result.version,
            DailyResult.attempt_id != attempt.id,
        )
        if with_attempt is not None:
            query = query.where(DailyResult.attempt_id == with_attempt)
        found = session.exec(
            query.order_by(col(DailyResult.points), col(DailyResult.attempt_id)).limit(1)
        ).first()
        other, other_name = (found[0], found[1]) if found is not None else (None, None)
        return DealFacts(result, counts, other, other_name)


def attempt_summary(db: Database, attempt_id: int) -> dict[str, Any] | None:
    """The attempt, each deal it played with its matchpoints, and its total now."""
    with db.session() as session:
        attempt = session.get(DailyAttempt, attempt_id)
        if attempt is None:
            return None
        deals = []
        pairs: list[tuple[ScoreCounts, int]] = []
        for result in results_of(session, attempt_id):
            counts = score_counts(
                session, attempt.day, attempt.preset, result.deal_no, result.version
            )
            pairs.append((counts, result.points))
            one = total([(counts, result.points)])
            deals.append(
                {
                    "deal_no": result.deal_no,
                    "points": result.points,
                    "matchpoints": one.matchpoints,
                    "of": one.possible,
                    "players": sum(counts.values()),
                }
            )
        now = total(pairs)
        return {
            "day": attempt.day.isoformat(),
            "preset": attempt.preset,
            "table_id": attempt.table_id,
            "deals_done": attempt.deals_done,
            "finished": attempt.finished_at is not None,
            "points": attempt.points,
            "matchpoints": now.matchpoints,
            "of": now.possible,
            "percent": round(now.percent, 2),
            "deals": deals,
        }


# -- leaderboards -------------------------------------------------------------------------------


def _page_down(query: Any, value: Any, tie: Any, after: tuple[Any, Any] | None, limit: int) -> Any:
    """``query``'s next ``limit`` rows by ``value`` then ``tie``, both highest first, after the
    line ``after`` (its value and tie; None: from the top). "value <= v" bounds the index range
    scan (an OR alone makes the database scan the board from its start: the cost of a page
    then grows with its depth)."""
    if after is not None:
        last_value, last_tie = after
        query = query.where(
            col(value) <= last_value,
            sa.or_(col(value) < last_value, col(tie) < last_tie),
        )
    return query.order_by(col(value).desc(), col(tie).desc()).limit(limit)


def day_page(
    db: Database, day: date, preset: str, after: tuple[float, int] | None, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """One page of the day's finished attempts, best percentage first (ties: the later id
    first), after the (percent, id) of the previous page's last line (its ``key`` and
    ``attempt``); and how many finished."""
    with db.session() as session:
        query = select(
            DailyAttempt.id,
            DailyAttempt.name,
            DailyAttempt.percent,
            DailyAttempt.points,
        ).where(
            DailyAttempt.day == day,
            DailyAttempt.preset == preset,
            col(DailyAttempt.percent).is_not(None),
        )
        page = _page_down(query, DailyAttempt.percent, DailyAttempt.id, after, limit)
        rows = session.exec(page).all()
        board = session.get(DailyBoard, (day, preset))
    lines = [
        {
            "attempt": int(i or 0),
            "name": n,
            "percent": round(float(p or 0.0), 2),
            "points": pts,
            "key": float(p or 0.0),  # the stored value: a page's cursor starts after it
        }
        for i, n, p, pts in rows
    ]
    return lines, board.players if board is not None else 0


def month_page(
    db: Database, month: str, preset: str, after: tuple[float, str] | None, limit: int
) -> list[dict[str, Any]]:
    """One page of the month, highest total of daily percentages first."""
    with db.session() as session:
        query = select(DailyMonth).where(DailyMonth.month == month, DailyMonth.preset == preset)
        page = _page_down(query, DailyMonth.total, DailyMonth.player_id, after, limit)
        rows = session.exec(page).all()
    return [
        {
            "player_id": r.player_id,
            "name": r.name,
            "total": round(r.total, 2),
            "key": r.total,
            "days": r.days,
            "average": round(r.total / r.days, 2) if r.days else 0.0,
        }
        for r in rows
    ]


def refresh(db: Database, day: date, preset: str, lease_seconds: float) -> bool:
    """Recompute the percentages of the day's finished attempts if results came in since the
    last time (one instance at a time, under a lease on the day's board); the month totals
    move by each change. Returns whether it ran."""
    now = utcnow()
    with db.session() as session:
        board = session.get(DailyBoard, (day, preset))
        if board is None or board.results == board.ranked_results:
            return False
        taken = session.execute(
            sa.update(DailyBoard)
            .where(
                col(DailyBoard.day) == day,
                col(DailyBoard.preset) == preset,
                sa.or_(col(DailyBoard.lease_until).is_(None), col(DailyBoard.lease_until) < now),
            )
            .values(lease_until=now + timedelta(seconds=lease_seconds))
        )
        session.commit()
        if taken.rowcount != 1:  # type: ignore[attr-defined]
            return False
        results_then = board.results
    try:
        _recompute(db, day, preset)
    finally:
        with db.session() as session:
            session.execute(
                sa.update(DailyBoard)
                .where(col(DailyBoard.day) == day, col(DailyBoard.preset) == preset)
                .values(ranked_results=results_then, ranked_at=utcnow(), lease_until=None)
            )
            session.commit()
    return True


def _recompute(db: Database, day: date, preset: str) -> None:
    with db.session() as session:
        counts: dict[tuple[int, int], dict[int, int]] = defaultdict(dict)
        for row in session.exec(
            select(DailyScoreCount).where(
                DailyScoreCount.day == day, DailyScoreCount.preset == preset
            )
        ).all():
            counts[(row.deal_no, row.version)][row.points] = row.count
        finished = {
            a.id: a
            for a in session.exec(
                select(DailyAttempt).where(
                    DailyAttempt.day == day,
                    DailyAttempt.preset == preset,
                    col(DailyAttempt.finished_at).is_not(None),
                )
            ).all()
        }
        pairs: dict[int, list[tuple[ScoreCounts, int]]] = defaultdict(list)
        for result in session.exec(
            select(DailyResult).where(DailyResult.day == day, DailyResult.preset == preset)
        ).all():
            if result.attempt_id in finished:
                key = (result.deal_no, result.version)
                pairs[result.attempt_id].append((counts[key], result.points))
        for attempt_id, attempt in finished.items():
            assert attempt_id is not None
            percent = round(total(pairs[attempt_id]).percent, 6)
            old = attempt.percent or 0.0
            if attempt.percent is None or abs(percent - old) > 1e-9:
                attempt.percent = percent
                session.add(attempt)
                _add_to_month(session, attempt, percent - old)
        session.commit()


# -- the Expert's par ---------------------------------------------------------------------------


def par_of(
    db: Database, day: date, preset: str, deal_no: int, version: int, *, queue: bool
) -> DailyPar | None:
    """The par row of a deal version; with ``queue``, one is queued when there is none."""
    key = (day, preset, deal_no, version)
    with db.session() as session:
        row = session.get(DailyPar, key)
        if row is not None or not queue:
            return row
        session.add(DailyPar(day=day, preset=preset, deal_no=deal_no, version=version))
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
        return session.get(DailyPar, key)


def take_par(db: Database, owner: str, lease_seconds: float) -> DailyPar | None:
    """A queued par (or one whose instance stopped: its lease ran out), now leased to
    ``owner``; None when there is nothing to compute."""
    now = utcnow()
    with db.session() as session:
        waiting = sa.or_(
            col(DailyPar.status) == "queued",
            sa.and_(col(DailyPar.status) == "running", col(DailyPar.lease_until) < now),
        )
        row = session.exec(select(DailyPar).where(waiting).limit(1)).first()
        if row is None:
            return None
        taken = session.execute(
            sa.update(DailyPar)
            .where(
                col(DailyPar.day) == row.day,
                col(DailyPar.preset) == row.preset,
                col(DailyPar.deal_no) == row.deal_no,
                col(DailyPar.version) == row.version,
                waiting,
            )
            .values(
                status="running",
                lease_owner=owner,
                lease_until=now + timedelta(seconds=lease_seconds),
            )
        )
        session.commit()
        if taken.rowcount != 1:  # type: ignore[attr-defined]
            return None
        session.refresh(row)
        return row


def finish_par(db: Database, row: DailyPar, points: int, moves: list[Any]) -> None:
    with db.session() as session:
        stored = session.get(DailyPar, (row.day, row.preset, row.deal_no, row.version))
        if stored is None:
            return
        stored.status, stored.points, stored.moves = "done", points, moves
        stored.lease_owner = stored.lease_until = None
        session.add(stored)
        session.commit()
