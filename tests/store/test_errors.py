"""Every Redis outage is StoreUnavailable at the call, whatever the library raised for it.

The rule (app/store/errors.py ``is_store_down``) on exceptions made here; then the clients of
app/store/connection.py under a broken connection: fakeredis disconnected, a real Redis whose
connection is closed under a command (the AttributeError redis-py raises then), and a private
Redis Cluster (tests/store/local_cluster.py) whose master is killed or paused while scripts,
counters, pipelines and pub/sub run on it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import fakeredis
import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio.connection import AbstractConnection, Connection
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    DataError,
    MasterDownError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
    WatchError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.store import StoreUnavailable, make_redis
from app.store.connection import is_cluster
from app.store.errors import is_store_down, store_down_as_unavailable
from app.store.sockets import SocketCounts
from tests.conftest import cluster_redis_url, real_redis_url
from tests.store.local_cluster import LocalCluster

DOWN: list[BaseException] = [
    RedisConnectionError("Error 111 connecting to 127.0.0.1:7001. Connection refused."),
    RedisTimeoutError("Timeout reading from socket"),
    BusyLoadingError("Redis is loading the dataset in memory"),
    ClusterDownError("The cluster is down"),
    MasterDownError("MASTERDOWN Link with MASTER is down"),
    TryAgainError("Multiple keys request during rehashing of slot"),
    MovedError("3999 127.0.0.1:7002"),
    AskError("3999 127.0.0.1:7002"),
    SlotNotCoveredError('Slot "12" is not covered by the cluster.'),
    RedisClusterException("Redis Cluster cannot be connected. Please provide at least one"),
    ResponseError("LOADING Redis is loading the dataset in memory"),
    ResponseError("READONLY You can't write against a read only replica."),
    ConnectionResetError(104, "Connection reset by peer"),
    BrokenPipeError(32, "Broken pipe"),
    OSError(113, "No route to host"),
    asyncio.IncompleteReadError(b"", 10),
    TimeoutError(),
    StoreUnavailable("lost the Redis connection"),
]

NOT_DOWN: list[BaseException] = [
    ResponseError("ERR Error running script: table id collision"),
    ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"),
    NoScriptError("No matching script. Please use EVAL."),
    DataError("Invalid input of type: 'NoneType'"),
    WatchError("Watched variable changed."),
    RedisClusterException("No way to dispatch this command to Redis Cluster. Missing key."),
    ValueError("bad"),
    KeyError("seat"),
    AttributeError("'Table' object has no attribute 'seats'"),  # raised by our code: a bug
]


@pytest.mark.parametrize("exc", DOWN, ids=lambda e: type(e).__name__)
def test_an_outage_of_any_kind_is_store_unavailable(exc: BaseException) -> None:
    assert is_store_down(exc)
    with pytest.raises(StoreUnavailable) as raised, store_down_as_unavailable():
        raise exc
    assert raised.value is exc or raised.value.__cause__ is exc


@pytest.mark.parametrize("exc", NOT_DOWN, ids=lambda e: f"{type(e).__name__}-{e}"[:40])
def test_a_refused_command_or_a_bug_is_left_as_it_was(exc: BaseException) -> None:
    assert not is_store_down(exc)
    with pytest.raises(type(exc)) as raised, store_down_as_unavailable():
        raise exc
    assert raised.value is exc


@given(st.text(max_size=40))
def test_an_error_reply_is_an_outage_only_by_its_code(message: str) -> None:
    down = message.startswith(
        ("LOADING", "MASTERDOWN", "READONLY", "CLUSTERDOWN", "TRYAGAIN", "MOVED ", "ASK ")
    )
    assert is_store_down(ResponseError(message)) is down


def test_an_attribute_error_counts_only_from_inside_redis_py() -> None:
    """redis-py's connection writer gone under a command ('NoneType' object has no attribute
    'writelines'): redis-py's frame raised it. The same error from our own code is a bug."""
    connection = Connection.__new__(Connection)  # no socket, no writer
    connection._writer = None
    try:
        connection._send_packed_command([b"PING"]).send(None)
    except AttributeError as exc:
        assert "writelines" in str(exc)
        assert is_store_down(exc)
    else:  # pragma: no cover - the call above always raises
        pytest.fail("redis-py wrote to no writer")
    try:
        None.writelines([b"PING"])  # type: ignore[attr-defined]
    except AttributeError as exc:
        assert not is_store_down(exc)


# -- the clients under a broken connection ------------------------------------------------------

Call = Callable[[], Awaitable[Any]]


