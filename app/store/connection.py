"""Build the Redis client: a real server, a Redis Cluster, or fakeredis (with Lua) for
embedded runs.

Each client, its pipelines and its pub/sub turn a failure that means Redis is away into
app.store.errors.StoreUnavailable at the call (``is_store_down``: whatever redis-py raised for
it, a failover's AttributeError from a connection closed under a command included), so the
callers' one ``except STORE_DOWN`` answers every outage the documented way.
"""

from __future__ import annotations

from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline, PubSub
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, ClusterPubSub, RedisCluster
from redis.commands import READ_COMMANDS
from redis.exceptions import RedisClusterException

from app.settings import MEMORY_REDIS_URL, is_cluster_url, parse_cluster_url
from app.store.cluster import ClusterPipelinedRedis
from app.store.errors import store_down_as_unavailable
from app.store.pipelined import PipelinedRedis

# The type the app's code is written against. On a cluster URL make_redis returns a
# redis.asyncio.cluster.RedisCluster, cast to this type: it offers the same command methods
# (both come from redis.commands), routes each keyed command to the node of its key's slot,
# and its pipeline() and pubsub() answer as the single client's do. What it refuses is what
# the layout never does: commands whose keys lie in two slots (CROSSSLOT), SELECT, and
# MULTI across slots (app/store/keys.py puts the keys one operation touches in one slot).
# is_cluster(client) tells the two apart where it matters.
Redis = aioredis.Redis


def is_cluster(client: object) -> bool:
    """True for a client make_redis built for a Redis Cluster URL."""
    return isinstance(client, RedisCluster)


def make_fast(url: str) -> PipelinedRedis | None:
    """The move path's pipelined client for ``url``: a ClusterPipelinedRedis for a
    ``redis+cluster://`` URL (app/store/cluster.py), a PipelinedRedis for a plain
    ``redis://`` one, None for anything else (TLS, sockets, the stand-in), where the store
    sends everything through redis-py."""
    if is_cluster_url(url):
        return ClusterPipelinedRedis.from_cluster_url(url)
    return PipelinedRedis.from_url(url)


def make_redis(url: str, *, fake_server: Any = None, max_connections: int = 200) -> Redis:
    """Return an asyncio Redis client for ``url``.

    ``memory://`` gives fakeredis, which runs the same Lua scripts through lupa, so the
    embedded server exercises the very store code that talks to a real Redis. Pass
    ``fake_server`` (a ``fakeredis.FakeServer``) to let several clients share one memory.
    """
    if url == MEMORY_REDIS_URL:
        import fakeredis  # imported lazily: production never loads it

        class _FakeRedis(_Guarded, fakeredis.FakeAsyncRedis):  # type: ignore[misc]
            """fakeredis, failing as the real clients do (a test's server.connected = False)."""

        server = fake_server if fake_server is not None else fakeredis.FakeServer()
        # A blocking pool here too: the default pool raises MaxConnectionsError past its
        # size when many sockets open at once, instead of waiting for a free connection.
        client: Redis = _FakeRedis(
            server=server,
            connection_pool_class=aioredis.BlockingConnectionPool,
            max_connections=max_connections,
            timeout=20,
        )
        return client
    if is_cluster_url(url):
        return _make_cluster(url, max_connections=max_connections)
    # A blocking pool waits for a free connection under bursts instead of failing. A Redis
    # that cannot be reached fails a call within socket_connect_timeout (not the OS's minutes),
    # as StoreUnavailable's siblings in app.store.errors.STORE_DOWN.
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=20,
        health_check_interval=30,
        socket_connect_timeout=5,
    )
    return _Redis(connection_pool=pool)


class _GuardedPipeline(Pipeline):
    """A single Redis's pipeline whose outages are StoreUnavailable (app.store.errors)."""

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        with store_down_as_unavailable():
            return await super().execute(raise_on_error)

    async def immediate_execute_command(self, *args: Any, **options: Any) -> Any:
        with store_down_as_unavailable():
            return await super().immediate_execute_command(*args, **options)  # type: ignore[no-untyped-call]


