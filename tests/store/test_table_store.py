"""TableStore against fakeredis and a real Redis: the same Lua, the same results."""

from __future__ import annotations

import asyncio
import uuid

import orjson
import pytest
import redis.asyncio as aioredis

from app.store import Fanout, TableStore, keys

pytestmark = pytest.mark.asyncio


def new_id() -> str:
    return uuid.uuid4().hex[:10]


async def test_commit_compares_version_and_stores(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    store = TableStore(redis_client, namespace=namespace, log_size=3)
    tid = new_id()
    assert await store.load(tid) is None
    first = await store.commit(tid, expected_version=0, blob=b"s1", message=b"m1", ttl_seconds=60)
    assert first.ok and first.version == 1
    loaded = await store.load(tid)
    assert loaded is not None and loaded.version == 1 and loaded.blob == b"s1"

    stale = await store.commit(tid, expected_version=0, blob=b"bad", message=b"x", ttl_seconds=60)
    assert not stale.ok and stale.version == 1
    loaded = await store.load(tid)
    assert loaded is not None and loaded.blob == b"s1"

    # blob=None keeps the state but still bumps the version (chat).
    chat = await store.commit(tid, expected_version=1, blob=None, message=b"m2", ttl_seconds=60)
    assert chat.ok and chat.version == 2
    loaded = await store.load(tid)
    assert loaded is not None and loaded.version == 2 and loaded.blob == b"s1"


async def test_event_log_is_bounded(redis_client: aioredis.Redis, namespace: str) -> None:
    store = TableStore(redis_client, namespace=namespace, log_size=3)
    tid = new_id()
    for v in range(5):
        res = await store.commit(
            tid, expected_version=v, blob=b"s", message=f"m{v}".encode(), ttl_seconds=60
        )
        assert res.ok
    assert await store.read_log(tid) == [b"m2", b"m3", b"m4"]


async def test_ttl_is_set_on_every_key(redis_client: aioredis.Redis, namespace: str) -> None:
    store = TableStore(redis_client, namespace=namespace)
    tid = new_id()
    await store.commit(tid, expected_version=0, blob=b"s", message=b"m", ttl_seconds=50)
    for key in (keys.version_key(tid), keys.state_key(tid), keys.log_key(tid)):
        ttl = await redis_client.ttl(key)
        assert 0 < ttl <= 50


async def test_racing_commits_exactly_one_wins(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    store = TableStore(redis_client, namespace=namespace)
    tid = new_id()
    await store.commit(tid, expected_version=0, blob=b"s0", message=b"m", ttl_seconds=60)
    results = await asyncio.gather(
        *(
            store.commit(
                tid, expected_version=1, blob=f"s{i}".encode(), message=b"m", ttl_seconds=60
            )
            for i in range(10)
        )
    )
    assert sum(r.ok for r in results) == 1
    loaded = await store.load(tid)
    assert loaded is not None and loaded.version == 2


async def test_due_claims_are_exclusive_leases(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    store = TableStore(redis_client, namespace=namespace)
    a, b = new_id(), new_id()
    await store.commit(a, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, due=1000)
    await store.commit(b, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, due=5000)
    claims = await asyncio.gather(*(store.claim_due(2000, 10_000) for _ in range(5)))
    assert sorted(sum(claims, [])) == [a]
    # The lease runs out: the item comes back (the claimer "died").
    # Later, b is due (score 5000) and a's lease (12000) has run out: both, by due time.
    assert await store.claim_due(13_000, 10_000) == [b, a]
    assert await store.due_of(a) == 23_000


async def test_lease_expiry_returns_item(redis_client: aioredis.Redis, namespace: str) -> None:
    store = TableStore(redis_client, namespace=namespace)
    a = new_id()
    await store.commit(a, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, due=1000)
    assert await store.claim_due(2000, 10_000) == [a]
    assert await store.claim_due(5000, 10_000) == []
    assert await store.claim_due(12_001, 10_000) == [a]


async def test_commit_removes_due_and_set_due_checks_version(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    store = TableStore(redis_client, namespace=namespace)
    a = new_id()
    await store.commit(a, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, due=1000)
    assert not await store.set_due_if_version(a, 0, 50)
    assert await store.due_of(a) == 1000
    assert await store.set_due_if_version(a, 1, 70)
    assert await store.due_of(a) == 70
    await store.commit(a, expected_version=1, blob=b"s", message=b"m", ttl_seconds=60, due="remove")
    assert await store.due_of(a) is None


async def test_lobby_summary_and_publish(redis_client: aioredis.Redis, namespace: str) -> None:
    store = TableStore(redis_client, namespace=namespace)
    fanout = Fanout(redis_client, keys.instance_channel(namespace, "i1"))
    await fanout.start()
    got: list[tuple[str, bytes]] = []
    tid = new_id()
    try:
        await fanout.subscribe(keys.channel(tid), lambda ch, data: got.append((ch, data)))
        await fanout.subscribe(store.lobby_channel, lambda ch, data: got.append((ch, data)))
        summary = orjson.dumps({"id": tid})
        await store.commit(
            tid,
            expected_version=0,
            blob=b"s",
            message=b"hello",
            ttl_seconds=60,
            lobby_summary=summary,
        )
        assert (await store.lobby_entries()) == {tid: summary}
        await store.commit(
            tid,
            expected_version=1,
            blob=b"s",
            message=b"bye",
            ttl_seconds=60,
            lobby_summary="remove",
        )
        assert await store.lobby_entries() == {}
        for _ in range(100):
            if len(got) >= 4:
                break
            await asyncio.sleep(0.02)
        assert got == [
            (store.lobby_channel, tid.encode()),
            (keys.channel(tid), b"hello"),
            (store.lobby_channel, tid.encode()),
            (keys.channel(tid), b"bye"),
        ]
    finally:
        await fanout.stop()
