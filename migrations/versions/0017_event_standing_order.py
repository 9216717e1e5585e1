"""event standings: the standings index in the standings' own order (table points descending,
then game points, tie-break and player ascending), so that a page is a range scan of it

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("event_entry") as batch:
        batch.drop_index("ix_event_entry_standing")
        batch.create_index(
            "ix_event_entry_standing",
            [
                "event_id",
                "withdrawn",
                sa.text("table_points DESC"),
                "game_points",
                "tie",
                "player_id",
            ],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("event_entry") as batch:
        batch.drop_index("ix_event_entry_standing")
        batch.create_index(
            "ix_event_entry_standing",
            ["event_id", "withdrawn", "table_points", "game_points", "tie"],
            unique=False,
        )
