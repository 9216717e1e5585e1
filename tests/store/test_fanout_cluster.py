"""The fan-out on Redis Cluster: one subscriber connection per master, each table channel
joined on the master that owns its slot, the global channels on one master; and it follows
the cluster when a connection drops, a slot moves, or a master dies or hangs and its replica
takes over.

The first test uses the shared test cluster (HEARTS_TEST_REDIS_CLUSTER_URL); the others break
a private one (tests/store/local_cluster.py), started once for this module.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from app.store import Fanout, keys, make_redis
from tests.conftest import cluster_redis_url
from tests.store.local_cluster import LocalCluster
from tests.store.test_fanout import keep_busy

pytestmark = pytest.mark.asyncio


class Listener:
    """A fan-out with one recording handler, and its reconnect count."""

    def __init__(self, url: str, namespace: str) -> None:
        self.redis: Any = make_redis(url)
        assert isinstance(self.redis, RedisCluster)
        self.fanout: Fanout = Fanout(
            self.redis, keys.instance_channel(namespace, "i1"), health_seconds=0.3
        )
        self.got: list[tuple[str, bytes]] = []
        self.reconnects: int = 0
        self.fanout.on_reconnect(self._reconnected)

    def _reconnected(self) -> None:
        self.reconnects += 1

    def record(self, channel: str, data: bytes) -> None:
        self.got.append((channel, data))

    async def reconnected(self, timeout: float = 10.0) -> int:
        """The reconnect count once at least one reconnect was told. The callbacks run after
        a repair that nothing asked to redo, so a message may arrive on the new master before
        them (a health tick asking for the map again during the repair puts them off by one
        more repair)."""
        deadline = time.monotonic() + timeout
        while not self.reconnects and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self.reconnects

    def where(self, channel: str) -> str | None:
        links = self.fanout._cluster
        assert links is not None
        return links.joined.get(channel)

    async def deliver(self, channel: str, data: bytes, timeout: float = 20.0) -> float:
        """SPUBLISH ``data`` until a subscriber is counted (the fan-out is there), then wait
        for it to arrive; returns the seconds it took."""
        start = time.monotonic()
        while True:
            try:
                # Bounded: the client waits for ever on a master that hangs.
                if await asyncio.wait_for(self.redis.spublish(channel, data), 1) >= 1:
                    break
            except Exception:  # a master down, the map being read again
                pass
            assert time.monotonic() - start < timeout, f"nobody listens on {channel}"
            await asyncio.sleep(0.1)
        while (channel, data) not in self.got:
            assert time.monotonic() - start < timeout, f"{data!r} never came"
            await asyncio.sleep(0.01)
        return time.monotonic() - start

    async def aclose(self) -> None:
        await self.fanout.stop()
        await self.redis.aclose()


async def shard_subscribers(url_or_cluster: Any, port: int, channel: str) -> int:
    from redis.asyncio import Redis

    node = Redis(host="127.0.0.1", port=port)
    try:
        reply = await node.execute_command("PUBSUB", "SHARDNUMSUB", channel)
        return int(reply[1])
    finally:
        await node.aclose()


def owner_port(redis: RedisCluster, channel: str) -> int:
    node = redis.nodes_manager.get_node_from_slot(key_slot(channel.encode()))
    return int(node.port)


async def test_channels_are_joined_on_their_masters_and_rejoined_after_a_lost_link(
    namespace: str,
) -> None:
    listener = Listener(cluster_redis_url(), namespace)
    await listener.fanout.start()
    try:
        redis: RedisCluster = listener.redis
        links = listener.fanout._cluster
        assert links is not None
        masters = {n.name for n in redis.get_primaries()}
        assert set(links.links) == masters and len(masters) >= 3  # one link per master
        # Tables of every shard: their channels land on all the masters.
        channels = [keys.channel(f"t{uuid.uuid4().hex[:9]}") for _ in range(24)]
        lobby = keys.lobby_channel(namespace)
        for channel in [*channels, lobby]:
            await listener.fanout.subscribe(channel, listener.record)
        assert {listener.where(c) for c in channels} == masters
        for channel in channels:
            owner = owner_port(redis, channel)
            assert listener.where(channel) == f"127.0.0.1:{owner}"
            for _ in range(100):
                if await shard_subscribers(None, owner, channel) == 1:
                    break
                await asyncio.sleep(0.01)
            assert await shard_subscribers(None, owner, channel) == 1
        # A table's commit publishes in its slot, from the commit script (Lua) on its master.
        for i, channel in enumerate(channels):
            tid = channel.removesuffix(":changed").rpartition(":")[2]
            await redis.eval(
                "return redis.call('SPUBLISH', ARGV[1], ARGV[2])",
                1,
                keys.version_key(tid),
                channel,
                b"m%d" % i,
            )
        # A global message reaches us whichever master it was published on.
        await redis.publish(lobby, b"lobby")
        for _ in range(300):
            if len(listener.got) >= len(channels) + 1:
                break
            await asyncio.sleep(0.01)
        assert sorted(listener.got) == sorted(
            [(c, b"m%d" % i) for i, c in enumerate(channels)] + [(lobby, b"lobby")]
        )

        # One master closes our connection: its channels are joined again, then the
        # reconnect callbacks run (what was published meanwhile is lost).
        victim = next(iter(links.links.values()))
        host, port = victim.transport.get_extra_info("sockname")[:2]
        killer = make_redis(cluster_redis_url())
        node = redis.get_node(node_name=victim.name)
        assert node is not None
        await killer.execute_command("CLIENT", "KILL", "ADDR", f"{host}:{port}", target_nodes=node)
        await killer.aclose()
        for _ in range(300):
            if listener.reconnects:
                break
            await asyncio.sleep(0.01)
        assert listener.reconnects == 1
        for channel in [c for c in channels if listener.where(c) == victim.name][:3]:
            await listener.deliver(channel, b"after")
        # Unsubscribing leaves the channel on its master.
        for channel in channels:
            await listener.fanout.unsubscribe(channel, listener.record)
        for channel in channels:
            owner = owner_port(redis, channel)
            for _ in range(100):
                if await shard_subscribers(None, owner, channel) == 0:
                    break
                await asyncio.sleep(0.01)
            assert await shard_subscribers(None, owner, channel) == 0
    finally:
        await listener.aclose()


# -- a private cluster, broken on purpose ------------------------------------------------------


@pytest.fixture(scope="module")
def private_cluster() -> Iterator[LocalCluster]:
    with LocalCluster(7201) as cluster:
        yield cluster


@pytest_asyncio.fixture
async def listener(private_cluster: LocalCluster, namespace: str) -> AsyncIterator[Listener]:
    private_cluster.wait_ok()
    private_cluster.wait_replicas()
    listener = Listener(private_cluster.url, namespace)
    await listener.fanout.start()
    try:
        yield listener
    finally:
        await listener.aclose()


def free_channel(cluster: LocalCluster) -> str:
    """A table-like channel whose slot holds no key (a slot that can move without MIGRATE)."""
    while True:
        channel = "{" + uuid.uuid4().hex[:8] + "}:changed"
        port = cluster.master_of(channel)
        slot = key_slot(channel.encode())
        if not cluster.client(port).execute_command("CLUSTER", "COUNTKEYSINSLOT", slot):
            return channel


async def test_a_channel_follows_its_slot_to_another_master(
    private_cluster: LocalCluster, listener: Listener
) -> None:
    channel = free_channel(private_cluster)
    await listener.fanout.subscribe(channel, listener.record)
    await listener.deliver(channel, b"before")
    old = private_cluster.master_of(channel)
    masters = sorted({private_cluster.master_of(f"{{k{i}}}") for i in range(30)})
    target = next(p for p in masters if p != old)
    private_cluster.move_slot(key_slot(channel.encode()), target)
    # The old master drops the channel (SUNSUBSCRIBE); it is joined on the new one.
    for _ in range(500):
        if listener.where(channel) == f"127.0.0.1:{target}" and listener.reconnects:
            break
        await asyncio.sleep(0.01)
    assert listener.where(channel) == f"127.0.0.1:{target}"
    assert listener.reconnects == 1  # the hubs resync: a message may have been missed
    await listener.deliver(channel, b"after")
    assert await shard_subscribers(None, target, channel) == 1
    assert await shard_subscribers(None, old, channel) == 0


async def test_a_channel_joined_on_a_stale_map_is_moved_to_its_master(
    private_cluster: LocalCluster, listener: Listener
) -> None:
    """The slot moved before the channel was joined and the map does not know yet: the old
    master answers MOVED, the map is read again and the channel joined where it lives."""
    channel = free_channel(private_cluster)
    old = private_cluster.master_of(channel)
    masters = sorted({private_cluster.master_of(f"{{k{i}}}") for i in range(30)})
    target = next(p for p in masters if p != old)
    private_cluster.move_slot(key_slot(channel.encode()), target)
    assert owner_port(listener.redis, channel) == old  # the client's map is stale
    await listener.fanout.subscribe(channel, listener.record)
    for _ in range(500):
        if listener.where(channel) == f"127.0.0.1:{target}":
            break
        await asyncio.sleep(0.01)
    assert listener.where(channel) == f"127.0.0.1:{target}"
    await listener.deliver(channel, b"there")
    assert await shard_subscribers(None, target, channel) == 1


async def test_a_master_that_dies_is_replaced_and_its_channels_follow(
    private_cluster: LocalCluster, listener: Listener
) -> None:
    channel = keys.channel(f"t{uuid.uuid4().hex[:9]}")
    await listener.fanout.subscribe(channel, listener.record)
    await listener.deliver(channel, b"before")
    old = private_cluster.master_of(channel)
    private_cluster.kill(old)
    try:
        took = await listener.deliver(channel, b"after", timeout=30)
        new = private_cluster.master_of(channel)
        assert new != old and listener.where(channel) == f"127.0.0.1:{new}"
        assert await listener.reconnected() >= 1
        assert took < 15, took  # node timeout 1 s, an election, and a few retries
    finally:
        private_cluster.restart(old)  # back as a replica, for the next test


async def test_a_master_that_hangs_is_dropped_and_its_channels_follow(
    private_cluster: LocalCluster, listener: Listener
) -> None:
    """SIGSTOP: the TCP connection stays open and silent; the PINGs find it out."""
    private_cluster.wait_ok()
    channel = keys.channel(f"t{uuid.uuid4().hex[:9]}")
    old = private_cluster.master_of(channel)
    await listener.fanout.subscribe(channel, listener.record)
    await listener.deliver(channel, b"before")
    private_cluster.pause(old)
    try:
        took = await listener.deliver(channel, b"after", timeout=30)
        new = private_cluster.master_of(
            channel, ask=next(p for p in private_cluster.alive() if p != old)
        )
        assert new != old and listener.where(channel) == f"127.0.0.1:{new}"
        assert await listener.reconnected() >= 1
        assert took < 15, took
    finally:
        private_cluster.resume(old)


async def test_a_message_published_once_subscribe_returned_arrives(namespace: str) -> None:
    """``subscribe`` returns once the master confirmed the channel: a message published
    right after it is delivered (a hub subscribes, then reads its table). Many subscribers at
    once while every master is busy (tests/store/test_fanout.py's test on one Redis): table
    channels on every master, global channels published on any node."""
    listener = Listener(cluster_redis_url(), namespace)
    await listener.fanout.start()
    try:
        redis: RedisCluster = listener.redis
        # A key on each master, to keep it busy.
        on: dict[int, str] = {}
        i = 0
        while len(on) < len(redis.get_primaries()):
            on.setdefault(owner_port(redis, f"{{b{i}}}"), f"{{b{i}}}")
            i += 1
        sent: list[tuple[str, bytes]] = []
        reached: list[int] = []
        for burst in range(3):
            pad = "x" * 60
            channels = [
                keys.channel(f"{uuid.uuid4().hex}{pad}")
                if i % 2
                else f"{namespace}:{pad}:{burst}:{i}"
                for i in range(900)
            ]
            busy = [asyncio.create_task(keep_busy(redis, key)) for key in on.values()]
            await asyncio.sleep(0.05)  # the masters are inside the script
            await asyncio.gather(*(listener.fanout.subscribe(c, listener.record) for c in channels))
            # The last ones first: the furthest back in the sockets when the masters were busy.
            for i in reversed(range(len(channels) - 30, len(channels))):
                channel, data = channels[i], b"m%d" % i
                if channel.startswith("{"):
                    reached.append(await redis.spublish(channel, data))
                else:
                    await redis.publish(channel, data)  # counts that node's subscribers only
                sent.append((channel, data))
            await asyncio.gather(*busy)
        for _ in range(300):
            if len(listener.got) >= len(sent):
                break
            await asyncio.sleep(0.01)
        assert len(listener.got) == len(sent), f"{len(sent) - len(listener.got)} lost"
        assert sorted(listener.got) == sorted(sent)
        assert reached == [1] * len(reached)  # each one found its subscriber
    finally:
        await listener.aclose()
