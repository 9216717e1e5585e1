"""Shared replay rooms under ``/api/replay-rooms`` (docs/protocol.md "Replay rooms").

A room is opened for an ended game by someone who may read its replay, and joined by others
who may (the rule of GET /api/games/{id}/replay: a private table's game only for its players or
with its share token; anyone else is told there is no such room). One member drives: they move
the position (hand, step: the replay page's ``step``, 0 the deal, k after trick k, then the
result), compare-and-set on the room's version; they may hand control to another member.
Members follow by long-polling GET ``?after=VERSION``. The driver also names the seat whose
game review the room shows (``review``: the seat, and a count bumped each time the driver
chooses or asks for one, so every page reads that review again); each page reads the review
itself under the review's own access rule. The room holds no card and no review: the page
shows the replay and the review it reads itself. Every refusal is ``{"detail": {"code",
"message"}}`` and changes nothing. The store is app.replays.rooms.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, NoReturn

from fastapi import APIRouter, HTTPException, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.api.accounts import readable_replay
from app.api.deps import PlayerDep, ServicesDep
from app.api.limits import limit_or_refuse
from app.api.strict import StrictRoute
from app.db import stats
from app.db.database import Database
from app.db.players import PlayerInfo
from app.replays.rooms import CHAT_KEPT, MAX_MEMBERS, Room, RoomStore, new_room_id
from app.services import Services
from app.store.keys import replay_room_limits_prefix
from app.text import TextRuleError, clean_chat

router = APIRouter(prefix="/api/replay-rooms", tags=["replay rooms"], route_class=StrictRoute)

ROOMS_PER_PLAYER = 20  # rooms one player opens in an hour
ROOMS_WINDOW_SECONDS = 3600
CHAT_LINES = 5  # chat lines one player sends to one room in CHAT_WINDOW_SECONDS
CHAT_WINDOW_SECONDS = 10
WAIT_SECONDS = 20.0  # the longest a GET waits for a change
POLL_SECONDS = 0.25
AWAY_SECONDS = 45.0  # a driver whose page has not asked for the room for this long is away
RETRIES = 8  # compare-and-set attempts of a change that does not depend on the version

RoomIdPath = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{8,32}$")]
Share = Annotated[str | None, Field(default=None, max_length=64)]
Count = Annotated[int, Field(strict=True, ge=0, le=10_000)]
Seat = Annotated[int, Field(strict=True, ge=0, le=15)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RoomCreate(Strict):
    game_id: Annotated[int, Field(strict=True, ge=1, le=2**31 - 1)]
    share: Share = None
    hand: Count = 0  # where the room starts (clamped to the game)
    step: Count = 0
    review_seat: Seat | None = None  # the seat whose review the room shows (None: the opener's)


class RoomJoin(Strict):
    share: Share = None


class PositionIn(Strict):
    hand: Count
    step: Count
    version: Annotated[int, Field(strict=True, ge=1)]


class ReviewIn(Strict):
    seat: Seat


class DriverIn(Strict):
    player_id: Annotated[str, Field(min_length=1, max_length=32)]


class ChatIn(Strict):
    text: Annotated[str, Field(max_length=10_000)]


def _fail(status: int, code: str, message: str, **extra: Any) -> NoReturn:
    raise HTTPException(status, detail={"code": code, "message": message, **extra})


def _no_room() -> NoReturn:
    # The same answer for a room never opened, an expired one, and one whose game the asker
    # may not read (a private game's room does not tell it exists).
    _fail(404, "unknown_room", "no such replay room (rooms close a few hours after their last use)")


def _store(services: Services) -> RoomStore:
    return RoomStore(services.redis, services.settings.redis_namespace)


# As app.friends.api's _limit, with this router's prefix: the code and its words stay
# beside each call, where the catalog check (tests/test_catalogs.py) reads them.
async def _limit(
    services: Services, name: str, attempts: int, window: int, key: str, code: str, what: str
) -> None:
    await limit_or_refuse(
        services.redis,
        name,
        key,
        attempts=attempts,
        window_seconds=window,
        prefix=replay_room_limits_prefix(services.settings.redis_namespace),
        code=code,
        what=what,
    )


def _steps(
    database: Database, game_id: int, viewer_id: str, share: str | None
) -> tuple[list[int], int, int | None]:
    """Per hand, the replay page's number of steps (the deal, each trick, the result), the
    game's number of seats, and the viewer's own seat in it (None: not a player); raises the
    replay route's refusals (404 for a game the viewer may not read)."""
    replay, seats = readable_replay(database, game_id, viewer_id, share)
    steps = [len(h["tricks"]) + (2 if h.get("result") else 1) for h in replay["hands"]]
    own = next((s.seat for s in seats if s.player_id == viewer_id), None)
    return steps, int(replay["players"]), own


def _may_read(database: Database, game_id: int, viewer_id: str, share: str | None) -> bool:
    with database.session() as session:
        loaded = stats.readable_game(session, game_id, viewer_id, share)
    return loaded is not None and loaded[0].status != "playing"


