"""arena events: the time window's end, and each entry's pause and time free to sit down

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("event") as batch:
        batch.add_column(sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("event_entry") as batch:
        batch.add_column(
            sa.Column("paused", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("free_since", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("event_entry") as batch:
        batch.drop_column("free_since")
        batch.drop_column("paused")
    with op.batch_alter_table("event") as batch:
        batch.drop_column("ends_at")
