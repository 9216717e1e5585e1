"""The daily challenge's routes under ``/api/daily`` (docs/compete.md): thin, the work is in
app.compete.daily. Every refusal is ``{"detail": {"code", "message"}}`` with a stable code and
changes nothing."""

from __future__ import annotations

from typing import Annotated, Any, NoReturn

from fastapi import APIRouter, HTTPException, Path, Query, Request

from app.api.deps import PlayerDep, ServicesDep
from app.api.limits import limit_address, tables_refused
from app.api.strict import StrictRoute
from app.compete.daily import PAGE_MAX, DailyError, DailyService
from app.compete.http import answered, refuse
from app.services import Services
from app.tables import TableError
from app.tables.limits import TooManyTables

router = APIRouter(prefix="/api/daily", tags=["daily"], route_class=StrictRoute)

PresetPath = Annotated[str, Path(min_length=1, max_length=40)]
PAGE_DEFAULT = 20


def _fail(status: int, code: str, message: str) -> NoReturn:
    raise HTTPException(status, detail={"code": code, "message": message})


def _daily(services: Services) -> DailyService:
    daily = services.daily
    if not isinstance(daily, DailyService):  # pragma: no cover - start_services makes it
        _fail(503, "no_daily", "the daily challenge is not available on this server")
    return daily


def _limit(text: str | None) -> int:
    if text is None:
        return PAGE_DEFAULT
    if not text.isdigit() or not 1 <= int(text) <= PAGE_MAX:
        _fail(422, "bad_limit", f"limit is a whole number from 1 to {PAGE_MAX}")
    return int(text)


@router.get("")
async def dailies(services: ServicesDep) -> dict[str, Any]:
    """Today's date (UTC) and the presets offered as a daily."""
    daily = _daily(services)
    return {
        "day": daily.today().isoformat(),
        "presets": daily.settings.daily_preset_list,
        "deals": daily.settings.daily_deals,
    }


@router.get("/{preset}")
async def status(services: ServicesDep, player: PlayerDep, preset: PresetPath) -> dict[str, Any]:
    return await answered(_daily(services).status(player, preset))


@router.post("/{preset}/start")
async def start(
    services: ServicesDep, player: PlayerDep, preset: PresetPath, request: Request
) -> dict[str, Any]:
    """Today's table of that preset for the player: made at the first call, the same table
    afterwards (one attempt a day). 429 too_many_tables as for any new table."""
    try:
        return await _daily(services).start(player, preset, limit_address(request))
    except DailyError as exc:
        refuse(exc)
    except TooManyTables as exc:
        raise tables_refused(exc) from None
    except TableError as exc:
        _fail(422, exc.code, exc.message)


@router.get("/{preset}/deals/{deal_no}")
async def deal(
    services: ServicesDep,
    player: PlayerDep,
    preset: PresetPath,
    deal_no: Annotated[int, Path(ge=0, le=99)],
    with_attempt: Annotated[int | None, Query(alias="with", ge=1)] = None,
) -> dict[str, Any]:
    """A deal the player finished: the spread, matchpoints, par, and both replays; 403
    deal_not_reached before."""
    return await answered(_daily(services).deal(player, preset, deal_no, with_attempt))


# The day's and the month's boards: two routes of one form, each with its own query.
@router.get("/{preset}/leaderboard")
async def day_board(
    services: ServicesDep,
    preset: PresetPath,
    day: Annotated[str | None, Query(max_length=10)] = None,
    cursor: Annotated[str | None, Query(max_length=80)] = None,
    limit: Annotated[str | None, Query(max_length=4)] = None,
) -> dict[str, Any]:
    """A page of a day's finished attempts, best first (``next``: the following page)."""
    return await answered(_daily(services).day_board(preset, day, cursor, _limit(limit)))


@router.get("/{preset}/month")
async def month_board(
    services: ServicesDep,
    preset: PresetPath,
    month: Annotated[str | None, Query(max_length=7)] = None,
    cursor: Annotated[str | None, Query(max_length=80)] = None,
    limit: Annotated[str | None, Query(max_length=4)] = None,
) -> dict[str, Any]:
    """A page of a month: the sum of each player's daily percentages, highest first."""
    return await answered(_daily(services).month_board(preset, month, cursor, _limit(limit)))
