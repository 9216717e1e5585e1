"""Thin HTTP routes; the work happens in app.tables and app.db."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Query, Request, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from app import engine
from app.api.deps import OptionalPlayerDep, PlayerDep, ServicesDep
from app.api.limits import check_new_guest, limit_address, tables_refused, too_many
from app.api.refusal import refusal
from app.api.security import set_session_cookie
from app.api.strict import StrictBody, StrictRoute
from app.db.players import AccountError, language_of, set_language
from app.friends.store import friend_ids
from app.i18n import LANGUAGES, supported
from app.realtime.lobby_index import LobbyError, decode_cursor
from app.tables import BOT_LEVELS, Actor, TableError
from app.tables.limits import TooManyTables
from app.tables.mine import TooManyGames
from app.tables.pace import check_pace

router = APIRouter(prefix="/api", route_class=StrictRoute)


def _error(
    status: int, code: str, message: str, values: Mapping[str, object] | None = None
) -> HTTPException:
    return refusal(status, code, message, values)


class GuestIn(StrictBody):
    name: str = Field(max_length=200)


class TableIn(StrictBody):
    preset: str = "classic"
    options: dict[str, Any] = Field(default_factory=dict)
    private: bool = False
    # Seconds per turn (0 = off); omitted: the server default for public tables, off otherwise.
    turn_timer: int | None = Field(default=None, ge=0, le=3600)
    # Computer players from the start: {"1": "pro", "2": "easy"} (seat -> level; seat 0 is
    # the creator's). Checked by the table service: 422 bad_seat / bad_level.
    bots: dict[str, Any] = Field(default_factory=dict)
    # The pace (docs/turn-based.md): "live", or "turn" with move_seconds (3600, 43200, 86400
    # or 259200), optional playing hours [start, end) and an IANA time zone. Checked by
    # app.tables.pace: 422 bad_pace / bad_move_time / bad_hours / bad_time_zone.
    pace: str = "live"
    move_seconds: int | None = None
    hours: list[int] | None = None
    time_zone: str | None = None
    # A rated table (docs/persistence.md "Rated tables"): registered players with enough
    # finished games, no hints, leaving costs the rating. 403 rated_guest /
    # rated_games_needed / rated_banned (with Retry-After), 422 rated_no_hints.
    rated: bool = False
    # Hints at the table (app.tables.hints; docs/review.md): a casual table only.
    hints: bool = False


# Refusals about the player rather than the request (app.tables.rated).
PLAYER_REFUSALS = ("rated_guest", "rated_games_needed", "rated_banned")


def _table_refused(exc: TableError) -> HTTPException:
    """422 for a bad request; 403 when the player may not do it, with Retry-After while a
    ban lasts."""
    if exc.code not in PLAYER_REFUSALS:
        return _error(422, exc.code, exc.message, exc.values)
    retry = getattr(exc, "retry_after", None)
    error = _error(403, exc.code, exc.message, exc.values)
    if retry is not None:
        error.headers = {"Retry-After": str(retry)}
    return error


@router.post("/guest")
async def create_guest(
    services: ServicesDep, body: GuestIn, request: Request, response: Response
) -> dict[str, Any]:
    """A guest identity in one step: a display name in, a signed session token out (in the
    answer for API clients, and in the HttpOnly session cookie for the page)."""
    await check_new_guest(services, request)  # 429 too_many_guests (app.api.limits)
    try:
        player, token = await run_in_threadpool(services.identity.create_guest, body.name)
    except AccountError as exc:
        raise _error(422, exc.code, exc.message, exc.values) from None
    except ValueError as exc:
        raise _error(422, "bad_name", str(exc)) from None
    set_session_cookie(response, request, token)
    return {"token": token, "player": {"id": player.id, "name": player.name, "is_guest": True}}


class LanguageIn(StrictBody):
    language: str = Field(max_length=16)


@router.get("/me")
async def me(player: PlayerDep, services: ServicesDep) -> dict[str, Any]:
    """Who the session is, and the language the server last knew them to read (null: none
    yet; the page sends its own when they differ: PUT /api/me/language)."""
    language = await run_in_threadpool(language_of, services.database, player.id)
    return {"id": player.id, "name": player.name, "is_guest": player.is_guest, "language": language}


@router.put("/me/language", status_code=204)
async def put_language(body: LanguageIn, player: PlayerDep, services: ServicesDep) -> Response:
    """The language the player reads the site in: e-mails and pushes are written in it."""
    if supported(body.language) != body.language:
        raise _error(422, "bad_language", f"the languages are {', '.join(LANGUAGES)}")
    await run_in_threadpool(set_language, services.database, player.id, body.language)
    return Response(status_code=204)


@router.get("/presets")
async def presets(services: ServicesDep) -> dict[str, Any]:
    """Every preset with its options, every option the create-table form can show, and the
    limits of what a page may send (the chat's length)."""
    labels: dict[str, str] = dict(getattr(engine, "PRESET_LABELS", {}))
    return {
        "presets": [
            {
                "id": name,
                "label": labels.get(name, name),
                "game": rules.game,
                "players": rules.players,
                "options": rules.to_options(),
                # every option's value in this preset (what the create form starts from)
                "values": {k: v for k, v in rules.to_json().items() if k not in ("preset", "game")},
            }
            for name, rules in engine.PRESETS.items()
        ],
        "options": engine.describe_options(),
        "bot_levels": list(BOT_LEVELS),
        "limits": {"chat_max_chars": services.settings.chat_max_chars},
    }


@router.get("/tables")
async def list_tables(
    services: ServicesDep,
    variant: Annotated[str | None, Query()] = None,
    free_seats: Annotated[str | None, Query()] = None,
    pace: Annotated[str | None, Query()] = None,
    cursor: Annotated[str | None, Query()] = None,
    limit: Annotated[str | None, Query()] = None,
    viewer: OptionalPlayerDep = None,
) -> Response:
    """One page of the public lobby (private, finished and person-less tables are never
    listed), newest first, from this instance's in-memory index (app.realtime.lobby_index): its cost
    does not grow with the number of tables. A signed-in player with friends also gets, on the
    first page, ``first``: the tables of the filter where a friend sits (one SQL read of their
    friends). 422 ``bad_filter`` / ``bad_cursor``."""
    lobby = services.hubs.lobby
    try:
        lobby_filter, page_size = lobby.parse_query(variant, free_seats, limit, pace)
        after = decode_cursor(cursor)
    except LobbyError as exc:
        raise _error(422, exc.code, exc.message, exc.values) from None
    friends: set[str] = set()
    if viewer is not None and after is None:
        friends = await run_in_threadpool(friend_ids, services.database, viewer.id)
    body = await lobby.read_page(lobby_filter, after, page_size, players=friends)
    return Response(body, media_type="application/json")


@router.post("/tables", status_code=201)
async def create_table(
    services: ServicesDep, player: PlayerDep, body: Annotated[TableIn, Body()], request: Request
) -> dict[str, Any]:
    try:
        pace = check_pace(body.pace, body.move_seconds, body.hours, body.time_zone)
        table = await services.tables.create(
            Actor(player.id, player.name),
            body.preset,
            body.options,
            private=body.private,
            turn_timer=body.turn_timer,
            bots=body.bots,
            address=limit_address(request),
            pace=pace,
            rated=body.rated,
            hints=body.hints,
        )
    except TooManyTables as exc:  # 429 too_many_tables, with Retry-After
        raise tables_refused(exc) from None
    except TooManyGames as exc:  # 429 too_many_games: turn-based games per player
        raise too_many(exc.code, exc.message, exc.retry_after, exc.values) from None
    except TableError as exc:
        raise _table_refused(exc) from None
    out: dict[str, Any] = {"table": table.public_json(), "version": table.version}
    if table.private:
        out["invite_path"] = f"/?table={table.id}&invite={table.invite}"
    return out


@router.get("/tables/{table_id}")
async def get_table(
    services: ServicesDep, table_id: str, invite: Annotated[str | None, Query()] = None
) -> dict[str, Any]:
    try:
        table, _ = await services.tables.read(table_id)
    except TableError as exc:
        raise _error(404, exc.code, exc.message) from None
    if table.private and invite != table.invite:
        raise _error(403, "forbidden", "this table is private: you need its invite")
    return {"table": table.public_json(), "version": table.version}


@router.get("/games/mine")
async def my_games(services: ServicesDep, player: PlayerDep) -> dict[str, Any]:
    """The player's games, live and turn-based: whose turn, the clock, the last move, sorted
    by what needs them first; ``my_turn`` counts the games waiting for their move (the badge).
    Only what each table's public view shows (app.tables.mine)."""
    try:
        return await services.tables.my_games(player.id)
    except TableError as exc:
        raise _error(503, exc.code, exc.message) from None
