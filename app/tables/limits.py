"""How many live tables one creator may have at once, per player and per client address,
counted in Redis so that every instance enforces the same count.

Each creator (the player, and the client address the table was created from) has a sorted
set of the tables charged to it: table id -> expiry (ms). A new table is added by one
script that first checks every set against its limit, so two instances can never both take
the last slot. Nothing on the move path touches these sets. A set that is full by its raw
size is looked at again before the creator is refused: each of its tables is read (one GET
and one PTTL), and the script gets what they are now:

- gone (expired, or never written): removed from the sets;
- over (the game finished or was abandoned): kept but not counted, since a rematch at the
  table makes it count again;
- another player is now its host (the creator left and someone took over): removed from
  the creator's player set; it still counts for the address until it ends, so handing a
  table to a second identity from the same address frees nothing there;
- otherwise it counts, with its real expiry as its score (for Retry-After).

A table nobody sits at any more expires soon (``empty_table_ttl_seconds``), so leaving a
table one no longer wants frees its slot within minutes. A set expires KEY_LIFETIME_MS after
its creator last created or tried to create a table: the backstop, so that no count can
stay up forever.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from app.settings import Settings
from app.store import keys
from app.store.codec import BadState, decode_state
from app.tables.errors import TableError

# A creator's set lives this long after their last creation or attempt (see above).
KEY_LIFETIME_MS = 24 * 3600 * 1000
# A table reserved this recently but not written yet is being created: it counts.
PENDING_MS = 30_000

# Add a table to every creator set, unless one of them is at its limit.
# KEYS: the creators' sets.
# ARGV: 1 table id, 2 its expiry (ms), 3 the sets' lifetime (ms), then for each key in turn:
#       its limit, U (updates), D (not counted), U x (member, new score or '-' to remove),
#       D x member.
# Members named "not counted" (finished tables) are left out of the count while they are
# still in the set. Returns 0 when the table was added to every set, else the (1-based)
# index of the first set at its limit.
RESERVE = """
local pos = 4
local blocked = 0
for k = 1, #KEYS do
  local limit = tonumber(ARGV[pos])
  local u = tonumber(ARGV[pos + 1])
  local d = tonumber(ARGV[pos + 2])
  pos = pos + 3
  for i = 1, u do
    if ARGV[pos + 1] == '-' then
      redis.call('ZREM', KEYS[k], ARGV[pos])
    else
      redis.call('ZADD', KEYS[k], 'XX', ARGV[pos + 1], ARGV[pos])
    end
    pos = pos + 2
  end
  local count = redis.call('ZCARD', KEYS[k])
  for i = 1, d do
    if redis.call('ZSCORE', KEYS[k], ARGV[pos]) then
      count = count - 1
    end
    pos = pos + 1
  end
  if blocked == 0 and count >= limit then
    blocked = k
  end
end
for k = 1, #KEYS do
  if blocked == 0 then
    redis.call('ZADD', KEYS[k], ARGV[2], ARGV[1])
  end
  if redis.call('EXISTS', KEYS[k]) == 1 then
    redis.call('PEXPIRE', KEYS[k], ARGV[3])
  end
