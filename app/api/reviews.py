"""Game reviews: ask for one, read it, follow its progress over a socket.

- ``POST /api/games/{id}/review`` ``{"seat": n}``: a signed-in player (guests too) asks for the
  review of one seat of an ended game they may read (as its replay: a public game, a private
  one they played in, or with its share link). A review is computed once and shared: asking
  for one that exists (queued, running or done) answers it and costs nothing; a new one costs
  ``review_cost`` units (one per ``HEARTS_REVIEW_DECISIONS_PER_UNIT`` decisions of the seat)
  of ``HEARTS_REVIEW_REQUESTS_PER_HOUR`` for that player and three times that for the address
  (429 ``too_many_reviews``), and is refused while ``HEARTS_REVIEW_QUEUE_MAX`` reviews are
  queued or running (503 ``review_queue_full``).
- ``GET /api/games/{id}/review`` (every seat's status) and ``?seat=n`` (one, with its result
  once done): anyone who may read the game.
- ``/ws/games/{id}/review?seat=n``: the review's status and progress as they change, on any
  instance (the shard channel ``keys.review_channel``, SPUBLISHed by app/jobs/review.py), then
  closed once done.

The work is in app/db/reviews.py (SQL) and app/jobs/review.py (the job runner).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from typing import Annotated, Any, NoReturn

import orjson
from fastapi import (
    APIRouter,
    Path,
    Query,
    Request,
    Response,
    WebSocket,
    WebSocketDisconnect,
)
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.api.client import address_group, client_address
from app.api.deps import DatabaseDep, OptionalPlayerDep, PlayerDep
from app.api.refusal import refusal
from app.api.security import SESSION_COOKIE
from app.api.strict import StrictRoute
from app.db import reviews
from app.db.database import Database
from app.db.models import Game, GameSeat
from app.db.ratelimit import AttemptLimiter
from app.realtime import messages as m
from app.realtime import socket_input
from app.realtime.limits import LimitExceeded
from app.services import Services
from app.store import keys

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api", tags=["game reviews"], route_class=StrictRoute)
socket_router = APIRouter()

GameIdPath = Annotated[int, Path(ge=1, le=2**31 - 1)]
ShareQuery = Annotated[str | None, Query(max_length=64)]
SeatQuery = Annotated[int | None, Query(ge=0, le=15)]
REQUEST_WINDOW_SECONDS = 3600
# New reviews one client address may ask for an hour: this many times a player's limit.
ADDRESS_FACTOR = 3
QUEUE_FULL_RETRY_SECONDS = 120

# Close codes of the review socket (as the table socket's).
CLOSE_UNKNOWN_GAME = 4404
CLOSE_PROTOCOL = 4400
TERMINAL = ("done", "failed")


class ReviewIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    seat: int = Field(ge=0, le=15)


def _fail(
    status: int,
    code: str,
    message: str,
    values: Mapping[str, object] | None = None,
    retry_after: int | None = None,
) -> NoReturn:
    headers = None if retry_after is None else {"Retry-After": str(retry_after)}
    raise refusal(status, code, message, values, headers)


def _services(request: Request | WebSocket) -> Services:
    services: Services = request.app.state.services
    return services


def _readable(
    database: Database, game_id: int, viewer_id: str | None, share: str | None
) -> tuple[Game, list[GameSeat], list[Any]] | None:
    """The game, its seats and its recorded moves (none: it cannot be replayed, nor
    reviewed), if this reader may read it."""
    from app.db.replay import stored_moves
    from app.db.stats import readable_game

    with database.session() as session:
        loaded = readable_game(session, game_id, viewer_id, share)
    if loaded is None:
        return None
    game, seats, hands = loaded
    return game, seats, stored_moves(game, hands)


async def _game(
    database: Database, game_id: int, viewer_id: str | None, share: str | None, seat: int | None
) -> tuple[Game, list[Any]]:
    """The game and its moves if this reader may read it (404 ``unknown_game`` otherwise,
    whether it exists or not), ended (409 ``game_in_progress``), with its moves recorded (409
    ``review_unavailable``), with ``seat`` one of its seats (422 ``bad_seat``)."""
    loaded = await run_in_threadpool(_readable, database, game_id, viewer_id, share)
    if loaded is None:
        _fail(404, "unknown_game", "no such game")
    game, _, moves = loaded
    if game.status == "playing":
        _fail(409, "game_in_progress", "a game can be reviewed once it has ended")
    if not moves:
        _fail(409, "review_unavailable", "the moves of this game were not recorded")
    if seat is not None and not 0 <= seat < game.players:
        _fail(422, "bad_seat", f"seat is 0 to {game.players - 1} in this game")
    return game, moves


def review_cost(moves: list[Any], seat: int, decisions_per_unit: int) -> int:
    """What reviewing ``seat`` costs of a requester's hourly allowance: one unit per
    ``decisions_per_unit`` decisions of that seat (at least one), so a long game costs more."""
    decisions = sum(1 for move in moves if move and move[0] == seat)
    return max(1, -(-decisions // decisions_per_unit))


@router.post("/games/{game_id}/review")
async def request_review(
    game_id: GameIdPath,
    body: ReviewIn,
    request: Request,
    response: Response,
    database: DatabaseDep,
    player: PlayerDep,
    share: ShareQuery = None,
) -> dict[str, Any]:
    """Ask for the review of ``seat``: 202 with the new job, or 200 with the review as it
    stands (asked for before by anyone: computed once)."""
    services = _services(request)
    settings = services.settings
    _, moves = await _game(database, game_id, player.id, share, body.seat)
    existing = await run_in_threadpool(reviews.read, database, game_id, body.seat)
    if existing is not None and existing.status != "failed":
        return reviews.public(existing)
    if await run_in_threadpool(reviews.pending, database) >= settings.review_queue_max:
        _queue_full()  # before the allowance: a refusal costs nothing
    cost = review_cost(moves, body.seat, settings.review_decisions_per_unit)
    if settings.review_requests_per_hour:
        per_hour = settings.review_requests_per_hour
        prefix = keys.review_limits_prefix(settings.redis_namespace)
        window = REQUEST_WINDOW_SECONDS
        # Per player, and per client address (new guests are cheap to make) three times that.
        waits = [
            await AttemptLimiter(
                services.redis, "review", attempts=per_hour, window_seconds=window, prefix=prefix
            ).hit(player.id, cost=cost),
            await AttemptLimiter(
                services.redis,
                "review-address",
                attempts=ADDRESS_FACTOR * per_hour,
                window_seconds=window,
                prefix=prefix,
            ).hit(address_group(client_address(request)), cost=cost),
        ]
        wait = max((w for w in waits if w is not None), default=None)
        if wait is not None:
            _fail(
                429,
                "too_many_reviews",
                f"at most {per_hour} review units an hour (this game's review costs {cost});"
                f" try again in {wait} seconds",
                # the page says when, in the player's time zone (api.js valueWords)
                {"per_hour": per_hour, "cost": cost, "until": round((time.time() + wait) * 1000)},
                retry_after=wait,
            )
    try:
        row, created = await run_in_threadpool(
            reviews.request,
            database,
            game_id,
            body.seat,
            player.id,
            settings.review_units,
            settings.review_queue_max,
        )
    except reviews.QueueFull:
        _queue_full()
    if created:
        response.status_code = 202
        runner = services.reviews
        if runner is not None:
            runner.wake()
            await runner.publish(game_id, body.seat, "queued", 0.0)
    return reviews.public(row)


def _queue_full() -> NoReturn:
    _fail(
        503,
        "review_queue_full",
        "as many reviews as the server takes are waiting; try again in a few minutes",
        retry_after=QUEUE_FULL_RETRY_SECONDS,
    )


@router.get("/games/{game_id}/review")
async def read_review(
    game_id: GameIdPath,
    database: DatabaseDep,
    viewer: OptionalPlayerDep,
    seat: SeatQuery = None,
    share: ShareQuery = None,
) -> dict[str, Any]:
    """With ``seat``: that seat's review (404 ``no_review`` if nobody asked for it yet).
    Without: ``{"reviews": [...]}``, every seat's review that was asked for, without results."""
    viewer_id = None if viewer is None else viewer.id
    await _game(database, game_id, viewer_id, share, seat)
    if seat is not None:
        row = await run_in_threadpool(reviews.read, database, game_id, seat)
        if row is None:
            _fail(404, "no_review", "nobody has asked for this seat's review yet")
        return reviews.public(row)
    rows = await run_in_threadpool(reviews.read_game, database, game_id)
    return {"reviews": [reviews.public(r) | {"result": None} for r in rows]}


