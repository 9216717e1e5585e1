"""A shared replay room in Redis: who is in it, who drives, the position shown, the chat.

One hash per room (``app.store.keys.replay_room_key``: its own hash tag, so one slot on Redis
Cluster): ``v`` the version, ``s`` the state as JSON. Every change is one compare-and-set on
the version (a Lua script, as a table's commit), so two instances never both apply a change
made from the same version; the rules stay in Python (``app.api.replay_rooms``). A room lives
``TTL_SECONDS`` after its last change. Nothing here holds a card: the page reads the replay
itself from GET /api/games/{id}/replay, under that route's access rule, and the review of the
seat the room names (``review``) from GET /api/games/{id}/review, under that one's.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

import orjson

from app.store import keys

TTL_SECONDS = 4 * 3600
MAX_MEMBERS = 30
CHAT_KEPT = 100  # the last chat lines a room keeps

# KEYS: 1 the room's hash. ARGV: 1 expected version (0: the room must not exist yet),
# 2 the new state JSON, 3 ttl seconds. Returns {1, new_version} or {0, current_version}
# (0 when there is no such room).
UPDATE = """
local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if cur ~= tonumber(ARGV[1]) then
  return {0, cur}
end
local new = cur + 1
redis.call('HSET', KEYS[1], 'v', new, 's', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, new}
"""

# KEYS: 1 the room's hash. ARGV: 1 the field (``seen:<player id>``), 2 the time (ms). Only
# an existing room (an expired one is not made again without its TTL); no version change.
TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
return 0
"""


def new_room_id() -> str:
    """12 URL-safe characters (72 random bits): a room is found only through its link."""
    return secrets.token_urlsafe(9)


@dataclass(frozen=True, slots=True)
class Room:
    """One version of a room's state (``state``: the JSON object stored)."""

    id: str
    version: int
    state: dict[str, Any]

    @property
    def driver(self) -> str:
        return str(self.state["driver"])

    def is_member(self, player_id: str) -> bool:
        return any(m["id"] == player_id for m in self.state["members"])

    def public(self) -> dict[str, Any]:
        """What every member is sent (no share token, no card)."""
        s = self.state
        return {
            "id": self.id,
            "version": self.version,
            "game_id": s["game_id"],
            "driver": s["driver"],
            "members": s["members"],
            "position": s["position"],
            "steps": s["steps"],
            "review": s.get("review", {"seat": 0, "asked": 0}),
            "chat": s["chat"],
        }


class RoomStore:
    """Read and compare-and-set rooms in one deployment's namespace."""

    def __init__(self, redis: Any, namespace: str) -> None:
        self.redis = redis
        self.namespace = namespace
        self._update = redis.register_script(UPDATE)
        self._touch = redis.register_script(TOUCH)

    def key(self, room_id: str) -> str:
        return keys.replay_room_key(self.namespace, room_id)

    async def version(self, room_id: str) -> int:
        """The room's version; 0 when there is no such room (or it expired)."""
        raw = await self.redis.hget(self.key(room_id), "v")
        return 0 if raw is None else int(raw)

    async def load(self, room_id: str) -> Room | None:
        raw = await self.redis.hmget(self.key(room_id), ["v", "s"])
        if raw[0] is None or raw[1] is None:
            return None
        return Room(room_id, int(raw[0]), orjson.loads(raw[1]))

    async def save(self, room_id: str, expected: int, state: dict[str, Any]) -> int | None:
        """Store ``state`` if the room is still at version ``expected`` (0: a new room): the
        new version, else None (someone changed it first, or it is gone)."""
        ok, version = await self._update(
            keys=[self.key(room_id)], args=[expected, orjson.dumps(state), TTL_SECONDS]
        )
        return int(version) if int(ok) == 1 else None

    async def touch(self, room_id: str, player_id: str) -> None:
        """Note that a member's page is still there (it asked for the room just now)."""
        now = int(time.time() * 1000)
        await self._touch(keys=[self.key(room_id)], args=["seen:" + player_id, now])

    async def seen(self, room_id: str, player_id: str) -> float | None:
        """When a member's page last asked for the room (seconds since the epoch)."""
        raw = await self.redis.hget(self.key(room_id), "seen:" + player_id)
        return None if raw is None else int(raw) / 1000
