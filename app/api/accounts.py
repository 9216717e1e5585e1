"""The persistence API: accounts, profiles, leaderboards, game history, replays, own data.

Thin routes: the work is in `app.db.players`, `auth`, `stats` and `replay` (app/db is
persistence only; these routes lived in `app.db.api`, which still re-exports them). Included by
`create_app`; the dependencies (`app.api.deps`) read the app's services.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NoReturn

import orjson
from fastapi import APIRouter, Path, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from app.api.client import address_group, client_address
from app.api.deps import (
    DatabaseDep,
    OptionalPlayerDep,
    PlayerDep,
    RedisDep,
    SecretDep,
    TokenDep,
)
from app.api.refusal import refusal
from app.api.security import (
    clear_session_cookie,
    known_device,
    remember_device,
    set_session_cookie,
)
from app.api.strict import StrictRoute
from app.db import players as players_module
from app.db import stats
from app.db.auth import issue_token, revoke_all, revoke_token
from app.db.database import Database
from app.db.models import GameSeat, PlayerPublic
from app.db.players import AccountError, PlayerInfo
from app.db.ratelimit import AttemptLimiter, LoginLimits, LoginThrottle
from app.db.replay import ReplayError, replay_stored
from app.db.schemas import (
    Credentials,
    DeleteRequest,
    GameDetail,
    GameList,
    Leaderboard,
    PasswordChange,
    Profile,
    TokenOut,
)
from app.store.keys import limits_prefix

router = APIRouter(prefix="/api", tags=["players and results"], route_class=StrictRoute)

# Sign-in: growing delays after failures, never a lockout (app.db.ratelimit.LoginThrottle,
# HEARTS_LOGIN_* settings).
# Registration: per client address, in an hour.
REGISTRATIONS_PER_ADDRESS = 20
REGISTER_WINDOW_SECONDS = 3600

PlayerIdPath = Annotated[str, Path(min_length=1, max_length=32)]
GameIdPath = Annotated[int, Path(ge=1, le=2**31 - 1)]
VariantPath = Annotated[str, Path(min_length=1, max_length=40)]
Limit = Annotated[int, Query(ge=1, le=100)]
Offset = Annotated[int, Query(ge=0, le=1_000_000)]
# A private game's share token (22 URL-safe characters); a wrong one reads as no token.
ShareQuery = Annotated[str | None, Query(max_length=64)]


def _fail(
    status: int,
    code: str,
    message: str,
    values: Mapping[str, object] | None = None,
    **headers: str,
) -> NoReturn:
    raise refusal(status, code, message, values, headers or None)


def _account_error(error: AccountError) -> NoReturn:
    status = {
        "wrong_credentials": 401,
        "name_taken": 409,
        "already_registered": 409,
        "name_confusable": 422,
    }.get(error.code, 400)
    _fail(status, error.code, error.message, error.values)


def _public(player: PlayerInfo) -> PlayerPublic:
    return PlayerPublic(id=player.id, name=player.name, is_guest=player.is_guest)


def _address(request: Request) -> str:
    """The client's address as the limits count it (behind trusted proxies, the forwarded
    one; an IPv6 address by its /64): app.api.client."""
    return address_group(client_address(request))


def _limits_prefix(request: Request) -> str:
    """The attempt counters' prefix in this deployment's Redis namespace."""
    settings = getattr(request.app.state, "settings", None)
    return limits_prefix(getattr(settings, "redis_namespace", "hearts"))


async def _limit(limiter: AttemptLimiter, *keys: str) -> None:
    wait = await limiter.hit(*keys)
    if wait is not None:
        _fail(
            429,
            "too_many_attempts",
            f"too many attempts; try again in {wait} seconds",
            {"wait": wait},
            **{"Retry-After": str(wait)},
        )


# --- accounts --------------------------------------------------------------------------------


@router.post("/account/register", status_code=201, response_model=TokenOut)
async def register(
    body: Credentials,
    request: Request,
    database: DatabaseDep,
    secret: SecretDep,
    redis: RedisDep,
    current: OptionalPlayerDep,
    response: Response,
) -> TokenOut:
    """Create an account. Signed in as a guest, the guest becomes the account and keeps its
    games (claims its history). The session is also set as the page's cookie, and this
    browser becomes a known device of the account."""
    if redis is not None:
        limiter = AttemptLimiter(
            redis,
            "register",
            attempts=REGISTRATIONS_PER_ADDRESS,
            window_seconds=REGISTER_WINDOW_SECONDS,
            prefix=_limits_prefix(request),
        )
        await _limit(limiter, _address(request))
    guest_id = current.id if current is not None and current.is_guest else None
    try:
        player = await run_in_threadpool(
            players_module.register, database, body.name, body.password, guest_id
        )
    except AccountError as error:
        _account_error(error)
    token = await run_in_threadpool(issue_token, database, player.id, secret)
    set_session_cookie(response, request, token)
    remember_device(response, request, secret, players_module.account_name_key(player.name))
    return TokenOut(token=token, player=_public(player))


@router.post("/account/login", response_model=TokenOut)
async def login(
    body: Credentials,
    request: Request,
    response: Response,
    database: DatabaseDep,
    secret: SecretDep,
    redis: RedisDep,
) -> TokenOut:
    """Sign in with an account name (any case) and password. Failed attempts make the next
    ones wait (429 too_many_attempts, Retry-After), per address, per address and name, and per
    name from unknown devices; a browser that signed in to the account before (its device
    cookie) skips that last one, so attacks from elsewhere never lock the owner out."""
    name_key = players_module.account_name_key(body.name.strip())
    address = _address(request)
    throttle = None
    device = known_device(request, secret, name_key)
    if redis is not None:
        settings = getattr(request.app.state, "settings", None)
        throttle = LoginThrottle(
            redis, LoginLimits.from_settings(settings), prefix=_limits_prefix(request)
        )
        if device is not None and not await throttle.device_trusted(device):
            device = None
        wait = await throttle.begin(address, name_key, device)
        if wait is not None:
            _fail(
                429,
                "too_many_attempts",
                f"too many failed sign-ins; try again in {wait} seconds",
                {"wait": wait},
                **{"Retry-After": str(wait)},
            )
    try:
        player = await run_in_threadpool(
            players_module.authenticate, database, body.name, body.password
        )
    except AccountError as error:
        _account_error(error)  # the attempt stays counted as failed
    if throttle is not None:
        await throttle.succeeded(address, name_key, device)
    token = await run_in_threadpool(issue_token, database, player.id, secret)
    set_session_cookie(response, request, token)
    remember_device(response, request, secret, name_key)
    return TokenOut(token=token, player=_public(player))


@router.post("/account/logout", status_code=204)
def logout(
    request: Request, database: DatabaseDep, secret: SecretDep, token: TokenDep, _: PlayerDep
) -> Response:
    """End this session: its token stops working everywhere, and the page's cookie goes."""
    if token:
        revoke_token(database, token, secret)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


