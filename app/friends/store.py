"""Friends in SQL: requests, friendships, blocks, friend links, "appear offline", and the
people one played with recently.

Every refusal raises `FriendError` (a `ValueError`) with a stable `code`, an HTTP status and a
message a person can act on; a refused call changes nothing. Player ids are kept through a
guest's registration (app.db.players.register turns the guest's row into the account), so a
guest's friends, requests and blocks stay with the account.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, SQLModel, col, select

from app.db.database import Database
from app.db.models import (
    FriendRequest,
    FriendSettings,
    Friendship,
    Game,
    GameSeat,
    Player,
    PlayerBlock,
    as_utc,
)
from app.db.players import account_name_key
from app.text import TextRuleError, clean_name

MAX_FRIENDS = 500
MAX_OUTGOING_REQUESTS = 100  # waiting for an answer at once
RECENT_GAMES = 10  # "played with recently": the people of one's last games


# Each part's refusal type (this, CompeteError, TableError, ...) carries the same fields, code,
# message, status and named values: alike in form, kept per part (docs/testing.md).
class FriendError(ValueError):
    """``values``: the named values the page words the code with (a limit)."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 409,
        values: dict[str, str | int] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.values = dict(values or {})


def _unknown() -> FriendError:
    return FriendError("unknown_player", "no such player", 404)


@dataclass(frozen=True, slots=True)
class Person:
    id: str
    name: str
    is_guest: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "is_guest": self.is_guest}


# --- lookups ---------------------------------------------------------------------------------


def _person(session: Session, player_id: str) -> Person:
    player = session.get(Player, player_id)
    if player is None:
        raise _unknown()
    return Person(player.id, player.name, player.is_guest)


def _by_name(session: Session, name: object) -> Person:
    """An account by its name (any case). Guests share names, so a guest is found by its
    friend link or from "played with recently", never by name."""
    try:
        cleaned = clean_name(name)
    except TextRuleError as error:
        raise FriendError("bad_name", error.message, 422) from None
    player = session.exec(
        select(Player).where(Player.name_key == account_name_key(cleaned))
    ).first()
    if player is None:
        raise FriendError(
            "unknown_player",
            "no account has this name (a guest is added by their friend link)",
            404,
        )
    return Person(player.id, player.name, player.is_guest)


def _by_token(session: Session, token: object) -> Person:
    if not isinstance(token, str) or not 1 <= len(token) <= 32:
        raise FriendError("bad_link", "this friend link is not valid", 404)
    row = session.exec(select(FriendSettings).where(FriendSettings.link_token == token)).first()
    if row is None:
        raise FriendError("bad_link", "this friend link is not valid (or was replaced)", 404)
    return _person(session, row.player_id)


def _blocked(session: Session, blocker: str, blocked: str) -> bool:
    return session.get(PlayerBlock, (blocker, blocked)) is not None


def are_friends(session: Session, a: str, b: str) -> bool:
    return session.get(Friendship, (a, b)) is not None


def blocked_either_way(db: Database, a: str, b: str) -> bool:
    with db.session() as session:
        return _blocked(session, a, b) or _blocked(session, b, a)


def blockers_among(db: Database, player_id: str, others: list[str]) -> set[str]:
    """Those of `others` who blocked `player_id` or whom `player_id` blocked."""
    if not others:
        return set()
    with db.session() as session:
        rows = session.exec(
            select(PlayerBlock.player_id, PlayerBlock.blocked_id).where(
                sa.or_(
                    sa.and_(
                        col(PlayerBlock.blocked_id) == player_id,
                        col(PlayerBlock.player_id).in_(others),
                    ),
                    sa.and_(
                        col(PlayerBlock.player_id) == player_id,
                        col(PlayerBlock.blocked_id).in_(others),
                    ),
                )
            )
        ).all()
    return {a if b == player_id else b for a, b in rows}


def friend_ids(db: Database, player_id: str) -> set[str]:
    with db.session() as session:
        return set(
            session.exec(select(Friendship.friend_id).where(Friendship.player_id == player_id))
        )


def _settings(session: Session, player_id: str) -> FriendSettings:
    row = session.get(FriendSettings, player_id)
    return row if row is not None else FriendSettings(player_id=player_id)


def appears_offline(db: Database, player_id: str) -> bool:
    with db.session() as session:
        row = session.get(FriendSettings, player_id)
        return row is not None and row.appear_offline


# --- requests and friendships ---------------------------------------------------------------


def _both_ways(first: Any, second: Any, a: str, b: str) -> sa.ColumnElement[bool]:
    """Rows that link ``a`` and ``b`` in either direction (``first``, ``second``: the columns)."""
    return sa.or_(
        sa.and_(col(first) == a, col(second) == b),
        sa.and_(col(first) == b, col(second) == a),
    )


