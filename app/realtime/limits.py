"""Limits on sockets and messages, per player and per address, for every WebSocket endpoint.

What is counted where (docs/protocol.md, docs/limits.md "Limits and fair play"):

- Open sockets per player, per address and per table: in Redis, across instances (a player's
  tabs may reach several instances behind a load balancer), with leases an instance renews
  (app/store/sockets.py), so a crashed instance's sockets stop counting after a lease. Over a
  limit the socket is closed with 4429 (``too_many_sockets``).
- New sockets per minute per player and per address, and messages per second per player (all
  their sockets together), per address and per socket: on each instance, in memory. A Redis
  round trip per message would cost about what the move itself costs; the socket limits bound
  what a player can do across instances (at most one instance per socket). A message over the
  rate is answered ``rate_limited`` and not acted on; a socket that goes on sending refused
  messages is closed with 4008 (``policy``).
- Chat lines per player (every table together) and per table: in Redis, fixed windows, since
  chat goes to the table's shared log (a flood must not push the moves out of it).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import redis.asyncio as aioredis

from app.settings import Settings
from app.stopping import STOP_SECONDS, cancel_until_done
from app.store import keys
from app.store.sockets import SocketCounts, address_sockets_key, player_sockets_key

log = logging.getLogger(__name__)

CLOSE_TOO_MANY = 4429  # too many sockets (per player, per address or per table), or too fast
CLOSE_POLICY = 4008  # kept sending past a limit


class LimitExceeded(Exception):
    """A socket may not open (close code ``close_code``), with a stable code and words."""

    def __init__(
        self,
        code: str,
        message: str,
        close_code: int = CLOSE_TOO_MANY,
        values: Mapping[str, str | int | float] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.close_code = close_code
        self.values = dict(values or {})  # the named values the page words the code with


class Bucket:
    """Token bucket: ``rate`` a second, at most ``capacity`` at once."""

    __slots__ = ("at", "capacity", "rate", "tokens")

    def __init__(self, rate: float, capacity: float, now: float) -> None:
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.at = now

    def take(self, now: float) -> bool:
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.rate >= self.capacity


@dataclass(slots=True)
class Ticket:
    """One open socket's share of the limits; ``release`` it when the socket closes."""

    player_id: str | None
    address: str
    socket_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    counted: list[str] = field(default_factory=list)  # Redis hashes it is counted in
    socket_bucket: Bucket | None = None
    refusals: int = 0  # refused messages in a row


