"""The friends routes under ``/api/friends`` (docs/protocol.md "Friends"): thin, the work is in
app.friends.store (SQL) and app.friends.hub (presence, events, invitations in Redis).

Every refusal is ``{"detail": {"code", "message"}}`` with a stable code; a refused call changes
nothing. After a change, the players concerned get their new lists on their lobby sockets, on
whichever instance they are.
"""

from __future__ import annotations

from typing import Annotated, Any, NoReturn

from fastapi import APIRouter, Body, Path, Request
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from app import engine
from app.api.deps import PlayerDep, ServicesDep
from app.api.limits import limit_address, limit_or_refuse
from app.api.refusal import refusal
from app.api.strict import StrictBody, StrictRoute
from app.friends import store
from app.friends.hub import FriendsHub
from app.friends.invites import seat_free
from app.services import Services
from app.store.keys import limits_prefix
from app.tables import Actor, TableError

router = APIRouter(prefix="/api/friends", tags=["friends"], route_class=StrictRoute)

# Friend requests: per player and per client address, in an hour. Invitations: per player, in
# ten minutes.
REQUESTS_PER_PLAYER = 30
REQUESTS_PER_ADDRESS = 60
REQUEST_WINDOW_SECONDS = 3600
INVITES_PER_PLAYER = 30
INVITE_WINDOW_SECONDS = 600

PlayerIdPath = Annotated[str, Path(min_length=1, max_length=32)]
InviteIdPath = Annotated[str, Path(min_length=1, max_length=32)]


def _fail(status: int, code: str, message: str, values: dict[str, Any] | None = None) -> NoReturn:
    raise refusal(status, code, message, values)


def _friend_error(error: store.FriendError) -> NoReturn:
    _fail(error.status, error.code, error.message, error.values)


def _hub(services: Services) -> FriendsHub:
    hub = services.friends
    if hub is None:  # pragma: no cover - create_app always starts it
        _fail(503, "no_friends", "friends are not available on this server")
    return hub


async def _limit(
    services: Services, name: str, attempts: int, window: int, code: str, what: str, *keys: str
) -> None:
    """Count one ``name`` attempt per key; 429 ``code`` ("too many ``what``") over the limit.
    The code and its words side by side: the catalog check finds each door by them."""
    await limit_or_refuse(
        services.redis,
        name,
        *keys,
        attempts=attempts,
        window_seconds=window,
        prefix=limits_prefix(services.settings.redis_namespace),
        code=code,
        what=what,
    )


async def _call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return await run_in_threadpool(fn, *args, **kwargs)
    except store.FriendError as error:
        _friend_error(error)


def _changed(services: Services, *player_ids: str) -> None:
    """Tell every instance that these players' lists changed (their lobby sockets reload)."""
    _hub(services).publish({"k": "friends", "p": list(player_ids)})


async def _drop_invitations(services: Services, a: str, b: str) -> None:
    """A block or an unfriending: the invitations between the two go, both ways, and the
    holders' lobby sockets hear ``invite_gone`` (neither the invitation nor a private
    table's code stays listed, and it can no longer be accepted)."""
    dropped = await _hub(services).invites.drop_between(a, b)
    for holder, ids in dropped.items():
        for invite_id in ids:
            _gone(services, holder, invite_id)


class RequestIn(StrictBody):
    name: str | None = Field(default=None, max_length=200)
    link: str | None = Field(default=None, max_length=64)
    player_id: str | None = Field(default=None, max_length=32)


class BlockIn(StrictBody):
    player_id: str = Field(min_length=1, max_length=32)


class SettingsIn(StrictBody):
    appear_offline: bool


class InviteIn(StrictBody):
    player_id: str = Field(min_length=1, max_length=32)
    table_id: str = Field(min_length=1, max_length=64)
    seat: int | None = Field(default=None, ge=0, le=15)


class JoinIn(StrictBody):
    table_id: str = Field(min_length=1, max_length=64)


# --- lists -----------------------------------------------------------------------------------


@router.get("")
async def friends(services: ServicesDep, player: PlayerDep) -> dict[str, Any]:
    """My friends (each with presence), requests both ways, blocked players, settings and
    waiting invitations: what the lobby socket's ``friends`` message holds."""
    hub = _hub(services)
    overview: dict[str, Any] = await _call(store.overview, services.database, player.id)
    states = await hub.presence_of([f["id"] for f in overview["friends"]])
    for friend in overview["friends"]:
        friend["presence"] = hub.presence_json(states[friend["id"]])
    overview["invites"] = await hub.valid_invites(player.id)
    return overview


@router.get("/recent")
async def recent(services: ServicesDep, player: PlayerDep) -> dict[str, Any]:
    """The people at the tables of my last ended games ("played with recently")."""
    return {"players": await _call(store.recent_players, services.database, player.id)}


@router.get("/link")
async def link(services: ServicesDep, player: PlayerDep) -> dict[str, Any]:
    """My friend link: whoever opens it can send me a request (guests too)."""
    token = await _call(store.friend_link, services.database, player.id)
    return {"token": token, "path": f"/?friend={token}"}


