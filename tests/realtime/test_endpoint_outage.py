"""A table socket that opens while redis-py's connections are closed under its commands (what
a Redis Cluster failover does to the pooled connections of a dead master) gets the documented
answer: ``error`` ``store_unavailable`` and close 1013, not a dropped socket and a server
error. It used to fail in app/realtime/limits.py -> app/store/sockets.py with redis-py's
"AttributeError: 'NoneType' object has no attribute 'writelines'"."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.asyncio.connection import AbstractConnection

from tests.conftest import real_redis_url
from tests.realtime.harness import (
    Client,
    create_table,
    guest,
    in_process_server,
    told_to_come_back,
)
from tests.realtime.test_games import settings_for

pytestmark = pytest.mark.asyncio


async def test_a_socket_opening_on_connections_closed_under_it_is_told_to_retry(
    tmp_path: Path,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = settings_for(
        tmp_path, redis_url=real_redis_url(), redis_namespace=namespace, secret_key="k" * 32
    )
    async with in_process_server(settings) as address:
        token, _ = await guest(address, "Ann")
        created = await create_table(address, token, preset="classic")
        table_id = created["table"]["id"]
        real = AbstractConnection.check_health

        async def closed_meanwhile(self: AbstractConnection) -> None:
            await real(self)  # type: ignore[no-untyped-call]
            self._writer = None  # another task closed it while this command waited

        monkeypatch.setattr(AbstractConnection, "check_health", closed_meanwhile)
        await told_to_come_back(address, table_id, token)
        monkeypatch.undo()
        again = Client(address, table_id, token, "again")  # the page's reconnection
        await again.connect()
        welcome = await again.wait(lambda m: m["type"] == "welcome")
        assert welcome["table_id"] == table_id
        await again.close()
    assert not [r for r in caplog.records if "Exception in ASGI application" in r.getMessage()]