@router.post("/session/cookie", status_code=204)
def session_cookie(request: Request, token: TokenDep, _: PlayerDep) -> Response:
    """Put the request's session (``Authorization: Bearer``) into the page's HttpOnly cookie:
    how a page of an older version hands over the token it kept in localStorage."""
    response = Response(status_code=204)
    if token:
        set_session_cookie(response, request, token)
    return response


@router.get("/account/me", response_model=PlayerPublic)
def me(player: PlayerDep) -> PlayerPublic:
    return _public(player)


@router.post("/account/password", status_code=204)
def change_password(
    body: PasswordChange,
    database: DatabaseDep,
    secret: SecretDep,
    token: TokenDep,
    player: PlayerDep,
) -> Response:
    """Change the password; every other session of the account ends."""
    try:
        players_module.change_password(database, player.id, body.old_password, body.new_password)
    except AccountError as error:
        _account_error(error)
    revoke_all(database, player.id, keep=(token, secret) if token else None)
    return Response(status_code=204)


@router.get("/account/export")
def export(database: DatabaseDep, player: PlayerDep) -> Response:
    """Download everything stored about me (JSON): profile, ratings, every game with moves."""
    data = stats.export_player(database, player.id)
    if data is None:
        _fail(404, "unknown_player", "no such player")
    return Response(
        orjson.dumps(data),
        media_type="application/json",
        headers={"Content-Disposition": 'attachment; filename="hearts-my-data.json"'},
    )


@router.post("/account/delete", status_code=204)
def delete_account(
    request: Request, body: DeleteRequest, database: DatabaseDep, player: PlayerDep
) -> Response:
    """Delete my account and personal data. An account must confirm with its password. Ended
    games stay for the other players, with my seat shown as a deleted player."""
    if not player.is_guest and not (
        body.password and players_module.verify_password(database, player.id, body.password)
    ):
        _fail(401, "wrong_credentials", "confirm with your password to delete the account")
    players_module.delete_player(database, player.id)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


