"""What the daily challenge's and the events' reads cost at 100 and at 100,000 players, and
what seating a Swiss round of 10,000 costs.

    python -m bench.compete [--players 100 100000] [--database sqlite|postgresql://...]
                            [--refresh-players 1000 10000] [--swiss 10000] [--seat 10000]

For each number of players, one day's finished attempts (8 deals, 4 versions, random points)
are written straight into a fresh database, then it times (median of several runs, wall and
process CPU) what a player's page asks for: the day's leaderboard, first page and a page from
the middle (keyset: ``WHERE (percent, id) < cursor`` along the index), the month's first page,
and one player's summary (their deals' matchpoints from the score counts). The background
recompute of the day's percentages (every result read once) is timed at its own, smaller sizes.

The same databases hold an event of as many players (app.compete.events_store: its entries
after three rounds, as the scheduler leaves them), and it times a page of its standings, the
first and one from the middle (keyset along the standings index).

``--swiss N`` also times seating a Swiss round of N players by standings
(app.compete.swiss.seat_round, tables of 4) and adding a round's results to the standings;
``--seat N`` times the scheduler's own step on the database (events_store.start_round: the
compare-and-set, the entries read, the seating, its N seats written), once per size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

from app.compete import event_standings, events_store, store
from app.compete.scoring import total
from app.compete.swiss import Standing, after_round, seat_round, tie_break
from app.db import Database, make_database, upgrade_to_head
from app.db.compete_models import (
    DailyAttempt,
    DailyBoard,
    DailyMonth,
    DailyResult,
    DailyScoreCount,
    Event,
    EventEntry,
)
from app.db.models import Player, utcnow

DAY = date(2026, 11, 27)
DEALS = 8
VERSIONS = 4
RUNS = 15


def _database(kind: str, folder: Path) -> tuple[Database, Callable[[], None]]:
    if kind == "sqlite":
        url = f"sqlite:///{folder / f'bench-{uuid.uuid4().hex[:8]}.sqlite3'}"
        upgrade_to_head(url)
        db = make_database(url)
        return db, db.dispose
    schema = "bench_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(kind)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    parsed = sa.make_url(kind).update_query_dict({"options": f"-csearch_path={schema}"})
    text = parsed.render_as_string(hide_password=False)
    upgrade_to_head(text)
    db = make_database(text)

    def drop() -> None:
        db.dispose()
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()

    return db, drop


def fill(db: Database, players: int, seed: int = 1) -> None:
    """``players`` finished attempts with their results, score counts, board and month rows,
    as the daily service leaves them (bulk inserts: the service's own path is not timed)."""
    rng = random.Random(seed)
    now = utcnow()
    counts: dict[tuple[int, int, int], int] = {}
    results: list[tuple[int, int, int, int]] = []  # attempt, deal, version, points
    attempts: list[dict[str, Any]] = []
    for i in range(players):
        version = i % VERSIONS
        points = [rng.choice((0, 0, 1, 2, 3, 4, 5, 6, 13, 14, 26)) for _ in range(DEALS)]
        attempts.append(
            {
                "id": i + 1,
                "day": DAY,
                "preset": "classic",
                "player_id": f"p{i:08d}",
                "name": f"Player {i}",
                "version": version,
                "table_id": f"t{i}",
                "started_at": now,
                "finished_at": now,
                "deals_done": DEALS,
                "points": sum(points),
                "percent": None,
            }
        )
        for deal, p in enumerate(points):
            results.append((i + 1, deal, version, p))
            counts[(deal, version, p)] = counts.get((deal, version, p), 0) + 1
    by_attempt: dict[int, list[tuple[dict[int, int], int]]] = {}
    grouped: dict[tuple[int, int], dict[int, int]] = {}
    for (deal, version, p), n in counts.items():
        grouped.setdefault((deal, version), {})[p] = n
    for attempt_id, deal, version, p in results:
        by_attempt.setdefault(attempt_id, []).append((grouped[(deal, version)], p))
    for a in attempts:
        a["percent"] = round(total(by_attempt[int(a["id"])]).percent, 6)
    with db.session() as session:
        conn = session.connection()
        conn.execute(
            sa.insert(Player),
            [
                {"id": a["player_id"], "name": a["name"], "is_guest": True, "created_at": now}
                for a in attempts
            ],
        )
        conn.execute(sa.insert(DailyAttempt), attempts)
        conn.execute(
            sa.insert(DailyResult),
            [
                {
                    "attempt_id": a,
                    "deal_no": d,
                    "day": DAY,
                    "preset": "classic",
                    "version": v,
                    "points": p,
                    "moves": [],
                    "recorded_at": now,
                }
                for a, d, v, p in results
            ],
        )
        conn.execute(
            sa.insert(DailyScoreCount),
            [
                {
                    "day": DAY,
                    "preset": "classic",
                    "deal_no": d,
                    "version": v,
                    "points": p,
                    "count": n,
                }
                for (d, v, p), n in counts.items()
            ],
        )
        conn.execute(
            sa.insert(DailyBoard),
            [
                {
                    "day": DAY,
                    "preset": "classic",
                    "results": len(results),
                    "players": players,
                    "ranked_results": len(results),
                }
            ],
        )
        conn.execute(
            sa.insert(DailyMonth),
            [
                {
                    "month": "2026-11",
                    "preset": "classic",
                    "player_id": a["player_id"],
                    "name": a["name"],
                    "days": 1,
                    "total": a["percent"],
                }
                for a in attempts
            ],
        )
        session.commit()


def fill_event(db: Database, players: int, seed: int = 2) -> int:
    """An event of the ``players`` written by ``fill`` after three rounds of 6/4/2/0 (random
    places and points), running, its round 3 over: its id."""
    rng = random.Random(seed)
    now = utcnow()
    with db.session() as session:
        event = Event(
            name="Bench",
            format="swiss",
            preset="classic",
            rounds=4,
            table_size=4,
            points_by_place="6,4,2,0",
            grace_seconds=60,
            seed="bench",
            state="running",
            current_round=3,
            entries=players,
            starts_at=now,
        )
        session.add(event)
        session.commit()
        session.refresh(event)
        assert event.id is not None
        event_id = event.id
        rows = []
        for i in range(players):
            pid = f"p{i:08d}"
            rows.append(
                {
                    "event_id": event_id,
                    "player_id": pid,
                    "table_points": float(sum(rng.choice((6, 4, 2, 0)) for _ in range(3))),
                    "game_points": rng.randrange(79),
                    "rounds": 3,
                    "tie": tie_break("bench", pid) >> 1,
                    "withdrawn": False,
                    "last_seen_round": 3,
                    "registered_at": now,
                }
            )
        session.connection().execute(sa.insert(EventEntry), rows)
        session.commit()
    if not db.is_sqlite:  # the planner's statistics, as autovacuum would gather them
        with db.engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").execute(sa.text("ANALYZE"))
    return event_id


def standings_cursor(db: Database, event_id: int, place: int) -> str:
    """The cursor of the page after ``place`` players, as event_standings.standings gives it."""
    with db.session() as session:
        e = session.exec(
            sa.select(EventEntry)  # type: ignore[call-overload]
            .where(col(EventEntry.event_id) == event_id)
            .order_by(
                col(EventEntry.table_points).desc(),
                col(EventEntry.game_points),
                col(EventEntry.tie),
                col(EventEntry.player_id),
            )
            .offset(place - 1)
            .limit(1)
        ).one()[0]
    return f"{place}_{e.table_points!r}_{e.game_points}_{e.tie}_{e.player_id}"


def measure(step: Callable[[], Any], runs: int = RUNS) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        step()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def reads(db: Database, players: int) -> dict[str, tuple[float, float]]:
    first, _ = store.day_page(db, DAY, "classic", None, 20)
    middle_after = None
    # a cursor from the middle of the field: the (percent, id) of the attempt ranked n/2
    with db.session() as session:
        row = session.execute(
            sa.select(col(DailyAttempt.percent), col(DailyAttempt.id))
            .where(col(DailyAttempt.day) == DAY)
            .order_by(col(DailyAttempt.percent).desc(), col(DailyAttempt.id).desc())
            .offset(players // 2)
            .limit(1)
        ).first()
        if row is not None:
            middle_after = (float(row[0]), int(row[1]))
    some = players // 3 + 1
    event_id = fill_event(db, players)
    middle = standings_cursor(db, event_id, players // 2)
    return {
        "day, first page": measure(lambda: store.day_page(db, DAY, "classic", None, 20)),
        "day, middle page": measure(lambda: store.day_page(db, DAY, "classic", middle_after, 20)),
        "month, first page": measure(lambda: store.month_page(db, "2026-11", "classic", None, 20)),
        "one player's summary": measure(lambda: store.attempt_summary(db, some)),
        "event standings, first": measure(
            lambda: event_standings.standings(db, event_id, None, None, 50)
        ),
        "event standings, middle": measure(
            lambda: event_standings.standings(db, event_id, None, middle, 50)
        ),
    } | ({} if first else {"(empty)": (0.0, 0.0)})


def swiss(players: int) -> None:
    """Seat a Swiss round of ``players`` by standings, and add a round's results."""
    rng = random.Random(players)
    field = {
        f"p{i}": Standing(f"p{i}", rng.choice((0, 2, 4, 6)) * 3.0, rng.randrange(300), 3)
        for i in range(players)
    }
    seat_ms = measure(lambda: seat_round(field.values(), 4, "bench"), runs=7)
    tables = seat_round(field.values(), 4, "bench")
    scores = [[rng.randrange(100) for _ in range(4)] for _ in tables]
    add_ms = measure(lambda: after_round(field, tables, scores, (6, 4, 2, 0)), runs=7)
    print(
        f"Swiss round of {players:,} players ({len(tables):,} tables of 4): seating "
        f"{seat_ms[0]:.0f} ms wall / {seat_ms[1]:.0f} ms CPU; adding its results "
        f"{add_ms[0]:.0f} ms wall / {add_ms[1]:.0f} ms CPU"
    )


def seat(db: Database, players: int) -> None:
    """The scheduler seating round 4 of an event of ``players`` on the database, once."""
    event_id = fill_event(db, players)
    wall, cpu = time.perf_counter(), time.process_time()
    tables = events_store.start_round(db, event_id, 4)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert tables is not None and sum(len(t) for t in tables) >= players
    print(
        f"events_store.start_round, {players:,} players ({len(tables):,} tables): "
        f"{wall * 1000:.0f} ms wall / {cpu * 1000:.0f} ms CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[100, 100_000])
    parser.add_argument("--refresh-players", type=int, nargs="*", default=[1000, 10_000])
    parser.add_argument("--database", default="sqlite", help="sqlite, or a PostgreSQL URL")
    parser.add_argument("--swiss", type=int, nargs="*", default=[10_000])
    parser.add_argument("--seat", type=int, nargs="*", default=[10_000])
    args = parser.parse_args()
    for players in args.swiss:
        swiss(players)
    # SQLite files in memory when the machine has a tmpfs: the figures are the database's
    # work, not this machine's disk.
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        print(f"database: {args.database.split('@')[-1]}; medians of {RUNS} runs, ms (wall / CPU)")
        table: dict[int, dict[str, tuple[float, float]]] = {}
        for players in args.players:
            db, drop = _database(args.database, Path(folder))
            try:
                started = time.perf_counter()
                fill(db, players)
                print(f"{players:>7} players written in {time.perf_counter() - started:.1f} s")
                table[players] = reads(db, players)
            finally:
                drop()
        for players in args.seat:
            db, drop = _database(args.database, Path(folder))
            try:
                fill(db, players)
                seat(db, players)
            finally:
                drop()
        names = list(next(iter(table.values()))) if table else []
        if names:
            print(f"{'read':<24}" + "".join(f"{p:>22,}" for p in table))
        for name in names:
            cells = "".join(
                f"{table[p][name][0]:>13.2f} / {table[p][name][1]:<6.2f}" for p in table
            )
            print(f"{name:<24}{cells}")
        for players in args.refresh_players:
            db, drop = _database(args.database, Path(folder))
            try:
                fill(db, players)
                with db.session() as session:  # a new result arrived: a refresh is due
                    session.execute(sa.update(DailyBoard).values(results=DailyBoard.results + 1))
                    session.commit()
                wall, cpu = time.perf_counter(), time.process_time()
                ran = store.refresh(db, DAY, "classic", 600)
                print(
                    f"recompute of the day's percentages, {players:,} players: "
                    f"{(time.perf_counter() - wall) * 1000:.0f} ms wall, "
                    f"{(time.process_time() - cpu) * 1000:.0f} ms CPU (ran: {ran})"
                )
            finally:
                drop()


if __name__ == "__main__":
    main()
