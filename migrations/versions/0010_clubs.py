"""clubs: a club (open or closed, its join link), members and roles, join requests and
invitations, bans, the club's chat and announcements

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "club",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=160), nullable=False),
        sa.Column("open", sa.Boolean(), nullable=False),
        sa.Column("link_token", sa.String(length=32), nullable=False),
        sa.Column("members", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["player.id"],
            name=op.f("fk_club_created_by_player"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club")),
        sa.UniqueConstraint("link_token", name=op.f("uq_club_link_token")),
        sa.UniqueConstraint("name_key", name=op.f("uq_club_name_key")),
    )
    op.create_table(
        "club_ban",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["club.id"], name=op.f("fk_club_ban_club_id_club"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_club_ban_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("club_id", "player_id", name=op.f("pk_club_ban")),
    )
    op.create_table(
        "club_member",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["club.id"], name=op.f("fk_club_member_club_id_club"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_club_member_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("club_id", "player_id", name=op.f("pk_club_member")),
    )
    op.create_index(op.f("ix_club_member_player_id"), "club_member", ["player_id"], unique=False)
    op.create_table(
        "club_pending",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["club.id"], name=op.f("fk_club_pending_club_id_club"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_club_pending_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("club_id", "player_id", name=op.f("pk_club_pending")),
    )
    op.create_index(op.f("ix_club_pending_player_id"), "club_pending", ["player_id"], unique=False)
    op.create_table(
        "club_post",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=24), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("announcement", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["club.id"], name=op.f("fk_club_post_club_id_club"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_club_post_player_id_player"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_post")),
    )
    op.create_index("ix_club_post_club_id_id", "club_post", ["club_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_club_post_club_id_id", table_name="club_post")
    op.drop_table("club_post")
    op.drop_index(op.f("ix_club_pending_player_id"), table_name="club_pending")
    op.drop_table("club_pending")
    op.drop_index(op.f("ix_club_member_player_id"), table_name="club_member")
    op.drop_table("club_member")
    op.drop_table("club_ban")
    op.drop_table("club")