def _drop_requests(session: Session, a: str, b: str) -> None:
    """Any friend request between ``a`` and ``b``, whoever sent it, is gone."""
    session.execute(
        sa.delete(FriendRequest).where(_both_ways(FriendRequest.from_id, FriendRequest.to_id, a, b))
    )


def _befriend(session: Session, a: str, b: str) -> None:
    _drop_requests(session, a, b)
    if not are_friends(session, a, b):
        session.add(Friendship(player_id=a, friend_id=b))
        session.add(Friendship(player_id=b, friend_id=a))


def _count(session: Session, query: Any) -> int:
    return int(session.exec(query).one())


def send_request(
    db: Database,
    from_id: str,
    *,
    name: object = None,
    link: object = None,
    player_id: object = None,
) -> tuple[str, Person]:
    """Ask someone (by account name, friend link or player id) to be friends: ("pending",
    them), or ("friends", them) when they had asked first (their request is accepted)."""
    with db.session() as session:
        if sum(x is not None for x in (name, link, player_id)) != 1:
            raise FriendError("bad_request", "give exactly one of name, link or player_id", 422)
        if name is not None:
            target = _by_name(session, name)
        elif link is not None:
            target = _by_token(session, link)
        else:
            if not isinstance(player_id, str) or not 1 <= len(player_id) <= 32:
                raise _unknown()
            target = _person(session, player_id)
        if target.id == from_id:
            raise FriendError("self_request", "you cannot befriend yourself", 422)
        if _blocked(session, from_id, target.id):
            raise FriendError("you_blocked", "you blocked this player: unblock them first")
        if _blocked(session, target.id, from_id):
            # Worded so that it does not say the other blocked you.
            raise FriendError("cannot_request", "this player does not take your requests", 403)
        if are_friends(session, from_id, target.id):
            raise FriendError(
                "already_friends",
                f"you are already friends with {target.name}",
                values={"name": target.name},
            )
        if session.get(FriendRequest, (target.id, from_id)) is not None:
            _check_room(session, from_id, target.id)
            _befriend(session, from_id, target.id)
            session.commit()
            return "friends", target
        if session.get(FriendRequest, (from_id, target.id)) is None:
            waiting = _count(
                session,
                select(sa.func.count()).where(col(FriendRequest.from_id) == from_id),
            )
            if waiting >= MAX_OUTGOING_REQUESTS:
                raise FriendError(
                    "too_many_requests",
                    f"{MAX_OUTGOING_REQUESTS} of your requests wait for an answer: "
                    "cancel some first",
                    429,
                    values={"limit": MAX_OUTGOING_REQUESTS},
                )
            session.add(FriendRequest(from_id=from_id, to_id=target.id))
            session.commit()
        return "pending", target


def _check_room(session: Session, *players: str) -> None:
    for player in players:
        friends = _count(
            session, select(sa.func.count()).where(col(Friendship.player_id) == player)
        )
        if friends >= MAX_FRIENDS:
            raise FriendError(
                "too_many_friends",
                f"a player has at most {MAX_FRIENDS} friends",
                409,
                values={"limit": MAX_FRIENDS},
            )


def accept(db: Database, player_id: str, from_id: str) -> Person:
    with db.session() as session:
        if session.get(FriendRequest, (from_id, player_id)) is None:
            raise FriendError("no_request", "this player has no request waiting for you", 404)
        _check_room(session, player_id, from_id)
        other = _person(session, from_id)
        _befriend(session, player_id, from_id)
        session.commit()
        return other


def decline(db: Database, player_id: str, from_id: str) -> None:
    _delete_request(db, from_id, player_id)


def cancel(db: Database, player_id: str, to_id: str) -> None:
    _delete_request(db, player_id, to_id)


def _delete_one(
    db: Database, model: type[SQLModel], key: tuple[str, str], code: str, what: str
) -> None:
    """Delete the row of ``model`` with this primary key; a 404 ``code`` (``what``) if none."""
    with db.session() as session:
        row = session.get(model, key)
        if row is None:
            raise FriendError(code, what, 404)
        session.delete(row)
        session.commit()


def _delete_request(db: Database, from_id: str, to_id: str) -> None:
    _delete_one(db, FriendRequest, (from_id, to_id), "no_request", "there is no such request")


def remove(db: Database, player_id: str, friend_id: str) -> None:
    with db.session() as session:
        if not are_friends(session, player_id, friend_id):
            raise FriendError("not_friends", "this player is not your friend", 404)
        _unfriend(session, player_id, friend_id)
        session.commit()


def _unfriend(session: Session, a: str, b: str) -> None:
    session.execute(
        sa.delete(Friendship).where(_both_ways(Friendship.player_id, Friendship.friend_id, a, b))
    )


def block(db: Database, player_id: str, target_id: str) -> Person:
    """Block someone: any friendship and request between the two end, and they can no longer
    request, invite or chat to this player, nor see their presence."""
    with db.session() as session:
        if target_id == player_id:
            raise FriendError("self_block", "you cannot block yourself", 422)
        target = _person(session, target_id)
        _unfriend(session, player_id, target_id)
        _drop_requests(session, player_id, target_id)
        if not _blocked(session, player_id, target_id):
            session.add(PlayerBlock(player_id=player_id, blocked_id=target_id))
        session.commit()
        return target


