"""Clubs in SQL: a club is open (anyone joins) or closed (join by request, by its link, or by
an invitation); its members are the owner, admins and members; it has a chat where admins may
also post announcements (the same text rules as a table's chat, app/text.py), and standings:
its members ranked by the daily challenge's month (app.compete.store) and over the club's
events (app.compete.club_standings).

Every function runs in a worker thread and raises ``ClubError`` (HTTP status, stable code,
message) for anything refused; a refused call changes nothing.

Roles: the owner may do everything, admins may accept requests, invite, kick and ban members
(not admins or the owner) and post announcements; members chat. The owner who leaves hands
the club to the earliest admin, else the earliest member; the last member to leave ends it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.compete.errors import CompeteError, checked_name
from app.compete.scoring import places
from app.db import Database
from app.db.compete_models import Club, ClubBan, ClubMember, ClubPending, ClubPost, DailyMonth
from app.db.models import Player
from app.text import TextRuleError, clean_chat

ROLE_RANK = {"owner": 2, "admin": 1, "member": 0}


@dataclass(frozen=True, slots=True)
class ClubLimits:
    clubs_per_player: int = 20  # clubs one player may belong to
    owned_per_player: int = 3  # clubs one player may own
    members_per_club: int = 500
    post_max_chars: int = 300


class ClubError(CompeteError):
    """A club's refusal (app.compete.errors)."""


def _club(session: Session, club_id: int) -> Club:
    club = session.get(Club, club_id)
    if club is None:
        raise ClubError(404, "unknown_club", "no such club")
    return club


def _member(session: Session, club_id: int, player_id: str) -> ClubMember | None:
    return session.get(ClubMember, (club_id, player_id))


def _role_at_least(session: Session, club_id: int, player_id: str, role: str) -> ClubMember:
    """The player's membership of an existing club (404 ``unknown_club`` first), with at
    least ``role`` (403 ``not_member``, ``not_allowed``)."""
    _club(session, club_id)
    member = _member(session, club_id, player_id)
    if member is None:
        raise ClubError(403, "not_member", "you are not a member of this club")
    if ROLE_RANK[member.role] < ROLE_RANK[role]:
        raise ClubError(403, "not_allowed", f"only the club's {role}s may do that")
    return member


def _check_room(session: Session, player_id: str, limits: ClubLimits) -> None:
    joined = session.exec(
        select(sa.func.count()).select_from(ClubMember).where(ClubMember.player_id == player_id)
    ).one()
    if joined >= limits.clubs_per_player:
        raise ClubError(
            429,
            "too_many_clubs",
            f"a player belongs to {limits.clubs_per_player} clubs at most",
            {"limit": limits.clubs_per_player},
        )


def _add_member(
    session: Session, club: Club, player_id: str, role: str, limits: ClubLimits
) -> None:
    if session.get(ClubBan, (club.id, player_id)) is not None:
        raise ClubError(403, "banned", "you are banned from this club")
    if club.members >= limits.members_per_club:
        raise ClubError(
            409,
            "club_full",
            f"a club has {limits.members_per_club} members at most",
            {"limit": limits.members_per_club},
        )
    _check_room(session, player_id, limits)
    assert club.id is not None
    session.add(ClubMember(club_id=club.id, player_id=player_id, role=role))
    pending = session.get(ClubPending, (club.id, player_id))
    if pending is not None:
        session.delete(pending)
    club.members += 1
    session.add(club)


def _summary(club: Club, member: ClubMember | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": club.id,
        "name": club.name,
        "open": club.open,
        "members": club.members,
        "role": member.role if member else None,
    }
    if member is not None and ROLE_RANK[member.role] >= ROLE_RANK["admin"]:
        out["link"] = f"/?club={club.id}&link={club.link_token}"
    return out


