"""The SQL connection: `make_database(url)` and `upgrade_to_head(url)`.

Nothing is built at import time: the app makes one `Database` per process from its settings.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

# The repository root holds `migrations/` beside `app/`.
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


class Database:
    """A SQLAlchemy engine plus a session factory."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=False)

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session; the caller commits. Rolled back if the block raises."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
            except BaseException:
                session.rollback()
                raise

    def lock_for_writing(self, session: Session) -> None:
        """Take the database's write lock now, for a session that reads what it will write.
        On SQLite this is BEGIN IMMEDIATE (waiting up to the busy timeout): without it the
        driver opens the transaction only at the first write, so the reads before it are not
        in the transaction and a concurrent writer's commit in between is lost. PostgreSQL
        locks the rows read with FOR UPDATE instead: nothing to do."""
        if self.is_sqlite:
            _begin_immediate(session.connection().connection.dbapi_connection)

    def dispose(self) -> None:
        self.engine.dispose()


def _begin_immediate(dbapi_connection: Any) -> None:
    if dbapi_connection is not None and not dbapi_connection.in_transaction:
        dbapi_connection.execute("BEGIN IMMEDIATE")


def _sqlite_for_update(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    """SELECT ... FOR UPDATE on SQLite, which has no row locks and drops the clause: take the
    write lock before the read (BEGIN IMMEDIATE, unless this connection's transaction already
    wrote and so holds it), so that what is read stays true until the commit, as the row locks
    make it on PostgreSQL. Without it two writers read the same row and one update is lost."""
    compiled = getattr(context, "compiled", None)
    if getattr(getattr(compiled, "statement", None), "_for_update_arg", None) is None:
        return
    _begin_immediate(conn.connection.dbapi_connection)


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # Foreign keys (ON DELETE CASCADE / SET NULL) are off by default in SQLite.
    cursor.execute("PRAGMA foreign_keys=ON")
    # Readers keep reading while the outbox worker writes; wait for the lock instead of failing.
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def make_engine(url: str, **kwargs: Any) -> Engine:
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = sa.create_engine(url, connect_args={"check_same_thread": False}, **kwargs)
        sa.event.listen(engine, "connect", _sqlite_on_connect)
        sa.event.listen(engine, "before_cursor_execute", _sqlite_for_update)
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        return engine
    connect_args: dict[str, object] = {}
    if parsed.get_backend_name() == "postgresql":
        # Fail fast while the database is down, so the outbox worker can back off and retry.
        connect_args["connect_timeout"] = 5
    return sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args, **kwargs)


def make_database(url: str) -> Database:
    return Database(make_engine(url))


def _alembic_config(url: str) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser interpolation: a literal % in a URL (escaped password) must be doubled.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade_to_head(url: str) -> None:
    """Apply every Alembic migration to the database at `url` (created if SQLite)."""
    from alembic import command

    make_engine(url).dispose()  # creates the SQLite file's folder
    command.upgrade(_alembic_config(url), "head")


def downgrade_to_base(url: str) -> None:
    from alembic import command

    command.downgrade(_alembic_config(url), "base")
