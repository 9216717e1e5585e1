"""Migrations: empty to head and back, on SQLite and PostgreSQL; models and migrations agree."""

from __future__ import annotations

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import app.db.models  # noqa: F401
from app.db import downgrade_to_base, upgrade_to_head

TABLES = {
    "player",
    "auth_session",
    "game",
    "game_seat",
    "hand",
    "hand_score",
    "rating",
    "rating_change",
}


def _tables(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_then_downgrade_then_upgrade(db_url: str) -> None:
    assert _tables(db_url) <= {"alembic_version"}
    upgrade_to_head(db_url)
    assert _tables(db_url) == TABLES | {"alembic_version"}
    downgrade_to_base(db_url)
    assert _tables(db_url) <= {"alembic_version"}
    upgrade_to_head(db_url)
    assert _tables(db_url) >= TABLES


def test_models_and_migrations_agree(db_url: str) -> None:
    upgrade_to_head(db_url)
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            diff = compare_metadata(context, SQLModel.metadata)
    finally:
        engine.dispose()
    assert diff == []
