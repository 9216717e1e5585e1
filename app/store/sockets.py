"""Open sockets counted across instances: one Redis hash per thing counted (a table, a player,
an address), each instance's sockets under its own fields with a lease it renews.

Fields of one hash: ``c:<instance>|<holder>`` -> sockets of ``holder`` (a player key at a
table; empty for a player's or an address's own hash) on that instance, and
``l:<instance>`` -> when that instance's lease ends (epoch ms). A live instance renews the
lease of every hash it counts in (``renew``) well before it runs out; the counts of an
instance whose lease ran out (it died) are dropped by the next change to the hash. So a crash
never leaves a player locked out or a seated player "connected" for longer than one lease.

Each change is one script on one key (a table's hash shares the table's hash tag).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis

from app.store import keys

# KEYS: 1 the hash. ARGV: 1 now (ms), 2 this instance's lease end (ms), 3 instance,
#   4 delta (+1, -1, 0), 5 holder, 6 cap (0 = none: a +1 that would pass it is refused),
#   7 key expiry (ms), 8 channel to publish the viewer count on ('' = none),
#   9.. holders to report (seated players).
# Returns {ok, sockets in all, sockets of holder, distinct holders, sequence number,
#   then 1/0 per reported holder: has sockets}.
# With a channel, publishes {"sp":viewers,"q":seq} (viewers: distinct holders not among the
# reported ones), in the same atomic step, so notices arrive in the order of the changes. A
# recount (delta 0 with a channel: who sits changed, so the same sockets make other viewers)
# bumps the sequence number and publishes too, unless no socket is open.
CHANGE = """
local all = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[1])
local inst = ARGV[3]
local dead = {}
for i = 1, #all, 2 do
  local f = all[i]
  if string.sub(f, 1, 2) == 'l:' then
    local who = string.sub(f, 3)
    if who ~= inst and tonumber(all[i + 1]) < now then
      dead[who] = true
      redis.call('HDEL', KEYS[1], f)
    end
  end
end
local total = 0
local counts = {}
local holder = ARGV[5]
local mine_here = 0
local seq = 0
for i = 1, #all, 2 do
  local f = all[i]
  if string.sub(f, 1, 2) == 'c:' then
    local rest = string.sub(f, 3)
    local sep = string.find(rest, '|', 1, true)
    local who = string.sub(rest, 1, sep - 1)
    if dead[who] then
      redis.call('HDEL', KEYS[1], f)
    else
      local h = string.sub(rest, sep + 1)
      local n = tonumber(all[i + 1])
      total = total + n
      counts[h] = (counts[h] or 0) + n
      if who == inst and h == holder then
        mine_here = n
      end
    end
  elseif f == 'seq' then
    seq = tonumber(all[i + 1])
  end
end
local delta = tonumber(ARGV[4])
local cap = tonumber(ARGV[6])
local ok = 1
if delta > 0 and cap > 0 and total + delta > cap then
  ok = 0
elseif delta ~= 0 then
  local new = mine_here + delta
  if new < 0 then
    new = 0
  end
  local field = 'c:' .. inst .. '|' .. holder
  if new == 0 then
    redis.call('HDEL', KEYS[1], field)
  else
    redis.call('HSET', KEYS[1], field, new)
  end
  total = total + new - mine_here
  counts[holder] = (counts[holder] or 0) + new - mine_here
  seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
end
local holders = 0
for _, n in pairs(counts) do
  if n > 0 then
    holders = holders + 1
  end
end
local out = {ok, total, counts[holder] or 0, holders, seq}
local viewers = holders
for i = 9, #ARGV do
  local present = (counts[ARGV[i]] or 0) > 0
  out[#out + 1] = present and 1 or 0
  if present then
    viewers = viewers - 1
  end
end
if total > 0 or delta ~= 0 then
  redis.call('HSET', KEYS[1], 'l:' .. inst, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[7]))
end
if ARGV[8] ~= '' and ok == 1 and (delta ~= 0 or total > 0) then
  if delta == 0 then
    seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
    out[5] = seq
  end
  redis.call('SPUBLISH', ARGV[8], '{"sp":' .. viewers .. ',"q":' .. seq .. '}')
end
return out
"""


def table_sockets_key(table_id: str) -> str:
    """Hash: the table's open sockets by instance and player key (see the module doc)."""
    return keys.sockets_key(table_id)


def player_sockets_key(namespace: str, player_id: str) -> str:
    return keys.player_sockets_key(namespace, player_id)


def address_sockets_key(namespace: str, address: str) -> str:
    return keys.address_sockets_key(namespace, address)


@dataclass(frozen=True, slots=True)
class Counted:
    ok: bool  # False: the change would have passed the cap; nothing changed
    sockets: int  # sockets counted in the hash, every instance
    holder: int  # sockets of the holder asked about
    holders: int  # distinct holders with a socket
    seq: int  # bumped by every change and recount (orders the published viewer counts)
    present: tuple[bool, ...]  # per reported holder: has a socket

    @property
    def viewers(self) -> int:
        """Distinct holders other than the reported ones (spectators, at a table)."""
        return self.holders - sum(self.present)


class SocketCounts:
    """This instance's side of the counts: changes, and the leases it must renew."""

    def __init__(self, redis: aioredis.Redis, instance_id: str, lease_ms: float) -> None:
        self.redis = redis
        self.instance = instance_id.replace("|", "_")
        self.lease_ms = lease_ms
        self._change = redis.register_script(CHANGE)
        # Hash -> this instance's sockets counted there: the hashes whose lease to renew.
        self.held: dict[str, int] = {}

    async def change(
        self,
        key: str,
        now_ms: float,
        delta: int,
        holder: str = "",
        *,
        cap: int = 0,
        report: Sequence[str] = (),
        channel: str = "",
    ) -> Counted:
        raw = await self._change(
            keys=[key],
            args=[
                int(now_ms),
                int(now_ms + self.lease_ms),
                self.instance,
                delta,
                holder,
                cap,
                int(self.lease_ms * 2),
                channel,
                *report,
            ],
        )
        ok = int(raw[0]) == 1
        if ok and delta:
            held = self.held.get(key, 0) + delta
            if held > 0:
                self.held[key] = held
            else:
                self.held.pop(key, None)
        return Counted(
            ok=ok,
            sockets=int(raw[1]),
            holder=int(raw[2]),
            holders=int(raw[3]),
            seq=int(raw[4]),
            present=tuple(int(x) == 1 for x in raw[5:]),
        )

    async def renew(self, now_ms: float) -> int:
        """Renew this instance's lease on every hash it holds sockets in (one round trip)."""
        held = list(self.held)
        if not held:
            return 0
        until = int(now_ms + self.lease_ms)
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in held:
                pipe.hset(key, "l:" + self.instance, until)
                pipe.pexpire(key, int(self.lease_ms * 2))
            await pipe.execute()
        return len(held)
