"""FastAPI dependencies of the persistence API, read from the app's state.

The app sets `app.state.database` (`app.db.Database`), `app.state.redis` (an asyncio Redis client,
or fakeredis) and `app.state.settings.secret_key` (or `app.state.secret_key`, which wins, for a
secret made up at start).
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


def get_database(request: Request) -> Database:
    database = getattr(request.app.state, "database", None)
    if database is None:
        raise HTTPException(503, detail={"code": "no_database", "message": "no database"})
    return database  # type: ignore[no-any-return]


def get_secret(request: Request) -> str:
    secret = getattr(request.app.state, "secret_key", None)
    if not secret:
        settings = getattr(request.app.state, "settings", None)
        secret = getattr(settings, "secret_key", None)
    if not secret:
        raise HTTPException(503, detail={"code": "no_secret", "message": "no secret key set"})
    return str(secret)


def get_redis(request: Request) -> Any:
    return getattr(request.app.state, "redis", None)


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
