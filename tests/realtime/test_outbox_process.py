"""The results writer runs in a process of its own next to a server on a real Redis."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

import orjson
import pytest
from sqlmodel import select

from app.db import make_database, upgrade_to_head
from app.db.models import Game
from app.main import OutboxProcess
from app.outbox_process import OUTBOX_NICE
from app.settings import Settings
from app.store import keys, make_redis
from tests.conftest import real_redis_url
from tests.db.test_deployment import RECORD

pytestmark = pytest.mark.asyncio


async def test_outbox_process_writes_records_and_stops(tmp_path: Path, namespace: str) -> None:
    url = f"sqlite:///{tmp_path}/out.sqlite3"
    upgrade_to_head(url)
    settings = Settings(
        redis_url=real_redis_url(),
        database_url=url,
        redis_namespace=namespace,
        secret_key="test-secret-key-0123456789",
    )
    redis = make_redis(settings.redis_url)
    # To its table's shard's stream, as a commit would: the process reads every shard's.
    stream = keys.results_key(namespace, keys.shard_of("t1"))
    await redis.xadd(stream, {"event": orjson.dumps(RECORD)})  # a game of table t1
    outbox = OutboxProcess(settings)
    outbox.start()
    database = make_database(url)
    try:
        deadline = time.monotonic() + 60
        while True:
            with database.session() as session:
                games = session.exec(select(Game)).all()
            if games:
                break
            assert time.monotonic() < deadline, "the record never reached SQL"
            await asyncio.sleep(0.1)
        assert games[0].status == "finished" and games[0].totals == [10, 20, 30, 40]
        # Background work: it yields the CPU to the server's event loop.
        here = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, outbox.process.pid) == min(19, here + OUTBOX_NICE)
    finally:
        await outbox.stop()
        database.dispose()
        await redis.delete(stream)
        await redis.aclose()
    assert not outbox.process.is_alive()


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found.update(int(c) for c in (task / "children").read_text().split())
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def test_worker_processes_end_when_their_server_is_killed(namespace: str) -> None:
    import os
    import signal

    from tests.realtime.harness import subprocess_server

    env = {
        "HEARTS_REDIS_URL": real_redis_url(),
        "HEARTS_REDIS_NAMESPACE": namespace,
        "HEARTS_SECRET_KEY": "test-secret-key-0123456789",
        "HEARTS_BOT_WORKERS": "1",
    }
    try:
        with subprocess_server(env) as (_address, proc):
            workers: set[int] = set()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # the bot worker and the results writer
                workers = {c for c in _children(proc.pid) if _alive(c)}
                if len(workers) >= 3:  # + multiprocessing's resource tracker
                    break
                await asyncio.sleep(0.2)
            assert len(workers) >= 2, workers
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            deadline = time.monotonic() + 15
            while any(_alive(w) for w in workers) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            left = [w for w in workers if _alive(w)]
            for pid in left:  # do not leave them behind if the test fails
                os.kill(pid, signal.SIGKILL)
            assert not left, [(w, Path(f"/proc/{w}/stat").read_text()[:80]) for w in left]
    finally:
        redis = make_redis(real_redis_url())
        await redis.aclose()  # the namespace fixture drops its keys
