"""Rated tables through the HTTP API and the table socket: who may create and sit (guests,
too few finished games, a ban), the shared-address notice and refusal, and that no message
carries an address or its digest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from fastapi.testclient import TestClient

from app.tables.rated import abandons_key
from tests.api.test_security import build, guest

PASSWORD = "correct horse battery"


def _account(client: TestClient, name: str) -> tuple[str, str]:
    reply = client.post("/api/account/register", json={"name": name, "password": PASSWORD})
    assert reply.status_code in (200, 201), reply.text
    client.cookies.clear()
    return reply.json()["token"], reply.json()["player"]["id"]


def _create(client: TestClient, token: str, **body: Any) -> Any:
    return client.post(
        "/api/tables",
        json={"preset": "classic", **body},
        headers={"Authorization": f"Bearer {token}"},
    )


def _command(ws: Any, msg: dict[str, Any]) -> dict[str, Any]:
    """Send a command and read until its answer (ack or error with its id)."""
    ws.send_text(orjson.dumps(msg).decode())
    seen: list[dict[str, Any]] = []
    while True:
        got = orjson.loads(ws.receive_text())
        seen.append(got)
        if got.get("id") == msg["id"] and got["type"] in ("ack", "error"):
            return got


def _hello(ws: Any, token: str) -> dict[str, Any]:
    """Say hello; the first state's table."""
    ws.send_text(orjson.dumps({"type": "hello", "token": token}).decode())
    while True:
        got = orjson.loads(ws.receive_text())
        if got["type"] == "state":
            return dict(got["table"])
        assert got["type"] != "error", got


def test_who_may_create_a_rated_table(tmp_path: Path) -> None:
    with TestClient(build(tmp_path, rated_min_games=2)) as client:
        guest_token, _ = guest(client)
        reply = _create(client, guest_token, rated=True)
        assert reply.status_code == 403 and reply.json()["detail"]["code"] == "rated_guest"
        token, _ = _account(client, "Rater")
        reply = _create(client, token, rated=True)
        assert reply.status_code == 403
        assert reply.json()["detail"]["code"] == "rated_games_needed"
        assert "2 more games" in reply.json()["detail"]["message"]
        reply = _create(client, token, rated="yes")
        assert reply.status_code == 422  # strict types: nothing created
        reply = _create(client, token)  # a casual table is open to everyone
        assert reply.status_code == 201 and reply.json()["table"]["rated"] is False


def test_rated_table_sit_refusals_and_shared_address(tmp_path: Path) -> None:
    with TestClient(build(tmp_path, rated_min_games=0)) as client:
        ann, _ = _account(client, "RatedAnn")
        bob, bob_id = _account(client, "RatedBob")
        gus, _ = guest(client)
        casual = _create(client, ann).json()["table"]
        rated = _create(client, ann, rated=True).json()["table"]
        assert rated["rated"] is True and rated["shared_address"] == []
        # A casual table: both sit; everyone is told that seats 0 and 1 share an address.
        with client.websocket_connect(f"/ws/tables/{casual['id']}") as ws:
            first = _hello(ws, bob)
            assert _command(ws, {"type": "sit", "id": "s1", "seat": 1})["type"] == "ack"
        table = client.get(f"/api/tables/{casual['id']}").json()["table"]
        assert table["shared_address"] == [[0, 1]]
        assert first["shared_address"] == []  # before Bob sat
        for seen in (table, first):  # neither the address nor its digest is sent
            assert "testclient" not in orjson.dumps(seen).decode()
            assert 'address"' not in orjson.dumps(seen["seats"]).decode()
        # A public rated table: a guest is refused, then Bob (same address as Ann).
        with client.websocket_connect(f"/ws/tables/{rated['id']}") as ws:
            _hello(ws, gus)
            refused = _command(ws, {"type": "sit", "id": "g1", "seat": 1})
            assert refused["type"] == "error" and refused["code"] == "rated_guest"
        with client.websocket_connect(f"/ws/tables/{rated['id']}") as ws:
            _hello(ws, bob)
            refused = _command(ws, {"type": "sit", "id": "b1", "seat": 1})
            assert refused["type"] == "error" and refused["code"] == "shared_address"
        # A ban: two abandons (one is free) within the window refuse him with its end time.
        services = client.app.state.services  # type: ignore[attr-defined]
        rules = services.tables.rated_rules
        now = services.tables.clock()
        key = abandons_key(rules.namespace, bob_id)
        client.portal.call(rules.redis.zadd, key, {"t1:1": now - 60_000, "t2:1": now - 1_000})
        reply = _create(client, bob, rated=True)
        assert reply.status_code == 403 and reply.json()["detail"]["code"] == "rated_banned"
        assert 7000 <= int(reply.headers["Retry-After"]) <= 7200
        assert "UTC" in reply.json()["detail"]["message"]
        # the end as a named value: the page shows it in the player's language and time zone
        until = reply.json()["detail"]["values"]["until"]
        assert 7000 <= (until - now) / 1000 <= 7200
        with client.websocket_connect(f"/ws/tables/{rated['id']}") as ws:
            _hello(ws, bob)
            refused = _command(ws, {"type": "sit", "id": "b2", "seat": 2})
            assert refused["code"] == "rated_banned" and 7000 <= refused["retry_after"] <= 7200
            assert refused["values"] == {"until": until}
        table = client.get(f"/api/tables/{rated['id']}").json()["table"]
        assert [s["kind"] for s in table["seats"]] == ["human", "open", "open", "open"]
