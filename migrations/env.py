"""Alembic environment: the target is SQLModel.metadata from app.db.models and
app.db.compete_models."""

from __future__ import annotations

import os
from logging.config import fileConfig

import sqlalchemy as sa
from alembic import context
from sqlmodel import SQLModel

import app.db.compete_models  # noqa: F401  (registers the tables on SQLModel.metadata)
import app.db.models  # noqa: F401
from app.db.database import make_engine

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = SQLModel.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("HEARTS_DATABASE_URL")
    if not url:
        raise SystemExit("set HEARTS_DATABASE_URL (e.g. sqlite:///data/hearts.sqlite3)")
    return url


def run_migrations_offline() -> None:
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # type: ignore[attr-defined]
        compare_type=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":  # type: ignore[attr-defined]
            # Several replicas may migrate at start: one at a time, the others then find the
            # schema at head. The lock ends with the migration's transaction.
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(7256384910)"))  # type: ignore[attr-defined]
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
