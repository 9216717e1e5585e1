"""Fixtures for the persistence tests: SQLite always, PostgreSQL and Redis when reachable.

PostgreSQL and Redis tests skip when the service is unreachable, unless
HEARTS_TEST_REQUIRE_SERVICES=1, where they fail. Each PostgreSQL test gets its own schema and each
Redis test its own keys, so runs can overlap.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import sqlalchemy as sa

from app.db import Database, make_database, upgrade_to_head
from bench.ports import free_port
from tests.store.conftest import drop_results_stream  # noqa: F401 - autouse: a test's global Redis keys go

PG_URL = os.environ.get(
    "HEARTS_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("HEARTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# Any non-empty value but "0" makes the services mandatory, as in tests/conftest.py.
REQUIRE_SERVICES = os.environ.get("HEARTS_TEST_REQUIRE_SERVICES", "") not in ("", "0")


def unavailable(what: str, error: object) -> None:
    message = f"{what} unreachable: {error}"
    if REQUIRE_SERVICES:
        pytest.fail(message + " (HEARTS_TEST_REQUIRE_SERVICES=1)")
    pytest.skip(message)


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2 with its real parameters costs a loaded 2-core machine seconds per test."""
    from argon2 import PasswordHasher

    from app.db import players

    cheap = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    monkeypatch.setattr(players, "password_hasher", lambda: cheap)


@functools.cache
def _postgres_error() -> str | None:
    engine = sa.create_engine(PG_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except Exception as error:  # noqa: BLE001 - any failure means "not reachable"
        return str(error).splitlines()[0]
    finally:
        engine.dispose()
    return None


def with_search_path(url: str, schema: str) -> str:
    parsed = sa.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return parsed.render_as_string(hide_password=False)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose default schema is fresh and empty (dropped afterwards)."""
    error = _postgres_error()
    if error is not None:
        unavailable("PostgreSQL", error)
    schema = "test_" + uuid.uuid4().hex[:16]
    admin = sa.create_engine(PG_URL)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield with_search_path(PG_URL, schema)
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'hearts.sqlite3'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    if request.param == "sqlite":
        return str(request.getfixturevalue("sqlite_url"))
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(scope="session")
def migrated_sqlite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file per run, copied for each test (migrating costs ~0.5 s)."""
    path = tmp_path_factory.mktemp("template") / "hearts.sqlite3"
    upgrade_to_head(f"sqlite:///{path}")
    return path


def _migrate(url: str, template: Path | None = None) -> None:
    if template is not None and url.startswith("sqlite:///"):
        shutil.copyfile(template, url.removeprefix("sqlite:///"))
    else:
        upgrade_to_head(url)


def _migrated(
    url: str, template: Path | None = None, *, copied: bool = False
) -> Iterator[Database]:
    """The database at ``url`` migrated (a SQLite file copied from ``template``; nothing to do
    when it was ``copied`` at head already), open for the test, then closed."""
    if not copied:
        _migrate(url, template)
    db = make_database(url)
    yield db
    db.dispose()


def _pg_dump_binary() -> str | None:
    found = shutil.which("pg_dump")
    if found is None:
        bin_dir = ThrowawayPostgres.binaries()
        if bin_dir is not None and (bin_dir / "pg_dump").exists():
            found = str(bin_dir / "pg_dump")
    return found


@pytest.fixture(scope="session")
def _pg_schema_at_head() -> str | None:
    """The SQL that makes a schema at head, once per worker process: a schema of a random name
    migrated, written out by ``pg_dump`` (its tables, indexes, constraints, sequences and the
    rows the migrations wrote), and dropped. ``None`` without ``pg_dump`` (each test then
    migrates). The name stands in the text as ``{schema}``'s placeholder, ``__SCHEMA__``."""
    import subprocess

    error = _postgres_error()
    if error is not None:
        unavailable("PostgreSQL", error)
    pg_dump = _pg_dump_binary()
    if pg_dump is None:
        return None
    schema = "tmpl_" + uuid.uuid4().hex[:16]
    admin = sa.create_engine(PG_URL)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        upgrade_to_head(with_search_path(PG_URL, schema))
        url = sa.make_url(PG_URL)
        dumped = subprocess.run(
            [pg_dump, f"--schema={schema}", "--no-owner", "--no-privileges", "--inserts",
             "-h", url.host or "127.0.0.1", "-p", str(url.port or 5432),
             "-U", url.username or "postgres", url.database or "postgres"],
            env={**os.environ, "PGPASSWORD": url.password or ""},
            check=True, capture_output=True, text=True, timeout=120,
        ).stdout  # fmt: skip
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()
    # psql's own lines (\restrict and \unrestrict) are not SQL.
    lines = [line for line in dumped.splitlines() if not line.startswith("\\")]
    return "\n".join(lines).replace(schema, "__SCHEMA__")


@pytest.fixture
def pg_migrated_url(pg_url: str, _pg_schema_at_head: str | None) -> str:
    """``pg_url``'s schema at head. Migrating it took 0.5 to 1 s a test: it is made from the
    worker's dump of a migrated schema (one statement list, one round trip) and given a
    database id of its own (the one row migration 0004 makes at random), as the SQLite files
    are copied. ``pg_url`` stays an empty schema, for the tests of the migrations themselves
    and of an app that migrates at its start. (A database copied from a template database was
    quicker still to make, but each DROP DATABASE forces a checkpoint on the shared server.)"""
    if _pg_schema_at_head is None:
        upgrade_to_head(pg_url)
        return pg_url
    schema = sa.make_url(pg_url).query["options"].removeprefix("-csearch_path=")
    engine = sa.create_engine(PG_URL)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}"')  # the dump makes it
            raw: Any = connection.connection.driver_connection  # many statements: no parameters
            raw.execute(_pg_schema_at_head.replace("__SCHEMA__", schema))
            connection.execute(
                sa.text(f'UPDATE "{schema}".deployment SET database_id = :id'),
                {"id": secrets.token_hex(16)},
            )
    finally:
        engine.dispose()
    return pg_url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, migrated_sqlite_file: Path) -> Iterator[Database]:
    """A migrated database, on SQLite and on PostgreSQL (each copied from a migrated one)."""
    if request.param == "sqlite":
        yield from _migrated(str(request.getfixturevalue("sqlite_url")), migrated_sqlite_file)
    else:
        yield from _migrated(str(request.getfixturevalue("pg_migrated_url")), None, copied=True)


