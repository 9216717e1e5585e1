"""Bad input on every socket route (the path's ids, the query) is refused with a clear close
code and error, as the HTTP routes answer 422 or 404: 4400 for input that cannot be an id or
a value, 4404 for a well-formed id of nothing; 1013 only when a service is really down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import app.main as main
from app.settings import load_settings
from tests.db.conftest import _pg_schema_at_head, pg_migrated_url, pg_url

# the fixtures: a PostgreSQL schema of the test's own, at head
__all__ = ["_pg_schema_at_head", "pg_migrated_url", "pg_url"]

CLOSE_TRY_AGAIN = 1013


@pytest.fixture
def client(pg_migrated_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """A server on its own PostgreSQL schema (its integers are 32 or 64 bits, as in
    production) and an in-memory store."""
    settings = load_settings(
        database_url=pg_migrated_url,
        redis_url="memory://",
        secret_key="socket-input-secret-0123456789",
        bot_workers=0,
        review_workers=0,
        run_outbox_worker=False,
    )
    with TestClient(main.create_app(settings)) as test_client:
        yield test_client


def closed_with(client: TestClient, path: str, hello: bool = False) -> tuple[int, dict[str, Any]]:
    """The close code and the last error a socket opened on ``path`` got."""
    error: dict[str, Any] = {}
    with client.websocket_connect(path) as ws:
        if hello:
            ws.send_text(orjson.dumps({"type": "hello"}).decode())
        try:
            while True:
                message = orjson.loads(ws.receive_text())
                if message.get("type") == "error":
                    error = message
        except WebSocketDisconnect as exc:
            return exc.code, error
    raise AssertionError("not closed")


REVIEW_PATHS = {
    "/ws/games/99999999999/review?seat=0": "bad_game_id",
    "/ws/games/2147483648/review?seat=0": "bad_game_id",
    "/ws/games/0/review?seat=0": "bad_game_id",
    "/ws/games/-1/review?seat=0": "bad_game_id",
    "/ws/games/abc/review?seat=0": "bad_game_id",
    "/ws/games/1.5/review?seat=0": "bad_game_id",
    "/ws/games/1/review?seat=99999999999999999999": "bad_seat",
    "/ws/games/1/review?seat=x": "bad_seat",
    "/ws/games/1/review": "bad_seat",
    "/ws/games/1/review?seat=0&share=" + "s" * 65: "bad_share",
    "/ws/games/1/review?seat=0&share=%00": "bad_text",
}
TABLE_PATHS = {
    "/ws/tables/" + "t" * 65: "bad_table_id",
    "/ws/tables/a%00b": "bad_text",
    "/ws/tables/a%7Bb%7D": "bad_table_id",
    "/ws/tables/a%20b": "bad_table_id",
}
LOBBY_PATHS = {
    "/ws/lobby?variant=%00": "bad_text",
    "/ws/lobby?limit=99999999999999999999999": "bad_filter",
    "/ws/lobby?free_seats=-1": "bad_filter",
}


@pytest.mark.parametrize("path", sorted(REVIEW_PATHS))
def test_the_review_socket_refuses_bad_input(client: TestClient, path: str) -> None:
    code, error = closed_with(client, path)
    assert (code, error.get("code")) == (4400, REVIEW_PATHS[path]), (path, error)


@pytest.mark.parametrize("path", sorted(TABLE_PATHS))
def test_the_table_socket_refuses_bad_input(client: TestClient, path: str) -> None:
    code, error = closed_with(client, path, hello=True)
    assert (code, error.get("code")) == (4400, TABLE_PATHS[path]), (path, error)


@pytest.mark.parametrize("path", sorted(LOBBY_PATHS))
def test_the_lobby_socket_refuses_bad_input(client: TestClient, path: str) -> None:
    code, error = closed_with(client, path)
    assert (code, error.get("code")) == (4400, LOBBY_PATHS[path]), (path, error)


def test_well_formed_ids_of_nothing_are_unknown_not_an_outage(client: TestClient) -> None:
    assert closed_with(client, "/ws/games/2147483647/review?seat=0")[0] == 4404
    assert closed_with(client, "/ws/tables/NoSuchTable1", hello=True)[0] == 4404
