"""name skeleton: each account's UTS #39 skeleton, so confusable names can be refused

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.text import name_skeleton

# A migration is frozen history: it spells out the schema as it was at its revision, so it
# repeats the Alembic header and column lists of other revisions; those repeats stay.
# revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_player = sa.table(
    "player",
    sa.column("id", sa.String),
    sa.column("name", sa.String),
    sa.column("is_guest", sa.Boolean),
    sa.column("name_skeleton", sa.Text),
)


def upgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_skeleton", sa.Text(), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_player_name_skeleton"), ["name_skeleton"], unique=False
        )
    # Existing accounts get the skeleton the application computes (the same function, so a
    # lookup finds them); guests keep None, as new guests do. Accounts that are already
    # confusable with each other stay: the check applies to new names only.
    connection = op.get_bind()
    accounts = connection.execute(
        sa.select(_player.c.id, _player.c.name).where(_player.c.is_guest == sa.false())
    ).all()
    if accounts:
        connection.execute(
            _player.update()
            .where(_player.c.id == sa.bindparam("player_id"))
            .values(name_skeleton=sa.bindparam("skeleton")),
            [{"player_id": pid, "skeleton": name_skeleton(name)} for pid, name in accounts],
        )


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_name_skeleton"))
        batch_op.drop_column("name_skeleton")
