"""friends: friendships, friend requests, blocks, and each player's friend link and presence
setting (issue 14)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _pair(table: str, first: str, second: str) -> None:
    """A table of (player, player) pairs with a creation time; both ends go with the player."""
    op.create_table(
        table,
        sa.Column(first, sa.String(length=32), nullable=False),
        sa.Column(second, sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            [first], ["player.id"], name=op.f(f"fk_{table}_{first}_player"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            [second], ["player.id"], name=op.f(f"fk_{table}_{second}_player"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint(first, second, name=op.f(f"pk_{table}")),
    )
    op.create_index(op.f(f"ix_{table}_{second}"), table, [second], unique=False)


def upgrade() -> None:
    _pair("friendship", "player_id", "friend_id")
    _pair("friend_request", "from_id", "to_id")
    _pair("player_block", "player_id", "blocked_id")
    op.create_table(
        "friend_settings",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("link_token", sa.String(length=32), nullable=True),
        sa.Column("appear_offline", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_friend_settings_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_friend_settings")),
        sa.UniqueConstraint("link_token", name=op.f("uq_friend_settings_link_token")),
    )


def downgrade() -> None:
    op.drop_table("friend_settings")
    for table, second in (
        ("player_block", "blocked_id"),
        ("friend_request", "to_id"),
        ("friendship", "friend_id"),
    ):
        op.drop_index(op.f(f"ix_{table}_{second}"), table_name=table)
        op.drop_table(table)
