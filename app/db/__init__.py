"""Persistence: players, sessions, finished games and ratings in SQL (see docs/persistence.md)."""

from app.db.database import Database, downgrade_to_base, make_database, upgrade_to_head

__all__ = ["Database", "downgrade_to_base", "make_database", "upgrade_to_head"]
