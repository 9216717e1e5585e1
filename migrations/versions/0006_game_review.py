"""game_review: the Expert's review of one seat of a finished game, and its job state
(issue 16)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_review",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("budget", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(length=200), nullable=True),
        sa.Column("requested_by", sa.String(length=32), nullable=True),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["game.id"], name=op.f("fk_game_review_game_id_game"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["player.id"],
            name=op.f("fk_game_review_requested_by_player"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_review")),
    )
    op.create_index(
        "ix_game_review_status_lease_until", "game_review", ["status", "lease_until"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_game_review_status_lease_until", table_name="game_review")
    op.drop_table("game_review")
