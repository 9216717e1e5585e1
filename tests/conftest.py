"""Shared fixtures: Redis backends (fakeredis always; real Redis when reachable; a Redis
Cluster when HEARTS_TEST_REDIS_CLUSTER_URL names one, as .ci/run does).

With HEARTS_TEST_REQUIRE_SERVICES=1 (set by .ci/run), a missing Redis, Redis Cluster or
PostgreSQL fails the tests that need it instead of skipping them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
import redis
import redis.asyncio as aioredis

from app.store import make_redis

REQUIRE_SERVICES = os.environ.get("HEARTS_TEST_REQUIRE_SERVICES", "") not in ("", "0")
REDIS_URL = os.environ.get("HEARTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
DATABASE_URL = os.environ.get("HEARTS_TEST_DATABASE_URL", "")
# redis+cluster://127.0.0.1:7101 (scripts/redis-cluster.sh); unset: no cluster variants.
REDIS_CLUSTER_URL = os.environ.get("HEARTS_TEST_REDIS_CLUSTER_URL", "")


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


def _sync_cluster(url: str) -> redis.RedisCluster:
    from redis.cluster import ClusterNode

    from app.settings import parse_cluster_url

    parsed = parse_cluster_url(url)
    return redis.RedisCluster(
        startup_nodes=[
            ClusterNode(host, port)  # type: ignore[no-untyped-call]
            for host, port in parsed.nodes
        ],
        username=parsed.username,
        password=parsed.password,
        ssl=parsed.tls,
        socket_connect_timeout=1,
    )


def _cluster_reachable(url: str) -> bool:
    try:
        client = _sync_cluster(url)
    except Exception:
        return False
    try:
        info = client.cluster_info()
        return bool(info.get("cluster_state") == "ok")
    except Exception:
        return False
    finally:
        client.close()


_CLUSTER: bool | None = None


def cluster_redis_url() -> str:
    """The test Redis Cluster's URL; skips (or fails, in CI) when it does not answer ok."""
    global _CLUSTER
    if _CLUSTER is None:
        _CLUSTER = bool(REDIS_CLUSTER_URL) and _cluster_reachable(REDIS_CLUSTER_URL)
    if not _CLUSTER:
        if REQUIRE_SERVICES:
            pytest.fail(
                f"HEARTS_TEST_REQUIRE_SERVICES is set but the Redis Cluster at "
                f"{REDIS_CLUSTER_URL!r} is not ok (scripts/redis-cluster.sh starts one)"
            )
        pytest.skip(f"no Redis Cluster at {REDIS_CLUSTER_URL!r}")
    return REDIS_CLUSTER_URL


# The Redis backends the store-level tests run on: the cluster joins when a URL is given.
REDIS_BACKENDS = ["fake", "real"] + (["cluster"] if REDIS_CLUSTER_URL else [])


@pytest.fixture
def namespace() -> Iterator[str]:
    """A fresh key namespace per test, so runs sharing one Redis never collide. Its keys on the
    real Redis go afterwards: the global ones (the outbox stream, the due set, the lobby hash,
    ``<namespace>:database``) have no expiry and would stay for good."""
    name = "t" + uuid.uuid4().hex[:12]
    yield name
    if _REAL_REDIS:  # a test of this run used the real Redis
        drop_namespace(REDIS_URL, name)
    if _CLUSTER:  # ... or the cluster
        drop_namespace(REDIS_CLUSTER_URL, name)


def _table_keys_in(client: redis.Redis | redis.RedisCluster, names: list[bytes]) -> list[str]:
    """The keys of the tables a namespace's due sets, lobby hashes and hosting sets name (a
    table's keys are not namespaced; they expire, but a test's go at once)."""
    from app.store import keys as store_keys

    ids: set[bytes] = set()
    for name in names:
        if name.endswith((b":due", b":hosting}")) or b":hosting}:" in name:
            ids.update(client.zrange(name, 0, -1))
        elif name.endswith(b":lobby"):
            ids.update(client.hkeys(name))
    found: list[str] = []
    for raw in ids:
        table_id = raw.decode()
        found += [*store_keys.table_keys(table_id), store_keys.sockets_key(table_id)]
    return found


def drop_namespace(url: str, namespace: str) -> None:
    """Delete every key of ``namespace`` (and of namespaces made from it, "<namespace>b"), on
    one Redis or on every master of a cluster (keys of many slots: deleted slot by slot)."""
    client: redis.Redis | redis.RedisCluster
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        client = _sync_cluster(url)
    else:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        doomed = list(client.scan_iter(match=f"*{namespace}*", count=1000))
        doomed += _table_keys_in(client, doomed)
        if doomed:
            client.delete(*doomed)
    except redis.RedisError:
        pass
    finally:
        client.close()


def backend_url(param: str) -> str:
    """The Redis URL of one backend of REDIS_BACKENDS."""
    if param == "fake":
        return "memory://"
    if param == "cluster":
        return cluster_redis_url()
    return real_redis_url()


@pytest_asyncio.fixture(params=REDIS_BACKENDS)
async def redis_client(request: pytest.FixtureRequest) -> AsyncIterator[aioredis.Redis]:
    """The same tests run against fakeredis (embedded mode), a real Redis and, when
    HEARTS_TEST_REDIS_CLUSTER_URL is set, a Redis Cluster (the app's RedisCluster client)."""
    url = backend_url(request.param)
    client = make_redis(url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture(scope="session")
def _migrated_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per worker process (copied by the fixture below)."""
    from app.db import upgrade_to_head

    path = tmp_path_factory.mktemp("migrated") / "hearts.sqlite3"
    upgrade_to_head(f"sqlite:///{path}")
    return path


@pytest.fixture(autouse=True)
def _fresh_sqlite_from_a_template(
    monkeypatch: pytest.MonkeyPatch, _migrated_sqlite_template: Path
) -> None:
    """An app started in the test's process migrates its database (``start_services``): for
    a SQLite file that does not exist yet, the file is first copied from a migrated template
    with a database id of its own (the one row migration 0004 makes at random), then
    ``upgrade_to_head`` runs as always and finds it at head. Migrating a new file costs 0.2 to
    0.6 s (its DDL and fsyncs), a copy 0.02 s; hundreds of tests start an app. Only the name
    the app looks up at start (``app.db.upgrade_to_head``) is replaced: tests that import it
    themselves (tests/db/test_migrations.py) migrate from nothing, and the servers the tests
    start as processes migrate as in production."""
    import app.db

    real = app.db.upgrade_to_head

    def upgrade_to_head(url: str) -> None:
        if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
            target = Path(url.removeprefix("sqlite:///").split("?", 1)[0])
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(_migrated_sqlite_template, target)
                with contextlib.closing(sqlite3.connect(target)) as connection, connection:
                    connection.execute(
                        "UPDATE deployment SET database_id = ?", (secrets.token_hex(16),)
                    )
        real(url)

    monkeypatch.setattr(app.db, "upgrade_to_head", upgrade_to_head)


# Hooks: which tests share a pytest-xdist worker (module-scoped fixtures, xdist_group marks),
# and a per-test limit that fails a hanging test with every thread's and task's stack.
from tests.hang_guard import (  # noqa: E402, F401 - hooks
    pytest_configure,
    pytest_runtest_protocol,
)
from tests.xdist_groups import (  # noqa: E402, F401 - hooks
    pytest_collection_modifyitems,
    pytest_configure_node,
    pytest_sessionfinish,
    pytest_xdist_make_scheduler,
)