def _status(row: Any, game_id: int, seat: int) -> bytes:
    if row is None:
        return orjson.dumps(
            {"type": "review", "game_id": game_id, "seat": seat, "status": "none", "progress": 0}
        )
    return orjson.dumps(
        {
            "type": "review",
            "game_id": game_id,
            "seat": seat,
            "status": row.status,
            "progress": round(row.progress, 4),
        }
    )


@socket_router.websocket("/ws/games/{game_id}/review")
async def review_socket(ws: WebSocket, game_id: str) -> None:
    """A review's status and progress: the stored state at once, then each change published
    by the instance computing it; closed (1000) once ``done`` or ``failed``. Who may open it:
    as for the game's replay (the page's session cookie, ``?share=``). Bad input (the game
    id, ``seat``, ``share``) closes 4400 before anything is read (app/realtime/socket_input)."""
    services = _services(ws)
    await ws.accept()
    try:
        socket_input.check_text(ws)
        game = socket_input.game_id(game_id)
        seat = socket_input.seat(ws.query_params.get("seat"))
        share = socket_input.share(ws.query_params.get("share"))
    except socket_input.BadSocketInput as exc:
        await _close(ws, m.error(exc.code, exc.message), CLOSE_PROTOCOL)
        return
    await _follow(ws, services, game, seat, share)


