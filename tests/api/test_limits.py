"""Creation limits over HTTP: new guests per address, live tables per player and per address
(429 with a stable code and Retry-After, nothing created), the client's address behind
trusted proxies, and one count for two instances on one Redis."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlmodel import func, select

import app.main as main
from app.db.models import Player
from app.settings import load_settings
from tests.realtime.harness import two_instances

SECRET = "limits-test-secret-0123456789"


@contextlib.contextmanager
def server(tmp_path: Path, peer: str = "203.0.113.7", **overrides: Any) -> Iterator[TestClient]:
    settings = load_settings(
        database_url=f"sqlite:///{tmp_path / 'limits.sqlite3'}",
        redis_url="memory://",
        secret_key=SECRET,
        **overrides,
    )
    with TestClient(main.create_app(settings), client=(peer, 50000)) as client:
        yield client


def guest(client: TestClient, name: str, **headers: str) -> dict[str, str]:
    reply = client.post("/api/guest", json={"name": name}, headers=headers)
    assert reply.status_code == 200, reply.text
    return {"Authorization": f"Bearer {reply.json()['token']}"}


def create(client: TestClient, auth: dict[str, str], **headers: str) -> httpx.Response:
    return client.post("/api/tables", json={"preset": "classic"}, headers={**auth, **headers})


def players_in_sql(client: TestClient) -> int:
    with client.app.state.services.database.session() as session:  # type: ignore[attr-defined]
        return int(session.exec(select(func.count()).select_from(Player)).one())


def table_keys(client: TestClient) -> set[bytes]:
    redis_client = client.app.state.services.redis  # type: ignore[attr-defined]
    found: list[bytes] = client.portal.call(redis_client.keys, "*:table:*")  # type: ignore[union-attr]
    return set(found)


def assert_refused(reply: httpx.Response, code: str, window: int) -> int:
    assert reply.status_code == 429, reply.text
    detail = reply.json()["detail"]
    assert detail["code"] == code and detail["message"]
    wait = int(reply.headers["Retry-After"])
    assert 0 < wait <= window and detail["retry_after"] == wait
    return wait


def test_new_guests_per_address(tmp_path: Path) -> None:
    with server(tmp_path, max_guests_per_address=3, guest_window_seconds=600) as client:
        for i in range(3):
            guest(client, f"Guest{i}")
        players = players_in_sql(client)
        refused = client.post("/api/guest", json={"name": "OneTooMany"})
        assert_refused(refused, "too_many_guests", 600)
        assert "3 new guests" in refused.json()["detail"]["message"]
        assert players_in_sql(client) == players  # no SQL row


def test_limit_counters_are_in_the_deployments_namespace(tmp_path: Path) -> None:
    """Guests, registrations, sign-in attempts and tables: every counter is under
    ``{<namespace>:limits}`` (or the namespace's hosting sets), none in another deployment's."""
    namespace = "t" + uuid.uuid4().hex[:10]
    with server(tmp_path, redis_namespace=namespace) as client:
        auth = guest(client, "Ann")
        assert create(client, auth).status_code == 201
        client.post("/api/account/register", json={"name": "annie", "password": "long enough 1"})
        client.post("/api/account/login", json={"name": "annie", "password": "wrong password"})
        redis_client = client.app.state.services.redis  # type: ignore[attr-defined]
        found: list[bytes] = client.portal.call(redis_client.keys, "*")  # type: ignore[union-attr]
    names = {k.decode() for k in found}
    limits = {n for n in names if ":limits}" in n}
    assert any(":register:" in n for n in limits) and any(":login-" in n for n in limits)
    assert all(n.startswith("{" + namespace + ":limits}:") for n in limits), limits
    assert not [n for n in names if "hearts" in n], names  # nothing in the default namespace


def test_guests_are_counted_per_address_not_for_everyone(tmp_path: Path) -> None:
    settings = load_settings(
        database_url=f"sqlite:///{tmp_path / 'two.sqlite3'}",
        redis_url="memory://",
        secret_key=SECRET,
        max_guests_per_address=2,
    )
    app = main.create_app(settings)
    with (
        TestClient(app, client=("203.0.113.7", 1)) as home,
        TestClient(app, client=("198.51.100.9", 1)) as other,
    ):
        guest(home, "Home1")
        guest(home, "Home2")
        assert home.post("/api/guest", json={"name": "Home3"}).status_code == 429
        guest(other, "Other1")  # a different address still gets its guests


def test_tables_per_player_over_http(tmp_path: Path) -> None:
    with server(tmp_path, max_tables_per_host=2) as client:
        auth = guest(client, "Host")
        made = [create(client, auth) for _ in range(2)]
        assert [r.status_code for r in made] == [201, 201]
        before = table_keys(client)
        refused = create(client, auth)
        assert_refused(refused, "too_many_tables", 3600)
        assert "2 live tables" in refused.json()["detail"]["message"]
        assert table_keys(client) == before  # no Redis keys for a refused table
        # A bad request is still answered as before (422), not counted as a table.
        bad = client.post("/api/tables", json={"preset": "nope"}, headers=auth)
        assert bad.status_code == 422
        # Another player from the same address may create tables.
        assert create(client, guest(client, "Friend")).status_code == 201


def test_tables_per_address_over_http(tmp_path: Path) -> None:
    with server(tmp_path, max_tables_per_address=3, max_tables_per_host=5) as client:
        made = [create(client, guest(client, f"P{i}")).status_code for i in range(3)]
        assert made == [201, 201, 201]
        refused = create(client, guest(client, "P4"))
        assert_refused(refused, "too_many_tables", 3600)
        assert "network address" in refused.json()["detail"]["message"]


def test_forwarded_for_counts_only_behind_a_trusted_proxy(tmp_path: Path) -> None:
    # The peer is a trusted proxy: each client behind it has its own count.
    with server(
        tmp_path / "a",
        peer="10.0.0.2",
        trusted_proxies="10.0.0.0/8",
        max_guests_per_address=1,
    ) as client:
        guest(client, "Alice", **{"X-Forwarded-For": "203.0.113.7"})
        guest(client, "Bob", **{"X-Forwarded-For": "198.51.100.9"})
        # What a client writes left of the proxy's own entry changes nothing.
        spoofed = client.post(
            "/api/guest",
            json={"name": "Mallory"},
            headers={"X-Forwarded-For": "192.0.2.1, 203.0.113.7"},
        )
        assert spoofed.status_code == 429
        # One IPv6 /64 is one client.
        guest(client, "Six", **{"X-Forwarded-For": "2001:db8:1:2::1"})
        again = client.post(
            "/api/guest", json={"name": "Six2"}, headers={"X-Forwarded-For": "2001:db8:1:2::ff"}
        )
        assert again.status_code == 429
    # A peer that is not a trusted proxy cannot pick its address.
    (tmp_path / "b").mkdir()
    with server(tmp_path / "b", peer="203.0.113.7", max_guests_per_address=1) as client:
        guest(client, "Direct", **{"X-Forwarded-For": "192.0.2.1"})
        other = client.post(
            "/api/guest", json={"name": "Direct2"}, headers={"X-Forwarded-For": "192.0.2.2"}
        )
        assert other.status_code == 429


def test_ordinary_play_is_not_limited(tmp_path: Path) -> None:
    """Four friends behind one home address, defaults: a guest each (and the page's reload
    keeps its identity: /api/me), a few tables each, everyone sits at the first one."""
    with server(tmp_path) as client:
        friends = [guest(client, f"Friend{i}") for i in range(4)]
        for auth in friends:
            assert client.get("/api/me", headers=auth).status_code == 200  # a reload
        tables = [create(client, auth).json()["table"]["id"] for auth in friends for _ in range(3)]
        assert len(tables) == 12
        assert players_in_sql(client) == 4


# -- two instances on one Redis ------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_two_instances_keep_one_count(kind: str, tmp_path: Path) -> None:
    settings = {
        "database_url": f"sqlite:///{tmp_path}/two.sqlite3",
        "secret_key": SECRET,
        "bot_workers": 0,
        "max_tables_per_host": 3,
        "max_guests_per_address": 3,
    }
    async with two_instances(kind, settings) as ((a, _), (b, _)):
        https = [httpx.AsyncClient(base_url=f"http://{address}") for address in (a, b)]
        try:
            guests = []
            for i in range(3):
                reply = await https[i % 2].post("/api/guest", json={"name": f"Two{i}"})
                assert reply.status_code == 200, reply.text
                guests.append(reply.json()["token"])
            for http in https:  # the fourth guest, on either instance
                refused = await http.post("/api/guest", json={"name": "Two3"})
                assert refused.status_code == 429
                assert refused.json()["detail"]["code"] == "too_many_guests"
            auth = {"Authorization": f"Bearer {guests[0]}"}
            for i in range(3):
                made = await https[i % 2].post(
                    "/api/tables", json={"preset": "classic"}, headers=auth
                )
                assert made.status_code == 201, made.text
            for http in https:
                refused = await http.post("/api/tables", json={"preset": "classic"}, headers=auth)
                assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
                assert refused.json()["detail"]["code"] == "too_many_tables"
        finally:
            for http in https:
                await http.aclose()
