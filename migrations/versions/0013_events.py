"""events: an event (Swiss by standings or duplicate, a club's or open to all), its entries
and standings, and the seats of each round's tables with their final scores

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("format", sa.String(length=12), nullable=False),
        sa.Column("preset", sa.String(length=40), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("points_by_place", sa.String(length=64), nullable=False),
        sa.Column("grace_seconds", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["club.id"], name=op.f("fk_event_club_id_club"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["player.id"],
            name=op.f("fk_event_created_by_player"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event")),
    )
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_club_id"), ["club_id"], unique=False)
        batch_op.create_index("ix_event_state_starts_at", ["state", "starts_at"], unique=False)

    op.create_table(
        "event_entry",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("table_points", sa.Float(), nullable=False),
        sa.Column("game_points", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("tie", sa.BigInteger(), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.Column("last_seen_round", sa.Integer(), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["event.id"],
            name=op.f("fk_event_entry_event_id_event"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_event_entry_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("event_id", "player_id", name=op.f("pk_event_entry")),
    )
    with op.batch_alter_table("event_entry", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_entry_player_id"), ["player_id"], unique=False)
        batch_op.create_index(
            "ix_event_entry_standing",
            ["event_id", "withdrawn", "table_points", "game_points", "tie"],
            unique=False,
        )

    op.create_table(
        "event_seat",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["event.id"],
            name=op.f("fk_event_seat_event_id_event"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "event_id", "round", "table_no", "seat", name=op.f("pk_event_seat")
        ),
    )
    with op.batch_alter_table("event_seat", schema=None) as batch_op:
        batch_op.create_index(
            "ix_event_seat_player", ["event_id", "player_id", "round"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("event_seat", schema=None) as batch_op:
        batch_op.drop_index("ix_event_seat_player")

    op.drop_table("event_seat")
    with op.batch_alter_table("event_entry", schema=None) as batch_op:
        batch_op.drop_index("ix_event_entry_standing")
        batch_op.drop_index(batch_op.f("ix_event_entry_player_id"))

    op.drop_table("event_entry")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_index("ix_event_state_starts_at")
        batch_op.drop_index(batch_op.f("ix_event_club_id"))

    op.drop_table("event")
