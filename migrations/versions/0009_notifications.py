"""notifications: per-kind settings, Web Push subscriptions, the VAPID key, e-mail addresses

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _player_fk(table: str, column: str = "player_id") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["player.id"], name=op.f(f"fk_{table}_{column}_player"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "notify_setting",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("push", sa.Boolean(), nullable=False),
        sa.Column("email", sa.Boolean(), nullable=False),
        _player_fk("notify_setting"),
        sa.PrimaryKeyConstraint("player_id", "kind", name=op.f("pk_notify_setting")),
    )
    op.create_table(
        "push_subscription",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("endpoint", sa.String(length=2048), nullable=False),
        sa.Column("p256dh", sa.String(length=128), nullable=False),
        sa.Column("auth", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_sent_at", sa.DateTime(timezone=True), nullable=True),
        _player_fk("push_subscription"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_subscription")),
        sa.UniqueConstraint("endpoint", name=op.f("uq_push_subscription_endpoint")),
    )
    op.create_index(
        op.f("ix_push_subscription_player_id"), "push_subscription", ["player_id"], unique=False
    )
    op.create_table(
        "vapid_key",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("public_key", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vapid_key")),
    )
    op.create_table(
        "player_email",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("address_key", sa.String(length=254), nullable=False),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        _player_fk("player_email"),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_player_email")),
    )
    op.create_index(
        op.f("ix_player_email_address_key"), "player_email", ["address_key"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_player_email_address_key"), table_name="player_email")
    op.drop_table("player_email")
    op.drop_table("vapid_key")
    op.drop_index(op.f("ix_push_subscription_player_id"), table_name="push_subscription")
    op.drop_table("push_subscription")
    op.drop_table("notify_setting")
