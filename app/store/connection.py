"""Build the Redis client: a real server, or fakeredis (with Lua) for embedded runs."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from app.settings import MEMORY_REDIS_URL

Redis = aioredis.Redis


def make_redis(url: str, *, fake_server: Any = None, max_connections: int = 200) -> Redis:
    """Return an asyncio Redis client for ``url``.

    ``memory://`` gives fakeredis, which runs the same Lua scripts through lupa, so the
    embedded server exercises the very store code that talks to a real Redis. Pass
    ``fake_server`` (a ``fakeredis.FakeServer``) to let several clients share one memory.
    """
    if url == MEMORY_REDIS_URL:
        import fakeredis  # imported lazily: production never loads it

        server = fake_server if fake_server is not None else fakeredis.FakeServer()
        # A blocking pool here too: the default pool raises MaxConnectionsError past its
        # size when many sockets open at once, instead of waiting for a free connection.
        client: Redis = fakeredis.FakeAsyncRedis(
            server=server,
            connection_pool_class=aioredis.BlockingConnectionPool,
            max_connections=max_connections,
            timeout=20,
        )
        return client
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
    return aioredis.Redis(connection_pool=pool)
