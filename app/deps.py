"""What routes depend on: the per-app services and the signed-in player.

Everything hangs off ``app.state.services``, built by ``create_app`` at start-up; nothing
here is a module-level singleton.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, HTTPException, Request
from starlette.concurrency import run_in_threadpool

from app.db import Database
from app.db.players import PlayerInfo
from app.settings import Settings

if TYPE_CHECKING:
    from app.realtime.hub import Hubs
    from app.store import Fanout, TableStore
    from app.tables import TableService

TOKEN_CACHE_SECONDS = 30.0


class Identity:
    """Guests and session tokens, through app.db (the SQL side owns players)."""

    def __init__(self, database: Database, secret: str) -> None:
        self.database = database
        self.secret = secret
        self._cache: dict[str, tuple[float, PlayerInfo | None]] = {}

    def create_guest(self, name: str) -> tuple[PlayerInfo, str]:
        from app.db.auth import issue_token
        from app.db.players import create_guest

        player = create_guest(self.database, name)
        return player, issue_token(self.database, player.id, self.secret)

    async def verify(self, token: str) -> PlayerInfo | None:
        """The player of a token; results are cached briefly so reconnect storms skip SQL."""
        now = time.monotonic()
        hit = self._cache.get(token)
        if hit is not None and hit[0] > now:
            return hit[1]
        from app.db.auth import verify_token

        player = await run_in_threadpool(verify_token, self.database, token, self.secret)
        if len(self._cache) > 10_000:
            self._cache.clear()
        self._cache[token] = (now + TOKEN_CACHE_SECONDS, player)
        return player


@dataclass
class Services:
    settings: Settings
    instance_id: str
    redis: Any
    store: TableStore
    tables: TableService
    fanout: Fanout
    hubs: Hubs
    database: Database
    identity: Identity
    background: list[Any] = field(default_factory=list)


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


async def current_player(request: Request, services: ServicesDep) -> PlayerInfo:
    token = bearer_token(request)
    if token is None:
        raise HTTPException(
            401, detail={"code": "no_token", "message": "sign in first (Authorization: Bearer)"}
        )
    player = await services.identity.verify(token)
    if player is None:
        raise HTTPException(
            401, detail={"code": "bad_token", "message": "the session token is invalid or expired"}
        )
    return player


PlayerDep = Annotated[PlayerInfo, Depends(current_player)]