@pytest.fixture
def sqlite_database(sqlite_url: str, migrated_sqlite_file: Path) -> Iterator[Database]:
    yield from _migrated(sqlite_url, migrated_sqlite_file)


@pytest.fixture
def pg_database(pg_migrated_url: str) -> Iterator[Database]:
    yield from _migrated(pg_migrated_url, None, copied=True)


@pytest_asyncio.fixture
async def real_redis(stream_key: str) -> AsyncIterator[Any]:
    import redis.asyncio as aioredis

    client = aioredis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        await client.ping()
    except Exception as error:  # noqa: BLE001
        await client.aclose()
        unavailable("Redis", error)
    try:
        yield client
    finally:
        await client.delete(stream_key, stream_key + ":dead", stream_key + ":sqltime")
        await client.aclose()


@pytest_asyncio.fixture
async def fake_redis() -> AsyncIterator[Any]:
    import fakeredis

    client = fakeredis.FakeAsyncRedis()
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture(params=["fake", "real"])
def any_redis(request: pytest.FixtureRequest) -> Any:
    name = "fake_redis" if request.param == "fake" else "real_redis"
    return request.getfixturevalue(name)


@pytest.fixture
def stream_key() -> str:
    """A unique outbox stream per test, so tests sharing one Redis never meet."""
    return "{hearts:test:" + uuid.uuid4().hex + "}:results"


class ThrowawayPostgres:
    """A PostgreSQL server of our own (initdb + pg_ctl on a spare port, in a temporary
    folder), which a test may stop and start again: the database outage tests."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"

    @staticmethod
    def binaries() -> Path | None:
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        return found[-1].parent if found else None

    def _run(self, *command: str, timeout: float = 60) -> None:
        import subprocess

        prefix: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            prefix = ["runuser", "-u", "postgres", "--"]
        bin_dir = self.binaries()
        assert bin_dir is not None
        subprocess.run(
            [*prefix, str(bin_dir / command[0]), *command[1:]],
            check=True,
            capture_output=True,
            timeout=timeout,
        )

    def init(self) -> None:
        self._run("initdb", "-D", str(self.folder / "data"), "-U", "postgres", "-A", "trust")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl", "-D", str(self.folder / "data"), "-o", options, "-l",
            str(self.folder / "log"), "-w", "start",
        )  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")


@pytest.fixture
def throwaway_postgres() -> Iterator[ThrowawayPostgres]:
    """A running PostgreSQL of this test's own, removed afterwards (fails in CI when it cannot
    be made, skips elsewhere)."""
    import tempfile

    if ThrowawayPostgres.binaries() is None:
        unavailable("PostgreSQL server binaries", "none under /usr/lib/postgresql/*/bin")
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="hearts-pg-"))
    folder.chmod(0o777)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    server = ThrowawayPostgres(folder, port)
    try:
        server.init()
        server.start()
    except Exception as error:  # noqa: BLE001
        shutil.rmtree(folder, ignore_errors=True)
        unavailable("a throwaway PostgreSQL", error)
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
