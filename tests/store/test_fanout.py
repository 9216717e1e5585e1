"""The fan-out on one Redis: a table's channel is a shard channel (SPUBLISH / SSUBSCRIBE), the
global channels are plain ones, with each backend: fakeredis through redis-py's PubSub, a
real Redis through redis-py's PubSub (no direct address, as with TLS), and a real Redis
through the direct protocol (what production runs)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from app.store import Fanout, PipelinedRedis, TableStore, keys, make_redis
from app.store.fanout import is_shard_channel
from app.store.pipelined import _parse
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


# Keeps Redis busy for ARGV[1] microseconds (a slow command, a fork): it reads no client
# meanwhile, and afterwards takes what each connection sent 16 kB at a time, in turn.
BUSY = """
local t = redis.call('TIME')
local stop = t[1] * 1000000 + t[2] + tonumber(ARGV[1])
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= stop
return 1
"""


async def keep_busy(redis: aioredis.Redis | RedisCluster, *on: str) -> None:
    """Keep Redis (the master of the key ``on``, on Cluster) busy for 0.3 s."""
    await redis.eval(BUSY, len(on), *on, 300_000)


async def test_a_message_published_once_subscribe_returned_arrives(
    backend: tuple[aioredis.Redis, Fanout, TableStore],
    namespace: str,
    request: pytest.FixtureRequest,
) -> None:
    """``subscribe`` returns once Redis confirmed the channel: a message published right
    after it is delivered (a hub subscribes, then reads its table). Many subscribers at once,
    as when the sockets of many tables come back to an instance, while Redis is busy: the
    SUBSCRIBEs wait in its socket, and a PUBLISH sent on another connection once they were
    written would be processed before the last of them. Table (shard) and global channels."""
    redis, fanout, _ = backend
    fake = request.node.callspec.params["backend"] == "fake"
    got: list[tuple[str, bytes]] = []

    def record(channel: str, data: bytes) -> None:
        got.append((channel, data))

    sent: list[tuple[str, bytes]] = []
    reached: list[int] = []
    for burst in range(3):
        pad = "x" * 60
        channels = [
            keys.channel(f"{uuid.uuid4().hex}{pad}") if i % 2 else f"{namespace}:{pad}:{burst}:{i}"
            for i in range(600)
        ]
        busy = None if fake else asyncio.create_task(keep_busy(redis))
        await asyncio.sleep(0.05)  # Redis is inside the script
        await asyncio.gather(*(fanout.subscribe(c, record) for c in channels))
        # The last ones first: the furthest back in the socket when Redis was busy.
        for i in reversed(range(len(channels) - 20, len(channels))):
            channel, data = channels[i], b"m%d" % i
            publish = redis.spublish if is_shard_channel(channel) else redis.publish
            reached.append(await publish(channel, data))
            sent.append((channel, data))
        if busy is not None:
            await busy
    await until(lambda: len(got) >= len(sent), f"{len(sent) - len(got)} of {len(sent)} lost")
    assert sorted(got) == sorted(sent)
    assert reached == [1] * len(sent)  # each one found its subscriber


class StandIn:
    """A server speaking just enough RESP2 for a fan-out's connection: it confirms each
    SUBSCRIBE / SSUBSCRIBE, unless told (``mode``) to leave the next ones on the open
    connection unanswered ("silent": a Redis that hangs) or to close it on the next one
    ("close"). A new connection is answered again."""

    def __init__(self) -> None:
        self.mode = "answer"
        self.connections = 0
        self.joined: list[bytes] = []  # the channels confirmed, in order
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.mode = "answer"
        buf = bytearray()
        try:
            while data := await reader.read(65536):
                buf += data
                while (parsed := _parse(buf, 0)) is not None:
                    command, end = parsed
                    del buf[:end]
                    kind = command[0].lower()
                    if kind not in (b"subscribe", b"ssubscribe") or self.mode == "silent":
                        continue
                    if self.mode == "close":
                        return
                    for count, channel in enumerate(command[1:], 1):
                        writer.write(
                            b"*3\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n:%d\r\n"
                            % (len(kind), kind, len(channel), channel, count)
                        )
                        self.joined.append(channel)
        finally:
            writer.close()

    async def aclose(self) -> None:
        if self.server is not None:
            self.server.close()


@pytest.mark.parametrize("mode", ["silent", "close"])
async def test_a_subscribe_never_confirmed_returns_and_the_channel_is_joined_again(
    mode: str, namespace: str
) -> None:
    """A SUBSCRIBE that Redis never confirms (it hangs, or the connection drops first) does
    not hold ``subscribe`` for ever: it returns within the connect timeout, the connection
    is made again with every channel, and the on_reconnect callbacks run (the listeners read
    what they missed)."""
    stand_in = StandIn()
    port = await stand_in.start()
    redis = make_redis("memory://")
    direct = PipelinedRedis("127.0.0.1", port, connect_timeout=0.5)
    fanout = Fanout(redis, keys.instance_channel(namespace, "i1"), direct=direct)
    reconnects: list[float] = []
    fanout.on_reconnect(lambda: reconnects.append(time.monotonic()))
    try:
        await fanout.start()
        assert stand_in.joined == [keys.instance_channel(namespace, "i1").encode()]
        table = keys.channel(uuid.uuid4().hex[:10])
        stand_in.mode = mode
        start = time.monotonic()
        await fanout.subscribe(table, lambda channel, data: None)
        took = time.monotonic() - start
        # Silent: the connect timeout (0.5 s); closed: at once, not after the timeout.
        assert took < (1.5 if mode == "silent" else 0.45), took
        await until(lambda: bool(reconnects), "no reconnect")
        assert stand_in.connections == 2
        assert stand_in.joined[-1] == table.encode()  # joined again on the new connection
        # Subscribed now: another one returns at once, confirmed.
        lobby = keys.lobby_channel(namespace)
        await fanout.subscribe(lobby, lambda channel, data: None)
        assert stand_in.joined[-1] == lobby.encode() and len(reconnects) == 1
    finally:
        await fanout.stop()
        await redis.aclose()
        await stand_in.aclose()


async def test_the_pubsub_backend_calls_on_reconnect_once_its_channels_are_joined_again(
    namespace: str,
) -> None:
    """redis-py's PubSub (a TLS Redis, which has no direct address) connects again by itself
    after its connection drops, and subscribes its channels again: the on_reconnect callbacks
    then run (the hubs read what was published meanwhile), and messages come again. Only
    this test's own connection is killed (``CLIENT KILL ADDR``), not other tests'."""
    redis = make_redis(real_redis_url())
    fanout = Fanout(redis, keys.instance_channel(namespace, "i1"))
    reconnects: list[float] = []
    fanout.on_reconnect(lambda: reconnects.append(time.monotonic()))
    got: list[bytes] = []
    table, lobby = keys.channel(uuid.uuid4().hex[:10]), keys.lobby_channel(namespace)
    try:
        await fanout.start()
        await fanout.subscribe(table, lambda channel, data: got.append(data))
        await fanout.subscribe(lobby, lambda channel, data: got.append(data))
        pubsub = fanout._pubsub
        assert pubsub is not None and pubsub.connection is not None
        host, port = pubsub.connection._writer.get_extra_info("sockname")[:2]  # type: ignore[union-attr]
        killed = await redis.execute_command("CLIENT", "KILL", "ADDR", f"{host}:{port}")
        assert killed in (1, b"OK", True), killed
        await until(lambda: bool(reconnects), "on_reconnect never ran")
        assert len(reconnects) == 1
        await redis.execute_command("SPUBLISH", table, b"after")
        await redis.publish(lobby, b"lobby after")
        await until(lambda: got == [b"after", b"lobby after"], f"got {got}")
    finally:
        await fanout.stop()
        await redis.aclose()
