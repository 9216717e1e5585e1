"""The events' routes under ``/api/events`` (docs/compete.md "Events"): thin, the work is in
app.compete.events_store. Every refusal is ``{"detail": {"code", "message"}}`` with a stable
code and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, NoReturn, TypeVar

from fastapi import APIRouter, Body, HTTPException, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.api.deps import OptionalPlayerDep, PlayerDep, ServicesDep
from app.api.strict import StrictRoute
from app.compete import event_reminders, events_store
from app.compete.events import EventError, EventLimits
from app.services import Services
from app.settings import Settings

router = APIRouter(prefix="/api/events", tags=["events"], route_class=StrictRoute)

EventPath = Annotated[int, Path(ge=1, le=2**31 - 1)]
T = TypeVar("T")


class EventIn(BaseModel):
    model_config = ConfigDict(strict=True)

    name: str = Field(max_length=200)
    format: str = Field(default="swiss", max_length=12)
    preset: str = Field(default="classic", max_length=40)
    rounds: int = Field(default=3, ge=-(2**31), le=2**31)
    starts_at: datetime = Field(strict=False)  # RFC 3339 with its offset
    grace_seconds: int = Field(default=120, ge=-(2**31), le=2**31)
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


def _fail(error: EventError) -> NoReturn:
    raise HTTPException(error.status, detail={"code": error.code, "message": error.message})


async def _run(fn: Callable[..., T], *args: Any, **kw: Any) -> T:
    try:
        return await run_in_threadpool(fn, *args, **kw)
    except EventError as error:
        _fail(error)


@router.post("", status_code=201)
async def create(
    services: ServicesDep, player: PlayerDep, body: Annotated[EventIn, Body()]
) -> dict[str, Any]:
    made: dict[str, Any] = await _run(
        events_store.create_event,
        services.database,
        player.id,
        name=body.name,
        format=body.format,
        preset=body.preset,
        rounds=body.rounds,
        starts_at=body.starts_at,
        grace_seconds=body.grace_seconds,
        points_by_place=body.points_by_place,
        club_id=body.club_id,
        limits=limits_of(services.settings),
        now=datetime.now(UTC),
    )
    if made["club_id"] is not None:
        await _tell_members(services, int(made["id"]), player.id)
    return made


async def _tell_members(services: Services, event_id: int, maker: str) -> None:
    """``event_scheduled`` to the club's other members, once, after the commit (a notice that
    could not be queued is lost, as for an invitation: the club's page lists the event)."""
    news = await _run(event_reminders.club_news, services.database, event_id, maker)
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
    found = await _run(
        events_store.list_events, services.database, viewer.id if viewer else None, club, limit
    )
    return {"events": found}


@router.get("/{event_id}")
async def read(
    services: ServicesDep, event_id: EventPath, viewer: OptionalPlayerDep = None
) -> dict[str, Any]:
    return await _run(
        events_store.event_page, services.database, event_id, viewer.id if viewer else None
    )


@router.post("/{event_id}/register")
async def register(services: ServicesDep, player: PlayerDep, event_id: EventPath) -> dict[str, Any]:
    limits = limits_of(services.settings)
    await _run(events_store.register, services.database, event_id, player.id, limits)
    return {"ok": True}


@router.post("/{event_id}/withdraw")
async def withdraw(services: ServicesDep, player: PlayerDep, event_id: EventPath) -> dict[str, Any]:
    await _run(events_store.withdraw, services.database, event_id, player.id)
    return {"ok": True}


@router.get("/{event_id}/standings")
async def standings(
    services: ServicesDep,
    event_id: EventPath,
    cursor: Annotated[str | None, Query(max_length=120)] = None,
    limit: Annotated[int, Query(ge=1, le=events_store.PAGE_MAX)] = 50,
    viewer: OptionalPlayerDep = None,
) -> dict[str, Any]:
    """A page of the standings, best first; ``next`` is the cursor of the page after."""
    return await _run(
        events_store.standings,
        services.database,
        event_id,
        viewer.id if viewer else None,
        cursor,
        limit,
    )