class _GuardedPubSub(PubSub):
    """A single Redis's pub/sub whose outages are StoreUnavailable (app.store.errors)."""

    async def execute_command(self, *args: Any) -> Any:
        with store_down_as_unavailable():
            return await super().execute_command(*args)

    async def get_message(
        self, ignore_subscribe_messages: bool = False, timeout: float | None = 0.0
    ) -> Any:
        with store_down_as_unavailable():
            return await super().get_message(ignore_subscribe_messages, timeout)


class _Guarded:
    """Mixed into a single Redis's client class (real or fakeredis): its commands, pipelines
    and pub/sub raise StoreUnavailable for an outage, whatever redis-py raised."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        with store_down_as_unavailable():
            return await cast(Any, super()).execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        client = cast(aioredis.Redis, self)
        return _GuardedPipeline(
            client.connection_pool, client.response_callbacks, transaction, shard_hint
        )

    def pubsub(self, **kwargs: Any) -> PubSub:
        client = cast(Any, self)
        return _GuardedPubSub(
            client.connection_pool, event_dispatcher=client._event_dispatcher, **kwargs
        )


class _Redis(_Guarded, aioredis.Redis):  # type: ignore[misc]  # (redis-py's own bases)
    """redis-py's asyncio client for one Redis, outages raised as StoreUnavailable."""


