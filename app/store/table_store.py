"""Live tables in Redis: load, compare-and-set commit, event log, due times, lobby index.

Laid out in ``keys.SHARDS`` shards (app.store.keys): a table's commit touches its own keys
and its shard's due set, lobby hash and results stream, all in one slot. What spans every
table (claiming due items, reading the lobby) reads every shard, concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
import redis.asyncio as aioredis

import app.store.keys as keys
import app.store.lua as lua
from app.store.codec import decode_state, encode_state
from app.store.pipelined import PipelinedRedis, ReplyError

# What a commit does to the table's entry in the due-time set.
DueChange = float | Literal["keep", "remove"]


@dataclass(frozen=True, slots=True)
class LoadedTable:
    version: int  # the table version (bumped by every commit, chat included)
    blob: bytes  # the table's state JSON (opaque here; stored deflated, app.store.codec)


@dataclass(frozen=True, slots=True)
class CommitResult:
    ok: bool
    version: int  # the new version when ok, else the version found in Redis


class TableStore:
    """All table reads and writes. Knows keys and scripts, not the rules of Hearts."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        namespace: str = "hearts",
        log_size: int = 200,
        fast: PipelinedRedis | None = None,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 100,
    ) -> None:
        self.redis = redis
        # HEARTS_REDIS_WAIT_REPLICAS: a commit returns once that many replicas have it (or
        # the timeout passed; counted in unreplicated), docs/redis-cluster.md. Needs ``fast``.
        self.wait_replicas = wait_replicas if fast is not None else 0
        self.wait_timeout_ms = wait_timeout_ms
        self.unreplicated = 0
        # The move path's commands (load, commit) go through this pipelined client when there
        # is one (a real Redis); redis-py does everything else, and all of it on fakeredis.
        self.fast = fast
        self.namespace = namespace
        self.log_size = log_size
        # Per shard: the due sets, lobby hashes and results streams (finished hands and games,
        # which app.db.outbox reads).
        self.due_keys = tuple(keys.due_key(namespace, k) for k in range(keys.SHARDS))
        self.lobby_keys = tuple(keys.lobby_key(namespace, k) for k in range(keys.SHARDS))
        self.results_keys = keys.results_keys(namespace)
        self.lobby_channel = keys.lobby_channel(namespace)
        self._claim_next = 0  # the shard claim_due starts with (it rotates)
        # Told each due time (ms, the service's clock) a write of this instance set: the due
        # loop here wakes for it rather than at its next poll (app/tables/due.py).
        self.due_written: Callable[[float], None] | None = None
        self._commit = redis.register_script(lua.COMMIT)
        self._claim = redis.register_script(lua.CLAIM_DUE)
        self._set_due = redis.register_script(lua.SET_DUE_IF_VERSION)
        self._discard = redis.register_script(lua.DISCARD)

    async def load(self, table_id: str) -> LoadedTable | None:
        names = [keys.version_key(table_id), keys.state_key(table_id)]
        if self.fast is not None:
            ver, blob = await self.fast.call_at(names[0], "MGET", *names)
        else:
            ver, blob = await self.redis.mget(names)
        if ver is None or blob is None:
            return None
        return LoadedTable(int(ver), decode_state(_as_bytes(blob)))

    async def commit(
        self,
        table_id: str,
        *,
        expected_version: int,
        blob: bytes | None,
        message: bytes,
        ttl_seconds: int,
        due: DueChange = "keep",
        lobby_summary: bytes | Literal["keep", "remove"] = "keep",
        moves: Sequence[bytes] = (),
        new_game: bool = False,
        records: Sequence[bytes] = (),
    ) -> CommitResult:
        """Atomically: if the version is ``expected_version``, bump it, store ``blob`` (the
        state JSON, deflated by app.store.codec; None keeps the stored state), append
        ``message`` to the event log, append ``moves`` to the game's move list (emptied first
        for a ``new_game``), add ``records`` to the shard's results stream, update the due
        index and lobby, and publish ``message`` on the table's channel."""
        shard = keys.shard_of(table_id)
        if due == "keep":
            due_arg: str | bytes = ""
        elif due == "remove":
            due_arg = "-"
        else:
            due_arg = str(int(due))
        if lobby_summary == "keep":
            lobby_arg: str | bytes = ""
        elif lobby_summary == "remove":
            lobby_arg = "-"
        else:
            lobby_arg = lobby_summary
        result: list[Any] = await self._run(
            self._commit,
            keys=[
                keys.version_key(table_id),
                keys.state_key(table_id),
                keys.log_key(table_id),
                self.due_keys[shard],
                self.lobby_keys[shard],
                keys.moves_key(table_id),
                self.results_keys[shard],
            ],
            args=[
                expected_version,
                encode_state(blob) if blob is not None else b"",
                message,
                self.log_size,
                ttl_seconds,
                keys.channel(table_id),
                table_id,
                due_arg,
                lobby_arg,
                self.lobby_channel,
                "1" if new_game else "",
                len(moves),
                len(records),
                *moves,
                *records,
            ],
        )
        ok = int(result[0]) == 1
        if ok and not isinstance(due, str) and self.due_written is not None:
            self.due_written(float(due))
        if ok and self.wait_replicas and self.fast is not None:
            at = keys.version_key(table_id)  # on the connection the commit went through
            acked = await self.fast.wait_replicas(at, self.wait_replicas, self.wait_timeout_ms)
            self.unreplicated += acked < self.wait_replicas
        return CommitResult(ok=ok, version=int(result[1]))

    async def _run(self, script: Any, *, keys: list[str], args: list[Any]) -> Any:
        """Run a registered script: EVALSHA on the pipelined client (EVAL if Redis lost its
        script cache, which also reloads it), else through redis-py. Every key of one call
        is in one slot, the first key's."""
        if self.fast is None:
            return await script(keys=keys, args=args)
        at = keys[0] if keys else ""
        try:
            return await self.fast.call_at(at, "EVALSHA", script.sha, len(keys), *keys, *args)
        except ReplyError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
            return await self.fast.call_at(at, "EVAL", script.script, len(keys), *keys, *args)

    async def game_moves(self, table_id: str, start: int = 0) -> list[bytes]:
        """The current game's moves from index ``start`` on (each ``[seat, move]`` JSON)."""
        return await self._lrange(keys.moves_key(table_id), start)

    async def read_log(self, table_id: str) -> list[bytes]:
        """Every log entry still kept, oldest first."""
        return await self._lrange(keys.log_key(table_id), 0)

    async def _lrange(self, key: str, start: int) -> list[bytes]:
        if self.fast is not None:
            raw: list[bytes] = await self.fast.call_at(key, "LRANGE", key, start, -1)
            return raw
        return [_as_bytes(r) for r in await self.redis.lrange(key, start, -1)]

    # -- due times -------------------------------------------------------------------------

    # The due loop and the end of a hand run these on every instance: through the pipelined
    # client when there is one, like the move path (redis-py opened connections in bursts).

    async def claim_due(
        self, now_ms: float, lease_ms: float, limit: int = 2 * keys.SHARDS
    ) -> list[str]:
        """Claim up to ``limit`` due items from every shard's set, fairly: the limit is shared
        among the shards (one concurrent round of claims; shards that gave their whole share
        may have more and share what is left in the next round), and the shard served first
        rotates from call to call, so no shard waits behind the others. Only the shards with
        an item due run the claim script: an idle poll costs one ZCOUNT per shard."""
        first = self._claim_next
        due = await self._due_shards(
            now_ms, [(first + i) % keys.SHARDS for i in range(keys.SHARDS)]
        )
        order = list(due)
        claimed: list[str] = []
        room = limit
        asked_first = 0
        while room > 0 and order:
            share, extra = divmod(room, len(order))
            asks = [(k, share + (1 if i < extra else 0)) for i, k in enumerate(order)]
            asks = [(k, n) for k, n in asks if n > 0]
            if not asked_first:
                asked_first = len(asks)
            lease_end = int(now_ms + lease_ms)
            replies = await asyncio.gather(
                *(
                    self._run(
                        self._claim, keys=[self.due_keys[k]], args=[int(now_ms), lease_end, n]
                    )
                    for k, n in asks
                )
            )
            order = []
            for (k, n), items in zip(asks, replies, strict=True):
                claimed.extend(i.decode() for i in items)
                room -= len(items)
                if len(items) == n:
                    order.append(k)
        # The next call starts at the first due shard this one could not ask (a limit below
        # the number of due shards), or after those that got one more than the others.
        if asked_first < len(due):
            self._claim_next = due[asked_first]
        else:
            self._claim_next = (first + max(1, limit % keys.SHARDS)) % keys.SHARDS
        return claimed

    async def _due_shards(self, now_ms: float, shards: list[int]) -> list[int]:
        """Those of ``shards`` (in their order) whose set holds an item due at ``now_ms``:
        one ZCOUNT each, sent together (the pipelined client's batch, or one pipeline)."""
        now = int(now_ms)
        counts: list[Any]
        if self.fast is not None:
            fast = self.fast
            counts = list(
                await asyncio.gather(
                    *(
                        fast.call_at(self.due_keys[k], "ZCOUNT", self.due_keys[k], "-inf", now)
                        for k in shards
                    )
                )
            )
        else:
            pipe = self.redis.pipeline(transaction=False)
            for k in shards:
                pipe.zcount(self.due_keys[k], "-inf", now)
            counts = await pipe.execute()
        return [k for k, n in zip(shards, counts, strict=True) if int(n) > 0]

    def due_key_of(self, table_id: str) -> str:
        return self.due_keys[keys.shard_of(table_id)]

    async def set_due_if_version(self, table_id: str, version: int, due: float | None) -> bool:
        ok = await self._run(
            self._set_due,
            keys=[keys.version_key(table_id), self.due_key_of(table_id)],
            args=[version, table_id, "-" if due is None else str(int(due))],
        )
        if int(ok) == 1 and due is not None and self.due_written is not None:
            self.due_written(due)
        return int(ok) == 1

    async def discard(self, table_id: str) -> bool:
        """Take the table out of Redis (its keys and due item); whether it was there."""
        n = await self._run(
            self._discard,
            keys=[
                keys.version_key(table_id),
                keys.state_key(table_id),
                keys.log_key(table_id),
                keys.moves_key(table_id),
                self.due_key_of(table_id),
            ],
            args=[table_id],
        )
        return int(n) > 0

    async def drop_due(self, table_id: str) -> None:
        key = self.due_key_of(table_id)
        if self.fast is not None:
            await self.fast.call_at(key, "ZREM", key, table_id)
        else:
            await self.redis.zrem(key, table_id)

    async def due_of(self, table_id: str) -> float | None:
        key = self.due_key_of(table_id)
        if self.fast is not None:
            raw = await self.fast.call_at(key, "ZSCORE", key, table_id)
            return None if raw is None else float(raw)
        score: float | None = await self.redis.zscore(key, table_id)
        return score

    async def make_due_now(self, table_ids: Sequence[str], now_ms: float) -> None:
        """Make these items due at ``now_ms``, only those still in their set (a lease given
        back: another instance takes them on its next poll)."""
        by_shard: dict[int, dict[str, float]] = {}
        for table_id in table_ids:
            by_shard.setdefault(keys.shard_of(table_id), {})[table_id] = int(now_ms)
        async with self.redis.pipeline(transaction=False) as pipe:
            for shard, items in by_shard.items():
                pipe.zadd(self.due_keys[shard], items, xx=True)
            await pipe.execute()

    async def due_overview(self, now_ms: float) -> tuple[float | None, int]:
        """The oldest due time that has come (None when none has) and how many items have
        come due, over every shard (app.metrics)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in self.due_keys:
                pipe.zrangebyscore(key, "-inf", now_ms, start=0, num=1, withscores=True)
                pipe.zcount(key, "-inf", now_ms)
            replies = await pipe.execute()
        oldest = [float(r[0][1]) for r in replies[0::2] if r]
        return (min(oldest) if oldest else None), sum(int(n) for n in replies[1::2])

    # -- lobby and invites -----------------------------------------------------------------

    def lobby_key_of(self, table_id: str) -> str:
        return self.lobby_keys[keys.shard_of(table_id)]

    async def lobby_entries(self) -> dict[str, bytes]:
        """Every lobby line of every shard."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in self.lobby_keys:
                pipe.hgetall(key)
            replies = await pipe.execute()
        return {_as_bytes(k).decode(): _as_bytes(v) for raw in replies for k, v in raw.items()}

    async def lobby_entry(self, table_id: str) -> bytes | None:
        raw = await self.redis.hget(self.lobby_key_of(table_id), table_id)
        return None if raw is None else _as_bytes(raw)

    async def lobby_lines(self, table_ids: Sequence[str]) -> list[bytes | None]:
        """The lobby lines of these tables (None where a table has none), in one round trip
        (one HMGET per shard concerned)."""
        if not table_ids:
            return []
        by_shard: dict[int, list[int]] = {}
        for i, table_id in enumerate(table_ids):
            by_shard.setdefault(keys.shard_of(table_id), []).append(i)
        async with self.redis.pipeline(transaction=False) as pipe:
            for shard, places in by_shard.items():
                pipe.hmget(self.lobby_keys[shard], [table_ids[i] for i in places])
            replies = await pipe.execute()
        lines: list[bytes | None] = [None] * len(table_ids)
        for places, raw in zip(by_shard.values(), replies, strict=True):
            for i, r in zip(places, raw, strict=True):
                lines[i] = None if r is None else _as_bytes(r)
        return lines

    # Shards whose first HSCAN step scan_lobby sends at once (an empty or small shard is
    # read whole in one step, so a small lobby is scanned in a few round trips, not 64).
    SCAN_AHEAD = 8

    async def scan_lobby(self, cursor: int, count: int) -> tuple[int, dict[str, bytes]]:
        """One step of a scan over every shard's lobby hash: (next cursor, 0 when done; some
        lines). The cursor holds the shard and the HSCAN cursor within it."""
        shard, inner = cursor % keys.SHARDS, cursor // keys.SHARDS
        shards = range(shard, min(keys.SHARDS, shard + (1 if inner else self.SCAN_AHEAD)))
        async with self.redis.pipeline(transaction=False) as pipe:
            for k in shards:
                pipe.hscan(self.lobby_keys[k], inner if k == shard else 0, count=count)
            replies = await pipe.execute()
        lines: dict[str, bytes] = {}
        for k, (next_inner, raw) in zip(shards, replies, strict=True):
            assert isinstance(raw, dict)  # not no_values=True
            lines.update((_as_bytes(f).decode(), _as_bytes(v)) for f, v in raw.items())
            if int(next_inner):  # this shard goes on: the steps after it are read again later
                return k + keys.SHARDS * int(next_inner), lines
        after = shards[-1] + 1
        return (0 if after == keys.SHARDS else after), lines

    async def tables_alive(self, table_ids: Sequence[str]) -> set[str]:
        """Which of these tables still exist (their keys have not expired)."""
        if not table_ids:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.exists(keys.version_key(table_id))
            found = await pipe.execute()
        return {t for t, n in zip(table_ids, found, strict=True) if int(n)}

    async def drop_lobby_entries(self, table_ids: Sequence[str]) -> None:
        """Remove lobby lines (of expired tables) and tell every instance's lobby."""
        if not table_ids:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hdel(self.lobby_key_of(table_id), table_id)
            dropped = await pipe.execute()
        gone = [t for t, n in zip(table_ids, dropped, strict=True) if int(n)]
        # (Concurrent calls, not a pipeline: redis-py's cluster pipeline refuses PUBLISH.)
        await asyncio.gather(*(self.redis.publish(self.lobby_channel, t) for t in gone))

    async def memory_usage(self, table_id: str) -> int:
        """Bytes Redis spends on one table's keys (0 where MEMORY USAGE is unsupported)."""
        total = 0
        for key in keys.table_keys(table_id):
            try:
                used = await self.redis.memory_usage(key)
            except Exception:  # fakeredis has no MEMORY USAGE
                return 0
            total += int(used or 0)
        return total


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


def loads(raw: bytes | str) -> Any:
    return orjson.loads(raw)


def _as_bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()
