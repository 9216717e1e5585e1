"""rated play: a rating's deviation, rated tables, leavers; ratings replayed with the
Weng-Lin (openskill) model

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27

"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from app.db.ratings import SeatResult, replay

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_game = sa.table(
    "game",
    sa.column("id", sa.Integer),
    sa.column("variant", sa.String),
    sa.column("status", sa.String),
    sa.column("rated", sa.Boolean),
    sa.column("ended_at", sa.DateTime(timezone=True)),
)
_seat = sa.table(
    "game_seat",
    sa.column("game_id", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("player_id", sa.String),
    sa.column("bot_level", sa.String),
    sa.column("total", sa.Integer),
    sa.column("left_early", sa.Boolean),
)
_rating = sa.table(
    "rating",
    sa.column("player_id", sa.String),
    sa.column("variant", sa.String),
    sa.column("rating", sa.Float),
    sa.column("deviation", sa.Float),
    sa.column("games", sa.Integer),
    sa.column("updated_at", sa.DateTime(timezone=True)),
)
_change = sa.table(
    "rating_change",
    sa.column("player_id", sa.String),
    sa.column("variant", sa.String),
    sa.column("game_id", sa.Integer),
    sa.column("before", sa.Float),
    sa.column("after", sa.Float),
    sa.column("deviation", sa.Float),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    # Plain ADD COLUMN (a constant default): a batch recreation of "game" on SQLite would drop
    # the table, and with foreign keys on, its seats, hands and ratings with it.
    op.add_column(
        "game", sa.Column("rated_table", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.add_column(
        "game_seat",
        sa.Column("left_early", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column(
        "rating", sa.Column("deviation", sa.Float(), server_default="350", nullable=False)
    )
    op.add_column(
        "rating_change",
        sa.Column("deviation", sa.Float(), server_default="350", nullable=False),
    )
    rerate(op.get_bind())


def rerate(connection: sa.Connection) -> None:
    """Every rating again from the games that were rated, in the order they ended (then by
    id), with the application's own function: the same games give the same numbers."""
    games = connection.execute(
        sa.select(_game.c.id, _game.c.variant, _game.c.status, _game.c.ended_at)
        .where(_game.c.rated == sa.true())
        .order_by(_game.c.ended_at, _game.c.id)
    ).all()
    seats: dict[int, list[SeatResult]] = {}
    for row in connection.execute(
        sa.select(
            _seat.c.game_id,
            _seat.c.player_id,
            _seat.c.bot_level,
            _seat.c.total,
            _seat.c.left_early,
        )
        .where(_seat.c.game_id.in_(sa.select(_game.c.id).where(_game.c.rated == sa.true())))
        .order_by(_seat.c.game_id, _seat.c.seat)
    ):
        seats.setdefault(row.game_id, []).append(
            SeatResult(row.player_id, row.bot_level, row.total, bool(row.left_early))
        )
    connection.execute(_change.delete())
    connection.execute(_rating.delete())
    by_variant: dict[str, list[tuple[int, datetime | None, list[SeatResult], bool]]] = {}
    for game in games:
        entry = (game.id, game.ended_at, seats.get(game.id, []), game.status == "abandoned")
        by_variant.setdefault(game.variant, []).append(entry)
    now = datetime.now(UTC)
    for variant, entries in by_variant.items():
        skills, history = replay([(e[2], e[3]) for e in entries])
        counts: dict[str, int] = {}
        last: dict[str, datetime] = {}
        changes = []
        for (game_id, ended_at, _s, _a), updates in zip(entries, history, strict=True):
            for u in updates:
                counts[u.player_id] = counts.get(u.player_id, 0) + 1
                last[u.player_id] = ended_at or now
                changes.append(
                    {
                        "player_id": u.player_id,
                        "variant": variant,
                        "game_id": game_id,
                        "before": u.before.rating,
                        "after": u.after.rating,
                        "deviation": u.after.deviation,
                        "created_at": ended_at or now,
                    }
                )
        if changes:
            connection.execute(_change.insert(), changes)
        if skills:
            connection.execute(
                _rating.insert(),
                [
                    {
                        "player_id": pid,
                        "variant": variant,
                        "rating": skill.rating,
                        "deviation": skill.deviation,
                        "games": counts[pid],
                        "updated_at": last[pid],
                    }
                    for pid, skill in sorted(skills.items())
                ],
            )


def downgrade() -> None:
    # The Elo numbers are not recomputed: the ratings keep the Weng-Lin means. Plain DROP
    # COLUMN (SQLite 3.35+), for the reason given in upgrade.
    op.drop_column("rating_change", "deviation")
    op.drop_column("rating", "deviation")
    op.drop_column("game_seat", "left_early")
    op.drop_column("game", "rated_table")
