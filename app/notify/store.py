"""What the notifier keeps in SQL: each player's choices per kind and channel, their devices'
push subscriptions and their e-mail address. Plain functions on a Database, run off the event
loop by their callers (run_in_threadpool, the notifier's threads)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.db import Database
from app.db import players as players_db
from app.db.models import (
    NotifySetting,
    Player,
    PlayerEmail,
    PushSubscription,
    VapidKey,
    utcnow,
)
from app.notify.service import KINDS
from app.notify.tokens import password_fingerprint
from app.notify.vapid import load_private_key, private_pem, public_key_b64

CHANNELS = ("push", "email")
# A kind without a row: every push on; e-mail only for what needs a move from the player.
DEFAULTS: dict[str, dict[str, bool]] = {
    "your_turn": {"push": True, "email": True},
    "time_almost_up": {"push": True, "email": True},
    "game_over": {"push": True, "email": False},
    "invitation": {"push": True, "email": False},
    "friend_request": {"push": True, "email": False},
    "event_scheduled": {"push": True, "email": False},
    "event_soon": {"push": True, "email": True},
    "event_started": {"push": True, "email": False},
}
assert tuple(DEFAULTS) == KINDS


def choices(database: Database, player_id: str) -> dict[str, dict[str, bool]]:
    """The player's choice for every kind and channel (defaults filled in)."""
    out = {kind: dict(channels) for kind, channels in DEFAULTS.items()}
    with database.session() as session:
        rows = session.exec(select(NotifySetting).where(NotifySetting.player_id == player_id)).all()
    for row in rows:
        if row.kind in out:
            out[row.kind] = {"push": row.push, "email": row.email}
    return out


def wants(database: Database, player_id: str, kind: str, channel: str) -> bool:
    return choices(database, player_id)[kind][channel]


def set_choices(
    database: Database, player_id: str, changes: dict[str, dict[str, bool]]
) -> dict[str, dict[str, bool]]:
    """Apply ``{kind: {channel: on}}`` (checked by the caller) and return every choice."""
    current = choices(database, player_id)
    with database.session() as session:
        for kind, channels in changes.items():
            merged = {**current[kind], **channels}
            row = session.get(NotifySetting, (player_id, kind))
            if row is None:
                session.add(NotifySetting(player_id=player_id, kind=kind, **merged))
            else:
                row.push, row.email = merged["push"], merged["email"]
                session.add(row)
            current[kind] = merged
        session.commit()
    return current


# --- push subscriptions ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Subscription:
    id: int
    player_id: str
    endpoint: str
    p256dh: str
    auth: str
    language: str | None = None  # the player's (app.db.players.language_of): the push's words

    def info(self) -> dict[str, object]:
        """The shape pywebpush takes (the browser's PushSubscription.toJSON())."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _of(row: PushSubscription) -> Subscription:
    assert row.id is not None
    return Subscription(row.id, row.player_id, row.endpoint, row.p256dh, row.auth)


def subscribe(
    database: Database, player_id: str, endpoint: str, p256dh: str, auth: str, *, most: int
) -> tuple[Subscription, int]:
    """Keep a device's subscription for the player (a device that subscribed before, for this
    player or another one signed in on it, is moved here with its new keys). Past ``most``
    the player's oldest devices are dropped; returns the subscription and how many went."""
    with database.session() as session:
        row = session.exec(
            select(PushSubscription).where(PushSubscription.endpoint == endpoint)
        ).first()
        if row is None:
            row = PushSubscription(player_id=player_id, endpoint=endpoint, p256dh=p256dh, auth=auth)
        else:
            row.player_id, row.p256dh, row.auth = player_id, p256dh, auth
            row.created_at = utcnow()
        session.add(row)
        session.flush()
        ids = session.exec(
            select(PushSubscription.id)
            .where(PushSubscription.player_id == player_id)
            .order_by(col(PushSubscription.created_at).desc(), col(PushSubscription.id).desc())
        ).all()
        doomed = [i for i in ids[most:] if i != row.id]
        if doomed:
            session.execute(sa.delete(PushSubscription).where(col(PushSubscription.id).in_(doomed)))
        session.commit()
        return _of(row), len(doomed)


