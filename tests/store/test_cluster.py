"""Redis Cluster: the URL, the app's clients built from it, and the pipelined client's routing
(slot map, MOVED, ASK, a node that went away) against the real test cluster."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from app.settings import SettingsError, load_settings, parse_cluster_url
from app.store import PipelinedRedis, StoreUnavailable, make_fast, make_redis
from app.store.cluster import ClusterPipelinedRedis
from app.store.connection import is_cluster
from app.store.pipelined import ReplyError
from tests.conftest import cluster_redis_url
from tests.store.local_cluster import LocalCluster


def test_cluster_urls_parse() -> None:
    url = parse_cluster_url("redis+cluster://127.0.0.1:7101")
    assert url.nodes == (("127.0.0.1", 7101),) and not url.tls
    assert url.username is None and url.password is None
    url = parse_cluster_url("rediss+cluster://u:p%40ss@a.example:7001,[::1]:7002/")
    assert url.nodes == (("a.example", 7001), ("::1", 7002)) and url.tls
    assert (url.username, url.password) == ("u", "p@ss")
    assert parse_cluster_url("redis+cluster://:secret@h:1").password == "secret"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("redis+cluster://h", "host:port"),
        ("redis+cluster://", "host:port"),
        ("redis+cluster://h:1,,g:2", "host:port"),
        ("redis+cluster://h:70000", "port out of range"),
        ("redis+cluster://h:1/2", "one database"),
        ("redis+cluster://h:1?timeout=3", "no query"),
    ],
)
def test_a_bad_cluster_url_is_a_clear_settings_error(url: str, reason: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(redis_url=url, secret_key="k" * 20)
    assert "HEARTS_REDIS_URL" in str(caught.value) and reason in str(caught.value)


def test_the_settings_tell_a_cluster() -> None:
    settings = load_settings(redis_url="redis+cluster://h:1,g:2", secret_key="k" * 20)
    assert settings.uses_redis_cluster and not settings.uses_memory_redis
    assert not load_settings(redis_url="redis://h:1/0", secret_key="k" * 20).uses_redis_cluster
    with pytest.raises(SettingsError, match="redis\\+cluster://"):
        load_settings(redis_url="http://h:1", secret_key="k" * 20)


@pytest.mark.asyncio
async def test_clients_for_each_kind_of_url() -> None:
    fast = make_fast("redis+cluster://u:pw@h:7001,g:7002")
    assert isinstance(fast, ClusterPipelinedRedis)
    assert fast.startup == [("h", 7001), ("g", 7002)]
    assert (fast.host, fast.port, fast.username, fast.password) == ("h", 7001, "u", "pw")
    # TLS: no pipelined client, the store sends everything through redis-py.
    assert make_fast("rediss+cluster://h:7001") is None
    generic = make_redis("redis+cluster://h:7001")
    assert is_cluster(generic) and isinstance(generic, RedisCluster)
    await generic.aclose()
    single = make_redis("redis://h:6379/0")
    assert not is_cluster(single)
    await single.aclose()


@pytest_asyncio.fixture
async def cluster() -> AsyncIterator[ClusterPipelinedRedis]:
    fast = make_fast(cluster_redis_url())
    assert isinstance(fast, ClusterPipelinedRedis)
    try:
        yield fast
    finally:
        await fast.aclose()


@pytest_asyncio.fixture
async def generic() -> AsyncIterator[aioredis.Redis]:
    client = make_redis(cluster_redis_url())
    try:
        yield client
    finally:
        await client.aclose()


def spread_keys(prefix: str, count: int = 24) -> list[str]:
    return [f"{prefix}:{i}" for i in range(count)]


@pytest.mark.asyncio
async def test_call_at_reaches_the_master_of_each_slot(
    cluster: ClusterPipelinedRedis, generic: aioredis.Redis
) -> None:
    names = spread_keys("h2t" + uuid.uuid4().hex[:8])
    try:
        replies = await asyncio.gather(*(cluster.call_at(k, "SET", k, k, "EX", 60) for k in names))
        assert replies == [b"OK"] * len(names)
        assert len(cluster.masters()) >= 3  # the keys spread over every master
        nodes = {cluster.node_address(k) for k in names}
        assert len(nodes) == len(cluster.masters())
        # redis-py's cluster client agrees on where each key lives and what it holds.
        rc = generic
        assert isinstance(rc, RedisCluster)
        await rc.initialize()
        for k in names:
            owner = rc.get_node_from_key(k)
            assert (owner.host, owner.port) == cluster.node_address(k)
            assert await generic.get(k) == k.encode()
        # One connection per master, no more.
        assert {(n.host, n.port) for n in cluster._nodes.values()} == set(cluster.masters())
        assert await cluster.call("PING") == b"PONG"
    finally:
        await generic.delete(*names)


@pytest.mark.asyncio
async def test_a_stale_map_is_corrected_by_moved(cluster: ClusterPipelinedRedis) -> None:
    names = spread_keys("h2m" + uuid.uuid4().hex[:8])
    try:
        for k in names:
            await cluster.call_at(k, "SET", k, b"v", "EX", 60)
        # Every slot pointed at one master, as after a resharding the client missed.
        one = cluster._slots[0]
        assert one is not None
        cluster._slots = [one] * len(cluster._slots)
        before = cluster.refreshes
        assert await asyncio.gather(*(cluster.call_at(k, "GET", k) for k in names)) == [b"v"] * len(
            names
        )
        for _ in range(100):  # the whole map is read again in the background
            if cluster.refreshes > before:
                break
            await asyncio.sleep(0.01)
        assert cluster.refreshes > before
        assert len(cluster.masters()) >= 3
    finally:
        for k in names:
            await cluster.call_at(k, "DEL", k)


@pytest.mark.asyncio
async def test_a_node_that_went_away_is_replaced_from_a_fresh_map(
    cluster: ClusterPipelinedRedis,
) -> None:
    """A slot's master address stops answering (as a failed master does): the client reads
    the map again and sends the command to the master the cluster names."""
    key = "h2d" + uuid.uuid4().hex[:8]
    await cluster.call_at(key, "SET", key, b"v", "EX", 60)
    slot = key_slot(key.encode())
    cluster._slots[slot] = cluster._node(("127.0.0.1", 1))  # nothing listens on port 1
    assert await cluster.call_at(key, "GET", key) == b"v"
    assert cluster.node_address(key) != ("127.0.0.1", 1)
    await cluster.call_at(key, "DEL", key)


@pytest.mark.asyncio
async def test_no_reachable_node_is_store_unavailable_within_the_bound() -> None:
    dead = ClusterPipelinedRedis([("127.0.0.1", 1)], failover_seconds=0.3, connect_timeout=0.2)
    try:
        with pytest.raises(StoreUnavailable):
            await dead.call_at("k", "GET", "k")
    finally:
        await dead.aclose()


@pytest.mark.asyncio
async def test_error_replies_are_not_redirects(cluster: ClusterPipelinedRedis) -> None:
    with pytest.raises(ReplyError):
        await cluster.call_at("k", "NOSUCHCOMMAND", "k")
    assert await cluster.call_at("k", "EXISTS", "k") in (0, 1)


@pytest.mark.asyncio
async def test_ask_during_a_slot_migration(
    cluster: ClusterPipelinedRedis, generic: aioredis.Redis
) -> None:
    """A key already moved to the importing node: the source answers ASK, the client sends
    ASKING and the command to the target. The slot is put back as it was afterwards (the
    test's key deleted: a key left on a node that does not own its slot stays unreachable)."""
    assert isinstance(generic, RedisCluster)
    key = "h2a" + uuid.uuid4().hex[:8]
    slot = key_slot(key.encode())
    await cluster.call_at(key, "SET", key, b"asked", "EX", 60)
    await cluster.refresh()
    source_addr = cluster.node_address(key)
    assert source_addr is not None
    target_addr = next(a for a in cluster.masters() if a != source_addr)
    source = aioredis.Redis(host=source_addr[0], port=source_addr[1])
    target = aioredis.Redis(host=target_addr[0], port=target_addr[1])
    source_id = (await source.execute_command("CLUSTER", "MYID")).decode()
    target_id = (await target.execute_command("CLUSTER", "MYID")).decode()
    try:
        await target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        await source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        await source.execute_command("MIGRATE", target_addr[0], target_addr[1], key, 0, 5000)
        assert await cluster.call_at(key, "GET", key) == b"asked"
        assert cluster.node_address(key) == source_addr  # ASK leaves the map alone
    finally:
        # Back as it was: the key deleted where it went (still importing there, so ASKING
        # lets the DEL in), the slot stable at the source again.
        asked = PipelinedRedis(target_addr[0], target_addr[1])
        await asked.call_asking("DEL", key)
        await asked.aclose()
        await target.execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
        await source.execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
        await source.aclose()
        await target.aclose()
    assert await cluster.call_at(key, "GET", key) is None


async def _wait_calls(address: tuple[str, int]) -> int:
    node = PipelinedRedis(*address)
    try:
        info = (await node.call("INFO", "commandstats")).decode()
    finally:
        await node.aclose()
    for line in info.splitlines():
        if line.startswith("cmdstat_wait:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0


@pytest.mark.asyncio
async def test_wait_replicas_is_one_wait_per_master_per_loop_turn(
    cluster: ClusterPipelinedRedis,
) -> None:
    """Each master of the test cluster has one replica: WAIT 1 answers 1 once it has the
    writes. Fifty writers of one slot in one loop turn share one WAIT."""
    tag = "{h2w" + uuid.uuid4().hex[:8] + "}"
    names = [f"{tag}:{i}" for i in range(50)]
    await cluster.call_at(names[0], "PING")
    address = cluster.node_address(names[0])
    assert address is not None
    before = await _wait_calls(address)

    async def write(name: str) -> int:
        await cluster.call_at(name, "SET", name, b"v", "EX", 60)
        return await cluster.wait_replicas(name, 1, 2000)

    assert await asyncio.gather(*(write(n) for n in names)) == [1] * len(names)
    assert await _wait_calls(address) - before <= 2  # one, or two if replies straddled turns
    await cluster.call_at(names[0], "DEL", *names)


# -- a private cluster, broken on purpose (tests/store/local_cluster.py) ----------------------


@pytest.fixture(scope="module")
def private_cluster() -> Iterator[LocalCluster]:
    cluster_redis_url()  # runs with the cluster tests (skipped, or failing in CI, without)
    with LocalCluster(7231) as cluster:
        yield cluster


async def _until_answered(client: ClusterPipelinedRedis, key: str, timeout: float) -> int:
    """INCR ``key`` until a reply comes; the StoreUnavailable errors met on the way."""
    errors = 0
    deadline = time.monotonic() + timeout
    while True:
        try:
            await client.call_at(key, "INCR", key)
            return errors
        except StoreUnavailable:
            errors += 1
            assert time.monotonic() < deadline, f"no answer within {timeout} s"
            await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_a_killed_master_is_replaced_without_losing_what_a_replica_had(
    private_cluster: LocalCluster,
) -> None:
    private_cluster.wait_ok()
    private_cluster.wait_replicas()
    client = ClusterPipelinedRedis([("127.0.0.1", private_cluster.ports[0])])
    told: list[float] = []
    client.on_reconnect(lambda: told.append(time.monotonic()))
    key = "h2k" + uuid.uuid4().hex[:8]
    try:
        await client.call_at(key, "SET", key, 10)
        assert await client.wait_replicas(key, 1, 2000) == 1  # the replica has it
        old = private_cluster.master_of(key)
        assert client.node_address(key) == ("127.0.0.1", old)
        private_cluster.kill(old)
        # Connections refused: the client waits for the promotion inside call_at (at most
        # the one command in flight on the reset connection fails).
        errors = await _until_answered(client, key, timeout=20)
        assert errors <= 1
        new = client.node_address(key)
        assert new is not None and new[1] != old
        assert await client.call_at(key, "GET", key) == b"11"
        assert told  # the service drops its cached copies: the new master may lack writes
    finally:
        await client.aclose()
        private_cluster.restart(old)
        private_cluster.wait_ok()


@pytest.mark.asyncio
async def test_a_hung_master_is_dropped_and_its_replica_answers(
    private_cluster: LocalCluster,
) -> None:
    """SIGSTOP: the connection stays open and silent. A command owed a reply fails after
    stall_seconds (not never); once the replica is promoted, commands go there."""
    private_cluster.wait_ok()
    private_cluster.wait_replicas()
    client = ClusterPipelinedRedis([("127.0.0.1", private_cluster.ports[0])], stall_seconds=1.0)
    key = "h2h" + uuid.uuid4().hex[:8]
    await client.call_at(key, "SET", key, 0)
    assert await client.wait_replicas(key, 1, 2000) == 1
    old = private_cluster.master_of(key)
    private_cluster.pause(old)
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):  # a TimeoutError here: it waited on the hung node
            await asyncio.wait_for(client.call_at(key, "INCR", key), 5)
        assert time.monotonic() - started < 3
        await _until_answered(client, key, timeout=20)
        new = client.node_address(key)
        assert new is not None and new[1] != old
        assert await client.call_at(key, "GET", key) == b"1"
    finally:
        await client.aclose()
        private_cluster.resume(old)
        private_cluster.wait_ok()


@pytest.mark.asyncio
async def test_a_burst_on_a_new_client_runs_each_script_once() -> None:
    """The server's first requests come at once: on a client that has not read its slot map
    yet, none may fail or be run twice (redis-py 8.1 retried scripts that had run)."""
    client = make_redis(cluster_redis_url())
    key = "{h2b" + uuid.uuid4().hex[:8] + "}:count"
    count = client.register_script("return redis.call('INCR', KEYS[1])")
    try:
        replies = await asyncio.gather(*(count(keys=[key]) for _ in range(60)))
        assert sorted(int(r) for r in replies) == list(range(1, 61))
        assert int(await client.get(key)) == 60
    finally:
        await client.delete(key)
        await client.aclose()


def test_waiting_for_replicas_needs_the_pipelined_client() -> None:
    with pytest.raises(SettingsError, match="HEARTS_REDIS_WAIT_REPLICAS"):
        load_settings(redis_url="rediss://h:1/0", secret_key="k" * 20, redis_wait_replicas=1)
    settings = load_settings(
        redis_url="redis+cluster://h:1", secret_key="k" * 20, redis_wait_replicas=1
    )
    assert settings.redis_wait_replicas == 1 and settings.redis_wait_timeout_ms == 100


@pytest.mark.asyncio
async def test_a_write_whose_reply_was_lost_is_not_sent_again(
    generic: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script or counter whose reply timed out may have run: redis-py's cluster client
    resent it (a table's creation then found itself: "table id collision"). Ours sends a
    write once and hands the error to the caller; a read is still asked again."""
    key = "{h2w" + uuid.uuid4().hex[:8] + "}:count"
    await generic.set(key, 0)
    real = RedisCluster._execute_command
    sent: list[str] = []

    async def lose_first_reply(
        self: RedisCluster, node: object, *args: object, **kw: object
    ) -> object:
        # The class is patched for the whole process: only this test's commands (those on its
        # key) are counted, whatever another client of the worker sends meanwhile.
        if key not in (a.decode() if isinstance(a, bytes) else str(a) for a in args[1:]):
            return await real(self, node, *args, **kw)  # type: ignore[arg-type]
        sent.append(str(args[0]))
        reply = await real(self, node, *args, **kw)  # type: ignore[arg-type]
        if len(sent) == 1:
            raise aioredis.TimeoutError(
                "Timeout reading from the node"
            )  # it ran, the reply was lost
        return reply

    count = generic.register_script("return redis.call('INCR', KEYS[1])")
    # Run once before the reply is lost, so the key's master has the script: on a node that
    # lacks it, EVALSHA fails with NOSCRIPT before it runs and the script is sent again.
    assert await count(keys=[key]) == 1
    monkeypatch.setattr(RedisCluster, "_execute_command", lose_first_reply)
    try:
        with pytest.raises(StoreUnavailable):  # the lost reply, as every outage
            await count(keys=[key])
        assert sent == ["EVALSHA"]
        sent.clear()
        with pytest.raises(StoreUnavailable):  # the lost reply, as every outage
            await generic.incr(key)
        assert sent == ["INCRBY"]
        sent.clear()
        assert int(await generic.get(key)) == 3  # each write ran once; this read was asked twice
        assert sent == ["GET", "GET"]
    finally:
        monkeypatch.undo()
        await generic.delete(key)