async def _follow(
    ws: WebSocket, services: Services, game_id: int, seat: int, share: str | None
) -> None:
    token = ws.cookies.get(SESSION_COOKIE)
    try:
        player = await services.identity.verify(token) if token else None
        loaded = await run_in_threadpool(
            _readable, services.database, game_id, None if player is None else player.id, share
        )
    except Exception as error:  # the database is down: the page tries again
        log.warning("review socket: %s", error)
        await _close(ws, m.error("database_unavailable", "the database is not answering"), 1013)
        return
    if loaded is None or loaded[0].status == "playing":
        await _close(ws, m.error("unknown_game", "no such game"), CLOSE_UNKNOWN_GAME)
        return
    if not 0 <= seat < loaded[0].players:
        await _close(ws, m.error("bad_seat", "no such seat in this game"), CLOSE_PROTOCOL)
        return
    limits = services.hubs.limits  # counted as a lobby socket: per address
    try:
        ticket = await limits.open(None, address_group(client_address(ws)))
    except LimitExceeded as exc:
        await _close(ws, m.error(exc.code, exc.message, values=exc.values), exc.close_code)
        return
    queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=64)

    def received(_channel: str, data: bytes) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # a slow page: the last state is enough
            queue.put_nowait(data)

    channel = keys.review_channel(services.settings.redis_namespace, game_id, seat)
    await services.fanout.subscribe(channel, received)
    reader = asyncio.create_task(_drain(ws))
    try:
        # Read after subscribing: a change between the two arrives on the channel.
        row = await run_in_threadpool(reviews.read, services.database, game_id, seat)
        message = _status(row, game_id, seat)
        while True:
            await ws.send_text(message.decode())
            if orjson.loads(message).get("status") in TERMINAL:
                await ws.close(1000)
                return
            getter = asyncio.create_task(queue.get())
            finished, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in finished:
                getter.cancel()
                return  # the page went away
            message = getter.result()
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        reader.cancel()
        await services.fanout.unsubscribe(channel, received)
        await limits.release(ticket)


async def _drain(ws: WebSocket) -> None:
    """Read (and ignore) what the page sends, until it closes the socket."""
    with contextlib.suppress(Exception):
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return


async def _close(ws: WebSocket, payload: bytes, code: int) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(payload.decode())
        await ws.close(code)
