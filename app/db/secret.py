"""Secrets a deployment makes once and keeps in its database: one row (id 1) of a table with
a ``secret`` column, made at random by the first caller; when several make it at once, the
first commit stands and the others read it.

- ``server_secret``: the key that signs session tokens and e-mail links when none is
  configured (``HEARTS_SECRET_KEY`` empty: the embedded single-process default), so that a
  restart keeps every session, guest and link valid. A configured key always wins (several
  instances must share one, and the settings refuse a shared Redis without it).
- ``compete_secret`` (app.compete.store): the secret the daily deals are derived from.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy.exc import IntegrityError

from app.db.database import Database
from app.db.models import ServerSecret


def kept_secret(db: Database, model: Any) -> str:
    """The secret of ``model``'s one row, made at random by the first caller."""
    with db.session() as session:
        row = session.get(model, 1)
        if row is not None:
            return str(row.secret)
        session.add(model(id=1, secret=secrets.token_urlsafe(48)))
        try:
            session.commit()
        except IntegrityError:
            session.rollback()  # another process made it first: theirs stands
    with db.session() as session:
        row = session.get(model, 1)
        assert row is not None
        return str(row.secret)


def stored_secret(db: Database) -> str:
    """The server's signing key kept in the database (see the module's docstring)."""
    return kept_secret(db, ServerSecret)
