"""deployment: the database's identity, recorded in Redis at start

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

"""

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    deployment = op.create_table(
        "deployment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("database_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deployment")),
    )
    # One row, made once per database: 128 random bits (app.db.deployment).
    op.bulk_insert(
        deployment,
        [{"id": 1, "database_id": secrets.token_hex(16), "created_at": datetime.now(UTC)}],
    )


def downgrade() -> None:
    op.drop_table("deployment")