def create_club(
    db: Database, player_id: str, name: object, is_open: bool, limits: ClubLimits
) -> dict[str, Any]:
    clean = checked_name(name, ClubError, "a club's")
    with db.session() as session:
        owned = session.exec(
            select(sa.func.count())
            .select_from(ClubMember)
            .where(ClubMember.player_id == player_id, ClubMember.role == "owner")
        ).one()
        if owned >= limits.owned_per_player:
            raise ClubError(
                429,
                "too_many_clubs",
                f"a player owns {limits.owned_per_player} clubs at most",
                {"reason": "owned", "limit": limits.owned_per_player},
            )
        club = Club(
            name=clean,
            name_key=clean.casefold(),
            open=is_open,
            link_token=secrets.token_urlsafe(16),
            created_by=player_id,
        )
        session.add(club)
        try:
            session.flush()
        except IntegrityError:
            raise ClubError(409, "name_taken", "a club already has that name") from None
        _add_member(session, club, player_id, "owner", limits)
        session.commit()
        session.refresh(club)
        return _summary(club, _member(session, club.id or 0, player_id))


def club_page(db: Database, club_id: int, viewer: str | None) -> dict[str, Any]:
    """The club as the viewer may see it: anyone sees its name, kind and size; members see
    its members; admins also the join requests and the link."""
    with db.session() as session:
        club = _club(session, club_id)
        member = _member(session, club_id, viewer) if viewer else None
        out = _summary(club, member)
        out["pending"] = None
        if viewer:
            mine = session.get(ClubPending, (club_id, viewer))
            out["pending"] = mine.kind if mine else None
        if member is None and not club.open:
            out["member_list"] = None
            return out
        rows = session.exec(
            select(ClubMember, Player.name)
            .join(Player, col(Player.id) == col(ClubMember.player_id))
            .where(ClubMember.club_id == club_id)
            .order_by(col(ClubMember.joined_at))
        ).all()
        out["member_list"] = [
            {"player_id": m.player_id, "name": n, "role": m.role} for m, n in rows
        ]
        if member is not None and ROLE_RANK[member.role] >= ROLE_RANK["admin"]:
            requests = session.exec(
                select(ClubPending, Player.name)
                .join(Player, col(Player.id) == col(ClubPending.player_id))
                .where(ClubPending.club_id == club_id, ClubPending.kind == "request")
            ).all()
            out["requests"] = [{"player_id": p.player_id, "name": n} for p, n in requests]
        return out


def join(
    db: Database, club_id: int, player_id: str, link: str | None, limits: ClubLimits
) -> dict[str, Any]:
    """Join an open club, a closed one with its link or an invitation; otherwise a closed
    club gets a join request (``{"joined": False, "requested": True}``)."""
    with db.session() as session:
        club = _club(session, club_id)
        if _member(session, club_id, player_id) is not None:
            raise ClubError(409, "already_member", "you are a member of this club already")
        if session.get(ClubBan, (club_id, player_id)) is not None:
            raise ClubError(403, "banned", "you are banned from this club")
        invited = session.get(ClubPending, (club_id, player_id))
        by_link = link is not None and secrets.compare_digest(link, club.link_token)
        if link is not None and not by_link:
            raise ClubError(403, "bad_link", "that club link is not (or no longer) valid")
        if club.open or by_link or (invited is not None and invited.kind == "invite"):
            _add_member(session, club, player_id, "member", limits)
            session.commit()
            return {"joined": True, "requested": False}
        _check_room(session, player_id, limits)
        if invited is None:
            session.add(ClubPending(club_id=club_id, player_id=player_id, kind="request"))
            session.commit()
        return {"joined": False, "requested": True}


def answer_request(
    db: Database, club_id: int, admin_id: str, player_id: str, accept: bool, limits: ClubLimits
) -> None:
    with db.session() as session:
        club = _club(session, club_id)
        _role_at_least(session, club_id, admin_id, "admin")
        pending = session.get(ClubPending, (club_id, player_id))
        if pending is None or pending.kind != "request":
            raise ClubError(404, "no_request", "that player has not asked to join")
        if accept:
            _add_member(session, club, player_id, "member", limits)
        else:
            session.delete(pending)
        session.commit()


