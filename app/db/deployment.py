"""The deployment's identity: which database a Redis namespace belongs to.

Every deployment's results go through the results streams of its Redis namespace
(``{s:K.N}:<namespace>:results``, one per shard). Two deployments that share a Redis and a
namespace but not a database would each take the other's results from them and write them to the
wrong database, silently. So each database has a random id (the one row of the ``deployment``
table, made by migration 0004), and a server records it under ``<namespace>:database`` in Redis at
start (the first one to start claims the namespace); a server whose database has another id
refuses to start with one line saying so, and the results writer checks the same before it takes
a record.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError

from app.db.database import Database
from app.store import keys

log = logging.getLogger(__name__)

_deployment = sa.table("deployment", sa.column("id", sa.Integer), sa.column("database_id"))


class DeploymentMismatch(RuntimeError):
    """This server's database is not the one its Redis namespace belongs to."""


def database_key(namespace: str) -> str:
    """String: the id of the database this Redis namespace belongs to."""
    return keys.database_key(namespace)


def read_database_id(database: Database) -> str | None:
    """The database's id, or None when it has none (migration 0004 not applied). Raises the
    driver's error when the database does not answer."""
    try:
        with database.engine.connect() as connection:
            value = connection.execute(
                sa.select(_deployment.c.database_id).where(_deployment.c.id == 1)
            ).scalar_one_or_none()
    except (sa.exc.ProgrammingError, sa.exc.OperationalError) as error:
        if _no_such_table(error):
            return None
        raise
    return None if value is None else str(value)


def _no_such_table(error: DBAPIError) -> bool:
    text = str(error.orig).lower()
    return "no such table" in text or ("deployment" in text and "does not exist" in text)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def claim(redis: Any, namespace: str, database_id: str) -> None:
    """Record ``database_id`` as the owner of ``namespace`` (if nobody has), or raise
    ``DeploymentMismatch`` when the namespace belongs to another database."""
    key = database_key(namespace)
    if await redis.set(key, database_id, nx=True):
        log.info("Redis namespace %r recorded for database %s", namespace, database_id)
        return
    owner = await redis.get(key)
    if owner is None:  # deleted between the two commands: try once more
        if await redis.set(key, database_id, nx=True):
            return
        owner = await redis.get(key)
    if owner is not None and _text(owner) != database_id:
        raise DeploymentMismatch(
            f"Redis namespace {namespace!r} belongs to another database (id {_text(owner)}; "
            f"this server's database is {database_id}): give each deployment its own "
            f"HEARTS_REDIS_NAMESPACE (or Redis), or point HEARTS_DATABASE_URL at that database "
            f"(if that database is gone for good, delete the Redis key {key!r} and the results "
            f"still waiting in the namespace's stream go to this one)"
        )


async def check(redis: Any, namespace: str, database: Database) -> bool:
    """Claim ``namespace`` for ``database`` (see ``claim``). True when checked; False, with a
    warning, when the database cannot say who it is yet (down, or not migrated): the results
    writer checks again before it takes any record. Raises ``DeploymentMismatch``."""
    from starlette.concurrency import run_in_threadpool

    try:
        database_id = await run_in_threadpool(read_database_id, database)
    except DBAPIError as error:
        log.warning(
            "the database's identity is not checked at start (%s); the results writer "
            "checks it before it takes a record",
            str(error.orig).strip().splitlines()[0] if error.orig else error,
        )
        return False
    if database_id is None:
        log.warning(
            "the database has no deployment id (migration 0004 not applied): the Redis "
            "namespace %r is not checked against it",
            namespace,
        )
        return False
    await claim(redis, namespace, database_id)
    return True