def unsubscribe(database: Database, player_id: str, endpoint: str) -> bool:
    with database.session() as session:
        result = session.execute(
            sa.delete(PushSubscription).where(
                col(PushSubscription.player_id) == player_id,
                col(PushSubscription.endpoint) == endpoint,
            )
        )
        session.commit()
        return bool(result.rowcount)  # type: ignore[attr-defined]


def _devices(session: Session, player_id: str) -> list[Subscription]:
    rows = session.exec(
        select(PushSubscription)
        .where(PushSubscription.player_id == player_id)
        .order_by(col(PushSubscription.id))
    ).all()
    return [_of(row) for row in rows]


def subscriptions(database: Database, player_id: str) -> list[Subscription]:
    with database.session() as session:
        return _devices(session, player_id)


_SUBS = PushSubscription.__table__  # type: ignore[attr-defined]
_CHOICES = NotifySetting.__table__  # type: ignore[attr-defined]
_PLAYERS = Player.__table__  # type: ignore[attr-defined]


def push_targets(database: Database, player_id: str, kind: str) -> list[Subscription]:
    """The player's devices if they want ``kind`` pushed: one indexed read (the devices with
    the player's choice for ``kind`` joined in), on a plain connection (this runs for every
    push: the ORM session's work was about a third of a push's CPU)."""
    query = (
        sa.select(
            _SUBS.c.id,
            _SUBS.c.player_id,
            _SUBS.c.endpoint,
            _SUBS.c.p256dh,
            _SUBS.c.auth,
            _CHOICES.c.push,
            _PLAYERS.c.language,
        )
        .select_from(
            _SUBS.outerjoin(
                _CHOICES,
                sa.and_(_CHOICES.c.player_id == _SUBS.c.player_id, _CHOICES.c.kind == kind),
            ).join(_PLAYERS, _PLAYERS.c.id == _SUBS.c.player_id)
        )
        .where(_SUBS.c.player_id == player_id)
        .order_by(_SUBS.c.id)
    )
    with database.engine.connect() as connection:
        rows = connection.execute(query).all()
    if not rows:
        return []
    choice = rows[0].push
    if not (DEFAULTS[kind]["push"] if choice is None else choice):
        return []
    return [Subscription(r.id, r.player_id, r.endpoint, r.p256dh, r.auth, r.language) for r in rows]


def drop_subscription(database: Database, subscription_id: int) -> None:
    """The push service said the subscription is gone (404/410)."""
    with database.session() as session:
        session.execute(
            sa.delete(PushSubscription).where(col(PushSubscription.id) == subscription_id)
        )
        session.commit()


def mark_sent(database: Database, subscription_id: int, at: datetime | None = None) -> None:
    with database.session() as session:
        session.execute(
            sa.update(PushSubscription)
            .where(col(PushSubscription.id) == subscription_id)
            .values(last_sent_at=at or utcnow())
        )
        session.commit()


# --- e-mail addresses ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Address:
    player_id: str
    name: str
    address: str
    verified: bool
    language: str | None = None  # the player's: the e-mail's words


def address_key(address: str) -> str:
    return address.strip().casefold()


def address_of(database: Database, player_id: str) -> Address | None:
    with database.session() as session:
        found = session.exec(
            select(PlayerEmail, Player)
            .join(Player, col(Player.id) == col(PlayerEmail.player_id))
            .where(PlayerEmail.player_id == player_id)
        ).first()
    if found is None:
        return None
    row, player = found
    return Address(
        row.player_id, player.name, row.address, row.verified_at is not None, player.language
    )


