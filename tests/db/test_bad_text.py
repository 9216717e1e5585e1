"""Text the server cannot store or send back, anywhere in a request, is a clear 422 (issue 20).

A lone surrogate ("\\ud800" in JSON) made the answers that echo the input fail to encode (a bare
500, the connection dropped); a NUL character made PostgreSQL raise (a 500). Both are refused by
``app.api.strict.StrictRoute`` before any route runs: every HTTP route of the real app is
tried, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import load_settings

SURROGATE_JSON = '"\\ud800"'  # JSON text of a lone surrogate
NUL_JSON = '"a\\u0000b"'


@pytest.fixture(params=["sqlite", "postgresql"])
def app_client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    """The app on SQLite and on PostgreSQL (a schema made at head: the app finds it so)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'hearts.sqlite3'}"
    else:
        url = str(request.getfixturevalue("pg_migrated_url"))
    settings = load_settings(
        database_url=url,
        redis_url="memory://",
        secret_key="bad-text-test-secret-key",
        run_outbox_worker=False,
        bot_workers=0,
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def _routes(client: TestClient) -> list[tuple[str, str]]:
    """Every HTTP route of the app under /api, from its OpenAPI description."""
    paths = client.get("/openapi.json").json()["paths"]
    return [
        (method.upper(), path)
        for path, methods in paths.items()
        if path.startswith("/api")
        for method in methods
    ]


def _path_with(path: str, value: str) -> str:
    return re.sub(r"\{[^}]+\}", value, path)


def _body_fields(route_path: str) -> list[str]:
    return ["name", "password", "old_password", "new_password", "preset", "text"]


@pytest.mark.parametrize("bad", [SURROGATE_JSON, NUL_JSON], ids=["surrogate", "nul"])
def test_every_json_route_refuses_bad_text_with_422(app_client: TestClient, bad: str) -> None:
    guest = app_client.post("/api/guest", json={"name": "Tess"})
    assert guest.status_code == 200, guest.text
    auth = {"Authorization": "Bearer " + guest.json()["token"]}
    tried = 0
    for method, path in _routes(app_client):
        if method not in ("POST", "PUT", "PATCH"):
            continue
        for field in _body_fields(path):
            body = "{" + f'"{field}": {bad}, "options": {{"x": {bad}}}' + "}"
            for headers in ({}, auth):
                answer = app_client.request(
                    method,
                    _path_with(path, "x"),
                    content=body.encode(),
                    headers={"content-type": "application/json", **headers},
                )
                tried += 1
                assert answer.status_code == 422, (method, path, field, answer.text)
                detail = answer.json()["detail"]
                assert detail["code"] == "bad_text", (path, detail)
    assert tried >= 20
    # Nothing was made of any of it: still the one guest, no table.
    assert app_client.get("/api/tables").json()["total"] == 0


def test_the_findings_answer_422_not_500(app_client: TestClient) -> None:
    """The requests of the issue, one by one."""
    for path, body in [
        ("/api/guest", '{"name": "\\ud800"}'),
        ("/api/account/register", '{"name": "\\ud800", "password": "a long password"}'),
        ("/api/account/login", '{"name": "someone", "password": "\\ud800"}'),
        ("/api/account/login", '{"name": "a\\u0000b", "password": "a long password"}'),
    ]:
        answer = app_client.post(
            path, content=body.encode(), headers={"content-type": "application/json"}
        )
        assert answer.status_code == 422 and answer.json()["detail"]["code"] == "bad_text"
    for url in [
        "/api/players/%00",
        "/api/players/ab%00cd/games",
        "/api/players/abc/games?variant=%00",
        "/api/leaderboards/%00",
        "/api/games/1?share=%00",
    ]:
        answer = app_client.get(url)
        assert answer.status_code == 422, (url, answer.text)
        assert answer.json()["detail"]["code"] == "bad_text"


def test_every_get_route_refuses_a_nul_in_its_path_and_query(app_client: TestClient) -> None:
    tried = 0
    for method, path in _routes(app_client):
        if method != "GET":
            continue
        if "{" in path:
            answer = app_client.get(_path_with(path, "a%00b"))
            tried += 1
            # an int path parameter fails its own validation first (422 too)
            assert answer.status_code == 422, (path, answer.text)
        answer = app_client.get(_path_with(path, "abc"), params={"variant": "a\x00b"})
        tried += 1
        assert answer.status_code in (422, 404) or answer.status_code < 300, (path, answer.text)
        if answer.status_code == 422:
            assert answer.json()["detail"]["code"] == "bad_text"
    assert tried >= 8


def test_refuse_rather_than_bend(app_client: TestClient) -> None:
    guest = app_client.post("/api/guest", json={"name": "Rita"})
    auth = {"Authorization": "Bearer " + guest.json()["token"]}
    for body in (
        {"preset": "classic", "private": "yes"},
        {"preset": "classic", "private": 1},
        {"preset": "classic", "turn_timer": "30"},
        {"preset": "classic", "turn_timer": 30.0},
    ):
        answer = app_client.post("/api/tables", json=body, headers=auth)
        assert answer.status_code == 422, (body, answer.text)
    assert app_client.get("/api/tables").json()["total"] == 0
    board = app_client.get("/api/leaderboards/nonsense")
    assert board.status_code == 404 and board.json()["detail"]["code"] == "unknown_variant"
    assert app_client.get("/api/leaderboards/classic").status_code == 200
    games = app_client.get("/api/players/abc/games", params={"variant": "nonsense"})
    assert games.status_code == 422 and games.json()["detail"]["code"] == "unknown_variant"


def test_a_validation_error_that_echoes_odd_input_still_encodes(app_client: TestClient) -> None:
    """A body that is no JSON object at all is refused by FastAPI's validation, whose answer
    echoes the input: it must encode whatever the input held."""
    answer = app_client.post(
        "/api/guest", content=b'["\\udfff"]', headers={"content-type": "application/json"}
    )
    assert answer.status_code == 422
    answer = app_client.post(
        "/api/guest", content=b'{"name": 5}', headers={"content-type": "application/json"}
    )
    assert answer.status_code == 422
    detail: Any = answer.json()["detail"]
    assert isinstance(detail, list) and detail[0]["loc"] == ["body", "name"]
