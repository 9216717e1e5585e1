"""Ending a session takes effect on open sockets at once, on every instance.

The account routes (``app.api.accounts``: logout, password change, account deletion) revoke
sessions in SQL. This ASGI middleware watches those three routes: when one succeeds it
publishes the player's id on the Redis channel ``<namespace>:sessions:changed``; each
instance then forgets that player's cached tokens and closes the sockets whose session
ended (``Identity.sessions_changed``). Every other request passes straight through.
"""

from __future__ import annotations

import logging
from http.cookies import SimpleCookie
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.store import keys

log = logging.getLogger(__name__)

SESSION_ROUTES = frozenset(("/api/account/logout", "/api/account/password", "/api/account/delete"))
TOKEN_COOKIE = "hearts_token"


def request_token(scope: Scope) -> str | None:
    """The session token of a request: ``Authorization: Bearer``, else the cookie."""
    cookie_header = ""
    headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
        elif name == b"cookie":
            cookie_header = value.decode("latin-1")
    if cookie_header:
        # Parsed as app.i18n parses the language cookie, each for its own cookie: a header that
        # does not parse means no token.
        cookies: SimpleCookie = SimpleCookie()
        try:
            cookies.load(cookie_header)
        except Exception:
            return None
        morsel = cookies.get(TOKEN_COOKIE)
        if morsel is not None and morsel.value:
            return str(morsel.value)
    return None


class SessionChanges:
    """Publish "this player's sessions changed" after a successful logout, password change
    or account deletion."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or scope.get("path") not in SESSION_ROUTES
        ):
            await self.app(scope, receive, send)
            return
        services: Any = getattr(scope["app"].state, "services", None)
        token = request_token(scope)
        player_id = None
        if services is not None and token is not None:
            # Who this is must be known before: after a deletion the token names nobody.
            player = await services.identity.verify(token)
            player_id = player.id if player is not None else None

        async def send_after_notice(message: Message) -> None:
            # The route has revoked the session in SQL when its answer starts: announce it
            # before the client hears back, so that it never sees a live socket after a 204.
            if (
                player_id is not None
                and message["type"] == "http.response.start"
                and 200 <= int(message["status"]) < 300
            ):
                await _announce(services, player_id)
            await send(message)

        await self.app(scope, receive, send_after_notice)


async def _announce(services: Any, player_id: str) -> None:
    channel = keys.sessions_channel(services.settings.redis_namespace)
    try:
        await services.redis.publish(channel, player_id)
    except Exception:
        # Other instances then keep the ended session for up to TOKEN_CACHE_SECONDS.
        log.exception("could not announce the end of a session of %s", player_id)
