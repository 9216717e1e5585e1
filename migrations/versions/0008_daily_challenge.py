"""daily challenge: the deals' secret, players' attempts and results per deal, score counts
per deal version, the day's refresh state, the Expert's par per deal, month totals, streaks

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "compete_secret",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_compete_secret")),
    )
    op.create_table(
        "daily_board",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("results", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("ranked_results", sa.Integer(), nullable=False),
        sa.Column("ranked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("day", "preset", name=op.f("pk_daily_board")),
    )
    op.create_table(
        "daily_par",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("deal_no", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("points", sa.Integer(), nullable=True),
        sa.Column("moves", sa.JSON(), nullable=True),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("day", "preset", "deal_no", "version", name=op.f("pk_daily_par")),
    )
    op.create_table(
        "daily_score_count",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("deal_no", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "day", "preset", "deal_no", "version", "points", name=op.f("pk_daily_score_count")
        ),
    )
    op.create_table(
        "daily_attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=24), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deals_done", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("percent", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_daily_attempt_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_daily_attempt")),
        sa.UniqueConstraint(
            "day", "preset", "player_id", name=op.f("uq_daily_attempt_day_preset_player_id")
        ),
    )
    op.create_index(
        "ix_daily_attempt_day_preset_percent_id",
        "daily_attempt",
        ["day", "preset", "percent", "id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_daily_attempt_player_id"), "daily_attempt", ["player_id"], unique=False
    )
    op.create_index(op.f("ix_daily_attempt_table_id"), "daily_attempt", ["table_id"], unique=False)
    op.create_table(
        "daily_month",
        sa.Column("month", sa.String(length=7), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=24), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("total", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_daily_month_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("month", "preset", "player_id", name=op.f("pk_daily_month")),
    )
    op.create_index(
        "ix_daily_month_month_preset_total_player_id",
        "daily_month",
        ["month", "preset", "total", "player_id"],
        unique=False,
    )
    op.create_table(
        "daily_streak",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("current", sa.Integer(), nullable=False),
        sa.Column("best", sa.Integer(), nullable=False),
        sa.Column("last_day", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_daily_streak_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_daily_streak")),
    )
    op.create_table(
        "daily_result",
        sa.Column("attempt_id", sa.Integer(), nullable=False),
        sa.Column("deal_no", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["attempt_id"],
            ["daily_attempt.id"],
            name=op.f("fk_daily_result_attempt_id_daily_attempt"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("attempt_id", "deal_no", name=op.f("pk_daily_result")),
    )
    op.create_index(
        "ix_daily_result_day_preset_deal_no_version_points",
        "daily_result",
        ["day", "preset", "deal_no", "version", "points"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_daily_result_day_preset_deal_no_version_points", table_name="daily_result")
    op.drop_table("daily_result")
    op.drop_table("daily_streak")
    op.drop_index("ix_daily_month_month_preset_total_player_id", table_name="daily_month")
    op.drop_table("daily_month")
    op.drop_index(op.f("ix_daily_attempt_table_id"), table_name="daily_attempt")
    op.drop_index(op.f("ix_daily_attempt_player_id"), table_name="daily_attempt")
    op.drop_index("ix_daily_attempt_day_preset_percent_id", table_name="daily_attempt")
    op.drop_table("daily_attempt")
    op.drop_table("daily_score_count")
    op.drop_table("daily_par")
    op.drop_table("daily_board")
    op.drop_table("compete_secret")
