"""TableStore against fakeredis and a real Redis: the same Lua, the same results."""

from __future__ import annotations

import asyncio
import random
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
    # Later, b is due (score 5000) and a's lease (12000) has run out: both (from their shards).
    assert sorted(await store.claim_due(13_000, 10_000)) == sorted([b, a])
    assert await store.due_of(a) == 23_000


async def test_an_idle_poll_runs_no_script_and_a_small_limit_reaches_every_due_shard(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """The due loop polls every shard several times a second on every instance: with nothing
    due it asks one ZCOUNT per shard and runs no claim script. With more due shards than the
    limit, successive polls take turns over them, so every due item is claimed."""
    store = TableStore(redis_client, namespace=namespace)
    scripts: list[int] = []
    run = store._run

    async def counted(script: object, *, keys: list[str], args: list[object]) -> object:
        scripts.append(1)
        return await run(script, keys=keys, args=args)

    store._run = counted  # type: ignore[method-assign]
    assert await store.claim_due(1000, 10_000) == []
    assert scripts == []  # nothing due: no script ran
    ids: list[str] = []
    shards: set[int] = set()
    while len(ids) < 6:  # six tables in six different shards
        tid = new_id()
        if keys.shard_of(tid) not in shards:
            shards.add(keys.shard_of(tid))
            ids.append(tid)
    for tid in ids:
        await store.commit(
            tid, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, due=500
        )
    scripts.clear()
    claimed: list[str] = []
    for _ in range(3):
        got = await store.claim_due(1000, 10_000, limit=2)
        assert len(got) == 2
        claimed += got
    assert sorted(claimed) == sorted(ids)  # each claimed once, none left behind
    assert len(scripts) == 6  # a script only for a shard with an item due
    assert await store.claim_due(1000, 10_000) == []


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
        for _ in range(500):  # a loaded machine (the other pytest-xdist worker) is slow
            if len(got) >= 4:
                break
            await asyncio.sleep(0.02)
        # In order on each channel (on Cluster the lobby's global channel and the table's
        # shard channel come through different connections: no order between the two).
        assert [data for ch, data in got if ch == keys.channel(tid)] == [b"hello", b"bye"]
        assert [data for ch, data in got if ch == store.lobby_channel] == [tid.encode()] * 2
        assert len(got) == 4
    finally:
        await fanout.stop()


def id_in_shard(shard: int) -> str:
    while True:
        tid = new_id()
        if keys.shard_of(tid) == shard:
            return tid


async def test_claims_share_the_limit_among_the_shards(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Two due items in every shard, a limit of one per shard: each call takes one from every
    shard; a limit below the number of shards reaches the others on the next calls; and a
    shard that has more than its share gets what the others left."""
    store = TableStore(redis_client, namespace=namespace)
    ids = {k: [id_in_shard(k), id_in_shard(k)] for k in range(keys.SHARDS)}
    async with redis_client.pipeline(transaction=False) as pipe:
        for k, pair in ids.items():
            pipe.zadd(store.due_keys[k], {pair[0]: 1000, pair[1]: 1001})
        await pipe.execute()
    first = await store.claim_due(2000, 10_000, keys.SHARDS)
    assert sorted(keys.shard_of(t) for t in first) == list(range(keys.SHARDS))
    assert set(first) == {pair[0] for pair in ids.values()}  # the earliest of each shard
    # A limit of 20: three calls serve 60 different shards, none twice before the others.
    served: list[int] = []
    for _ in range(3):
        got = await store.claim_due(2000, 10_000, 20)
        assert len(got) == 20
        served += [keys.shard_of(t) for t in got]
    assert len(set(served)) == 60
    rest = await store.claim_due(2000, 10_000, 50)
    assert sorted(keys.shard_of(t) for t in rest) == sorted(set(range(keys.SHARDS)) - set(served))
    assert await store.claim_due(2000, 10_000) == []
    # One busy shard: it gets the whole limit the idle shards leave.
    busy = [id_in_shard(5) for _ in range(40)]
    await redis_client.zadd(store.due_keys[5], dict.fromkeys(busy, 1500))
    taken = await store.claim_due(2000, 10_000, 30)
    assert len(taken) == 30 and set(taken) <= set(busy)
    assert sorted(taken + await store.claim_due(2000, 10_000, 100)) == sorted(busy)


async def test_the_lobby_is_read_from_every_shard(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    store = TableStore(redis_client, namespace=namespace)
    lines = {id_in_shard(k % keys.SHARDS): b"line%d" % k for k in range(3 * keys.SHARDS)}
    lines.update({id_in_shard(9): b"more%d" % i for i in range(300)})  # one big shard
    for table_id, line in lines.items():
        await store.commit(
            table_id,
            expected_version=0,
            blob=b"s",
            message=b"m",
            ttl_seconds=60,
            lobby_summary=line,
        )
    assert await store.lobby_entries() == lines
    some = random.sample(sorted(lines), 50) + ["nosuchtable"]
    assert await store.lobby_lines(some) == [lines.get(t) for t in some]
    assert await store.lobby_entry(some[0]) == lines[some[0]]
    for count in (7, 500):
        found: dict[str, bytes] = {}
        cursor, steps = 0, 0
        while True:
            cursor, part = await store.scan_lobby(cursor, count)
            found.update(part)
            steps += 1
            if cursor == 0:
                break
        assert found == lines
        assert steps < 200
    gone = some[:10]
    await store.drop_lobby_entries(gone)
    assert await store.lobby_entries() == {t: v for t, v in lines.items() if t not in gone}


async def test_the_shards_that_get_more_take_turns(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """A limit that is not a multiple of the shards: the shards that get one more item than
    the others are not the same from one call to the next."""
    store = TableStore(redis_client, namespace=namespace)
    async with redis_client.pipeline(transaction=False) as pipe:
        for k in range(keys.SHARDS):
            pipe.zadd(store.due_keys[k], {id_in_shard(k): 1000 + i for i in range(4)})
        await pipe.execute()
    favoured: list[set[int]] = []
    for _ in range(2):
        got = await store.claim_due(2000, 10_000, keys.SHARDS + 10)
        assert len(got) == keys.SHARDS + 10
        shards = [keys.shard_of(t) for t in got]
        assert set(shards) == set(range(keys.SHARDS))  # every shard served
        favoured.append({k for k in set(shards) if shards.count(k) == 2})
    assert len(favoured[0]) == len(favoured[1]) == 10
    assert not favoured[0] & favoured[1]
