"""The events' routes under ``/api/events`` (docs/compete.md "Events"): thin, the work is in
app.compete.events_store. Every refusal is ``{"detail": {"code", "message"}}`` with a stable
code and changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from pydantic import Field

from app.api.deps import OptionalPlayerDep, PlayerDep, ServicesDep
from app.api.strict import StrictBody, StrictRoute
from app.compete import arena_store, event_reminders, event_standings, events_store
from app.compete.events import EventError, EventLimits, check_minutes
from app.compete.http import refuse, run
from app.services import Services
from app.settings import Settings

router = APIRouter(prefix="/api/events", tags=["events"], route_class=StrictRoute)

EventPath = Annotated[int, Path(ge=1, le=2**31 - 1)]


class EventIn(StrictBody):
    name: str = Field(max_length=200)
    format: str = Field(default="swiss", max_length=12)
    preset: str = Field(default="classic", max_length=40)
    rounds: int = Field(default=3, ge=-(2**31), le=2**31)
    starts_at: datetime = Field(strict=False)  # RFC 3339 with its offset
    grace_seconds: int = Field(default=120, ge=-(2**31), le=2**31)
    minutes: int | None = Field(default=None, ge=-(2**31), le=2**31)  # an arena's window
    points_by_place: list[float] | None = Field(default=None, max_length=8)
    club_id: int | None = Field(default=None, ge=1, le=2**31 - 1)


def limits_of(settings: Settings) -> EventLimits:
    return EventLimits(
        rounds_max=settings.events_rounds_max,
        days_ahead_max=settings.events_days_ahead_max,
        entries_max=settings.event_entries_max,
        open_events_per_player=settings.events_open_per_player,
        grace_seconds_max=settings.events_grace_seconds_max,
    )


@router.post("", status_code=201)
async def create(
    services: ServicesDep, player: PlayerDep, body: Annotated[EventIn, Body()]
) -> dict[str, Any]:
    """An event: ``rounds`` for swiss and duplicate; an arena's time window is ``minutes``
    from ``starts_at`` instead (its rounds are its games)."""
    limits = limits_of(services.settings)
    rounds, ends_at = body.rounds, None
    if body.format == "arena":
        try:
            ends_at = body.starts_at + timedelta(minutes=check_minutes(body.minutes, limits))
        except EventError as error:
            refuse(error)
        rounds = 1
    # The body's fields passed on by name: alike in form to other keyword calls, no shared
    # logic.
    made: dict[str, Any] = await run(
        events_store.create_event,
        services.database,
        player.id,
        name=body.name,
        format=body.format,
        preset=body.preset,
        rounds=rounds,
        starts_at=body.starts_at,
        grace_seconds=body.grace_seconds,
        points_by_place=body.points_by_place,
        club_id=body.club_id,
        limits=limits,
        now=datetime.now(UTC),
        ends_at=ends_at,
    )
    if made["club_id"] is not None:
        await _tell_members(services, int(made["id"]), player.id)
    return made


async def _tell_members(services: Services, event_id: int, maker: str) -> None:
    """``event_scheduled`` to the club's other members, once, after the commit (a notice that
    could not be queued is lost, as for an invitation: the club's page lists the event)."""
    news = await run(event_reminders.club_news, services.database, event_id, maker)
    if news is None:
        return
    data = {"event": event_id, "event_name": news["event_name"], "club_name": news["club_name"]}
    for player_id in news["players"]:
        await services.notifier.send(player_id, "event_scheduled", data=data)


@router.get("")
async def listing(
    services: ServicesDep,
    club: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    viewer: OptionalPlayerDep = None,
) -> dict[str, Any]:
    """Events to come and running, soonest first: open to all and the viewer's clubs'
    (``club``: that club's only)."""
    found = await run(
        events_store.list_events, services.database, viewer.id if viewer else None, club, limit
    )
    return {"events": found}


@router.get("/{event_id}")
async def read(
    services: ServicesDep, event_id: EventPath, viewer: OptionalPlayerDep = None
) -> dict[str, Any]:
    """The event and the viewer's part in it; an arena's adds the seconds left, the games
    finished, the viewer's pause and their table now (arena_store.view)."""
    who = viewer.id if viewer else None
    page = await run(events_store.event_page, services.database, event_id, who)
    if page["format"] == "arena":
        now = datetime.now(UTC)
        page.update(await run(arena_store.view, services.database, event_id, who, now))
    return page


@router.post("/{event_id}/register")
async def register(services: ServicesDep, player: PlayerDep, event_id: EventPath) -> dict[str, Any]:
    limits = limits_of(services.settings)
    now = datetime.now(UTC)  # an arena running takes players while its window is open
    await run(arena_store.register, services.database, event_id, player.id, limits, now)
    return {"ok": True}


@router.post("/{event_id}/pause")
async def pause(services: ServicesDep, player: PlayerDep, event_id: EventPath) -> dict[str, Any]:
    """An arena's player is not seated again (the game they play now plays on)."""
    now = datetime.now(UTC)
    await run(arena_store.pause, services.database, event_id, player.id, True, now)
    return {"ok": True}


@router.post("/{event_id}/resume")
async def resume(services: ServicesDep, player: PlayerDep, event_id: EventPath) -> dict[str, Any]:
    """Back from a pause: waiting for a table from now."""
    now = datetime.now(UTC)
    await run(arena_store.pause, services.database, event_id, player.id, False, now)
    return {"ok": True}


@router.post("/{event_id}/withdraw")
async def withdraw(services: ServicesDep, player: PlayerDep, event_id: EventPath) -> dict[str, Any]:
    await run(events_store.withdraw, services.database, event_id, player.id)
    return {"ok": True}


@router.get("/{event_id}/standings")
async def standings(
    services: ServicesDep,
    event_id: EventPath,
    cursor: Annotated[str | None, Query(max_length=120)] = None,
    limit: Annotated[int, Query(ge=1, le=event_standings.PAGE_MAX)] = 50,
    viewer: OptionalPlayerDep = None,
) -> dict[str, Any]:
    """A page of the standings, best first; ``next`` is the cursor of the page after."""
    return await run(
        event_standings.standings,
        services.database,
        event_id,
        viewer.id if viewer else None,
        cursor,
        limit,
    )