class Limits:
    """This instance's limits (one per app, made by the hubs)."""

    def __init__(
        self,
        redis: aioredis.Redis,
        counts: SocketCounts,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_ms: Callable[[], float] = lambda: time.time() * 1000.0,
    ) -> None:
        self.redis = redis
        self.counts = counts
        self.settings = settings
        self.namespace = settings.redis_namespace
        self.clock = clock
        self.wall_ms = wall_ms
        self._connects: dict[str, Bucket] = {}
        self._messages: dict[str, Bucket] = {}
        self._users: dict[str, int] = {}  # message bucket -> open sockets using it
        self._renewer: asyncio.Task[None] | None = None

    # -- sockets ---------------------------------------------------------------------------

    async def open(self, player_id: str | None, address: str) -> Ticket:
        """Count a new socket of ``player_id`` (None: anonymous) from ``address``, or raise
        LimitExceeded (nothing is counted then)."""
        s = self.settings
        now = self.clock()
        if not self._connect_bucket("a:" + address, s.ws_connects_per_minute_per_address).take(now):
            raise LimitExceeded(
                "too_many_connections",
                "too many new connections from your network; wait a minute and reload",
            )
        if player_id is not None and not self._connect_bucket(
            "p:" + player_id, s.ws_connects_per_minute_per_player
        ).take(now):
            raise LimitExceeded(
                "too_many_connections", "you opened too many connections; wait a minute and reload"
            )
        ticket = Ticket(player_id, address)
        wall = self.wall_ms()
        if player_id is not None:
            key = player_sockets_key(self.namespace, player_id)
            got = await self.counts.change(key, wall, 1, cap=s.ws_sockets_per_player)
            if not got.ok:
                raise LimitExceeded(
                    "too_many_sockets",
                    f"you have {got.sockets} connections open (at most {s.ws_sockets_per_player}):"
                    " close another tab of this site, then reload",
                    values={"count": got.sockets, "limit": s.ws_sockets_per_player},
                )
            ticket.counted.append(key)
        key = address_sockets_key(self.namespace, address)
        got = await self.counts.change(key, wall, 1, cap=s.ws_sockets_per_address)
        if not got.ok:
            await self.release(ticket)
            raise LimitExceeded(
                "too_many_sockets",
                f"your network has {got.sockets} connections open (at most "
                f"{s.ws_sockets_per_address}): close some tabs of this site, then reload",
                values={"count": got.sockets, "limit": s.ws_sockets_per_address},
            )
        ticket.counted.append(key)
        for bucket_key in self._message_keys(ticket):
            self._users[bucket_key] = self._users.get(bucket_key, 0) + 1
        ticket.socket_bucket = Bucket(s.ws_rate_per_second, s.ws_rate_per_second * 2, now)
        self._start_renewing()
        return ticket

    async def release(self, ticket: Ticket) -> None:
        """The socket closed: it stops counting (safe to call twice)."""
        counted, ticket.counted = ticket.counted, []
        wall = self.wall_ms()
        for key in counted:
            try:
                await self.counts.change(key, wall, -1)
            except Exception:  # the lease runs out by itself
                log.warning("could not uncount a socket in %s", key, exc_info=True)
        if ticket.socket_bucket is not None:
            ticket.socket_bucket = None
            for bucket_key in self._message_keys(ticket):
                left = self._users.get(bucket_key, 0) - 1
                if left > 0:
                    self._users[bucket_key] = left
                else:
                    self._users.pop(bucket_key, None)
                    self._messages.pop(bucket_key, None)

    # -- messages --------------------------------------------------------------------------

    def message(self, ticket: Ticket) -> bool:
        """Whether one more message from this socket may be acted on now (per socket, per
        player, per address). Counts refusals in a row: see ``should_close``."""
        now = self.clock()
        s = self.settings
        ok = ticket.socket_bucket is None or ticket.socket_bucket.take(now)
        if ok and ticket.player_id is not None:
            ok = self._message_bucket("p:" + ticket.player_id, s.ws_player_rate_per_second).take(
                now
            )
        if ok:
            ok = self._message_bucket("a:" + ticket.address, s.ws_address_rate_per_second).take(now)
        ticket.refusals = 0 if ok else ticket.refusals + 1
        return ok

    def refused(self, ticket: Ticket) -> None:
        """A message was refused for another reason (too large, bad JSON...)."""
        ticket.refusals += 1

    def should_close(self, ticket: Ticket) -> bool:
        return ticket.refusals >= self.settings.ws_refusals_before_close

    # -- chat ------------------------------------------------------------------------------

    async def chat(self, player_id: str, table_id: str) -> None:
        """Count one chat line, or raise LimitExceeded (code ``chat_limited``; the socket
        stays open) when the player or the table has said enough for now."""
        s = self.settings
        wall_s = self.wall_ms() / 1000.0
        window = s.chat_window_seconds
        player_key = keys.player_chat_key(self.namespace, player_id, int(wall_s // window))
        said = await self._incr(player_key, window)
        if said > s.chat_lines_per_window:
            wait = math.ceil(window - wall_s % window)
            raise LimitExceeded(
                "chat_limited",
                f"you may send {s.chat_lines_per_window} chat lines every {window} s;"
                f" wait {wait} s",
                values={"limit": s.chat_lines_per_window, "window": window, "wait": wait},
            )
        table_key = keys.chat_key(table_id, int(wall_s // 60))
        said = await self._incr(table_key, 60)
        if said > s.chat_lines_per_table_minute:
            wait = math.ceil(60 - wall_s % 60)
            raise LimitExceeded(
                "chat_limited",
                f"this table's chat is busy ({s.chat_lines_per_table_minute} lines a minute);"
                f" wait {wait} s",
                values={
                    "reason": "table",
                    "limit": s.chat_lines_per_table_minute,
                    "window": 60,
                    "wait": wait,
                },
            )

    async def _incr(self, key: str, window_s: int) -> int:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, window_s + 1)
            said, _ = await pipe.execute()
        return int(said)

    # -- upkeep ----------------------------------------------------------------------------

    def _connect_bucket(self, key: str, per_minute: int) -> Bucket:
        bucket = self._connects.get(key)
        if bucket is None:
            bucket = self._connects[key] = Bucket(per_minute / 60.0, per_minute, self.clock())
        return bucket

    def _message_bucket(self, key: str, rate: float) -> Bucket:
        bucket = self._messages.get(key)
        if bucket is None:
            bucket = self._messages[key] = Bucket(rate, rate * 2, self.clock())
        return bucket

    @staticmethod
    def _message_keys(ticket: Ticket) -> list[str]:
        out = ["a:" + ticket.address]
        if ticket.player_id is not None:
            out.append("p:" + ticket.player_id)
        return out

    def sweep(self) -> None:
        """Forget connect buckets that are full again (nobody connected for a while)."""
        now = self.clock()
        for key in [k for k, b in self._connects.items() if b.full(now)]:
            del self._connects[key]

    def _start_renewing(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.create_task(self._renew(), name="socket-leases")

    async def _renew(self) -> None:
        every = self.settings.ws_count_lease_seconds / 3
        while True:
            await asyncio.sleep(every)
            try:
                await self.counts.renew(self.wall_ms())
            except Exception:
                log.warning("could not renew the socket counts' leases", exc_info=True)
            self.sweep()
            if not self.counts.held and not self._connects:
                return  # started again by the next socket

    async def stop(self) -> None:
        if self._renewer is not None:
            await cancel_until_done(self._renewer, STOP_SECONDS, "the socket counts' renewer")
