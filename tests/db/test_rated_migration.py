"""Migration 0007 replays the games rated before it with the Weng-Lin model: the stored
ratings and history equal `ratings.replay` of those games in the order they ended, whatever
order they were inserted in; and the results writer then continues from those numbers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import command
from sqlmodel import col, select

from app.db import make_database
from app.db.database import _alembic_config, make_engine
from app.db.models import Rating, RatingChange
from app.db.ratings import SeatResult, replay
from app.db.results import write_event
from tests.db.helpers import game_event, seats_of

PLAYERS = ["p" + str(i) * 31 for i in range(5)]
# (minutes after the start it ended, seats: player or computer level, totals, status, rated)
GAMES = [
    (30, [PLAYERS[0], PLAYERS[1], "easy", PLAYERS[2]], [40, 101, 70, 55], "finished", True),
    (10, [PLAYERS[1], PLAYERS[3], PLAYERS[4], "pro"], [12, 80, 104, 60], "finished", True),
    (20, [PLAYERS[0], PLAYERS[3]], [0, 100], "finished", True),
    (40, [PLAYERS[2], PLAYERS[4], "standard", "expert"], [30, 30, 100, 20], "finished", True),
    (50, [PLAYERS[0], PLAYERS[1]], [5, 40], "abandoned", False),  # not rated before
]


def _insert_old_games(connection: sa.Connection) -> None:
    """The rows a pre-0007 database holds (inserted out of end order)."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for pid in PLAYERS:
        connection.execute(
            sa.text("INSERT INTO player (id, name, is_guest, created_at) VALUES (:id, :n, :g, :t)"),
            {"id": pid, "n": "N" + pid[:5], "g": True, "t": start},
        )
    # ids from 101: PostgreSQL's sequence is not moved by explicit ids (the writer's new game)
    for game_id, (minutes, seats, totals, status, rated) in enumerate(GAMES, start=101):
        connection.execute(
            sa.text(
                "INSERT INTO game (id, table_id, game_no, variant, players, status, options,"
                " hands_played, ended_at, rated, private) VALUES (:id, :t, 1, 'classic', :n,"
                " :s, '{}', 5, :e, :r, :p)"
            ),
            {
                "id": game_id,
                "t": f"old{game_id}",
                "n": len(seats),
                "s": status,
                "e": start + timedelta(minutes=minutes),
                "r": rated,
                "p": False,
            },
        )
        for seat, (who, total) in enumerate(zip(seats, totals, strict=True)):
            person = who in PLAYERS
            connection.execute(
                sa.text(
                    "INSERT INTO game_seat (game_id, seat, player_id, bot_level,"
                    " replaced_by_bot, total) VALUES (:g, :s, :p, :b, :r, :t)"
                ),
                {
                    "g": game_id,
                    "s": seat,
                    "p": who if person else None,
                    "b": None if person else who,
                    "r": False,
                    "t": total,
                },
            )
        if rated:  # an old Elo row, which the migration replaces
            for who in seats:
                if who in PLAYERS:
                    connection.execute(
                        sa.text(
                            "INSERT INTO rating_change (player_id, variant, game_id, before,"
                            " after, created_at) VALUES (:p, 'classic', :g, 1500, 1510, :t)"
                        ),
                        {"p": who, "g": game_id, "t": start},
                    )


def test_0007_replays_the_rated_games_in_end_order(db_url: str) -> None:
    config = _alembic_config(db_url)
    make_engine(db_url).dispose()
    command.upgrade(config, "0006")
    engine = sa.create_engine(db_url)
    try:
        with engine.begin() as connection:
            _insert_old_games(connection)
    finally:
        engine.dispose()
    command.upgrade(config, "0007")
    order = sorted(
        (g for g in enumerate(GAMES, start=101) if g[1][4]), key=lambda g: (g[1][0], g[0])
    )
    expected, history = replay(
        [
            (
                [
                    SeatResult(w if w in PLAYERS else None, None if w in PLAYERS else w, t)
                    for w, t in zip(seats, totals, strict=True)
                ],
                False,
            )
            for _id, (_m, seats, totals, _s, _r) in order
        ]
    )
    database = make_database(db_url)
    try:
        with database.session() as session:
            rows = {r.player_id: r for r in session.exec(select(Rating)).all()}
            changes = list(session.exec(select(RatingChange).order_by(col(RatingChange.id))).all())
        assert {pid: (r.rating, r.deviation) for pid, r in rows.items()} == {
            pid: (s.rating, s.deviation) for pid, s in expected.items()
        }
        assert rows[PLAYERS[0]].games == 2
        assert [(c.game_id, c.player_id, c.after) for c in changes] == [
            (game_id, u.player_id, u.after.rating)
            for (game_id, _g), updates in zip(order, history, strict=True)
            for u in updates
        ]
        # The writer goes on from the replayed numbers (a rated table's game).
        before = rows[PLAYERS[0]].rating
        event = game_event(seats_of(PLAYERS[0], PLAYERS[3]), [10, 100], table_id="new")
        write_event(database, event)
        with database.session() as session:
            after = session.get(Rating, (PLAYERS[0], "classic"))
            assert after is not None and after.rating > before and after.games == 3
    finally:
        database.dispose()