def _member(player: PlayerInfo) -> dict[str, str]:
    return {"id": player.id, "name": player.name}


async def _loaded(store: RoomStore, room_id: str, player: PlayerInfo) -> Room:
    """The room, for one of its members (403 ``not_member`` for anyone else)."""
    room = await store.load(room_id)
    if room is None:
        _no_room()
    if not room.is_member(player.id):
        _fail(403, "not_member", "join the room first (open its link)")
    return room


@router.post("", status_code=201)
async def create_room(body: RoomCreate, player: PlayerDep, services: ServicesDep) -> dict[str, Any]:
    """Open a room for an ended game the player may read; they drive it. Answers the room and
    its link (a page path; ``share`` added when given)."""
    steps, players, own = await run_in_threadpool(
        _steps, services.database, body.game_id, player.id, body.share
    )
    if body.review_seat is not None and body.review_seat >= players:
        _bad_seat(players)
    await _limit(
        services,
        "rooms",
        ROOMS_PER_PLAYER,
        ROOMS_WINDOW_SECONDS,
        player.id,
        "too_many_rooms",
        "rooms opened",
    )
    hand = min(body.hand, len(steps) - 1)
    seat = body.review_seat if body.review_seat is not None else own if own is not None else 0
    state = {
        "game_id": body.game_id,
        "driver": player.id,
        "members": [_member(player)],
        "position": {"hand": hand, "step": min(body.step, steps[hand] - 1)},
        "steps": steps,
        "players": players,
        "review": {"seat": seat, "asked": 0},
        "chat": [],
        "chat_next": 1,
        "created": int(time.time()),
    }
    store = _store(services)
    room_id = new_room_id()
    version = await store.save(room_id, 0, state)
    if version is None:  # pragma: no cover - 72 random bits
        _fail(409, "room_id_taken", "try again")
    await store.touch(room_id, player.id)
    link = f"/?replay={body.game_id}" + (f"&share={body.share}" if body.share else "")
    return {"room": Room(room_id, version, state).public(), "link": link + f"&room={room_id}"}


async def _change(store: RoomStore, room_id: str, player: PlayerInfo, edit: Any) -> Room:
    """Apply ``edit(room) -> new state`` (it raises a refusal) by compare-and-set, again on a
    lost race: for the changes that do not depend on what the member last saw."""
    for _ in range(RETRIES):
        room = await _loaded(store, room_id, player)
        state = edit(room)
        version = await store.save(room_id, room.version, state)
        if version is not None:
            return Room(room_id, version, state)
    _fail(409, "busy", "the room changed too often at once; try again")


@router.post("/{room_id}/join")
async def join_room(
    room_id: RoomIdPath, body: RoomJoin, player: PlayerDep, services: ServicesDep
) -> dict[str, Any]:
    """Join a room: only someone who may read its game's replay (else 404 ``unknown_room``,
    as for a room that does not exist). Joining again changes nothing."""
    store = _store(services)
    for _ in range(RETRIES):
        room = await store.load(room_id)
        if room is None:
            _no_room()
        game_id = int(room.state["game_id"])
        if not await run_in_threadpool(
            _may_read, services.database, game_id, player.id, body.share
        ):
            _no_room()
        if room.is_member(player.id):
            return {"room": room.public()}
        if len(room.state["members"]) >= MAX_MEMBERS:
            _fail(
                409,
                "room_full",
                f"a room holds at most {MAX_MEMBERS} people",
                values={"limit": MAX_MEMBERS},
            )
        state = {**room.state, "members": [*room.state["members"], _member(player)]}
        version = await store.save(room_id, room.version, state)
        if version is not None:
            return {"room": Room(room_id, version, state).public()}
    _fail(409, "busy", "the room changed too often at once; try again")


@router.get("/{room_id}")
async def read_room(
    room_id: RoomIdPath,
    player: PlayerDep,
    services: ServicesDep,
    after: Annotated[int, Query(ge=0, le=2**53)] = 0,
    wait: Annotated[float, Query(ge=0, le=WAIT_SECONDS)] = WAIT_SECONDS,
) -> dict[str, Any]:
    """The room once its version is past ``after`` (at once with ``after=0``), waiting up to
    ``wait`` seconds; after that, the room as it is (the same version: ask again)."""
    store = _store(services)
    room = await _loaded(store, room_id, player)
    await store.touch(room_id, player.id)
    deadline = time.monotonic() + wait
    while room.version <= after and time.monotonic() < deadline:
        await asyncio.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
        if await store.version(room_id) != room.version:
            room = await _loaded(store, room_id, player)
    return {"room": room.public()}