@router.post("/link")
async def renew_link(services: ServicesDep, player: PlayerDep) -> dict[str, Any]:
    """A new friend link; the old one stops working."""
    token = await _call(store.friend_link, services.database, player.id, renew=True)
    return {"token": token, "path": f"/?friend={token}"}


# --- requests and friendships ----------------------------------------------------------------


@router.post("/requests", status_code=201)
async def send_request(
    services: ServicesDep, player: PlayerDep, body: Annotated[RequestIn, Body()], request: Request
) -> dict[str, Any]:
    """Ask someone to be friends, by account name, friend link or player id. When they had
    asked me first, we are friends at once (``status: "friends"``)."""
    await _limit(
        services,
        "friend_requests",
        REQUESTS_PER_PLAYER,
        REQUEST_WINDOW_SECONDS,
        "too_many_friend_requests",
        "friend requests",
        player.id,
    )
    await _limit(
        services,
        "friend_requests_address",
        REQUESTS_PER_ADDRESS,
        REQUEST_WINDOW_SECONDS,
        "too_many_friend_requests",
        "friend requests",
        limit_address(request),
    )
    status, target = await _call(
        store.send_request,
        services.database,
        player.id,
        name=body.name,
        link=body.link,
        player_id=body.player_id,
    )
    _changed(services, player.id, target.id)
    if status == "pending":  # a push / e-mail when the player is away (app/notify)
        await services.notifier.send(target.id, "friend_request", data={"from": player.name})
    return {"status": status, "player": target.to_json()}


@router.post("/requests/{player_id}/accept")
async def accept(services: ServicesDep, player: PlayerDep, player_id: PlayerIdPath) -> Any:
    other = await _call(store.accept, services.database, player.id, player_id)
    _changed(services, player.id, player_id)
    return {"status": "friends", "player": other.to_json()}


@router.post("/requests/{player_id}/decline", status_code=204)
async def decline(services: ServicesDep, player: PlayerDep, player_id: PlayerIdPath) -> None:
    await _call(store.decline, services.database, player.id, player_id)
    _changed(services, player.id, player_id)


@router.post("/requests/{player_id}/cancel", status_code=204)
async def cancel(services: ServicesDep, player: PlayerDep, player_id: PlayerIdPath) -> None:
    """Take back a request I sent."""
    await _call(store.cancel, services.database, player.id, player_id)
    _changed(services, player.id, player_id)


@router.post("/{player_id}/remove", status_code=204)
async def remove(services: ServicesDep, player: PlayerDep, player_id: PlayerIdPath) -> None:
    await _call(store.remove, services.database, player.id, player_id)
    await _drop_invitations(services, player.id, player_id)
    _changed(services, player.id, player_id)


@router.post("/blocks", status_code=201)
async def block(
    services: ServicesDep, player: PlayerDep, body: Annotated[BlockIn, Body()]
) -> dict[str, Any]:
    """Block a player: friendship and requests between us end; they can no longer request,
    invite or chat to me (a table refuses their chat line while I sit there), nor see my
    presence."""
    target = await _call(store.block, services.database, player.id, body.player_id)
    await _drop_invitations(services, player.id, target.id)
    _changed(services, player.id, target.id)
    return {"status": "blocked", "player": target.to_json()}


@router.post("/blocks/{player_id}/remove", status_code=204)
async def unblock(services: ServicesDep, player: PlayerDep, player_id: PlayerIdPath) -> None:
    await _call(store.unblock, services.database, player.id, player_id)
    _changed(services, player.id)


@router.post("/settings")
async def settings(
    services: ServicesDep, player: PlayerDep, body: Annotated[SettingsIn, Body()]
) -> dict[str, Any]:
    """``appear_offline``: my friends see me offline (no presence is written at all)."""
    await _call(store.set_appear_offline, services.database, player.id, body.appear_offline)
    _hub(services).publish({"k": "settings", "p": player.id, "hidden": body.appear_offline})
    return {"appear_offline": body.appear_offline}


# --- invitations and joining -----------------------------------------------------------------


async def _read_table(services: Services, table_id: str) -> Any:
    try:
        table, _ = await services.tables.read(table_id)
    except TableError as exc:
        _fail(404, exc.code, exc.message)
    return table