class _ClusterPubSub(ClusterPubSub):
    """redis-py's cluster pub/sub reads the slot map its client has: made before the client's
    first command, it has none yet (KeyError on a slot). It reads the map first."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        with store_down_as_unavailable():
            await _ready(self.cluster)
            return await super().execute_command(*args, **kwargs)

    async def ssubscribe(self, *args: Any, **kwargs: Any) -> None:
        with store_down_as_unavailable():
            await _ready(self.cluster)
            await super().ssubscribe(*args, **kwargs)

    async def get_message(
        self, ignore_subscribe_messages: bool = False, timeout: float | None = 0.0
    ) -> Any:
        with store_down_as_unavailable():
            return await super().get_message(ignore_subscribe_messages, timeout)

    async def get_sharded_message(self, *args: Any, **kwargs: Any) -> Any:
        with store_down_as_unavailable():
            return await super().get_sharded_message(*args, **kwargs)


async def _ready(cluster: RedisCluster) -> None:
    if cluster._initialize:  # no map read yet (redis-py's own flag, as its commands check it)
        await cluster.initialize()


class _ClusterPipeline(ClusterPipeline):
    """redis-py 8.1's cluster pipeline looks up each command's node as it is queued: queued
    on a client that has not read its slot map yet, a transaction then fails ("attached to a
    different loop"). Until the map is read, commands are kept and queued at execute()."""

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self.cluster_client._initialize:
            self._held.append((args, kwargs))
            return self
        return super().execute_command(*args, **kwargs)

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        held, self._held = self._held, []
        with store_down_as_unavailable():
            if held:
                await _ready(self.cluster_client)
                for args, kwargs in held:
                    super().execute_command(*args, **kwargs)
            return await super().execute(raise_on_error, allow_redirections)

    _held: list[tuple[tuple[Any, ...], dict[str, Any]]]


# Keyless commands (PUBLISH, PING, CLUSTER ..., SCRIPT LOAD) keep redis-py's routing.
_KEYLESS = frozenset(
    {
        "PUBLISH",
        "SPUBLISH",
        "PING",
        "CLUSTER",
        "SCRIPT",
        "INFO",
        "CONFIG",
        "FLUSHDB",
        "FLUSHALL",
        "DBSIZE",
        "KEYS",
        "SCAN",
        "WAIT",
        "MULTI",
        "EXEC",
        "DISCARD",
        "ECHO",
        "TIME",
        "COMMAND",
        "MEMORY",
        "CLIENT",
        "READONLY",
        "READWRITE",
        "ASKING",
        "FUNCTION",
        "LASTSAVE",
        "ROLE",
        "DEBUG",
        "SHUTDOWN",
        "SLOWLOG",
        "LATENCY",
        "ACL",
        "HELLO",
        "AUTH",
        "SELECT",
        "QUIT",
    }
)


def _keyed(name: str, args: tuple[Any, ...]) -> bool:
    """Whether a command names a key redis-py routes it by (EVAL/EVALSHA: numkeys > 0)."""
    if name.split(" ")[0] in _KEYLESS or len(args) < 2:
        return False
    if name in ("EVAL", "EVALSHA", "FCALL", "EVAL_RO", "EVALSHA_RO", "FCALL_RO"):
        return len(args) > 3 and int(args[2]) > 0
    return True


class _RedisCluster(RedisCluster):
    """redis-py's RedisCluster, fixed where redis-py 8.1 fails us (see each method)."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        with store_down_as_unavailable():  # an outage, whatever redis-py raised for it
            return await self._routed(*args, **kwargs)

    async def _routed(self, *args: Any, **kwargs: Any) -> Any:
        # A burst of commands on a client that has not read its slot map yet (the server's
        # first requests, 16 table creations at once) raced in redis-py 8.1: each looked up
        # its node before the map was read, connections were closed under the others, and
        # they failed or were retried (a retried script may have run: a table reservation
        # counted twice). The map is read first, once, the others waiting for it.
        if self._initialize:
            await self.initialize()
        # redis-py resends a command that timed out or lost its connection (after re-reading
        # the map). A read may be asked twice; a write may have run already (a reply lost to
        # a 5 s timeout under load, a master that died after applying it): a script sent
        # again found its own work done ("table id collision"), a counter counted twice. So
        # a keyed command that is not a read goes to its slot's master once: MOVED and ASK
        # are still followed (they are refusals, nothing ran), a lost reply is the caller's
        # STORE_DOWN error, as on the pipelined client, and the map is re-read before the
        # next command.
        name = str(args[0]).upper() if args else ""
        if "target_nodes" not in kwargs and name not in READ_COMMANDS and _keyed(name, args):
            try:
                slot = await self._determine_slot(*args)
            except RedisClusterException:  # no key after all: redis-py's routing
                slot = None
            if slot is not None:
                kwargs["target_nodes"] = self.nodes_manager.get_node_from_slot(slot)
        return await super().execute_command(*args, **kwargs)

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> Any:
        if shard_hint:
            raise RedisClusterException("shard_hint is deprecated in cluster mode")
        pipe = _ClusterPipeline(self, transaction)  # type: ignore[abstract]
        pipe._held = []
        return pipe

    def pubsub(
        self,
        node: ClusterNode | None = None,
        host: str | None = None,
        port: int | None = None,
        **kwargs: Any,
    ) -> ClusterPubSub:
        return _ClusterPubSub(self, node=node, host=host, port=port, **kwargs)


def _make_cluster(url: str, *, max_connections: int) -> Redis:
    """A RedisCluster client for ``redis+cluster://`` (``rediss+cluster://``) URLs.

    It reads the slot map from the first startup node that answers, keeps a pool per node
    (max_connections each; its pool does not wait, so it gets a larger one than the single
    client's waiting pool), follows MOVED and ASK, and after a failover re-reads the map and
    retries. It connects within 5 s and waits 5 s at most for a reply: a node that cannot be
    reached, or hangs (stopped, partitioned) while its replica is promoted, fails a call as a
    STORE_DOWN error and the map is read again. No command of the app blocks that long on a
    cluster (the results writer reads its 64 streams without BLOCK; one stream blocks 2 s).
    """
    parsed = parse_cluster_url(url)
    client = _RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in parsed.nodes],
        username=parsed.username,
        password=parsed.password,
        ssl=parsed.tls,
        max_connections=max_connections * 4,
        socket_connect_timeout=5,
        socket_timeout=5,
        health_check_interval=30,
    )
    return cast(Redis, client)