def unblock(db: Database, player_id: str, target_id: str) -> None:
    _delete_one(
        db, PlayerBlock, (player_id, target_id), "not_blocked", "this player is not blocked"
    )


# --- the friend link and settings -----------------------------------------------------------


def friend_link(db: Database, player_id: str, *, renew: bool = False) -> str:
    """The player's friend link token (made on first use; `renew`: a new one, the old one
    stops working)."""
    with db.session() as session:
        row = _settings(session, player_id)
        if row.link_token is None or renew:
            row.link_token = secrets.token_urlsafe(16)
            session.add(row)
            session.commit()
        return str(row.link_token)


def set_appear_offline(db: Database, player_id: str, hidden: bool) -> None:
    with db.session() as session:
        row = _settings(session, player_id)
        row.appear_offline = hidden
        session.add(row)
        session.commit()


# --- lists ----------------------------------------------------------------------------------


def _people(session: Session, query: Any) -> list[dict[str, Any]]:
    out = []
    for player, created in session.exec(query).all():
        out.append(
            {
                "id": player.id,
                "name": player.name,
                "is_guest": player.is_guest,
                "since": _iso(created),
            }
        )
    out.sort(key=lambda p: (str(p["name"]).casefold(), p["id"]))
    return out


def _listed(session: Session, model: Any, person: Any, owner: Any, owner_id: str) -> Any:
    """The players in `person` of `model`'s rows whose `owner` is `owner_id`, with the row's
    creation time."""
    return _people(
        session,
        select(Player, model.created_at)
        .join(model, col(person) == col(Player.id))
        .where(col(owner) == owner_id),
    )


def _iso(value: datetime) -> str:
    return as_utc(value).isoformat()


def overview(db: Database, player_id: str) -> dict[str, Any]:
    """Friends, requests both ways, blocked players and settings (no presence: the lobby
    socket adds it)."""
    with db.session() as session:
        friends = _listed(
            session, Friendship, Friendship.friend_id, Friendship.player_id, player_id
        )
        incoming = _listed(
            session, FriendRequest, FriendRequest.from_id, FriendRequest.to_id, player_id
        )
        outgoing = _listed(
            session, FriendRequest, FriendRequest.to_id, FriendRequest.from_id, player_id
        )
        blocked = _listed(
            session, PlayerBlock, PlayerBlock.blocked_id, PlayerBlock.player_id, player_id
        )
        settings = _settings(session, player_id)
        return {
            "friends": friends,
            "incoming": incoming,
            "outgoing": outgoing,
            "blocked": blocked,
            "appear_offline": settings.appear_offline,
        }


def recent_players(db: Database, player_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """The people (not computers) at the tables of the player's last ended games, newest
    first, each once, with whether a request or friendship already ties them. Blocked ones (either
    way) are left out."""
    with db.session() as session:
        games = list(
            session.exec(
                select(Game.id)
                .join(GameSeat, col(GameSeat.game_id) == col(Game.id))
                .where(GameSeat.player_id == player_id, col(Game.ended_at).is_not(None))
                .order_by(col(Game.ended_at).desc())
                .limit(RECENT_GAMES)
            )
        )
        if not games:
            return []
        rows = session.exec(
            select(Player, Game.ended_at)
            .join(GameSeat, col(GameSeat.player_id) == col(Player.id))
            .join(Game, col(Game.id) == col(GameSeat.game_id))
            .where(col(Game.id).in_(games), col(Player.id) != player_id)
            .order_by(col(Game.ended_at).desc())
        ).all()
        friends = set(
            session.exec(select(Friendship.friend_id).where(Friendship.player_id == player_id))
        )
        asked = set(
            session.exec(select(FriendRequest.to_id).where(FriendRequest.from_id == player_id))
        )
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for player, ended in rows:
            if player.id in seen:
                continue
            seen.add(player.id)
            if _blocked(session, player_id, player.id) or _blocked(session, player.id, player_id):
                continue
            out.append(
                {
                    "id": player.id,
                    "name": player.name,
                    "is_guest": player.is_guest,
                    "played_at": _iso(ended) if ended is not None else None,
                    "friend": player.id in friends,
                    "requested": player.id in asked,
                }
            )
            if len(out) >= limit:
                break
        return out


def blocked_by(db: Database, player_id: str, others: list[str]) -> bool:
    """Whether any of `others` blocked `player_id` (a table refuses their chat line)."""
    if not others:
        return False
    with db.session() as session:
        found = session.exec(
            select(PlayerBlock.player_id).where(
                col(PlayerBlock.blocked_id) == player_id, col(PlayerBlock.player_id).in_(others)
            )
        ).first()
        return found is not None
