"""Which instance serves a table's sockets (its *home*), and which instances are alive: the
Redis side of app/realtime/relay.py.

The home is the field ``home`` of the table's socket hash (``keys.sockets_key``, counted by
app.store.sockets), named by one script on that one key, so two instances opening a table's
first sockets at once agree on one. A named home stands while its lease in that hash (the
``l:<instance>`` field app.store.sockets renews) has not run out and its alive key
(``keys.instance_alive_key``, short-lived, renewed every few seconds) is there.
"""

from __future__ import annotations

import time
from typing import Any

from app.store import keys
from app.store.table_store import TableStore

ALIVE_MS = 7000  # an instance's alive key lives this long unless renewed

# KEYS: 1 the table's socket hash. ARGV: 1 this instance, 2 now (ms), 3 this instance's lease
# end (ms), 4 the hash's expiry (ms), 5 an instance known dead ('' = none).
# Returns the table's home: a live one named already, else this instance (now named).
CLAIM = """
local home = redis.call('HGET', KEYS[1], 'home')
if home and home ~= ARGV[1] and home ~= ARGV[5] then
  local lease = tonumber(redis.call('HGET', KEYS[1], 'l:' .. home) or '0')
  if lease >= tonumber(ARGV[2]) then
    return home
  end
end
redis.call('HSET', KEYS[1], 'home', ARGV[1])
local mine = tonumber(redis.call('HGET', KEYS[1], 'l:' .. ARGV[1]) or '0')
if mine < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'l:' .. ARGV[1], ARGV[3])
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
end
return ARGV[1]
"""

# KEYS: 1 the table's socket hash. ARGV: 1 this instance. The home is no longer named once
# its last socket there closed.
RELEASE = """
if redis.call('HGET', KEYS[1], 'home') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'home')
end
return 0
"""


class Homes:
    """This instance's side: naming itself a table's home, and its alive key. On a real
    Redis both go through the store's pipelined client (the move path's), which finds a
    promoted replica after a failover sooner than redis-py's cluster client."""

    def __init__(self, store: TableStore, namespace: str, instance: str, lease_ms: float) -> None:
        self.store = store
        self.namespace = namespace
        self.instance = instance
        self.lease_ms = lease_ms
        self.alive_key = keys.instance_alive_key(namespace, instance)
        self._claim = store.redis.register_script(CLAIM)
        self._release = store.redis.register_script(RELEASE)

    async def claim(self, table_id: str, dead: str = "") -> str:
        """The table's home: the live one named already, else this instance, named now
        (``dead``: an instance known gone, replaced even if its lease still runs)."""
        now = time.time() * 1000
        raw = await self.store._run(
            self._claim,
            keys=[keys.sockets_key(table_id)],
            args=[self.instance, int(now), int(now + self.lease_ms), int(self.lease_ms * 2), dead],
        )
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    async def release(self, table_id: str) -> None:
        """This instance no longer serves ``table_id``'s sockets: no longer its home."""
        await self.store._run(
            self._release, keys=[keys.sockets_key(table_id)], args=[self.instance]
        )

    async def renew(self) -> None:
        await self._call(self.alive_key, "SET", self.alive_key, b"1", "PX", ALIVE_MS)

    async def gone(self) -> None:
        await self._call(self.alive_key, "DEL", self.alive_key)

    async def alive(self, instance: str) -> bool:
        key = keys.instance_alive_key(self.namespace, instance)
        return bool(await self._call(key, "EXISTS", key))

    async def _call(self, key: str, *args: Any) -> Any:
        fast = self.store.fast
        if fast is not None:
            return await fast.call_at(key, *args)
        return await self.store.redis.execute_command(*args)  # type: ignore[no-untyped-call]