end
return blocked
"""

OwnerKind = Literal["player", "address"]


class TooManyTables(TableError):
    """The creator already has as many live tables as allowed (HTTP 429, with Retry-After)."""

    def __init__(self, kind: OwnerKind, limit: int, retry_after: int) -> None:
        if kind == "player":
            message = f"you already host {limit} live tables, the most one player may have at once"
        else:
            message = (
                f"{limit} live tables were already created from your network address, the "
                "most at once"
            )
        super().__init__(
            "too_many_tables",
            f"{message}: finish a game or leave a table you no longer want, or try again in "
            f"{retry_after} s",
        )
        self.kind = kind
        self.limit = limit
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class _Owner:
    key: str
    kind: OwnerKind
    limit: int


@dataclass(frozen=True, slots=True)
class _Seen:
    """What a charged table is now."""

    status: str
    host: str | None
    expires_ms: float


class HostingLimits:
    """Live tables per creating player and per client address (settings
    ``max_tables_per_host`` and ``max_tables_per_address``; 0 = no limit)."""

    def __init__(self, redis: Any, settings: Settings, *, namespace: str) -> None:
        self.redis = redis
        self.settings = settings
        self.namespace = namespace  # the table store's (that of the settings in a server)
        self._reserve = redis.register_script(RESERVE)

    def _owners(self, player_id: str, address: str | None) -> list[_Owner]:
        ns = self.namespace
        owners = []
        if self.settings.max_tables_per_host > 0:
            key = keys.hosting_key(ns, "player:" + player_id)
            owners.append(_Owner(key, "player", self.settings.max_tables_per_host))
        if address is not None and self.settings.max_tables_per_address > 0:
            digest = hashlib.sha256(address.encode()).hexdigest()[:32]  # no raw address kept
            key = keys.hosting_key(ns, "address:" + digest)
            owners.append(_Owner(key, "address", self.settings.max_tables_per_address))
        return owners

    async def reserve(
        self, table_id: str, player_id: str, address: str | None, now_ms: float
    ) -> list[str]:
        """Charge a new table to its creator (and their address, when known); raise
        TooManyTables if either already has its limit of live tables. Returns the keys
        charged, for ``release`` if the table is not created after all."""
        owners = self._owners(player_id, address)
        if not owners:
            return []
        expires_ms = int(now_ms + self.settings.idle_table_ttl_seconds * 1000)
        # Most creations are far below the limits: one script, no table reads.
        args: list[Any] = [table_id, expires_ms, KEY_LIFETIME_MS]
        for owner in owners:
            args += [owner.limit, 0, 0]
        blocked = int(await self._reserve(keys=[o.key for o in owners], args=args))
        if blocked == 0:
            return [o.key for o in owners]
        # A set is full by its size: look at what its tables are now and try again.
        members = await self._members(owners)
        seen = await self._look({m for entries in members for m in entries}, now_ms)
        args = [table_id, expires_ms, KEY_LIFETIME_MS]
        counted: list[list[float]] = []
        for owner, entries in zip(owners, members, strict=True):
            updates: list[Any] = []
            not_counted: list[str] = []
            expiries: list[float] = []
            for member, score in entries.items():
                now_is = seen.get(member)
                if now_is is None:
                    if score >= now_ms + self.settings.idle_table_ttl_seconds * 1000 - PENDING_MS:
                        expiries.append(score)  # being created right now
                    else:
                        updates += [member, "-"]
                    continue
                if owner.kind == "player" and now_is.host not in (None, player_id):
                    updates += [member, "-"]
                    continue
                updates += [member, int(now_is.expires_ms)]
                if now_is.status == "over":
                    not_counted.append(member)
                else:
                    expiries.append(now_is.expires_ms)
            args += [owner.limit, len(updates) // 2, len(not_counted), *updates, *not_counted]
            counted.append(expiries)
        blocked = int(await self._reserve(keys=[o.key for o in owners], args=args))
        if blocked == 0:
            return [o.key for o in owners]
        owner = owners[blocked - 1]
        expiries = counted[blocked - 1]
        # A slot is sure to be free when the first of the counted tables expires (one that
        # another instance added meanwhile is not known here: then a short wait).
        first = min(expiries) if expiries else now_ms + 1000
        raise TooManyTables(owner.kind, owner.limit, max(1, math.ceil((first - now_ms) / 1000)))

    async def release(self, table_id: str, charged: list[str]) -> None:
        """Take back a reservation whose table was not created."""
        if charged:
            pipe = self.redis.pipeline(transaction=False)
            for key in charged:
                pipe.zrem(key, table_id)
            await pipe.execute()

    async def _members(self, owners: list[_Owner]) -> list[dict[str, float]]:
        pipe = self.redis.pipeline(transaction=False)
        for owner in owners:
            pipe.zrange(owner.key, 0, -1, withscores=True)
        replies = await pipe.execute()
        return [{_text(m): float(s) for m, s in reply} for reply in replies]

    async def _look(self, table_ids: set[str], now_ms: float) -> dict[str, _Seen]:
        """What each table is now (absent: gone)."""
        ids = sorted(table_ids)
        if not ids:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for table_id in ids:
            pipe.get(keys.state_key(table_id))
            pipe.pttl(keys.version_key(table_id))
        replies = await pipe.execute()
        seen: dict[str, _Seen] = {}
        for i, table_id in enumerate(ids):
            blob, pttl = replies[2 * i], int(replies[2 * i + 1])
            if blob is None or pttl == -2:
                continue
            try:
                stored = orjson.loads(decode_state(blob))
                status, host = str(stored["status"]), stored.get("host")
            except (orjson.JSONDecodeError, BadState, KeyError, TypeError):
                continue  # not a table this code wrote: not counted
            ttl_ms = pttl if pttl >= 0 else self.settings.idle_table_ttl_seconds * 1000
            seen[table_id] = _Seen(status, host, now_ms + ttl_ms)
        return seen


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
