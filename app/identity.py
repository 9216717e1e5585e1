"""Who is signed in, for the server: guests and session tokens through app.db, verified
tokens cached briefly (reconnect storms skip SQL), and the open sockets of each player, closed
when a session ends on any instance (the ``sessions_changed`` channel).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool

from app.db import Database
from app.db.players import PlayerInfo

log = logging.getLogger(__name__)

TOKEN_CACHE_SECONDS = 30.0
TOKEN_CACHE_SIZE = 10_000


class SessionSocket:
    """An open socket signed in with a token, so that ending the session closes it."""

    def __init__(self, token: str, player_id: str, end: Callable[[], None]) -> None:
        self.token = token
        self.player_id = player_id
        self.end = end  # closes the socket with bad_token (4401)


class Identity:
    """Guests and session tokens, through app.db (the SQL side owns players).

    Verified tokens are cached briefly so reconnect storms skip SQL. A logout, a password
    change or an account deletion on any instance is announced on a Redis channel
    (``sessions_changed``); every instance then drops that player's cached tokens and checks
    each of the player's open sockets again, closing those whose session ended.
    """

    def __init__(self, database: Database, secret: str) -> None:
        self.database = database
        self.secret = secret
        self._cache: dict[str, tuple[float, PlayerInfo | None]] = {}
        self._tokens_of: dict[str, set[str]] = {}  # player id -> cached tokens
        self._sockets: dict[str, set[SessionSocket]] = {}  # player id -> open sockets
        self._tasks: set[asyncio.Task[None]] = set()

    def create_guest(self, name: str) -> tuple[PlayerInfo, str]:
        from app.db.auth import issue_token
        from app.db.players import create_guest

        player = create_guest(self.database, name)
        return player, issue_token(self.database, player.id, self.secret)

    async def verify(self, token: str, *, fresh: bool = False) -> PlayerInfo | None:
        """The player of a token (``fresh``: ask the database, not the cache)."""
        now = time.monotonic()
        hit = None if fresh else self._cache.get(token)
        if hit is not None and hit[0] > now:
            return hit[1]
        from app.db.auth import verify_token

        player = await run_in_threadpool(verify_token, self.database, token, self.secret)
        if len(self._cache) >= TOKEN_CACHE_SIZE:
            self._cache.clear()
            self._tokens_of.clear()
        self._cache[token] = (now + TOKEN_CACHE_SECONDS, player)
        if player is not None:
            self._tokens_of.setdefault(player.id, set()).add(token)
        return player

    # -- open sockets and ended sessions ---------------------------------------------------

    def track(self, socket: SessionSocket) -> None:
        self._sockets.setdefault(socket.player_id, set()).add(socket)

    def untrack(self, socket: SessionSocket) -> None:
        sockets = self._sockets.get(socket.player_id)
        if sockets is not None:
            sockets.discard(socket)
            if not sockets:
                del self._sockets[socket.player_id]

    def on_sessions_changed(self, _channel: str, data: bytes) -> None:
        """Pub/sub callback: a player's sessions changed somewhere (message: player id)."""
        task = asyncio.get_running_loop().create_task(self.sessions_changed(data.decode()))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def sessions_changed(self, player_id: str) -> None:
        """Forget the player's cached tokens and close their sockets whose session ended."""
        for token in self._tokens_of.pop(player_id, set()):
            self._cache.pop(token, None)
        for socket in list(self._sockets.get(player_id, ())):
            try:
                player = await self.verify(socket.token, fresh=True)
            except Exception:
                log.exception("could not check a session of player %s", player_id)
                continue
            if player is None or player.id != player_id:
                socket.end()
