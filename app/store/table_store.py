"""Live tables in Redis: load, compare-and-set commit, event log, due times, lobby index."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
import redis.asyncio as aioredis

from app.store import keys, lua
from app.store.pipelined import PipelinedRedis, ReplyError

# What a commit does to the table's entry in the due-time set.
DueChange = float | Literal["keep", "remove"]


@dataclass(frozen=True, slots=True)
class LoadedTable:
    version: int  # the table version (bumped by every commit, chat included)
    blob: bytes  # the stored state (opaque here)


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
        results_stream: str | None = None,
        fast: PipelinedRedis | None = None,
    ) -> None:
        self.redis = redis
        # The move path's commands (load, commit) go through this pipelined client when there
        # is one (a real Redis); redis-py does everything else, and all of it on fakeredis.
        self.fast = fast
        self.namespace = namespace
        self.log_size = log_size
        # The Redis stream that finished hands and games go to (app.db.outbox reads it).
        self.results_stream = results_stream
        self.due_key = keys.due_key(namespace)
        self.lobby_key = keys.lobby_key(namespace)
        self.lobby_channel = keys.lobby_channel(namespace)
        self._commit = redis.register_script(lua.COMMIT)
        self._claim = redis.register_script(lua.CLAIM_DUE)
        self._set_due = redis.register_script(lua.SET_DUE_IF_VERSION)

    async def load(self, table_id: str) -> LoadedTable | None:
        names = [keys.version_key(table_id), keys.state_key(table_id)]
        if self.fast is not None:
            ver, blob = await self.fast.call("MGET", *names)
        else:
            ver, blob = await self.redis.mget(names)
        if ver is None or blob is None:
            return None
        return LoadedTable(int(ver), _as_bytes(blob))

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
        """Atomically: if the version is ``expected_version``, bump it, store ``blob``
        (None keeps the stored state), append ``message`` to the event log, append ``moves``
        to the game's move list (emptied first for a ``new_game``), add ``records`` to the
        results stream, update the due index and lobby, and publish ``message`` on the
        table's channel."""
        if records and self.results_stream is None:
            raise ValueError("this store has no results stream for the records")
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
                self.due_key,
                self.lobby_key,
                keys.moves_key(table_id),
                self.results_stream or keys.tag(table_id) + ":no-results",
            ],
            args=[
                expected_version,
                blob if blob is not None else b"",
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
        return CommitResult(ok=int(result[0]) == 1, version=int(result[1]))

    async def _run(self, script: Any, *, keys: list[str], args: list[Any]) -> Any:
        """Run a registered script: EVALSHA on the pipelined client (EVAL if Redis lost its
        script cache, which also reloads it), else through redis-py."""
        if self.fast is None:
            return await script(keys=keys, args=args)
        try:
            return await self.fast.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except ReplyError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
            return await self.fast.call("EVAL", script.script, len(keys), *keys, *args)

    async def game_moves(self, table_id: str, start: int = 0) -> list[bytes]:
        """The current game's moves from index ``start`` on (each ``[seat, move]`` JSON)."""
        return await self._lrange(keys.moves_key(table_id), start)

    async def read_log(self, table_id: str) -> list[bytes]:
        """Every log entry still kept, oldest first."""
        return await self._lrange(keys.log_key(table_id), 0)

    async def _lrange(self, key: str, start: int) -> list[bytes]:
        if self.fast is not None:
            raw: list[bytes] = await self.fast.call("LRANGE", key, start, -1)
            return raw
        return [_as_bytes(r) for r in await self.redis.lrange(key, start, -1)]

    # -- due times -------------------------------------------------------------------------

    # The due loop and the end of a hand run these on every instance: through the pipelined
    # client when there is one, like the move path (redis-py opened connections in bursts).

    async def claim_due(self, now_ms: float, lease_ms: float, limit: int = 50) -> list[str]:
        items: list[bytes] = await self._run(
            self._claim, keys=[self.due_key], args=[int(now_ms), int(now_ms + lease_ms), limit]
        )
        return [i.decode() for i in items]

    async def set_due_if_version(self, table_id: str, version: int, due: float | None) -> bool:
        ok = await self._run(
            self._set_due,
            keys=[keys.version_key(table_id), self.due_key],
            args=[version, table_id, "-" if due is None else str(int(due))],
        )
        return int(ok) == 1

    async def drop_due(self, table_id: str) -> None:
        if self.fast is not None:
            await self.fast.call("ZREM", self.due_key, table_id)
        else:
            await self.redis.zrem(self.due_key, table_id)

    async def due_of(self, table_id: str) -> float | None:
        if self.fast is not None:
            raw = await self.fast.call("ZSCORE", self.due_key, table_id)
            return None if raw is None else float(raw)
        score: float | None = await self.redis.zscore(self.due_key, table_id)
        return score

    # -- lobby and invites -----------------------------------------------------------------

    async def lobby_entries(self) -> dict[str, bytes]:
        raw = await self.redis.hgetall(self.lobby_key)
        return {_as_bytes(k).decode(): _as_bytes(v) for k, v in raw.items()}

    async def lobby_entry(self, table_id: str) -> bytes | None:
        raw = await self.redis.hget(self.lobby_key, table_id)
        return None if raw is None else _as_bytes(raw)

    async def lobby_lines(self, table_ids: Sequence[str]) -> list[bytes | None]:
        """The lobby lines of these tables (None where a table has none), in one HMGET."""
        if not table_ids:
            return []
        raw = await self.redis.hmget(self.lobby_key, list(table_ids))
        return [None if r is None else _as_bytes(r) for r in raw]

    async def scan_lobby(self, cursor: int, count: int) -> tuple[int, dict[str, bytes]]:
        """One HSCAN step over the lobby hash: (next cursor, 0 when done; some lines)."""
        cursor, raw = await self.redis.hscan(self.lobby_key, cursor, count=count)
        assert isinstance(raw, dict)  # not no_values=True
        return int(cursor), {_as_bytes(k).decode(): _as_bytes(v) for k, v in raw.items()}

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
                pipe.hdel(self.lobby_key, table_id)
            dropped = await pipe.execute()
        gone = [t for t, n in zip(table_ids, dropped, strict=True) if int(n)]
        if gone:
            async with self.redis.pipeline(transaction=False) as pipe:
                for table_id in gone:
                    pipe.publish(self.lobby_channel, table_id)
                await pipe.execute()

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
