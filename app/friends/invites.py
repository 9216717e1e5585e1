"""Invitations to a seat, in Redis: ``{<namespace>:invites}:<player id>``, a hash of the
player's waiting invitations (id -> JSON), kept ``INVITE_TTL_SECONDS`` after the last one.

An invitation is shown while its seat is free and its table has not started
(``seat_free``), and while the two players are still friends (a block or an unfriending drops
the invitations between them at once, both ways, and the friendship is checked again whenever
an invitation is listed or accepted); the instances holding the invitee's lobby sockets check
that every few seconds (app.friends.hub) and say ``invite_gone`` when it no longer holds.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import orjson

from app.store import keys

INVITE_TTL_SECONDS = 15 * 60
MAX_WAITING = 20  # invitations one player holds at once; the oldest go first


def invites_key(namespace: str, player_id: str) -> str:
    return keys.invites_key(namespace, player_id)


def seat_free(table: Any, seat: int) -> bool:
    """Whether ``seat`` of the table can still be taken by an invitee: the table waits for its
    game and the seat is open."""
    if table.status != "waiting" or not 0 <= seat < len(table.seats):
        return False
    return bool(table.seats[seat].kind == "open")


class Invitations:
    def __init__(self, redis: Any, namespace: str) -> None:
        self.redis = redis
        self.namespace = namespace

    async def add(self, to_id: str, invite: dict[str, Any]) -> dict[str, Any]:
        """Store an invitation (an ``id`` and ``at`` are added); one per table and invitee:
        inviting again to the same table replaces the earlier one."""
        key = invites_key(self.namespace, to_id)
        for old in await self.of(to_id):
            if old.get("table_id") == invite["table_id"]:
                await self.redis.hdel(key, old["id"])
        full = {**invite, "id": secrets.token_urlsafe(9), "at": int(time.time() * 1000)}
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, full["id"], orjson.dumps(full))
        pipe.expire(key, INVITE_TTL_SECONDS)
        await pipe.execute()
        waiting = await self.of(to_id)
        for old in waiting[: max(0, len(waiting) - MAX_WAITING)]:
            await self.redis.hdel(key, old["id"])
        return full

    async def of(self, player_id: str) -> list[dict[str, Any]]:
        """The player's invitations, oldest first."""
        raw = await self.redis.hgetall(invites_key(self.namespace, player_id))
        out = []
        for value in (raw or {}).values():
            try:
                out.append(orjson.loads(value))
            except orjson.JSONDecodeError:
                continue
        out.sort(key=lambda i: (i.get("at", 0), i.get("id", "")))
        return out

    async def get(self, player_id: str, invite_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(invites_key(self.namespace, player_id), invite_id)
        return None if raw is None else dict(orjson.loads(raw))

    async def drop(self, player_id: str, invite_id: str) -> bool:
        return bool(await self.redis.hdel(invites_key(self.namespace, player_id), invite_id))

    async def drop_between(self, a: str, b: str) -> dict[str, list[str]]:
        """Drop every invitation from ``a`` to ``b`` and from ``b`` to ``a`` (a block or an
        unfriending): the ids dropped, by the player who held them."""
        dropped: dict[str, list[str]] = {}
        for holder, sender in ((a, b), (b, a)):
            for invite in await self.of(holder):
                if sender_of(invite) == sender and await self.drop(holder, str(invite["id"])):
                    dropped.setdefault(holder, []).append(str(invite["id"]))
        return dropped


def sender_of(invite: dict[str, Any]) -> str | None:
    """The id of the player who sent ``invite``."""
    sender = invite.get("from")
    return str(sender["id"]) if isinstance(sender, dict) and "id" in sender else None
