"""The deployment's identity (issue 20): two deployments that share a Redis namespace but not a
database would take each other's results from the shared outbox stream. The database's id
(migration 0004) is recorded under ``<namespace>:database``; a server or results writer whose
database has another id refuses, with one line saying so."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import fakeredis
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlmodel import select

from app.db import Database, make_database, upgrade_to_head
from app.db.deployment import (
    DeploymentMismatch,
    check,
    database_key,
    read_database_id,
)
from app.db.models import Game
from app.db.outbox import OutboxWorker, enqueue
from app.main import create_app
from app.settings import load_settings

RECORD = {
    "kind": "game",
    "table_id": "t1",
    "game_no": 1,
    "preset": "classic",
    "options": {},
    "seats": [{"bot_level": "easy"}] * 4,
    "totals": [10, 20, 30, 40],
    "winners": [0],
    "ended": "finished",
}


def test_each_migrated_database_has_its_own_random_id(db_url: str, tmp_path: Path) -> None:
    upgrade_to_head(db_url)
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    upgrade_to_head(other)
    first, second = make_database(db_url), make_database(other)
    try:
        a, b = read_database_id(first), read_database_id(second)
        assert a is not None and re.fullmatch(r"[0-9a-f]{32}", a)
        assert b is not None and a != b
        upgrade_to_head(db_url)  # a second upgrade keeps the id
        assert read_database_id(first) == a
        with first.engine.connect() as connection:
            assert connection.execute(sa.text("SELECT count(*) FROM deployment")).scalar() == 1
    finally:
        first.dispose()
        second.dispose()


def test_an_unmigrated_database_has_no_id(sqlite_url: str) -> None:
    database = make_database(sqlite_url)
    try:
        assert read_database_id(database) is None
    finally:
        database.dispose()


@pytest.mark.asyncio
async def test_a_namespace_belongs_to_the_first_database(
    any_redis: Any, database: Database, tmp_path: Path, namespace: str
) -> None:
    other_url = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    upgrade_to_head(other_url)
    other = make_database(other_url)
    try:
        assert await check(any_redis, namespace, database)
        assert await check(any_redis, namespace, database)  # the same database again: fine
        stored = await any_redis.get(database_key(namespace))
        assert stored.decode() == read_database_id(database)
        with pytest.raises(DeploymentMismatch) as refused:
            await check(any_redis, namespace, other)
        message = str(refused.value)
        assert "\n" not in message and namespace in message
        assert "HEARTS_REDIS_NAMESPACE" in message
        # The namespace still names the first database; another namespace is free.
        assert (await any_redis.get(database_key(namespace))).decode() == read_database_id(database)
        assert await check(any_redis, namespace + "b", other)
    finally:
        other.dispose()
        await any_redis.delete(database_key(namespace), database_key(namespace + "b"))


def _settings(database_url: str, **extra: Any) -> Any:
    return load_settings(
        database_url=database_url,
        redis_url="memory://",
        secret_key="deployment-test-secret-key",
        run_outbox_worker=False,
        bot_workers=0,
        **extra,
    )


def test_a_second_deployment_on_the_same_namespace_refuses_to_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shared = fakeredis.FakeServer()  # one Redis, namespace "hearts" for both
    first = f"sqlite:///{tmp_path / 'first.sqlite3'}"
    second = f"sqlite:///{tmp_path / 'second.sqlite3'}"
    with TestClient(create_app(_settings(first), fake_redis_server=shared)) as client:
        assert client.get("/healthz").status_code == 200
    # The same database again (a restart, another replica): starts.
    with TestClient(create_app(_settings(first), fake_redis_server=shared)) as client:
        assert client.get("/healthz").status_code == 200
    caplog.set_level(logging.CRITICAL, logger="app.main")
    with (
        pytest.raises(DeploymentMismatch),
        TestClient(create_app(_settings(second), fake_redis_server=shared)),
    ):
        pass
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "cannot start" in lines[0] and "'hearts' belongs to another database" in lines[0]
    # Its own namespace lets it start.
    settings = _settings(second, redis_namespace="other")
    with TestClient(create_app(settings, fake_redis_server=shared)) as client:
        assert client.get("/healthz").status_code == 200


@pytest.mark.asyncio
async def test_a_results_writer_of_another_database_takes_nothing(
    database: Database, tmp_path: Path, namespace: str
) -> None:
    """Started while its server could not check (the database was down then), the writer
    checks before it reads the stream: the other deployment's record stays for its owner."""
    redis = fakeredis.FakeAsyncRedis()
    other_url = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    upgrade_to_head(other_url)
    other = make_database(other_url)
    try:
        assert await check(redis, namespace, database)
        await enqueue(redis, RECORD, namespace=namespace)  # to its table's shard's stream
        stray = OutboxWorker(redis, other, namespace=namespace, block_ms=10)
        await asyncio.wait_for(stray.run(asyncio.Event()), 10)  # stops by itself
        assert stray.handled == 0
        with other.session() as session:
            assert session.exec(select(Game)).all() == []
        # The owner's writer takes it.
        owner = OutboxWorker(redis, database, namespace=namespace)
        await owner.drain()
        assert owner.written == 1
        with database.session() as session:
            assert len(session.exec(select(Game)).all()) == 1
    finally:
        other.dispose()
        await redis.aclose()
