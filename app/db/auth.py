"""Session tokens: a signed token names a server-side session row, so it can be revoked."""

from __future__ import annotations

import secrets
from datetime import timedelta

import sqlalchemy as sa
from itsdangerous import BadSignature, Signer
from sqlmodel import col, select

from app.db.database import Database
from app.db.models import AuthSession, Player, as_utc, utcnow
from app.db.players import PlayerInfo

SESSION_TTL = timedelta(days=90)
_SALT = "hearts.session"


def _signer(secret: str) -> Signer:
    return Signer(secret, salt=_SALT)


def _session_id(token: object, secret: str) -> str | None:
    if not isinstance(token, str) or not token or len(token) > 256:
        return None
    try:
        return _signer(secret).unsign(token).decode("ascii")
    except (BadSignature, UnicodeDecodeError, ValueError):
        return None


def issue_token(db: Database, player_id: str, secret: str, ttl: timedelta = SESSION_TTL) -> str:
    """Open a session for the player and return its signed token."""
    now = utcnow()
    row = AuthSession(
        id=secrets.token_urlsafe(24), player_id=player_id, created_at=now, expires_at=now + ttl
    )
    with db.session() as session:
        session.add(row)
        session.commit()
    return _signer(secret).sign(row.id).decode("ascii")


def verify_token(db: Database, token: str, secret: str) -> PlayerInfo | None:
    """The player of a valid, unrevoked, unexpired token; None otherwise."""
    session_id = _session_id(token, secret)
    if session_id is None:
        return None
    # A row with its player in one join (as app.notify.store.address_of reads an address):
    # alike in form, other tables.
    with db.session() as session:
        found = session.exec(
            select(AuthSession, Player)
            .join(Player, col(Player.id) == col(AuthSession.player_id))
            .where(AuthSession.id == session_id)
        ).first()
    if found is None:
        return None
    row, player = found
    if row.revoked_at is not None or as_utc(row.expires_at) <= utcnow():
        return None
    return PlayerInfo.of(player)


def revoke_token(db: Database, token: str, secret: str) -> bool:
    """End the session a token names (logout). True when a live session was revoked."""
    session_id = _session_id(token, secret)
    if session_id is None:
        return False
    with db.session() as session:
        result = session.execute(
            sa.update(AuthSession)
            .where(col(AuthSession.id) == session_id, col(AuthSession.revoked_at).is_(None))
            .values(revoked_at=utcnow())
        )
        session.commit()
        return bool(result.rowcount)  # type: ignore[attr-defined]


def revoke_all(db: Database, player_id: str, keep: tuple[str, str] | None = None) -> int:
    """End every session of a player but the one `keep` = (token, secret) names."""
    kept = _session_id(*keep) if keep else None
    query = sa.update(AuthSession).where(
        col(AuthSession.player_id) == player_id, col(AuthSession.revoked_at).is_(None)
    )
    if kept:
        query = query.where(col(AuthSession.id) != kept)
    with db.session() as session:
        result = session.execute(query.values(revoked_at=utcnow()))
        session.commit()
        return int(result.rowcount)  # type: ignore[attr-defined]