def set_address(database: Database, player_id: str, address: str) -> Address:
    """Record a new (unverified) address for the player, or keep a verified one that is the
    same address."""
    with database.session() as session:
        row = session.get(PlayerEmail, player_id)
        if row is not None and row.address == address:
            pass
        elif row is None:
            row = PlayerEmail(
                player_id=player_id, address=address, address_key=address_key(address)
            )
        else:
            row.address, row.address_key = address, address_key(address)
            row.verified_at, row.changed_at = None, utcnow()
        session.add(row)
        session.commit()
    found = address_of(database, player_id)
    assert found is not None
    return found


def remove_address(database: Database, player_id: str) -> bool:
    with database.session() as session:
        result = session.execute(
            sa.delete(PlayerEmail).where(col(PlayerEmail.player_id) == player_id)
        )
        session.commit()
        return bool(result.rowcount)  # type: ignore[attr-defined]


def mark_verified(database: Database, player_id: str, address: str) -> bool:
    """The link for ``address`` was opened: verified, if it is still the player's address."""
    with database.session() as session:
        row = session.get(PlayerEmail, player_id)
        if row is None or row.address != address:
            return False
        if row.verified_at is None:
            row.verified_at = utcnow()
            session.add(row)
            session.commit()
        return True


def verified_accounts(database: Database, address: str) -> list[str]:
    """Registered players whose verified address is ``address`` (any case)."""
    with database.session() as session:
        rows = session.exec(
            select(PlayerEmail.player_id)
            .join(Player, col(Player.id) == col(PlayerEmail.player_id))
            .where(
                PlayerEmail.address_key == address_key(address),
                col(PlayerEmail.verified_at).is_not(None),
                col(Player.is_guest).is_(False),
            )
        ).all()
    return list(rows)


# --- the VAPID key ---------------------------------------------------------------------------


def stored_key(database: Database) -> ec.EllipticCurvePrivateKey:
    """The key kept in SQL, made and stored by the first caller (any instance; a second
    instance racing it reads the winner's)."""
    with database.session() as session:
        row = session.get(VapidKey, 1)
    if row is not None:
        return load_private_key(row.private_key)
    key = ec.generate_private_key(ec.SECP256R1())
    try:
        with database.session() as session:
            session.add(
                VapidKey(id=1, private_key=private_pem(key), public_key=public_key_b64(key))
            )
            session.commit()
        return key
    except IntegrityError:
        with database.session() as session:
            won = session.get(VapidKey, 1)
        assert won is not None
        return load_private_key(won.private_key)


# --- password recovery -----------------------------------------------------------------------


def password_fingerprint_of(database: Database, player_id: str) -> str | None:
    """The fingerprint of a registered player's password (None: no such account)."""
    with database.session() as session:
        player = session.get(Player, player_id)
    if player is None or player.is_guest or player.password_hash is None:
        return None
    return password_fingerprint(player.password_hash)


def reset_password(database: Database, player_id: str, fingerprint: str, new: str) -> bool:
    """Set a new password if the password is still the one ``fingerprint`` was made from: a
    reset link works once (one UPDATE conditioned on the old hash, so two uses racing each
    other cannot both win). The strength rules of app.db.players apply (AccountError)."""
    with database.session() as session:
        player = session.get(Player, player_id)
        if player is None or player.password_hash is None:
            return False
        old = player.password_hash
        if password_fingerprint(old) != fingerprint:
            return False
        new_hash = players_db.password_hasher().hash(
            players_db.check_password_strength(new, player.name)
        )
        result = session.execute(
            sa.update(Player)
            .where(col(Player.id) == player_id, col(Player.password_hash) == old)
            .values(password_hash=new_hash)
        )
        session.commit()
        return bool(result.rowcount)  # type: ignore[attr-defined]


def account_by_name(database: Database, name: str) -> str | None:
    """A registered player's id by account name (any case)."""
    with database.session() as session:
        found = session.exec(
            select(Player.id).where(
                Player.name_key == players_db.account_name_key(name),
                col(Player.is_guest).is_(False),
            )
        ).first()
    return found
