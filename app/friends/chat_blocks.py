"""Whether a table refuses a player's chat because someone seated there blocked them.

A table's chat line is checked against the blocks of the humans seated at it (a block stops
chat as well as requests and invitations: app/friends/store.py). The answer is kept a few
seconds per (table, player), so a busy chat costs one SQL read per player every
``CHAT_CHECK_SECONDS``; any block or unblock announced on the friends channel forgets them all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool

from app.db.database import Database
from app.friends import store

CHAT_CHECK_SECONDS = 10.0
# Answers kept at most; past it the cache starts again empty.
MAX_KEPT = 10_000


class ChatBlocks:
    def __init__(self, database: Database, read_table: Callable[[str], Any] | None) -> None:
        self.database = database
        self.read_table = read_table  # async: table id -> (Table, state)
        self._checks: dict[tuple[str, str], tuple[float, bool]] = {}

    async def refused(self, table_id: str, player_id: str) -> bool:
        """Whether someone seated at the table blocked this player: the table then refuses
        their chat line (``blocked``). Answers are kept ``CHAT_CHECK_SECONDS``."""
        now = time.monotonic()
        key = (table_id, player_id)
        hit = self._checks.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        if self.read_table is None:
            return False
        table, _ = await self.read_table(table_id)
        others = [
            s.player_id
            for s in table.seats
            if s.kind == "human" and s.player_id and s.player_id != player_id
        ]
        refused = False
        if others:
            refused = await run_in_threadpool(store.blocked_by, self.database, player_id, others)
        if len(self._checks) > MAX_KEPT:
            self._checks.clear()
        self._checks[key] = (now + CHAT_CHECK_SECONDS, refused)
        return refused

    def forget(self) -> None:
        """Every kept answer dropped (a block came or went somewhere)."""
        self._checks.clear()
