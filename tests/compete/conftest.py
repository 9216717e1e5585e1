"""The persistence fixtures (SQLite and PostgreSQL databases, cheap password hashing)."""

from tests.db.conftest import (  # noqa: F401 - fixtures
    _pg_schema_at_head,
    cheap_password_hashing,
    database,
    db_url,
    drop_results_stream,
    migrated_sqlite_file,
    pg_database,
    pg_migrated_url,
    pg_url,
    sqlite_url,
)
