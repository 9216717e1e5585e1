"""Socket counts across instances (app/store/sockets.py): caps, holders, leases."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis

from app.store import keys
from app.store.sockets import SocketCounts, table_sockets_key

pytestmark = pytest.mark.asyncio

LEASE_MS = 60_000.0


def key() -> str:
    return table_sockets_key("t" + uuid.uuid4().hex[:10])


async def subscribed(redis_client: aioredis.Redis, channel: str) -> tuple[Any, Any]:
    """A pubsub on a table's channel, and its read function. The table's channel is a shard
    channel (SPUBLISH) in the table's slot, as the script's key (on Redis Cluster a script may
    publish only in its keys' slot); shard messages come by get_message on one Redis, by
    get_sharded_message on redis-py's cluster client."""
    pubsub = redis_client.pubsub()
    await pubsub.ssubscribe(channel)
    read = getattr(pubsub, "get_sharded_message", pubsub.get_message)
    await read(timeout=1)  # the subscribe confirmation
    return pubsub, read


async def _table_on_a(
    redis_client: aioredis.Redis,
) -> tuple[SocketCounts, str, str, tuple[Any, Any]]:
    """Instance A's socket counts, a new table's count key and channel, and a subscription to
    that channel (``subscribed``)."""
    table_id = "t" + uuid.uuid4().hex[:10]
    channel = keys.channel(table_id)
    counts = SocketCounts(redis_client, "A", LEASE_MS)
    return counts, table_sockets_key(table_id), channel, await subscribed(redis_client, channel)


async def _messages(read: Any, n: int) -> list[bytes]:
    """The next ``n`` messages' data, each within 2 s."""
    got: list[bytes] = []
    while len(got) < n:
        msg = await read(ignore_subscribe_messages=True, timeout=2)
        assert msg is not None, got
        got.append(msg["data"])
    return got


async def test_counts_holders_and_cap(redis_client: aioredis.Redis) -> None:
    a = SocketCounts(redis_client, "A", LEASE_MS)
    b = SocketCounts(redis_client, "B", LEASE_MS)
    k = key()
    now = 1_000_000.0
    assert (await a.change(k, now, 1, "alice", cap=3)).ok
    assert (await b.change(k, now, 1, "alice", cap=3)).ok
    got = await b.change(k, now, 1, "anon:1", cap=3, report=["alice", "bob"])
    assert got.ok and got.sockets == 3 and got.holders == 2 and got.present == (True, False)
    assert got.viewers == 1  # anon:1: alice sits
    # The cap counts every instance: a fourth socket is refused and nothing changes.
    refused = await a.change(k, now, 1, "bob", cap=3)
    assert not refused.ok and refused.sockets == 3
    again = await a.change(k, now, 0, "alice")
    assert again.sockets == 3 and again.holder == 2 and again.seq == got.seq
    # A socket closing frees its place; closing more than were opened never goes below zero.
    assert (await a.change(k, now, -1, "alice")).holder == 1
    assert (await a.change(k, now, -1, "alice")).holder == 1
    assert (await a.change(k, now, 1, "bob", cap=3)).ok
    assert a.held == {k: 1} and b.held == {k: 2}


async def test_a_dead_instance_stops_counting_after_its_lease(
    redis_client: aioredis.Redis,
) -> None:
    a = SocketCounts(redis_client, "A", LEASE_MS)
    b = SocketCounts(redis_client, "B", LEASE_MS)
    k = key()
    now = 1_000_000.0
    for _ in range(2):
        assert (await a.change(k, now, 1, "alice", cap=2)).ok
    assert not (await b.change(k, now + 1000, 1, "bob", cap=2)).ok
    # A renews its lease: still counted after the first lease would have run out.
    await a.renew(now + LEASE_MS / 2)
    assert not (await b.change(k, now + LEASE_MS + 1, 1, "bob", cap=2)).ok
    # A dies (renews no more): once its lease ends, its sockets no longer count.
    got = await b.change(k, now + LEASE_MS * 1.5 + 1, 1, "bob", cap=2, report=["alice"])
    assert got.ok and got.sockets == 1 and got.present == (False,)


async def test_changes_publish_the_viewer_count_in_order(redis_client: aioredis.Redis) -> None:
    counts, k, channel, (pubsub, read) = await _table_on_a(redis_client)
    now = 1_000_000.0
    await counts.change(k, now, 1, "alice", report=["alice"], channel=channel)
    await counts.change(k, now, 1, "anon:1", report=["alice"], channel=channel)
    await counts.change(k, now, 1, "anon:2", report=["alice"], channel=channel)
    await counts.change(k, now, -1, "anon:1", report=["alice"], channel=channel)
    got = await _messages(read, 4)
    await pubsub.aclose()
    assert got == [b'{"sp":0,"q":1}', b'{"sp":1,"q":2}', b'{"sp":2,"q":3}', b'{"sp":1,"q":4}']


async def test_a_recount_publishes_the_new_viewer_count(redis_client: aioredis.Redis) -> None:
    """Who sits changed but no socket did (a spectator took a seat): a change of 0 with the
    channel publishes the viewer count for the new seats, with a newer sequence number."""
    counts, k, channel, (pubsub, read) = await _table_on_a(redis_client)
    now = 1_000_000.0
    await counts.change(k, now, 1, "alice", report=["alice"], channel=channel)
    watching = await counts.change(k, now, 1, "bob", report=["alice"], channel=channel)
    assert watching.viewers == 1
    sat = await counts.change(k, now, 0, report=["alice", "bob"], channel=channel)
    assert sat.viewers == 0 and sat.seq == watching.seq + 1 and sat.sockets == 2
    # A plain read (no channel) publishes nothing and bumps nothing.
    assert (await counts.change(k, now, 0, report=["alice", "bob"])).seq == sat.seq
    got = await _messages(read, 3)
    assert got == [b'{"sp":0,"q":1}', b'{"sp":1,"q":2}', b'{"sp":0,"q":3}']
    assert await read(ignore_subscribe_messages=True, timeout=0.3) is None
    # A recount of a table with no socket open publishes nothing.
    empty = table_sockets_key("t" + uuid.uuid4().hex[:10])
    assert (await counts.change(empty, now, 0, channel=channel)).seq == 0
    assert await read(ignore_subscribe_messages=True, timeout=0.3) is None
    await pubsub.aclose()
