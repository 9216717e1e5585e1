"""FastAPI dependencies of the persistence API, read from the app's state.

Each is looked up on `app.state` first, then on `app.state.services` (the server's bundle):
- the database: `state.database`, else `state.services.database` (an `app.db.Database`);
- Redis: `state.redis`, else `state.services.redis` (asyncio client or fakeredis; without one,
  logins are not rate-limited);
- the token secret: `state.secret_key`, else `state.settings.effective_secret()`, else
  `state.settings.secret_key`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from app.db.auth import verify_token
from app.db.database import Database
from app.db.players import PlayerInfo

TOKEN_COOKIE = "hearts_token"

_bearer = HTTPBearer(auto_error=False, description="a session token from login or register")


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
BearerDep = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def get_token(request: Request, bearer: BearerDep) -> str | None:
    if bearer is not None and bearer.credentials:
        return bearer.credentials
    return request.cookies.get(TOKEN_COOKIE) or None


TokenDep = Annotated[str | None, Depends(get_token)]


async def get_optional_player(
    database: DatabaseDep, secret: SecretDep, token: TokenDep
) -> PlayerInfo | None:
    if not token:
        return None
    return await run_in_threadpool(verify_token, database, token, secret)


OptionalPlayerDep = Annotated[PlayerInfo | None, Depends(get_optional_player)]


async def get_player(player: OptionalPlayerDep) -> PlayerInfo:
    if player is None:
        raise HTTPException(
            401,
            detail={"code": "not_signed_in", "message": "a valid session token is required"},
            headers={"WWW-Authenticate": "Bearer"},
        )
    return player


PlayerDep = Annotated[PlayerInfo, Depends(get_player)]
