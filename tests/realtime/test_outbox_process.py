"""The results writer runs in a process of its own next to a server on a real Redis."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import orjson
import pytest
from sqlmodel import select

from app.db import make_database, upgrade_to_head
from app.db.models import Game
from app.main import OutboxProcess, results_stream
from app.settings import Settings
from app.store import make_redis
from tests.conftest import real_redis_url

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
    stream = results_stream(settings)
    assert stream == "{" + namespace + ":outbox}:results"
    assert results_stream(Settings()) == "{hearts:outbox}:results"  # app.db.outbox's default
    redis = make_redis(settings.redis_url)
    record = {
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
    await redis.xadd(stream, {"event": orjson.dumps(record)})
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
    finally:
        await outbox.stop()
        database.dispose()
        await redis.delete(stream)
        await redis.aclose()
    assert not outbox.process.is_alive()