def each_kind_of_call(client: Any, key: str, channel: str) -> dict[str, Call]:
    """A script (the socket counts' change, as a socket opens), a counter, a pipeline, and
    pub/sub (subscribe and read), each on ``key``'s slot."""
    counts = SocketCounts(client, "inst", 30_000)

    async def script() -> Any:
        return await counts.change(key, time.time() * 1000, 1)

    async def counter() -> Any:
        return await client.incr(key + ":n")

    async def pipeline() -> Any:
        async with client.pipeline(transaction=False) as pipe:
            pipe.incr(key + ":p")
            pipe.expire(key + ":p", 60)
            return await pipe.execute()

    async def pubsub() -> Any:
        sub = client.pubsub()
        try:
            await sub.ssubscribe(channel)
            if is_cluster(client):  # a shard channel is read from its node's connection
                return await sub.get_sharded_message(timeout=0.1)
            return await sub.get_message(timeout=0.1)
        finally:
            await sub.aclose()

    return {"script": script, "counter": counter, "pipeline": pipeline, "pubsub": pubsub}


@pytest.mark.asyncio
async def test_fake_redis_down_is_store_unavailable_for_every_kind_of_call() -> None:
    server = fakeredis.FakeServer()
    client = make_redis("memory://", fake_server=server)
    calls = each_kind_of_call(client, "{t1}:k", "{t1}:ch")
    try:
        for call in calls.values():
            await call()
        server.connected = False
        for name, call in calls.items():
            with pytest.raises(StoreUnavailable):
                await call()
            assert name
        server.connected = True
        await calls["counter"]()
    finally:
        await client.aclose()


@pytest.mark.asyncio
async def test_a_connection_closed_under_a_command_is_store_unavailable(
    monkeypatch: pytest.MonkeyPatch, namespace: str
) -> None:
    """Another task closed the pooled connection while this command awaited its health check
    (a failover does, on every connection of a dead node): redis-py then writes to no writer.
    That socket opening was dropped with "Exception in ASGI application" instead of 1013."""
    client = make_redis(real_redis_url())
    key = namespace + ":n"
    calls = each_kind_of_call(client, key, key + ":ch")
    real = AbstractConnection.check_health

    async def closed_meanwhile(self: AbstractConnection) -> None:
        await real(self)  # type: ignore[no-untyped-call]
        self._writer = None

    try:
        await client.ping()
        monkeypatch.setattr(AbstractConnection, "check_health", closed_meanwhile)
        for name in ("script", "counter", "pipeline"):
            with pytest.raises(StoreUnavailable) as raised:
                await calls[name]()
            assert isinstance(raised.value.__cause__, AttributeError), name
        monkeypatch.undo()
        assert int(await calls["counter"]()) == 1  # the pool made a new connection
    finally:
        monkeypatch.undo()
        await client.delete(key, key + ":n", key + ":p")
        await client.aclose()


@pytest.fixture(scope="module")
def failover_cluster() -> Iterator[LocalCluster]:
    cluster_redis_url()  # runs with the cluster tests (skipped, or failing in CI, without)
    with LocalCluster(7261) as cluster:
        yield cluster


@pytest.mark.asyncio
@pytest.mark.parametrize("fault", ["kill", "pause"])
async def test_a_master_lost_under_every_kind_of_call_is_store_unavailable(
    failover_cluster: LocalCluster, fault: str
) -> None:
    """While a master is killed (connections reset) or paused (silent until the replica is
    promoted), every call on its slot either works or raises StoreUnavailable, never
    anything else, and each works again once its replica took over."""
    cluster = failover_cluster
    cluster.wait_ok()
    cluster.wait_replicas()
    client = make_redis(cluster.url)
    key = "{f" + uuid.uuid4().hex[:8] + "}:k"
    calls = each_kind_of_call(client, key, key + ":ch")
    for call in calls.values():  # every node and connection in use before the fault
        await call()
    master = cluster.master_of(key)
    other: dict[str, list[str]] = {}
    unavailable: dict[str, int] = dict.fromkeys(calls, 0)
    if fault == "kill":
        cluster.kill(master)
    else:
        cluster.pause(master)
    try:

        async def until_it_works(name: str, call: Call) -> None:
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                try:
                    await call()
                    if cluster.master_of(key) != master:
                        return  # answered by the promoted replica
                except StoreUnavailable:
                    unavailable[name] += 1
                except Exception as exc:  # what the app would have answered with a 500
                    other.setdefault(name, []).append(f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(0.05)
            pytest.fail(f"{name}: no answer from the new master within 40 s")

        await asyncio.gather(*(until_it_works(n, c) for n, c in calls.items()))
        assert other == {}
        assert sum(unavailable.values()) >= 1  # the fault was met
    finally:
        await client.aclose()
        if fault == "kill":
            cluster.restart(master)
        else:
            cluster.resume(master)
        cluster.wait_ok()
        cluster.wait_replicas()
