"""The persistence tests' PostgreSQL fixture (a fresh schema per test), for the review jobs."""

from tests.db.conftest import pg_url

__all__ = ["pg_url"]
