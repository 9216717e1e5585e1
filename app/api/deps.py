"""Who is asking: one way to sign a request, the same for every route.

A request is signed by ``Authorization: Bearer <token>`` (API clients) or by the HttpOnly
cookie ``hearts_token`` (the page; app/api/security.py sets it). The header wins when both
are there. An unsafe request (POST, PUT, PATCH, DELETE) signed only by the cookie must also
carry ``X-Requested-With`` (a cross-site form cannot send it): without it the cookie is not
used. Refusals: 401 ``no_token`` (nothing usable), 401 ``bad_token`` (an unknown, expired or
revoked token; a cookie that holds one is cleared), 403 ``csrf_header_missing``.

The app's objects are looked up on ``app.state`` first, then on ``app.state.services`` (the
server's bundle), so the account routes also run in a bare app (their tests):
- the database: ``state.database``, else ``state.services.database``;
- Redis: ``state.redis``, else ``state.services.redis`` (None: logins are not throttled);
- the token secret: ``state.secret_key``, else ``state.settings.effective_secret()``, else
  ``state.settings.secret_key``.
Tokens are checked through ``services.identity`` (which caches them briefly and forgets a
player's tokens when a session ends anywhere) when the server is there, else in SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, Response
from starlette.concurrency import run_in_threadpool

from app.api.security import CSRF_HEADER, SESSION_COOKIE, UNSAFE_METHODS, clear_session_cookie
from app.db.auth import verify_token
from app.db.database import Database
from app.db.players import PlayerInfo
from app.services import Services

TOKEN_COOKIE = SESSION_COOKIE


def _state(request: Request, name: str) -> Any:
    state = request.app.state
    value = getattr(state, name, None)
    if value is None:
        value = getattr(getattr(state, "services", None), name, None)
    return value


def get_database(request: Request) -> Database:
    database = _state(request, "database")
    if database is None:
        raise HTTPException(503, detail={"code": "no_database", "message": "no database"})
    return database  # type: ignore[no-any-return]


def get_secret(request: Request) -> str:
    secret = getattr(request.app.state, "secret_key", None)
    settings = getattr(request.app.state, "settings", None)
    if not secret and callable(getattr(settings, "effective_secret", None)):
        secret = settings.effective_secret()  # type: ignore[union-attr]
    if not secret:
        secret = getattr(settings, "secret_key", None)
    if not secret:
        raise HTTPException(503, detail={"code": "no_secret", "message": "no secret key set"})
    return str(secret)


def get_redis(request: Request) -> Any:
    return _state(request, "redis")


DatabaseDep = Annotated[Database, Depends(get_database)]
SecretDep = Annotated[str, Depends(get_secret)]
RedisDep = Annotated[Any, Depends(get_redis)]


@dataclass(frozen=True, slots=True)
class Credential:
    token: str
    from_cookie: bool


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def get_credential(request: Request) -> Credential | None:
    """The request's session token and where it came from (the Bearer header wins)."""
    token = bearer_token(request)
    if token is not None:
        return Credential(token, from_cookie=False)
    cookie = request.cookies.get(SESSION_COOKIE)
    return Credential(cookie, from_cookie=True) if cookie else None


CredentialDep = Annotated[Credential | None, Depends(get_credential)]


def csrf_ok(request: Request, credential: Credential) -> bool:
    """A cookie signs an unsafe request only with the custom header next to it."""
    return (
        not credential.from_cookie
        or request.method not in UNSAFE_METHODS
        or bool(request.headers.get(CSRF_HEADER))
    )


def get_token(credential: CredentialDep) -> str | None:
    return credential.token if credential is not None else None


TokenDep = Annotated[str | None, Depends(get_token)]


async def verify(request: Request, token: str) -> PlayerInfo | None:
    """The player of a token, through the server's identity cache when there is one."""
    services = getattr(request.app.state, "services", None)
    if services is not None:
        player: PlayerInfo | None = await services.identity.verify(token)
        return player
    return await run_in_threadpool(verify_token, get_database(request), token, get_secret(request))


async def get_optional_player(request: Request, credential: CredentialDep) -> PlayerInfo | None:
    """The signed-in player, or None (no token, a bad one, or a cookie without its header)."""
    if credential is None or not csrf_ok(request, credential):
        return None
    return await verify(request, credential.token)


OptionalPlayerDep = Annotated[PlayerInfo | None, Depends(get_optional_player)]


def _unauthorized(code: str, message: str, clear_cookie_of: Request | None = None) -> HTTPException:
    headers = {"WWW-Authenticate": "Bearer"}
    if clear_cookie_of is not None:
        cleared = Response()
        clear_session_cookie(cleared, clear_cookie_of)
        headers["Set-Cookie"] = cleared.headers["set-cookie"]
    return HTTPException(401, detail={"code": code, "message": message}, headers=headers)


async def current_player(request: Request, credential: CredentialDep) -> PlayerInfo:
    if credential is None:
        raise _unauthorized("no_token", "sign in first (a guest name is enough)")
    if not csrf_ok(request, credential):
        raise HTTPException(
            403,
            detail={
                "code": "csrf_header_missing",
                "message": f"a request signed by the session cookie needs the {CSRF_HEADER} "
                "header (or sign it with Authorization: Bearer)",
            },
        )
    player = await verify(request, credential.token)
    if player is None:
        raise _unauthorized(
            "bad_token",
            "the session token is invalid or expired",
            clear_cookie_of=request if credential.from_cookie else None,
        )
    return player


PlayerDep = Annotated[PlayerInfo, Depends(current_player)]


def get_services(request: Request) -> Services:
    """The server's services (app/services.py), set on the app at start-up."""
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]
