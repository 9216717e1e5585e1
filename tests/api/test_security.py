"""Browser hardening: security headers on every response, the Origin check on sockets and
unsafe requests, and the session cookie (HttpOnly, CSRF header) as the page's only session."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import orjson
import pytest
import websockets
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.typing import Origin

from app.main import create_app
from app.settings import Settings
from tests.realtime.harness import in_process_server

EVIL = "https://evil.example"
SECURITY_HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}
CSRF = {"X-Requested-With": "hearts"}


def make_settings(tmp_path: Path, **extra: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path}/hearts.sqlite3",
        "secret_key": "security-test-secret",
        "turn_timer_seconds": 0,
        "bot_delay_min_ms": 0,
        "bot_delay_max_ms": 0,
        "hand_pause_ms": 0,
    }
    base.update(extra)
    return Settings(**base)


def _boom() -> None:
    raise RuntimeError("an unhandled error")


def build(tmp_path: Path, **extra: Any) -> FastAPI:
    app = create_app(make_settings(tmp_path, **extra))
    app.add_api_route("/api/test-boom", _boom)  # an unhandled error: Starlette's own 500
    app.router.routes.insert(0, app.router.routes.pop())  # before the static files' mount
    return app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(build(tmp_path), raise_server_exceptions=False) as test_client:
        yield test_client


def guest(client: TestClient, name: str = "Gus") -> tuple[str, str]:
    """A guest made by a fresh client (so ``client``'s cookie jar is not touched)."""
    reply = client.post("/api/guest", json={"name": name})
    assert reply.status_code == 200, reply.text
    client.cookies.clear()
    return reply.json()["token"], reply.json()["player"]["id"]


def assert_hardened(response: httpx.Response) -> None:
    where = f"{response.request.method} {response.request.url.path} -> {response.status_code}"
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, (where, name, response.headers)
    policy = response.headers.get("content-security-policy", "")
    directives = dict(
        (part.strip().split(" ", 1) + [""])[:2] for part in policy.split(";") if part.strip()
    )
    assert directives.get("frame-ancestors") == "'none'", (where, policy)
    assert directives.get("script-src") == "'self'", (where, policy)
    assert directives.get("object-src") == "'none'", (where, policy)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "camera=()" in response.headers.get("permissions-policy", ""), where


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    token, _ = guest(client)
    bearer = {"Authorization": f"Bearer {token}"}
    responses = [
        client.get("/"),
        client.get("/index.html"),
        client.get("/js/app.js"),
        client.get("/css/style.css"),
        client.get("/no/such/file.png"),  # static 404
        client.get("/healthz"),
        client.get("/api/presets"),
        client.get("/api/tables"),
        client.get("/api/me"),  # 401
        client.get("/api/me", headers=bearer),
        client.get("/api/tables/nope"),  # 404
        client.post("/api/tables", json={"preset": "no-such"}, headers=bearer),  # 422
        client.post("/api/guest", json={}),  # 422 (validation)
        client.post("/api/guest", json={"name": "Hal"}, headers={"Origin": EVIL}),  # 403
        client.put("/api/presets"),  # 405
        client.get("/api/games/999999"),  # 404 from app.db.api
        client.post("/api/account/login", json={"name": "nobody", "password": "wrong pass"}),
        client.get("/api/test-boom"),  # 500 from Starlette's error handler
        client.head("/"),
    ]
    assert {r.status_code for r in responses} >= {200, 401, 403, 404, 405, 422, 500}
    for response in responses:
        assert_hardened(response)


def test_the_page_has_no_policy_of_its_own_that_could_disagree(client: TestClient) -> None:
    page = client.get("/")
    assert "http-equiv" not in page.text.lower()
    policy = page.headers["content-security-policy"]
    # The page's socket URL is allowed, and nothing else outside the site.
    assert "connect-src 'self' ws://testserver wss://testserver;" in policy


def test_cross_site_requests_are_refused_and_change_nothing(client: TestClient) -> None:
    token, player_id = guest(client)
    refused = client.post("/api/guest", json={"name": "Mallory"}, headers={"Origin": EVIL})
    assert refused.status_code == 403
    assert refused.json()["detail"]["code"] == "bad_origin"
    assert "set-cookie" not in refused.headers
    # A cross-site request signed by the cookie (a form on another site) does nothing.
    client.cookies.set("hearts_token", token)
    for headers in (
        {"Origin": EVIL, **CSRF},
        {"Origin": "null", **CSRF},
        {"Sec-Fetch-Site": "cross-site", **CSRF},
        {"Origin": "http://testserver.evil.example", **CSRF},
        {"Origin": "http://testserver:8080", **CSRF},
    ):
        reply = client.post("/api/tables", json={"preset": "classic"}, headers=headers)
        assert reply.status_code == 403, (headers, reply.text)
        assert reply.json()["detail"]["code"] == "bad_origin"
    logout = client.post("/api/account/logout", headers={"Origin": EVIL, **CSRF})
    assert logout.status_code == 403
    assert client.get("/api/me").json()["id"] == player_id  # still signed in
    assert client.get("/api/tables").json()["tables"] == []  # nothing was created
    # The same requests from the site itself, or with no Origin at all (an API client), work.
    mine = client.post(
        "/api/tables",
        json={"preset": "classic"},
        headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin", **CSRF},
    )
    assert mine.status_code == 201, mine.text
    assert client.post("/api/guest", json={"name": "Api"}).status_code == 200
    # Reading is not refused (a cross-site page cannot read the answer anyway: no CORS).
    assert client.get("/api/presets", headers={"Origin": EVIL}).status_code == 200


def test_allowed_origins_setting(tmp_path: Path) -> None:
    app = build(tmp_path, allowed_origins="https://hearts.example, http://localhost:8000")
    with TestClient(app) as client:
        for origin, status in (
            ("https://hearts.example", 200),
            ("https://hearts.example:443", 200),
            ("http://localhost:8000", 200),
            ("http://testserver", 403),  # the list replaces "same host"
            ("http://hearts.example", 403),
            (EVIL, 403),
        ):
            reply = client.post("/api/guest", json={"name": "Olga"}, headers={"Origin": origin})
            assert reply.status_code == status, origin
        policy = client.get("/").headers["content-security-policy"]
        assert "connect-src 'self' ws://localhost:8000 wss://hearts.example;" in policy
    with pytest.raises(ValueError, match="scheme://host"):
        Settings(allowed_origins="hearts.example")
    with pytest.raises(ValueError, match="scheme://host"):
        Settings(allowed_origins="https://hearts.example/path")


def test_the_session_cookie(client: TestClient) -> None:
    made = client.post("/api/guest", json={"name": "Cookie"})
    player_id = made.json()["player"]["id"]
    cookie = made.headers["set-cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert cookie.startswith("hearts_token=")
    assert {"httponly", "path", "max-age", "samesite"} <= attributes
    assert "samesite=lax" in cookie.lower() and "path=/" in cookie.lower()
    assert "max-age=7776000" in cookie.lower()  # the token's 90 days
    assert "secure" not in attributes  # plain HTTP (the README's first command)
    assert made.headers["cache-control"] == "no-store"
    # The cookie alone signs reads, and unsafe requests that carry the CSRF header.
    assert client.get("/api/me").json()["id"] == player_id
    assert client.get("/api/account/me").json()["id"] == player_id
    no_header = client.post("/api/tables", json={"preset": "classic"})
    assert no_header.status_code == 403
    assert no_header.json()["detail"]["code"] == "csrf_header_missing"
    assert client.get("/api/tables").json()["tables"] == []
    created = client.post("/api/tables", json={"preset": "classic"}, headers=CSRF)
    assert created.status_code == 201
    assert created.json()["table"]["seats"][0]["player_id"] == player_id
    # Logout ends the session and clears the cookie.
    logout = client.post("/api/account/logout", headers=CSRF)
    assert logout.status_code == 204
    assert 'hearts_token=""' in logout.headers["set-cookie"] or "max-age=0" in (
        logout.headers["set-cookie"].lower()
    )
    assert "hearts_token" not in client.cookies
    assert client.get("/api/me").json()["detail"]["code"] == "no_token"


def test_secure_cookie_over_https_or_by_setting(tmp_path: Path) -> None:
    with TestClient(build(tmp_path), base_url="https://testserver") as client:
        cookie = client.post("/api/guest", json={"name": "Tls"}).headers["set-cookie"]
        assert "secure" in cookie.lower()
    with TestClient(build(tmp_path / "b", cookie_secure=True)) as client:
        cookie = client.post("/api/guest", json={"name": "Proxy"}).headers["set-cookie"]
        assert "secure" in cookie.lower()


def test_one_way_to_sign_a_request_for_every_route(client: TestClient) -> None:
    token, player_id = guest(client)
    other_token, other_id = guest(client, "Other")
    for path in ("/api/me", "/api/account/me"):
        assert client.get(path).json()["detail"]["code"] == "no_token"
        bad = client.get(path, headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401 and bad.json()["detail"]["code"] == "bad_token"
        assert bad.headers["www-authenticate"] == "Bearer"
        ok = client.get(path, headers={"Authorization": f"Bearer {token}"})
        assert ok.json()["id"] == player_id
        client.cookies.set("hearts_token", "nope")
        bad_cookie = client.get(path)
        assert bad_cookie.json()["detail"]["code"] == "bad_token"
        cleared = bad_cookie.headers["set-cookie"].lower()  # the dead cookie is cleared
        assert cleared.startswith("hearts_token=") and "max-age=0" in cleared
        client.cookies.set("hearts_token", token)
        assert client.get(path).json()["id"] == player_id
        # The header wins over the cookie, even when it is bad.
        both = client.get(path, headers={"Authorization": f"Bearer {other_token}"})
        assert both.json()["id"] == other_id
        assert client.get(path, headers={"Authorization": "Bearer nope"}).status_code == 401
        client.cookies.clear()
    # Unsafe routes of both routers: a cookie without the CSRF header signs nothing.
    client.cookies.set("hearts_token", token)
    assert client.post("/api/account/logout").json()["detail"]["code"] == "csrf_header_missing"
    assert client.get("/api/me").json()["id"] == player_id  # the session is still there
    # A guest's cookie without the header is not used to claim the guest for an account.
    reply = client.post("/api/account/register", json={"name": "Forged", "password": "p4ssw0rd!x"})
    assert reply.status_code == 201 and reply.json()["player"]["id"] != player_id
    client.cookies.clear()  # (the new account's cookie)
    client.cookies.set("hearts_token", token)
    claimed = client.post(
        "/api/account/register", json={"name": "Claimed", "password": "p4ssw0rd!x"}, headers=CSRF
    )
    assert claimed.status_code == 201 and claimed.json()["player"]["id"] == player_id


def test_an_older_pages_token_becomes_the_cookie(client: TestClient) -> None:
    token, player_id = guest(client)
    assert client.post("/api/session/cookie").json()["detail"]["code"] == "no_token"
    bad = client.post("/api/session/cookie", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and "hearts_token" not in client.cookies
    reply = client.post("/api/session/cookie", headers={"Authorization": f"Bearer {token}"})
    assert reply.status_code == 204 and "httponly" in reply.headers["set-cookie"].lower()
    assert client.get("/api/me").json()["id"] == player_id


def test_account_deletion_clears_the_cookie(client: TestClient) -> None:
    client.post("/api/guest", json={"name": "Gone"})
    reply = client.post("/api/account/delete", json={}, headers=CSRF)
    assert reply.status_code == 204
    assert "hearts_token" in reply.headers["set-cookie"]
    assert "hearts_token" not in client.cookies


def test_sockets_from_another_site_are_refused(client: TestClient) -> None:
    token, _ = guest(client)
    table_id = client.post(
        "/api/tables", json={"preset": "classic"}, headers={"Authorization": f"Bearer {token}"}
    ).json()["table"]["id"]
    for path in (f"/ws/tables/{table_id}", "/ws/lobby"):
        with client.websocket_connect(path, headers={"Origin": EVIL}) as ws:
            error = ws.receive_json()
            assert error == {**error, "type": "error", "code": "bad_origin"}
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4403
    # The site's own page, and a client that sends no Origin, are served.
    for headers in ({"Origin": "http://testserver"}, {}):
        with client.websocket_connect(f"/ws/tables/{table_id}", headers=headers) as ws:
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["type"] == "welcome"


def test_the_socket_is_signed_by_the_cookie(client: TestClient) -> None:
    made = client.post("/api/guest", json={"name": "Sock"}).json()
    table_id = client.post("/api/tables", json={"preset": "classic"}, headers=CSRF).json()["table"][
        "id"
    ]
    with client.websocket_connect(
        f"/ws/tables/{table_id}", headers={"Origin": "http://testserver"}
    ) as ws:
        ws.send_json({"type": "hello"})  # no token: the handshake's cookie says who
        welcome = ws.receive_json()
        assert welcome["player"]["id"] == made["player"]["id"] and welcome["seat"] == 0
    # A cookie whose session ended watches (a close would only bring the page back with it).
    client.cookies.set("hearts_token", "nope")
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello"})
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["player"] is None


@pytest.mark.asyncio
async def test_over_a_real_server(tmp_path: Path) -> None:
    """uvicorn's own WebSocket path: a cross-site handshake ends in 4403, the cookie signs."""
    async with in_process_server(make_settings(tmp_path), fakeredis.FakeServer()) as address:
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            made = await http.post("/api/guest", json={"name": "Real"})
            cookie = f"hearts_token={made.cookies['hearts_token']}"
            table = await http.post("/api/tables", json={"preset": "classic"}, headers=CSRF)
            table_id = table.json()["table"]["id"]
            assert_hardened(await http.get("/"))
        url = f"ws://{address}/ws/tables/{table_id}"
        async with websockets.connect(url, origin=Origin(EVIL)) as ws:
            assert orjson.loads(await ws.recv())["code"] == "bad_origin"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        async with websockets.connect(
            url, origin=Origin(f"http://{address}"), additional_headers={"Cookie": cookie}
        ) as ws:
            await ws.send(orjson.dumps({"type": "hello"}).decode())
            welcome = orjson.loads(await asyncio.wait_for(ws.recv(), 5))
            assert welcome["player"]["id"] == made.json()["player"]["id"]


def test_origin_allowed_rules() -> None:
    from app.api.security import origin_allowed, parse_allowed_origins

    none: frozenset[tuple[str, str, int]] = frozenset()
    assert origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000", none)
    assert origin_allowed("http://LOCALHOST:8000", "localhost:8000", none)
    assert origin_allowed("https://hearts.example", "hearts.example", none)  # TLS proxy
    assert origin_allowed("http://[::1]:8000", "[::1]:8000", none)
    for origin, host in (
        ("http://127.0.0.1:8001", "127.0.0.1:8000"),
        ("http://localhost:8000", "127.0.0.1:8000"),
        ("https://hearts.example:8443", "hearts.example"),
        ("null", "hearts.example"),
        ("hearts.example", "hearts.example"),
        ("http://hearts.example/path", "hearts.example"),
        ("javascript://hearts.example", "hearts.example"),
        ("http://hearts.example", None),
        ("http://hearts.example:99999", "hearts.example"),
    ):
        assert not origin_allowed(origin, host, none), origin
    listed = parse_allowed_origins("https://hearts.example, http://[::1]:8000/")
    assert origin_allowed("https://hearts.example:443", "anything", listed)
    assert origin_allowed("http://[::1]:8000", "x", listed)
    assert not origin_allowed("http://hearts.example", "hearts.example", listed)
