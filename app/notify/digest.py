"""Turn e-mails in digests: a player's first "your turn" (or "time almost up") e-mail goes at
once and opens a window of HEARTS_EMAIL_DIGEST_MINUTES; the turn notices that come while it is
open are collected in Redis and sent as one e-mail when it closes ("3 games wait for you"), so a
player in many turn-based games gets a few e-mails a day, not one per move.

The window is one key per player (``SET NX PX``, any instance); the notices wait in a list
beside it. The instance that opened the window sends the digest when it closes; if that
instance stops first, the collected notices expire with their list (they were turn reminders:
the player's My games page still lists every game waiting).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from app.notify.service import Notice

log = logging.getLogger(__name__)

DIGEST_KINDS = frozenset({"your_turn", "time_almost_up"})


def window_key(namespace: str, player_id: str) -> str:
    return f"{{{namespace}:mail}}:window:{player_id}"


def pending_key(namespace: str, player_id: str) -> str:
    return f"{{{namespace}:mail}}:pending:{player_id}"


class Digests:
    def __init__(
        self,
        redis: Any,
        namespace: str,
        window_seconds: float,
        send_digest: Callable[[str, list[Notice]], Awaitable[None]],
    ) -> None:
        self.redis = redis
        self.namespace = namespace
        self.window_ms = int(window_seconds * 1000)
        self.send_digest = send_digest
        self._timers: set[asyncio.TimerHandle] = set()
        self._tasks: set[asyncio.Task[int]] = set()

    async def now_or_later(self, notice: Notice) -> bool:
        """True: send this notice's e-mail now (a window opened); False: it waits for the
        digest of the window already open."""
        opened = await self.redis.set(
            window_key(self.namespace, notice.player_id), b"1", nx=True, px=self.window_ms
        )
        if opened:
            self._close_later(notice.player_id)
            return True
        pending = pending_key(self.namespace, notice.player_id)
        item = orjson.dumps(
            {"kind": notice.kind, "table": notice.table_id, "data": dict(notice.data)},
            default=str,
        )
        pipe = self.redis.pipeline(transaction=True)
        pipe.rpush(pending, item)
        pipe.pexpire(pending, self.window_ms * 2)
        await pipe.execute()
        return False

    def _close_later(self, player_id: str) -> None:
        loop = asyncio.get_running_loop()
        handle = loop.call_later(self.window_ms / 1000, self._close, player_id)
        self._timers.add(handle)

    def _close(self, player_id: str) -> None:
        task = asyncio.get_running_loop().create_task(self.flush(player_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self, player_id: str) -> int:
        """Send what the window collected (one e-mail); a new window opens if there was any,
        so a steady stream still gets one e-mail a window. Returns how many were collected."""
        pending = pending_key(self.namespace, player_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.lrange(pending, 0, -1)
        pipe.delete(pending)
        raw, _ = await pipe.execute()
        notices = []
        for item in raw or []:
            value = orjson.loads(item)
            notices.append(Notice(player_id, value["kind"], value["table"], value["data"]))
        if not notices:
            return 0
        if await self.redis.set(
            window_key(self.namespace, player_id), b"1", nx=True, px=self.window_ms
        ):
            self._close_later(player_id)
        try:
            await self.send_digest(player_id, notices)
        except Exception:
            log.exception("could not send the digest e-mail of %s", player_id)
        return len(notices)

    async def close(self) -> None:
        for handle in self._timers:
            handle.cancel()
        self._timers.clear()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
