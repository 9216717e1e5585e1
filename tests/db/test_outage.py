"""While the database does not answer (issue 20): every SQL-backed route answers 503
``database_unavailable`` with Retry-After (never a bare 500), /healthz stays the liveness check
and /readyz says which service is missing. A PostgreSQL URL on a port where nothing listens
stands for the outage: connecting fails at once, as it does while a server is down."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db.auth import _signer
from app.main import create_app
from app.settings import load_settings
from app.store import keys
from bench.ports import free_port


def _closed_port() -> int:
    return free_port()  # nothing listens on it


def _client(database_url: str) -> TestClient:
    settings = load_settings(
        database_url=database_url,
        redis_url="memory://",
        secret_key="outage-test-secret-key",
        migrate_on_start=False,
        run_outbox_worker=False,
        bot_workers=0,
    )
    return TestClient(create_app(settings), raise_server_exceptions=False)


@pytest.fixture
def down() -> Iterator[TestClient]:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/test"
    with _client(url) as client:
        yield client


def test_sql_routes_answer_503_with_retry_after_while_the_database_is_down(
    down: TestClient,
) -> None:
    # A well-signed token whose session must be looked up (a guest back after a while).
    token = _signer("outage-test-secret-key").sign("some-session-id").decode("ascii")
    headers = {"Authorization": f"Bearer {token}"}
    for method, path, body in [
        ("POST", "/api/guest", {"name": "Tess"}),
        ("POST", "/api/account/register", {"name": "tess", "password": "a long password"}),
        ("POST", "/api/account/login", {"name": "tess", "password": "a long password"}),
        ("GET", "/api/players/abc", None),
        ("GET", "/api/players/abc/games", None),
        ("GET", "/api/leaderboards/classic", None),
        ("GET", "/api/games/1", None),
        ("GET", "/api/me", None),
        ("POST", "/api/tables", {"preset": "classic"}),
    ]:
        answer = down.request(method, path, json=body, headers=headers)
        assert answer.status_code == 503, (path, answer.status_code, answer.text)
        assert answer.json()["detail"]["code"] == "database_unavailable"
        assert answer.headers["retry-after"] == "5"


def test_healthz_is_liveness_and_readyz_names_the_missing_service(down: TestClient) -> None:
    assert down.get("/healthz").status_code == 200
    ready = down.get("/readyz")
    assert ready.status_code == 503 and ready.headers["retry-after"]
    assert ready.json() == {"ok": False, "redis": True, "database": False}


def test_readyz_when_everything_answers(tmp_path: Path) -> None:
    settings_url = f"sqlite:///{tmp_path / 'hearts.sqlite3'}"
    with _client(settings_url) as client:
        # migrate_on_start is off here: SELECT 1 needs no tables
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json() == {"ok": True, "redis": True, "database": True}


def test_a_socket_whose_session_cannot_be_checked_is_told_to_come_back(down: TestClient) -> None:
    """The hello's token needs the database: the socket gets database_unavailable and close
    1013 (try again later, which the page follows by reconnecting), not an internal error."""
    from starlette.websockets import WebSocketDisconnect

    token = _signer("outage-test-secret-key").sign("some-session-id").decode("ascii")
    with down.websocket_connect("/ws/tables/anything") as ws:
        ws.send_json({"type": "hello", "token": token})
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "database_unavailable"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1013


def test_a_database_that_stops_mid_game_and_comes_back(throwaway_postgres: Any) -> None:
    """A real PostgreSQL, stopped while the server runs and started again: SQL-backed routes
    answer 503 database_unavailable (never a bare 500) while it is down, a guest whose token
    this instance checked recently plays on (the table is in Redis), a guest not seen lately
    is told to come back, /readyz says the database is missing; a result finished meanwhile
    lands in SQL exactly once after the restart, and everything answers again."""
    import fakeredis
    import orjson
    import sqlalchemy as sa

    from app.db import upgrade_to_head

    pg = throwaway_postgres
    upgrade_to_head(pg.url)
    redis_server = fakeredis.FakeServer()
    settings = load_settings(
        database_url=pg.url,
        redis_url="memory://",
        secret_key="outage-test-secret-key",
        migrate_on_start=False,
        bot_workers=0,
    )
    app = create_app(settings, fake_redis_server=redis_server)
    with TestClient(app, raise_server_exceptions=False) as client:

        def new_guest(name: str) -> tuple[str, str]:
            answer = client.post("/api/guest", json={"name": name})
            assert answer.status_code == 200, answer.text
            client.cookies.clear()  # Bearer tokens only: one guest per request
            return answer.json()["token"], answer.json()["player"]["id"]

        recent, recent_id = new_guest("Recent")
        idle, _ = new_guest("Idle")  # its token is not checked again before the outage
        as_recent = {"Authorization": f"Bearer {recent}"}
        assert client.post("/api/tables", json={}, headers=as_recent).status_code == 201

        pg.stop()
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json() == {"ok": False, "redis": True, "database": False}
        for method, path, body, headers in [
            ("POST", "/api/guest", {"name": "Newcomer"}, {}),
            ("POST", "/api/account/register", {"name": "newbie", "password": "a long secret"}, {}),
            ("POST", "/api/account/login", {"name": "newbie", "password": "a long secret"}, {}),
            ("GET", f"/api/players/{recent_id}", None, {}),
            ("GET", f"/api/players/{recent_id}/games", None, {}),
            ("GET", "/api/leaderboards/classic", None, {}),
            ("POST", "/api/tables", {}, {"Authorization": f"Bearer {idle}"}),
        ]:
            answer = client.request(method, path, json=body, headers=headers)
            assert answer.status_code == 503, (path, answer.status_code, answer.text)
            assert answer.json()["detail"]["code"] == "database_unavailable", path
            assert int(answer.headers["retry-after"]) > 0
        # The recently checked guest plays on: a new table, and its socket says hello.
        created = client.post("/api/tables", json={}, headers=as_recent)
        assert created.status_code == 201, created.text
        with client.websocket_connect(f"/ws/tables/{created.json()['table']['id']}") as ws:
            ws.send_json({"type": "hello", "token": recent})
            assert ws.receive_json()["type"] in ("welcome", "state")
        # A game that ends meanwhile waits in its shard's results stream.
        record = {
            "kind": "game",
            "table_id": "outage-table",
            "game_no": 1,
            "preset": "classic",
            "options": {},
            "seats": [{"player_id": recent_id, "name": "Recent"}] + [{"bot_level": "easy"}] * 3,
            "totals": [10, 20, 30, 40],
            "winners": [0],
            "ended": "finished",
        }
        stream = keys.results_key(settings.redis_namespace, keys.shard_of(record["table_id"]))
        fakeredis.FakeRedis(server=redis_server).xadd(stream, {"event": orjson.dumps(record)})

        pg.start()
        deadline = time.monotonic() + 60
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the database did not come back"
            time.sleep(0.2)
        engine = sa.create_engine(pg.url)
        try:
            while True:
                with engine.connect() as connection:
                    count = connection.execute(
                        sa.text("SELECT count(*) FROM game WHERE table_id = 'outage-table'")
                    ).scalar()
                if count or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        finally:
            engine.dispose()
        assert count == 1
        assert client.post("/api/guest", json={"name": "Newcomer"}).status_code == 200
        assert client.get(f"/api/players/{recent_id}").status_code == 200
