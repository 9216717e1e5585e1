"""player language: the language a player reads the site in, for what reaches them away from
the page (e-mails, pushes)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("language")