@router.post("/{room_id}/position")
async def set_position(
    room_id: RoomIdPath, body: PositionIn, player: PlayerDep, services: ServicesDep
) -> dict[str, Any]:
    """The driver moves everyone to (hand, step), from the room's ``version`` they last saw:
    409 ``stale_version`` (with the ``version`` now) when it moved on, 403 ``not_driver`` for
    another member, 422 ``bad_position`` outside the game."""
    store = _store(services)
    room = await _loaded(store, room_id, player)
    steps = room.state["steps"]
    if body.hand >= len(steps) or body.step >= steps[body.hand]:
        _fail(
            422,
            "bad_position",
            f"the game has {len(steps)} hands; hand {body.hand} has steps 0 to "
            f"{steps[min(body.hand, len(steps) - 1)] - 1}",
        )
    if room.driver != player.id:
        _fail(403, "not_driver", "only the player who drives moves the replay")
    if body.version != room.version:
        _fail(409, "stale_version", "the room has changed since", version=room.version)
    state = {**room.state, "position": {"hand": body.hand, "step": body.step}}
    version = await store.save(room_id, room.version, state)
    if version is None:
        _fail(409, "stale_version", "the room has changed since", version=room.version + 1)
    return {"room": Room(room_id, version, state).public()}


@router.post("/{room_id}/driver")
async def hand_over(
    room_id: RoomIdPath, body: DriverIn, player: PlayerDep, services: ServicesDep
) -> dict[str, Any]:
    """The driver hands control to another member; a member takes it for themselves
    (``player_id`` their own) when the driver's page has not asked for the room for
    ``AWAY_SECONDS`` (they closed it), else 409 ``driver_present``."""
    store = _store(services)
    taking = False
    room = await _loaded(store, room_id, player)
    if body.player_id == player.id and room.driver != player.id:
        seen = await store.seen(room_id, room.driver)
        if seen is not None and time.time() - seen < AWAY_SECONDS:
            driver = _name(room, room.driver)
            _fail(
                409, "driver_present", f"{driver} still drives: ask them", values={"name": driver}
            )
        taking = True

    def edit(room: Room) -> dict[str, Any]:
        if taking:
            return {**room.state, "driver": player.id}
        if room.driver != player.id:
            _fail(403, "not_driver", "only the player who drives hands control over")
        if body.player_id == player.id:
            _fail(422, "already_driver", "you drive already")
        if not room.is_member(body.player_id):
            _fail(422, "not_a_member", "control goes only to someone in the room")
        return {**room.state, "driver": body.player_id}

    changed = await _change(store, room_id, player, edit)
    return {"room": changed.public()}


def _bad_seat(players: int) -> NoReturn:
    _fail(422, "bad_seat", f"the game's seats are 0 to {players - 1}", players=players)


@router.post("/{room_id}/review")
async def show_review(
    room_id: RoomIdPath, body: ReviewIn, player: PlayerDep, services: ServicesDep
) -> dict[str, Any]:
    """The driver names the seat whose review everyone in the room sees (after choosing it or
    asking for it: each call bumps ``review.asked``, so every page reads the review again). 403
    ``not_driver`` for another member, 422 ``bad_seat`` past the game's seats. The room holds
    the seat only: each page reads the review under GET /api/games/{id}/review's rule."""
    store = _store(services)

    def edit(room: Room) -> dict[str, Any]:
        players = int(room.state.get("players", 4))
        if body.seat >= players:
            _bad_seat(players)
        if room.driver != player.id:
            _fail(403, "not_driver", "only the player who drives chooses the review shown")
        asked = int((room.state.get("review") or {}).get("asked", 0)) + 1
        return {**room.state, "review": {"seat": body.seat, "asked": asked}}

    changed = await _change(store, room_id, player, edit)
    return {"room": changed.public()}


def _name(room: Room, player_id: str) -> str:
    return next((str(m["name"]) for m in room.state["members"] if m["id"] == player_id), "someone")


@router.post("/{room_id}/chat")
async def chat(
    room_id: RoomIdPath, body: ChatIn, player: PlayerDep, services: ServicesDep
) -> dict[str, Any]:
    """A line in the room's chat: cleaned as table chat (app.text.clean_chat), at most the
    server's ``chat_max_chars``, a few lines per player in ten seconds. A line refused is 422
    ``bad_chat`` as at the table, its ``rule`` the text rule broken (or ``too_long``)."""
    try:
        text = clean_chat(body.text)
    except TextRuleError as error:
        _fail(422, "bad_chat", error.message, rule=error.rule)
    limit = services.settings.chat_max_chars
    if len(text) > limit:
        _fail(
            422,
            "bad_chat",
            f"a message holds at most {limit} characters",
            rule="too_long",
            values={"reason": "length", "limit": limit},
        )
    store = _store(services)
    await _loaded(store, room_id, player)  # a stranger's lines are not counted
    await _limit(
        services,
        "chat",
        CHAT_LINES,
        CHAT_WINDOW_SECONDS,
        f"{room_id}:{player.id}",
        "too_many_chat",
        "chat lines",
    )

    def edit(room: Room) -> dict[str, Any]:
        n = int(room.state["chat_next"])
        line = {"n": n, "player_id": player.id, "name": player.name, "text": text}
        lines = [*room.state["chat"], line][-CHAT_KEPT:]
        return {**room.state, "chat": lines, "chat_next": n + 1}

    room = await _change(store, room_id, player, edit)
    return {"room": room.public()}
