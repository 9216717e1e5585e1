"""The "download my data" file's rows beyond games and ratings: every row of every table that
names the player (a column that is a foreign key to ``player.id``, or is called ``player_id``),
found from the schema itself, so a table added later is in the export without anyone
remembering to add it. Secrets stay out even of one's own file (a leaked export must not sign
anyone in or reach their devices): the columns in ``SECRET`` are left out, and a test fails on
a new column that looks like one (tests/db/test_export.py).

``app.db.stats.export_player`` writes games, ratings and reviews its own way (the tables in
``SHAPED``); this module adds the rest under ``"records"``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, SQLModel

import app.db.compete_models  # noqa: F401  (its tables too: every table names its rows)
from app.db.models import as_utc  # and with it every table in SQLModel.metadata

# Tables export_player writes in a shape of its own (games with their hands, ratings, reviews).
SHAPED = frozenset({"game_seat", "hand_score", "rating", "rating_change", "game_review"})
# Tables whose rows are the player's through some of their player columns only: a block is
# the blocker's to know (the blocked player's file does not say who blocked them).
ONLY = {"player_block": ["player_id"]}
# Columns never exported: sign-in, device keys, invitation links.
SECRET = frozenset(
    {
        ("auth_session", "id"),
        ("friend_settings", "link_token"),
        ("club", "link_token"),
        ("push_subscription", "p256dh"),
        ("push_subscription", "auth"),
    }
)


def player_columns(table: sa.Table) -> list[str]:
    """The columns of ``table`` that hold a player's id."""
    return [
        str(c.name)
        for c in table.columns
        if c.name == "player_id"
        or any(fk.column.table.name == "player" and fk.column.name == "id" for fk in c.foreign_keys)
    ]


def personal_tables() -> dict[str, list[str]]:
    """Every table (but ``player`` itself and the shaped ones) -> its player columns."""
    out: dict[str, list[str]] = {}
    for table in SQLModel.metadata.sorted_tables:
        if table.name == "player" or table.name in SHAPED:
            continue
        columns = ONLY.get(table.name) or player_columns(table)
        if columns:
            out[str(table.name)] = columns
    return out


def _value(value: Any) -> Any:
    if isinstance(value, datetime):
        return as_utc(value).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return None
    return value


def personal_records(session: Session, player_id: str) -> dict[str, list[dict[str, Any]]]:
    """Each personal table's rows that name ``player_id``, secrets left out (JSON-ready)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, columns in personal_tables().items():
        table = SQLModel.metadata.tables[name]
        keep = [c for c in table.columns if (name, c.name) not in SECRET]
        query = sa.select(*keep).where(sa.or_(*(table.c[c] == player_id for c in columns)))
        order = [c for c in table.primary_key.columns if (name, c.name) not in SECRET]
        if order:
            query = query.order_by(*order)
        rows = session.execute(query).mappings().all()
        out[name] = [{str(k): _value(v) for k, v in row.items()} for row in rows]
    return out
