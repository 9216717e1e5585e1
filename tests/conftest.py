"""Shared fixtures: Redis backends (fakeredis always; real Redis when reachable).

With HEARTS_TEST_REQUIRE_SERVICES=1 (set by .ci/run), a missing Redis or PostgreSQL
fails the tests that need it instead of skipping them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
import redis
import redis.asyncio as aioredis

from app.store import make_redis

REQUIRE_SERVICES = os.environ.get("HEARTS_TEST_REQUIRE_SERVICES", "") not in ("", "0")
REDIS_URL = os.environ.get("HEARTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
DATABASE_URL = os.environ.get("HEARTS_TEST_DATABASE_URL", "")


def _redis_reachable(url: str) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        return bool(client.ping())
    except Exception:
        return False
    finally:
        client.close()


_REAL_REDIS: bool | None = None


def real_redis_url() -> str:
    """The test Redis URL; skips (or fails, in CI) when no Redis answers."""
    global _REAL_REDIS
    if _REAL_REDIS is None:
        _REAL_REDIS = _redis_reachable(REDIS_URL)
    if not _REAL_REDIS:
        if REQUIRE_SERVICES:
            pytest.fail(f"HEARTS_TEST_REQUIRE_SERVICES is set but Redis at {REDIS_URL} is down")
        pytest.skip(f"no Redis at {REDIS_URL}")
    return REDIS_URL


@pytest.fixture
def namespace() -> Iterator[str]:
    """A fresh key namespace per test, so runs sharing one Redis never collide. Its keys on the
    real Redis go afterwards: the global ones (the outbox stream, the due set, the lobby hash,
    ``<namespace>:database``) have no expiry and would stay for good."""
    name = "t" + uuid.uuid4().hex[:12]
    yield name
    if _REAL_REDIS:  # a test of this run used the real Redis
        drop_namespace(REDIS_URL, name)


def drop_namespace(url: str, namespace: str) -> None:
    """Delete every key of ``namespace`` (and of namespaces made from it, "<namespace>b")."""
    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        doomed = list(client.scan_iter(match=f"*{namespace}*", count=1000))
        if doomed:
            client.delete(*doomed)
    except redis.RedisError:
        pass
    finally:
        client.close()


@pytest_asyncio.fixture(params=["fake", "real"])
async def redis_client(request: pytest.FixtureRequest) -> AsyncIterator[aioredis.Redis]:
    """The same tests run against fakeredis (embedded mode) and a real Redis."""
    url = "memory://" if request.param == "fake" else real_redis_url()
    client = make_redis(url)
    try:
        yield client
    finally:
        await client.aclose()