def invite(db: Database, club_id: int, admin_id: str, player_id: str) -> None:
    with db.session() as session:
        _role_at_least(session, club_id, admin_id, "admin")
        if session.get(Player, player_id) is None:
            raise ClubError(404, "unknown_player", "no such player")
        if _member(session, club_id, player_id) is not None:
            raise ClubError(409, "already_member", "that player is a member already")
        if session.get(ClubBan, (club_id, player_id)) is not None:
            raise ClubError(409, "banned", "that player is banned from this club")
        pending = session.get(ClubPending, (club_id, player_id))
        if pending is None:
            session.add(ClubPending(club_id=club_id, player_id=player_id, kind="invite"))
        else:
            pending.kind = "invite"  # a request answered by an invitation: join at once
            session.add(pending)
        session.commit()


def leave(db: Database, club_id: int, player_id: str) -> None:
    with db.session() as session:
        club = _club(session, club_id)
        member = _member(session, club_id, player_id)
        if member is None:
            raise ClubError(403, "not_member", "you are not a member of this club")
        _remove(session, club, member)
        session.commit()


def _remove(session: Session, club: Club, member: ClubMember) -> None:
    club.members -= 1
    if club.members <= 0:
        session.delete(club)  # the last member left: the club ends (its rows go with it)
        return
    session.delete(member)
    if member.role == "owner":
        heir = session.exec(
            select(ClubMember)
            .where(ClubMember.club_id == club.id, ClubMember.player_id != member.player_id)
            .order_by(
                sa.case((col(ClubMember.role) == "admin", 0), else_=1), col(ClubMember.joined_at)
            )
            .limit(1)
        ).first()
        assert heir is not None
        heir.role = "owner"
        session.add(heir)
    session.add(club)


def kick(db: Database, club_id: int, admin_id: str, player_id: str, *, ban: bool) -> None:
    """Remove a member (an admin removes members, the owner also admins); ``ban``: and keep
    them out (a ban also applies to a player who is not a member)."""
    with db.session() as session:
        club = _club(session, club_id)
        admin = _role_at_least(session, club_id, admin_id, "admin")
        if player_id == admin_id:
            raise ClubError(422, "bad_player", "leave the club instead")
        member = _member(session, club_id, player_id)
        if member is not None:
            if ROLE_RANK[member.role] >= ROLE_RANK[admin.role]:
                raise ClubError(403, "not_allowed", "you may not remove that member")
            _remove(session, club, member)
        elif not ban:
            raise ClubError(404, "not_member", "that player is not a member")
        if ban and session.get(ClubBan, (club_id, player_id)) is None:
            session.add(ClubBan(club_id=club_id, player_id=player_id))
            pending = session.get(ClubPending, (club_id, player_id))
            if pending is not None:
                session.delete(pending)
        session.commit()


def unban(db: Database, club_id: int, admin_id: str, player_id: str) -> None:
    with db.session() as session:
        _role_at_least(session, club_id, admin_id, "admin")
        ban = session.get(ClubBan, (club_id, player_id))
        if ban is None:
            raise ClubError(404, "not_banned", "that player is not banned")
        session.delete(ban)
        session.commit()


def set_role(db: Database, club_id: int, owner_id: str, player_id: str, role: str) -> None:
    """The owner makes a member an admin or a member again, or hands the club over
    (``owner``: the old owner becomes an admin)."""
    if role not in ROLE_RANK:
        raise ClubError(422, "bad_role", "a role is owner, admin or member")
    with db.session() as session:
        owner = _role_at_least(session, club_id, owner_id, "owner")
        member = _member(session, club_id, player_id)
        if member is None or player_id == owner_id:
            raise ClubError(404, "not_member", "that player is not another member")
        member.role = role
        if role == "owner":
            owner.role = "admin"
            session.add(owner)
        session.add(member)
        session.commit()


