"""The pipelined client of the move path against a real Redis: same results as redis-py."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from app.store import PipelinedRedis, TableStore, keys, make_fast, make_redis
from app.store.pipelined import ReplyError, _parse
from tests.conftest import REDIS_BACKENDS, backend_url

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(params=[b for b in REDIS_BACKENDS if b != "fake"])
async def fast_store(namespace: str, request: pytest.FixtureRequest) -> AsyncIterator[TableStore]:
    """The store with its pipelined client, on one Redis and (when set) the test cluster."""
    url = backend_url(request.param)
    fast = make_fast(url)
    assert fast is not None
    redis = make_redis(url)
    store = TableStore(redis, namespace=namespace, log_size=3, fast=fast)
    try:
        yield store
    finally:
        await fast.aclose()
        await redis.aclose()


async def test_reply_parser_handles_every_kind_and_partial_input() -> None:
    data = bytearray(b"*3\r\n:1\r\n$3\r\nabc\r\n$-1\r\n+OK\r\n-ERR no\r\n")
    value, pos = _parse(data, 0) or (None, 0)
    assert value == [1, b"abc", None]
    ok, pos = _parse(data, pos) or (None, 0)
    assert ok == b"OK"
    err, pos = _parse(data, pos) or (None, 0)
    assert isinstance(err, ReplyError) and pos == len(data)
    for cut in range(1, 20):  # any prefix of a reply is "not yet"
        assert _parse(bytearray(b"*3\r\n:1\r\n$3\r\nabc\r\n$-1\r\n"[:cut]), 0) is None


async def test_from_url() -> None:
    fast = PipelinedRedis.from_url("redis://u:p%40ss@h:6380/3")
    assert fast is not None
    assert (fast.host, fast.port, fast.db, fast.username, fast.password) == (
        "h",
        6380,
        3,
        "u",
        "p@ss",
    )
    assert PipelinedRedis.from_url("rediss://h:6380/0") is None
    assert PipelinedRedis.from_url("unix:///tmp/r.sock") is None


async def test_commit_and_load_through_the_pipeline(fast_store: TableStore) -> None:
    tid = uuid.uuid4().hex[:10]
    assert await fast_store.load(tid) is None
    first = await fast_store.commit(
        tid, expected_version=0, blob=b"s1", message=b"m1", ttl_seconds=60
    )
    assert first.ok and first.version == 1
    stale = await fast_store.commit(
        tid, expected_version=0, blob=b"x", message=b"x", ttl_seconds=60
    )
    assert not stale.ok and stale.version == 1
    loaded = await fast_store.load(tid)
    assert loaded is not None and (loaded.version, loaded.blob) == (1, b"s1")
    for v in range(1, 5):
        assert (
            await fast_store.commit(
                tid, expected_version=v, blob=None, message=f"m{v}".encode(), ttl_seconds=60
            )
        ).ok
    assert await fast_store.read_log(tid) == [b"m2", b"m3", b"m4"]
    assert 0 < await fast_store.redis.ttl(keys.state_key(tid)) <= 60


async def test_due_times_and_move_lists_through_the_pipeline(fast_store: TableStore) -> None:
    """The due loop's and the results' commands give what redis-py gives."""
    plain = TableStore(fast_store.redis, namespace=fast_store.namespace, log_size=3)
    tid = uuid.uuid4().hex[:10]
    first = await fast_store.commit(
        tid,
        expected_version=0,
        blob=b"s",
        message=b"m",
        ttl_seconds=60,
        due=1_000.0,
        moves=[b"[0,1]", b"[1,2]", b"[2,3]"],
    )
    assert first.ok
    for store in (fast_store, plain):
        assert await store.game_moves(tid) == [b"[0,1]", b"[1,2]", b"[2,3]"]
        assert await store.game_moves(tid, 2) == [b"[2,3]"]
        assert await store.read_log(tid) == [b"m"]
        assert await store.due_of(tid) == 1_000.0
        assert await store.due_of("no-such-table") is None
    assert await fast_store.claim_due(2_000, 5_000) == [tid]
    assert await plain.due_of(tid) == 7_000.0  # leased
    assert await fast_store.claim_due(2_000, 5_000) == []
    assert not await fast_store.set_due_if_version(tid, 7, 3_000.0)  # not at that version
    assert await fast_store.set_due_if_version(tid, 1, 3_000.0)
    assert await plain.due_of(tid) == 3_000.0
    assert await fast_store.set_due_if_version(tid, 1, None)
    assert await fast_store.due_of(tid) is None
    await plain.set_due_if_version(tid, 1, 4_000.0)
    await fast_store.drop_due(tid)
    assert await plain.due_of(tid) is None


async def test_many_commits_in_flight_each_get_their_own_reply(fast_store: TableStore) -> None:
    ids = [uuid.uuid4().hex[:10] for _ in range(50)]
    results = await asyncio.gather(
        *(
            fast_store.commit(
                tid, expected_version=0, blob=tid.encode(), message=b"m", ttl_seconds=60
            )
            for tid in ids
            for _ in range(2)  # two racers per table: exactly one wins
        )
    )
    assert sum(r.ok for r in results) == 50
    for tid in ids:
        loaded = await fast_store.load(tid)
        assert loaded is not None and loaded.blob == tid.encode()


async def test_a_script_redis_does_not_know_is_sent_whole(fast_store: TableStore) -> None:
    """After a Redis restart (script cache empty) EVALSHA answers NOSCRIPT: EVAL instead."""

    class Unknown:
        sha = "0" * 40
        script = "return {1, tonumber(ARGV[1]) + 1}"

    assert await fast_store._run(Unknown(), keys=[], args=[41]) == [1, 42]
    with pytest.raises(ReplyError):
        await fast_store.fast.call("NOSUCHCOMMAND")  # type: ignore[union-attr]
    # The connection is still usable after an error reply.
    assert await fast_store.fast.call("PING") == b"PONG"  # type: ignore[union-attr]


async def test_reconnects_after_the_connection_drops(fast_store: TableStore) -> None:
    fast = fast_store.fast
    assert fast is not None
    assert await fast.call("PING") == b"PONG"
    await fast.aclose()
    assert await fast.call("PING") == b"PONG"


async def test_direct_fanout_delivers_in_order_and_resubscribes(fast_store: TableStore) -> None:
    from app.store import Fanout
    from app.store.cluster import ClusterPipelinedRedis

    if isinstance(fast_store.fast, ClusterPipelinedRedis):
        pytest.skip("one Redis's subscriber connection; a cluster's: tests/store/test_fanout.py")
    home = f"{fast_store.namespace}:instance:i1"
    fanout = Fanout(fast_store.redis, home, direct=fast_store.fast)
    await fanout.start()
    got: list[tuple[str, bytes]] = []
    tid = uuid.uuid4().hex[:10]

    async def wait_for(count: int) -> None:
        for _ in range(200):
            if len(got) >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"got {got}")

    try:
        await fanout.subscribe(keys.channel(tid), lambda ch, data: got.append((ch, data)))
        await asyncio.sleep(0.05)  # the SUBSCRIBE is on its way
        for v in range(1, 4):
            await fast_store.commit(
                tid, expected_version=v - 1, blob=b"s", message=b"m%d" % v, ttl_seconds=60
            )
        await wait_for(3)
        assert got == [(keys.channel(tid), b"m%d" % v) for v in range(1, 4)]
        # The connection drops: the fan-out reconnects and subscribes again.
        assert fanout._proto is not None
        fanout._proto.transport.close()
        for _ in range(200):
            await asyncio.sleep(0.01)
            if fanout._proto is not None and not fanout._proto.closed.done():
                break
        await asyncio.sleep(0.05)
        await fast_store.commit(tid, expected_version=3, blob=b"s", message=b"m4", ttl_seconds=60)
        await wait_for(4)
        assert got[-1] == (keys.channel(tid), b"m4")
        await fanout.unsubscribe(keys.channel(tid), got.append)  # not its handler: no change
        await fanout.unsubscribe(keys.channel(tid), fanout._handlers[keys.channel(tid)][0])
        await asyncio.sleep(0.05)
        await fast_store.commit(tid, expected_version=4, blob=b"s", message=b"m5", ttl_seconds=60)
        await asyncio.sleep(0.1)
        assert len(got) == 4
    finally:
        await fanout.stop()


async def test_commits_wait_for_a_replica_when_asked(fast_store: TableStore) -> None:
    """HEARTS_REDIS_WAIT_REPLICAS=1: each commit returns once a replica has it, or after the
    timeout, counted (one Redis with no replica: every commit; the test cluster: none)."""
    fast = fast_store.fast
    assert fast is not None
    store = TableStore(
        fast_store.redis,
        namespace=fast_store.namespace,
        fast=fast,
        wait_replicas=1,
        wait_timeout_ms=50,
    )
    ids = [uuid.uuid4().hex[:10] for _ in range(10)]
    results = await asyncio.gather(
        *(
            store.commit(tid, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60)
            for tid in ids
        )
    )
    assert all(r.ok for r in results)
    lacking = 0
    for tid in ids:
        info = (await fast.call_at(keys.version_key(tid), "INFO", "replication")).decode()
        lacking += "connected_slaves:0" in info
    assert store.unreplicated == lacking
    # A refused commit (stale version) waits for nothing.
    assert not (
        await store.commit(ids[0], expected_version=0, blob=b"x", message=b"x", ttl_seconds=60)
    ).ok
    assert store.unreplicated == lacking