# --- profiles, leaderboards, history, replays -------------------------------------------------


@router.get("/players/{player_id}", response_model=Profile)
def profile(player_id: PlayerIdPath, database: DatabaseDep, viewer: OptionalPlayerDep) -> Profile:
    """Per variant: games, wins, average points per hand, moons, rating and its history (a
    private game's id only to those who played it)."""
    found = stats.profile(database, player_id, _viewer_id(viewer))
    if found is None:
        _fail(404, "unknown_player", "no such player")
    return found


@router.get("/players/{player_id}/games", response_model=GameList)
def player_games(
    player_id: PlayerIdPath,
    database: DatabaseDep,
    viewer: OptionalPlayerDep,
    variant: Annotated[str | None, Query(max_length=40)] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> GameList:
    """A player's ended games, newest first: games at private tables only to those who played
    them. A ``variant`` filter that is no preset is 422 ``unknown_variant``."""
    _known_variant(variant, 422)
    return stats.game_history(
        database,
        player_id,
        variant=variant,
        limit=limit,
        offset=offset,
        viewer_id=_viewer_id(viewer),
    )


@router.get("/leaderboards/{variant}", response_model=Leaderboard)
def leaderboard(
    variant: VariantPath,
    database: DatabaseDep,
    min_games: Annotated[int, Query(ge=0, le=100_000)] = stats.DEFAULT_MIN_GAMES,
    include_guests: bool = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> Leaderboard:
    """Ratings of a variant (an engine preset), best first, among players with at least
    `min_games` rated games; registered accounts only unless `include_guests`. A name that is
    no preset is 404 ``unknown_variant`` (not an empty board)."""
    _known_variant(variant, 404)
    return stats.leaderboard(
        database,
        variant,
        min_games=min_games,
        limit=limit,
        offset=offset,
        include_guests=include_guests,
    )


def _known_variant(variant: str | None, status: int) -> None:
    from app.engine import PRESETS

    if variant is not None and variant not in PRESETS:
        _fail(
            status,
            "unknown_variant",
            f"no such variant; the variants are the presets: {', '.join(PRESETS)}",
        )


def _viewer_id(viewer: PlayerInfo | None) -> str | None:
    return None if viewer is None else viewer.id


def _no_game() -> NoReturn:
    # The same answer for an id never used and a private game the reader may not see.
    _fail(404, "unknown_game", "no such game")


@router.get("/games/{game_id}", response_model=GameDetail)
def game(
    game_id: GameIdPath, database: DatabaseDep, viewer: OptionalPlayerDep, share: ShareQuery = None
) -> GameDetail:
    """A game's seats, totals and each hand's points. A private table's game: only for its
    players (who get its `share_token`) and with `?share=TOKEN`."""
    found = stats.game_detail(database, game_id, _viewer_id(viewer), share)
    if found is None:
        _no_game()
    return found


def readable_replay(
    database: Database, game_id: int, viewer_id: str | None, share: str | None
) -> tuple[dict[str, Any], list[GameSeat]]:
    """An ended game's replay (``replay_stored``) and its seats, for a reader who may read the
    game (``stats.readable_game``). Refused as GET /api/games/{id}/replay refuses: 404
    ``unknown_game`` (never played, or not the reader's to see: the same answer), 409
    ``game_in_progress``, 409 ``replay_unavailable``. Replay rooms open under this rule."""
    with database.session() as session:
        loaded = stats.readable_game(session, game_id, viewer_id, share)
    if loaded is None:
        _no_game()
    game_row, seats, hands = loaded
    if game_row.status == "playing":
        _fail(409, "game_in_progress", "a game can be replayed once it has ended")
    try:
        return replay_stored(game_row, hands), seats
    except ReplayError as error:
        _fail(409, "replay_unavailable", str(error))


@router.get("/games/{game_id}/replay")
def replay(
    game_id: GameIdPath, database: DatabaseDep, viewer: OptionalPlayerDep, share: ShareQuery = None
) -> dict[str, Any]:
    """An ended game hand by hand and trick by trick, with every hand shown (who may read it:
    as for the game's page)."""
    result, _ = readable_replay(database, game_id, _viewer_id(viewer), share)
    summary = stats.game_detail(database, game_id, _viewer_id(viewer), share)
    result["game"] = None if summary is None else summary.model_dump(mode="json")
    return result
