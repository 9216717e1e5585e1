"""The clubs' routes under ``/api/clubs`` (docs/compete.md "Clubs"): thin, the work is in
app.compete.clubs. Every refusal is ``{"detail": {"code", "message"}}`` with a stable code and
changes nothing."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from pydantic import Field

from app.api.deps import OptionalPlayerDep, PlayerDep, ServicesDep
from app.api.strict import StrictBody, StrictRoute
from app.compete import club_standings, clubs
from app.compete.clubs import ClubLimits
from app.compete.http import run
from app.settings import Settings

router = APIRouter(prefix="/api/clubs", tags=["clubs"], route_class=StrictRoute)

ClubPath = Annotated[int, Path(ge=1, le=2**31 - 1)]
PlayerPath = Annotated[str, Path(min_length=1, max_length=32)]


class ClubIn(StrictBody):
    name: str = Field(max_length=200)
    open: bool = True


class JoinIn(StrictBody):
    link: str | None = Field(default=None, max_length=64)


class AnswerIn(StrictBody):
    accept: bool


class PlayerIn(StrictBody):
    player_id: str = Field(min_length=1, max_length=32)


class KickIn(PlayerIn):
    ban: bool = False


class RoleIn(PlayerIn):
    role: str = Field(max_length=8)


class PostIn(StrictBody):
    text: str = Field(max_length=4000)
    announcement: bool = False


# The settings copied into the store's limits by name, as events_api.limits_of does.
def limits_of(settings: Settings) -> ClubLimits:
    return ClubLimits(
        clubs_per_player=settings.clubs_per_player,
        owned_per_player=settings.clubs_owned_per_player,
        members_per_club=settings.club_members_max,
        post_max_chars=settings.chat_max_chars,
    )


# Routes of one form (the store's function in a worker thread, then its answer or ok), as
# in events_api: thin on purpose, each keeps its own path, body and OpenAPI entry.
@router.get("/mine")
async def mine(services: ServicesDep, player: PlayerDep) -> dict[str, Any]:
    """The clubs the player belongs to, and those that invited them (``invited``)."""
    return {"clubs": await run(clubs.my_clubs, services.database, player.id)}


@router.post("", status_code=201)
async def create(
    services: ServicesDep, player: PlayerDep, body: Annotated[ClubIn, Body()]
) -> dict[str, Any]:
    limits = limits_of(services.settings)
    return await run(clubs.create_club, services.database, player.id, body.name, body.open, limits)


@router.get("/{club_id}")
async def club(services: ServicesDep, club_id: ClubPath, viewer: OptionalPlayerDep = None) -> Any:
    return await run(clubs.club_page, services.database, club_id, viewer.id if viewer else None)


@router.post("/{club_id}/join")
async def join(
    services: ServicesDep,
    player: PlayerDep,
    club_id: ClubPath,
    body: Annotated[JoinIn, Body()],
) -> dict[str, Any]:
    limits = limits_of(services.settings)
    return await run(clubs.join, services.database, club_id, player.id, body.link, limits)


@router.post("/{club_id}/leave")
async def leave(services: ServicesDep, player: PlayerDep, club_id: ClubPath) -> dict[str, Any]:
    await run(clubs.leave, services.database, club_id, player.id)
    return {"ok": True}


@router.post("/{club_id}/requests/{player_id}")
async def answer(
    services: ServicesDep,
    player: PlayerDep,
    club_id: ClubPath,
    player_id: PlayerPath,
    body: Annotated[AnswerIn, Body()],
) -> dict[str, Any]:
    limits = limits_of(services.settings)
    await run(
        clubs.answer_request, services.database, club_id, player.id, player_id, body.accept, limits
    )
    return {"ok": True}


@router.post("/{club_id}/invite")
async def invite(
    services: ServicesDep, player: PlayerDep, club_id: ClubPath, body: Annotated[PlayerIn, Body()]
) -> dict[str, Any]:
    await run(clubs.invite, services.database, club_id, player.id, body.player_id)
    return {"ok": True}


@router.post("/{club_id}/kick")
async def kick(
    services: ServicesDep, player: PlayerDep, club_id: ClubPath, body: Annotated[KickIn, Body()]
) -> dict[str, Any]:
    await run(clubs.kick, services.database, club_id, player.id, body.player_id, ban=body.ban)
    return {"ok": True}


@router.post("/{club_id}/unban")
async def unban(
    services: ServicesDep, player: PlayerDep, club_id: ClubPath, body: Annotated[PlayerIn, Body()]
) -> dict[str, Any]:
    await run(clubs.unban, services.database, club_id, player.id, body.player_id)
    return {"ok": True}


@router.post("/{club_id}/role")
async def role(
    services: ServicesDep, player: PlayerDep, club_id: ClubPath, body: Annotated[RoleIn, Body()]
) -> dict[str, Any]:
    await run(clubs.set_role, services.database, club_id, player.id, body.player_id, body.role)
    return {"ok": True}


@router.get("/{club_id}/posts")
async def posts(
    services: ServicesDep,
    player: PlayerDep,
    club_id: ClubPath,
    before: Annotated[int | None, Query(ge=1, le=2**62)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> dict[str, Any]:
    """A page of the club's chat, newest first (``before``: the oldest id of the last page)."""
    lines = await run(clubs.posts, services.database, club_id, player.id, before, limit)
    return {"posts": lines}


@router.post("/{club_id}/posts", status_code=201)
async def new_post(
    services: ServicesDep, player: PlayerDep, club_id: ClubPath, body: Annotated[PostIn, Body()]
) -> dict[str, Any]:
    limits = limits_of(services.settings)
    return await run(
        clubs.post,
        services.database,
        club_id,
        player.id,
        player.name,
        body.text,
        body.announcement,
        limits,
    )


@router.get("/{club_id}/standings")
async def standings(
    services: ServicesDep,
    club_id: ClubPath,
    month: Annotated[str | None, Query(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")] = None,
    preset: Annotated[str, Query(max_length=40)] = "classic",
    viewer: OptionalPlayerDep = None,
) -> dict[str, Any]:
    """The members ranked by their month in the daily challenge of ``preset`` (``lines``)
    and by their places in the club's events of the month (``events``:
    app.compete.club_standings)."""
    daily = services.daily
    month = month or daily.today().strftime("%Y-%m")
    who = viewer.id if viewer else None
    lines = await run(clubs.standings, services.database, club_id, who, month, preset)
    events = await run(club_standings.over_events, services.database, club_id, who, month)
    return {"month": month, "preset": preset, "lines": lines, "events": events}