def post(
    db: Database,
    club_id: int,
    player_id: str,
    name: str,
    text: object,
    announcement: bool,
    limits: ClubLimits,
) -> dict[str, Any]:
    try:
        clean = clean_chat(text)
    except TextRuleError as exc:
        raise ClubError(422, "bad_chat", exc.message) from None
    if not clean or len(clean) > limits.post_max_chars:
        raise ClubError(
            422,
            "bad_chat",
            f"a line has 1 to {limits.post_max_chars} characters",
            {"reason": "length", "limit": limits.post_max_chars},
        )
    with db.session() as session:
        _role_at_least(session, club_id, player_id, "admin" if announcement else "member")
        line = ClubPost(
            club_id=club_id, player_id=player_id, name=name, text=clean, announcement=announcement
        )
        session.add(line)
        session.commit()
        session.refresh(line)
        return _post_json(line)


# A row's fields by name, as an event's summary gives its own: alike in form only.
def _post_json(line: ClubPost) -> dict[str, Any]:
    return {
        "id": line.id,
        "player_id": line.player_id,
        "name": line.name,
        "text": line.text,
        "announcement": line.announcement,
        "at": line.created_at.isoformat(),
    }


def posts(
    db: Database, club_id: int, viewer: str, before: int | None, limit: int
) -> list[dict[str, Any]]:
    """A page of the club's lines, newest first (members only), before the id ``before``."""
    with db.session() as session:
        _role_at_least(session, club_id, viewer, "member")
        query = select(ClubPost).where(ClubPost.club_id == club_id)
        if before is not None:
            query = query.where(col(ClubPost.id) < before)
        rows = session.exec(query.order_by(col(ClubPost.id).desc()).limit(limit)).all()
        return [_post_json(r) for r in rows]


def may_see_standings(session: Session, club_id: int, viewer: str | None) -> None:
    """Raise unless ``viewer`` may see the club's standings (anyone an open club's, members a
    closed one's)."""
    club = _club(session, club_id)
    if not club.open and (viewer is None or _member(session, club_id, viewer) is None):
        raise ClubError(403, "not_member", "this club's standings are for its members")


def standings(
    db: Database, club_id: int, viewer: str | None, month: str, preset: str
) -> list[dict[str, Any]]:
    """The club's members ranked by their month in the daily challenge (the sum of their
    daily percentages); a closed club's standings are for its members."""
    with db.session() as session:
        may_see_standings(session, club_id, viewer)
        rows = session.exec(
            select(DailyMonth)
            .join(ClubMember, col(ClubMember.player_id) == col(DailyMonth.player_id))
            .where(
                ClubMember.club_id == club_id,
                DailyMonth.month == month,
                DailyMonth.preset == preset,
            )
            .order_by(col(DailyMonth.total).desc(), col(DailyMonth.player_id))
        ).all()
        ranks = places([r.total for r in rows])  # ties share a place
        return [
            {
                "rank": rank,
                "player_id": r.player_id,
                "name": r.name,
                "total": round(r.total, 2),
                "days": r.days,
            }
            for rank, r in zip(ranks, rows, strict=True)
        ]


def my_clubs(db: Database, player_id: str) -> list[dict[str, Any]]:
    with db.session() as session:
        rows = session.exec(
            select(Club, ClubMember)
            .join(ClubMember, col(ClubMember.club_id) == col(Club.id))
            .where(ClubMember.player_id == player_id)
            .order_by(col(Club.name_key))
        ).all()
        invites = session.exec(
            select(Club)
            .join(ClubPending, col(ClubPending.club_id) == col(Club.id))
            .where(ClubPending.player_id == player_id, ClubPending.kind == "invite")
        ).all()
        return [_summary(c, m) for c, m in rows] + [
            {**_summary(c, None), "invited": True} for c in invites
        ]
