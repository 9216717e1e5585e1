"""The notification routes (docs/notifications.md): a player's choices per kind and channel,
their devices' Web Push subscriptions, and the VAPID public key the browser subscribes with.

Every refusal is ``{"detail": {"code", "message"}}`` with a stable code; a refused call
changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, NoReturn

from fastapi import APIRouter, Body, Depends, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.api.deps import PlayerDep
from app.api.strict import StrictRoute
from app.db import Database
from app.notify import store
from app.notify.endpoints import endpoint_problem
from app.notify.service import KINDS, Notifier
from app.notify.vapid import b64url_decode
from app.settings import Settings

router = APIRouter(prefix="/api/notify", tags=["notifications"], route_class=StrictRoute)

MAX_ENDPOINT_CHARS = 2048


@dataclass(frozen=True, slots=True)
class Context:
    """What the notification routes use of the app (read from ``app.state``, so that this
    package needs nothing of app.services, which holds the notifier)."""

    database: Database
    settings: Settings
    redis: Any
    notifier: Notifier


def get_context(request: Request) -> Context:
    state = request.app.state
    return Context(state.database, state.settings, state.redis, state.services.notifier)


ContextDep = Annotated[Context, Depends(get_context)]


def fail(status: int, code: str, message: str) -> NoReturn:
    raise HTTPException(status, detail={"code": code, "message": message})


class ChannelsIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    push: bool | None = None
    email: bool | None = None


class KeysIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    p256dh: str = Field(min_length=80, max_length=128)
    auth: str = Field(min_length=16, max_length=64)


class SubscriptionIn(BaseModel):
    """The browser's PushSubscription.toJSON() (expirationTime is taken and ignored)."""

    model_config = ConfigDict(strict=True, extra="forbid")

    endpoint: str = Field(min_length=12, max_length=MAX_ENDPOINT_CHARS)
    keys: KeysIn
    expirationTime: int | float | None = None  # noqa: N815 - the browser's name


class EndpointIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    endpoint: str = Field(min_length=12, max_length=MAX_ENDPOINT_CHARS)


def check_keys(keys: KeysIn) -> None:
    """A P-256 public key (65 bytes, uncompressed, on the curve) and a 16-byte secret."""
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        point = b64url_decode(keys.p256dh)
        secret = b64url_decode(keys.auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, TypeError):
        fail(422, "bad_subscription", "keys.p256dh is not a P-256 public key in base64url")
    if len(point) != 65 or len(secret) != 16:
        fail(422, "bad_subscription", "keys.p256dh is 65 bytes and keys.auth 16, in base64url")


def check_endpoint(endpoint: str, *, private_allowed: bool) -> None:
    """A push service's https URL on a public address (app/notify/endpoints.py)."""
    problem = endpoint_problem(endpoint, private_allowed=private_allowed)
    if problem:
        fail(422, "bad_subscription", problem)


@router.get("/settings")
async def get_settings(services: ContextDep, player: PlayerDep) -> dict[str, Any]:
    """My choices per kind and channel, my address and how many devices get pushes."""
    database = services.database
    choices = await run_in_threadpool(store.choices, database, player.id)
    address = await run_in_threadpool(store.address_of, database, player.id)
    devices = await run_in_threadpool(store.subscriptions, database, player.id)
    return {
        "kinds": list(KINDS),
        "choices": choices,
        "email": None
        if address is None
        else {"address": address.address, "verified": address.verified},
        "email_allowed": not player.is_guest,
        "devices": len(devices),
        "devices_max": services.settings.push_subscriptions_per_player,
    }


@router.put("/settings")
async def put_settings(
    services: ContextDep,
    player: PlayerDep,
    body: Annotated[dict[str, ChannelsIn], Body(max_length=len(KINDS))],
) -> dict[str, Any]:
    """Change some choices: ``{"your_turn": {"push": false}, ...}``; every choice back."""
    changes: dict[str, dict[str, bool]] = {}
    for kind, channels in body.items():
        if kind not in KINDS:
            fail(422, "unknown_kind", f"{kind!r} is not a kind; one of {', '.join(KINDS)}")
        changes[kind] = channels.model_dump(exclude_none=True)
    choices = await run_in_threadpool(store.set_choices, services.database, player.id, changes)
    return {"choices": choices}


@router.get("/push/key")
async def push_key(services: ContextDep) -> dict[str, str]:
    """The server's VAPID public key (the browser's applicationServerKey)."""
    signer = await run_in_threadpool(services.notifier.push.signer)
    return {"public_key": signer.public_key}


@router.post("/push/subscriptions", status_code=201)
async def subscribe(
    services: ContextDep, player: PlayerDep, body: Annotated[SubscriptionIn, Body()]
) -> dict[str, Any]:
    """Keep this device's subscription; past HEARTS_PUSH_SUBSCRIPTIONS_PER_PLAYER devices the
    oldest is dropped (``dropped`` says how many)."""
    check_keys(body.keys)
    await run_in_threadpool(
        check_endpoint,
        body.endpoint,
        private_allowed=services.settings.push_private_endpoints,
    )
    _subscription, dropped = await run_in_threadpool(
        store.subscribe,
        services.database,
        player.id,
        body.endpoint,
        body.keys.p256dh,
        body.keys.auth,
        most=services.settings.push_subscriptions_per_player,
    )
    return {"ok": True, "dropped": dropped}


@router.post("/push/subscriptions/remove", status_code=204)
async def unsubscribe(
    services: ContextDep, player: PlayerDep, body: Annotated[EndpointIn, Body()]
) -> Response:
    """Forget this device (the page turned pushes off)."""
    if not await run_in_threadpool(store.unsubscribe, services.database, player.id, body.endpoint):
        fail(404, "no_subscription", "this device has no push subscription for you")
    return Response(status_code=204)
