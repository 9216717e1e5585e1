"""Rated tables: who may sit at one, the growing ban of players who abandon rated games, and
the digest that lets a table tell players who share an address without showing it.

A rated table (``Table.rated``, chosen at creation) differs from a casual one in its rules:

- only registered players who have finished ``rated_min_games`` games sit at it (checked
  against SQL by the gate the app gives the service, ``RatedGate``: app.db.rated);
- a player who leaves its game before the end is ranked last (app.db.ratings) and their
  abandon is counted here; from the ``rated_free_abandons + 1``-th abandon within
  ``ABANDON_WINDOW_MS`` they may not join a rated table for ``rated_ban_minutes``, doubled
  for each further abandon (at most ``MAX_BAN_MS``); the refusal says until when;
- no hints (a table option that a rated table refuses) and no take-backs;
- at a public rated table, two players from one address are not seated together.

Abandons live in Redis (one sorted set per player, abandon time -> time, expiring with the
window), written right after the leave is committed: a ban must hold from that moment, not
from when the game's record reaches SQL.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from app.settings import Settings
from app.tables.errors import TableError

# The app's check of a player against SQL (registered, enough finished games); raises
# TableError (rated_guest, rated_games_needed).
RatedGate = Callable[[str], Awaitable[None]]

ABANDON_WINDOW_MS = 30 * 24 * 3600 * 1000  # abandons older than this are forgotten
MAX_BAN_MS = 7 * 24 * 3600 * 1000


class RatedBanned(TableError):
    """A player banned from rated tables until ``until_ms`` (epoch ms)."""

    def __init__(self, until_ms: float, now_ms: float) -> None:
        until = datetime.fromtimestamp(until_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
        super().__init__(
            "rated_banned",
            f"after leaving rated games you may join a rated table from {until}",
            {"until": round(until_ms)},  # the page shows it in the player's time zone
        )
        self.until_ms = until_ms
        self.retry_after = max(1, round((until_ms - now_ms) / 1000))


def abandons_key(namespace: str, player_id: str) -> str:
    return f"{namespace}:rated:abandons:{player_id}"


def ban_until(abandon_times: list[float], settings: Settings) -> float | None:
    """When the ban earned by these abandons (epoch ms, any order) ends, or None: the k-th
    abandon past the free ones bans from its time for ``rated_ban_minutes * 2**(k-1)``."""
    free = settings.rated_free_abandons
    base = settings.rated_ban_minutes * 60_000
    until: float | None = None
    for k, at in enumerate(sorted(abandon_times), start=1):
        if k <= free or base <= 0:
            continue
        end = at + min(base * 2 ** (k - free - 1), MAX_BAN_MS)
        until = end if until is None else max(until, end)
    return until


class RatedRules:
    """The table service's part for rated tables: the SQL gate (set by the app; without one,
    only the ban is checked), the abandons in Redis, and the address digests."""

    def __init__(self, redis: Any, settings: Settings, namespace: str) -> None:
        self.redis = redis
        self.settings = settings
        self.namespace = namespace
        self.gate: RatedGate | None = None

    async def check_player(self, player_id: str, now_ms: float) -> None:
        """Raise TableError unless the player may sit at a rated table now."""
        until = ban_until(await self.abandons(player_id, now_ms), self.settings)
        if until is not None and until > now_ms:
            raise RatedBanned(until, now_ms)
        if self.gate is not None:
            await self.gate(player_id)

    async def record_abandon(
        self, player_id: str, now_ms: float, table_id: str, game_no: int
    ) -> None:
        key = abandons_key(self.namespace, player_id)
        # One member per game left: a resent leave does not count twice.
        await self.redis.zadd(key, {f"{table_id}:{game_no}": now_ms}, nx=True)
        await self.redis.zremrangebyscore(key, "-inf", now_ms - ABANDON_WINDOW_MS)
        await self.redis.pexpire(key, ABANDON_WINDOW_MS)

    async def abandons(self, player_id: str, now_ms: float) -> list[float]:
        key = abandons_key(self.namespace, player_id)
        got = await self.redis.zrangebyscore(
            key, now_ms - ABANDON_WINDOW_MS, "+inf", withscores=True
        )
        return [float(score) for _member, score in got]

    def digest(self, table_id: str, address: str | None) -> str | None:
        return address_digest(self.settings.effective_secret(), table_id, address)


def address_digest(secret: str, table_id: str, address: str | None) -> str | None:
    """A digest of a client's address group for one table: equal for two players of one
    address at that table, and telling nothing of the address (keyed with the server's
    secret, so it cannot be tried against every address)."""
    if not address:
        return None
    mac = hmac.new(secret.encode(), f"{table_id}\x00{address}".encode(), hashlib.sha256)
    return mac.hexdigest()[:16]


def refuse_hints(options: dict[str, object]) -> None:
    """A rated table takes no hints: the option, if the table has it, must stay off."""
    if options.get("hints"):
        raise TableError("rated_no_hints", "a rated table has no hints")
