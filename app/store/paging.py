"""Putting a table back into Redis from its SQL copy, and taking an idle one out.

Used for turn-based tables (app.tables.durable): their newest version also lives in SQL, so
Redis may lose one (a restart without AOF, a failover's lost writes, eviction) or let it go
while nobody plays it (page-out), and it comes back from SQL on its next read or move. Each
step is one script on the table's slot (its keys and its shard's due set share a hash tag).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import app.store.keys as keys
from app.store.codec import encode_state
from app.store.table_store import DueChange, TableStore


@dataclass(frozen=True, slots=True)
class Copy:
    """A table's version as SQL keeps it: its state blob and its current game's moves."""

    table_id: str
    version: int
    state: bytes  # the table's JSON, as the state key holds it
    moves: list[bytes]  # the move list's entries, each ``[seat, move]`` JSON


# Put a table's copy back. Refused ({0, current}) when Redis holds a newer version, or this
# very version with its state (nothing lost): a restore never takes a table back in version.
# KEYS: 1 version, 2 state, 3 moves, 4 the shard's due set
# ARGV: 1 version, 2 state blob, 3 ttl seconds, 4 table id, 5 due ('' keep, '-' remove, else
#       score in ms), 6 number of moves M, then M move entries.
# The due change is written as COMMIT writes it (app.store.lua): each script stays whole, as
# Redis runs it, not pieced together from shared fragments.
RESTORE = """
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur < 0 then
  cur = -cur  -- paged out at that version
end
local v = tonumber(ARGV[1])
if cur > v or (cur == v and redis.call('EXISTS', KEYS[2]) == 1) then
  return {0, cur}
end
local ttl = tonumber(ARGV[3])
redis.call('SET', KEYS[1], v, 'EX', ttl)
redis.call('SET', KEYS[2], ARGV[2], 'EX', ttl)
redis.call('DEL', KEYS[3])
local n = tonumber(ARGV[6])
for i = 1, n, 1000 do
  redis.call('RPUSH', KEYS[3], unpack(ARGV, 6 + i, 6 + math.min(n, i + 999)))
end
if n > 0 then
  redis.call('EXPIRE', KEYS[3], ttl)
end
if ARGV[5] == '-' then
  redis.call('ZREM', KEYS[4], ARGV[4])
elseif ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[5], ARGV[4])
end
return {1, v}
"""

# Take a table out of Redis memory if it is still at the version SQL holds: its state, log and
# move list go; its due item (the clock) stays, and its version key (a few bytes: the lobby
# sees the table alive) stays negated, so that no compare-and-set matches it (an instance
# with a cached copy must restore the table, its moves included, before committing) and a
# restore (any version above 0) puts it back.
# KEYS: 1 version, 2 state, 3 log, 4 moves, 5 the shard's due set
# ARGV: 1 version, 2 table id, 3 due ('' keep, '-' remove, else score in ms)
PAGE_OUT = """
if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SET', KEYS[1], -tonumber(ARGV[1]), 'KEEPTTL')
if ARGV[3] == '-' then
  redis.call('ZREM', KEYS[5], ARGV[2])
elseif ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[3], ARGV[2])
end
return 1
"""


def _due_arg(due: DueChange) -> str:
    if due == "keep":
        return ""
    if due == "remove":
        return "-"
    return str(int(due))


class TablePaging:
    """Restore and page-out over a ``TableStore``'s connection."""

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self._restore = store.redis.register_script(RESTORE)
        self._page_out = store.redis.register_script(PAGE_OUT)

    async def restore(
        self,
        table_id: str,
        *,
        version: int,
        blob: bytes,
        moves: Sequence[bytes],
        ttl_seconds: int,
        due: DueChange,
    ) -> tuple[bool, int]:
        """Put this version back unless Redis holds a newer one (or this one, whole):
        (restored, the version Redis holds now)."""
        reply = await self.store._run(
            self._restore,
            keys=[
                keys.version_key(table_id),
                keys.state_key(table_id),
                keys.moves_key(table_id),
                self.store.due_key_of(table_id),
            ],
            args=[
                version,
                encode_state(blob),  # stored as a commit stores it
                max(1, ttl_seconds),
                table_id,
                _due_arg(due),
                len(moves),
                *moves,
            ],
        )
        return int(reply[0]) == 1, int(reply[1])

    async def known(self, table_id: str) -> bool:
        """Whether Redis knows the table at all: held, or paged out (its version key stays)."""
        return bool(await self.store.redis.exists(keys.version_key(table_id)))

    # Its script called with its keys as restore calls its own: alike in form.
    async def page_out(self, table_id: str, *, version: int, due: DueChange) -> bool:
        """Drop the table's state, log and moves if it is still at ``version``."""
        reply = await self.store._run(
            self._page_out,
            keys=[
                keys.version_key(table_id),
                keys.state_key(table_id),
                keys.log_key(table_id),
                keys.moves_key(table_id),
                self.store.due_key_of(table_id),
            ],
            args=[version, table_id, _due_arg(due)],
        )
        return int(reply) == 1