@router.post("/invites", status_code=201)
async def invite(
    services: ServicesDep, player: PlayerDep, body: Annotated[InviteIn, Body()]
) -> dict[str, Any]:
    """The host invites a friend to a free seat (the first open one unless ``seat``). The
    friend sees it on the lobby socket at once; it goes when the seat fills or the game
    starts."""
    hub = _hub(services)
    friends = await _call(store.friend_ids, services.database, player.id)
    if body.player_id not in friends:
        _fail(403, "not_friends", "you can invite only your friends")
    table = await _read_table(services, body.table_id)
    if table.host != player.id or table.seat_of(player.id) is None:
        _fail(403, "not_host", "only the table's host, seated, invites to its seats")
    if table.status != "waiting":
        _fail(409, "table_started", "the game has started: invite before it starts")
    if table.seat_of(body.player_id) is not None:
        _fail(409, "already_seated", "your friend already sits at this table")
    seat = body.seat
    if seat is None:
        seat = next((i for i, s in enumerate(table.seats) if s.kind == "open"), None)
        if seat is None:
            _fail(409, "table_full", "no seat of this table is free")
    elif not seat_free(table, seat):
        _fail(409, "seat_taken", f"seat {seat} is not free", {"seat": seat})
    await _limit(
        services,
        "invitations",
        INVITES_PER_PLAYER,
        INVITE_WINDOW_SECONDS,
        "too_many_invites",
        "invitations",
        player.id,
    )
    path = f"/?table={table.id}" + (f"&invite={table.invite}" if table.private else "")
    made = await hub.invites.add(
        body.player_id,
        {
            "table_id": table.id,
            "seat": seat,
            "preset": table.preset,
            # the game's short name on the invitation (alerts.js tableName: alerts.game.<game>)
            "game": engine.PRESETS[table.preset].game if table.preset in engine.PRESETS else None,
            "private": table.private,
            "players": len(table.seats),
            "free": sum(1 for s in table.seats if s.kind == "open"),
            "from": {"id": player.id, "name": player.name},
            "path": path,
        },
    )
    hub.publish({"k": "invite", "to": body.player_id, "m": {"type": "invite", "invite": made}})
    # The notice names the table but never carries its invitation path (a private table's code)
    await services.notifier.send(
        body.player_id, "invitation", table_id=table.id, data={"from": player.name}
    )
    return {"invite": {k: v for k, v in made.items() if k != "path"}}


@router.get("/invites")
async def invites(services: ServicesDep, player: PlayerDep) -> dict[str, Any]:
    """My waiting invitations (those whose seat is still free)."""
    return {"invites": await _hub(services).valid_invites(player.id)}


def _gone(services: Services, player_id: str, invite_id: str) -> None:
    _hub(services).publish(
        {"k": "invite_gone", "to": player_id, "m": {"type": "invite_gone", "id": invite_id}}
    )


@router.post("/invites/{invite_id}/accept")
async def accept_invite(
    services: ServicesDep, player: PlayerDep, invite_id: InviteIdPath
) -> dict[str, Any]:
    """Take the invited seat: one click from the lobby, then the page opens the table."""
    hub = _hub(services)
    found = await hub.invites.get(player.id, invite_id)
    if found is None:
        _fail(404, "no_invite", "there is no such invitation (it may have expired)")
    if not await hub.from_friends(player.id, [found]):
        # unfriended or blocked since it was sent (checked now, not when it was stored)
        await hub.invites.drop(player.id, invite_id)
        _gone(services, player.id, invite_id)
        _fail(410, "invite_withdrawn", "you are no longer friends with who invited you")
    table = await _read_table(services, str(found["table_id"]))
    seat = int(found["seat"])
    if not seat_free(table, seat):
        await hub.invites.drop(player.id, invite_id)
        _gone(services, player.id, invite_id)
        _fail(410, "invite_expired", "the seat was taken or the game started")
    try:
        await services.tables.sit(table.id, Actor(player.id, player.name), seat)
    except TableError as exc:
        _fail(409, exc.code, exc.message, exc.values)
    await hub.invites.drop(player.id, invite_id)
    _gone(services, player.id, invite_id)
    return {"table_id": table.id, "seat": seat, "path": found["path"]}


@router.post("/invites/{invite_id}/decline", status_code=204)
async def decline_invite(services: ServicesDep, player: PlayerDep, invite_id: InviteIdPath) -> None:
    if not await _hub(services).invites.drop(player.id, invite_id):
        _fail(404, "no_invite", "there is no such invitation (it may have expired)")
    _gone(services, player.id, invite_id)


@router.post("/join")
async def join(
    services: ServicesDep, player: PlayerDep, body: Annotated[JoinIn, Body()]
) -> dict[str, Any]:
    """Take the first free seat of a friend's public table (one click from the lobby)."""
    table = await _read_table(services, body.table_id)
    if table.private:
        _fail(403, "forbidden", "this table is private: you need an invitation")
    seated = [s.player_id for s in table.seats if s.kind == "human" and s.player_id]
    if await _call(store.blockers_among, services.database, player.id, seated):
        _fail(403, "blocked", "you cannot sit at this table")
    seat = next((i for i in range(len(table.seats)) if seat_free(table, i)), None)
    if seat is None:
        _fail(409, "table_full", "no seat of this table is free (watch it instead)")
    try:
        await services.tables.sit(table.id, Actor(player.id, player.name), seat)
    except TableError as exc:
        _fail(409, exc.code, exc.message, exc.values)
    return {"table_id": table.id, "seat": seat, "path": f"/?table={table.id}"}
