"""The fan-out on one Redis: a table's channel is a shard channel (SPUBLISH / SSUBSCRIBE), the
global channels are plain ones, with each backend: fakeredis through redis-py's PubSub, a
real Redis through redis-py's PubSub (no direct address, as with TLS), and a real Redis
through the direct protocol (what production runs)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
import redis.asyncio as aioredis

from app.store import Fanout, PipelinedRedis, TableStore, keys, make_redis
from app.store.fanout import is_shard_channel
from tests.conftest import real_redis_url

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(params=["fake", "real-pubsub", "direct"])
async def backend(
    request: pytest.FixtureRequest, namespace: str
) -> AsyncIterator[tuple[aioredis.Redis, Fanout, TableStore]]:
    url = "memory://" if request.param == "fake" else real_redis_url()
    redis = make_redis(url)
    direct = PipelinedRedis.from_url(url) if request.param == "direct" else None
    fanout = Fanout(redis, keys.instance_channel(namespace, "i1"), direct=direct)
    await fanout.start()
    try:
        yield redis, fanout, TableStore(redis, namespace=namespace)
    finally:
        await fanout.stop()
        await redis.aclose()


async def counts(redis: aioredis.Redis, kind: str, *channels: str) -> dict[bytes, int]:
    """``PUBSUB NUMSUB`` / ``SHARDNUMSUB``: subscribers by channel."""
    reply = await redis.execute_command("PUBSUB", kind, *channels)
    if reply and isinstance(reply[0], tuple | list):
        return {bytes(k): int(v) for k, v in reply}
    return {bytes(reply[i]): int(reply[i + 1]) for i in range(0, len(reply), 2)}


async def until(check: Callable[[], bool], what: str) -> None:
    for _ in range(300):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)


async def test_table_channels_are_shard_channels_and_the_rest_global(
    backend: tuple[aioredis.Redis, Fanout, TableStore], namespace: str
) -> None:
    redis, fanout, store = backend
    tid = uuid.uuid4().hex[:10]
    table, lobby = keys.channel(tid), keys.lobby_channel(namespace)
    got: list[tuple[str, bytes]] = []

    def record(channel: str, data: bytes) -> None:
        got.append((channel, data))

    await fanout.subscribe(table, record)
    await fanout.subscribe(lobby, record)
    # The commands are on their way: wait until the server counts them.
    for _ in range(100):
        shard = await counts(redis, "SHARDNUMSUB", table)
        plain = await counts(redis, "NUMSUB", lobby, table)
        if shard.get(table.encode()) == 1 and plain.get(lobby.encode()) == 1:
            break
        await asyncio.sleep(0.01)
    assert shard == {table.encode(): 1}, shard
    # The table's channel is joined with SSUBSCRIBE only: a plain PUBLISH does not reach it.
    assert plain == {lobby.encode(): 1, table.encode(): 0}, plain

    # The commit script SPUBLISHes the table's message; the lobby's PUBLISH keeps its place.
    await store.commit(tid, expected_version=0, blob=b"s", message=b"m1", ttl_seconds=60)
    await redis.publish(lobby, tid)
    await redis.publish(table, b"not for shard subscribers")
    await redis.spublish(table, b"m2")
    await until(lambda: len(got) >= 3, f"got {got}")
    await asyncio.sleep(0.05)
    assert got == [(table, b"m1"), (lobby, tid.encode()), (table, b"m2")]

    await fanout.unsubscribe(table, record)
    for _ in range(100):
        shard = await counts(redis, "SHARDNUMSUB", table)
        if shard.get(table.encode()) == 0:
            break
        await asyncio.sleep(0.01)
    assert shard == {table.encode(): 0}
    await store.commit(tid, expected_version=1, blob=b"s", message=b"m3", ttl_seconds=60)
    await redis.publish(lobby, b"again")
    await until(lambda: len(got) >= 4, f"got {got}")
    await asyncio.sleep(0.05)
    assert got[3:] == [(lobby, b"again")]


async def test_only_table_channels_are_shard_channels() -> None:
    assert is_shard_channel(keys.channel("abc"))
    for channel in (
        keys.lobby_channel("hearts"),
        keys.sessions_channel("hearts"),
        keys.instance_channel("hearts", "i1"),
        "hearts:friends",
    ):
        assert not is_shard_channel(channel), channel
