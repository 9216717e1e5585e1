"""The WebSocket protocol over real sockets: bad input, reconnect, timers, private tables."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import httpx
import orjson
import pytest
import pytest_asyncio

from app.settings import Settings
from tests.realtime.harness import Client, create_table, guest, in_process_server

pytestmark = pytest.mark.asyncio


def make_settings(tmp_path: Any, **extra: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path}/hearts.sqlite3",
        "turn_timer_seconds": 0,
        "bot_delay_min_ms": 0,
        "bot_delay_max_ms": 0,
        "due_poll_seconds": 0.05,
        "ws_max_message_bytes": 1024,
    }
    base.update(extra)
    return Settings(**base)


@pytest_asyncio.fixture
async def server(tmp_path: Any) -> AsyncIterator[str]:
    async with in_process_server(make_settings(tmp_path), fakeredis.FakeServer()) as address:
        yield address


async def seated_table(address: str, bots: int = 3) -> tuple[Client, str, str]:
    """Alice at seat 0 of a new classic table, with computer players elsewhere."""
    token, _ = await guest(address, "Alice")
    table_id = (await create_table(address, token, preset="classic"))["table"]["id"]
    alice = Client(address, table_id, token, "alice")
    await alice.connect()
    await alice.wait(lambda m: m["type"] == "state")
    for seat in range(1, 1 + bots):
        assert (await alice.command("add_bot", seat=seat, level="easy"))["type"] == "ack"
    return alice, table_id, token


async def test_bad_input_gets_typed_errors_and_changes_nothing(server: str) -> None:
    alice, table_id, _ = await seated_table(server)
    assert (await alice.command("start"))["type"] == "ack"
    state = await alice.wait_state(lambda m: m["view"] is not None)
    version = state["version"]
    n = len(alice.messages)

    await alice.send("{not json")
    assert (await alice.wait(lambda m: m["type"] == "error", start=n))["code"] == "bad_json"
    n = len(alice.messages)
    await alice.send("[1, 2]")
    assert (await alice.wait(lambda m: m["type"] == "error", start=n))["code"] == "bad_message"
    n = len(alice.messages)
    await alice.send({"type": "teleport", "id": "x1"})
    err = await alice.wait(lambda m: m["type"] == "error", start=n)
    assert err["code"] == "unknown_type" and err["id"] == "x1"
    n = len(alice.messages)
    await alice.send({"type": "chat", "id": "big", "text": "x" * 5000})
    assert (await alice.wait(lambda m: m["type"] == "error", start=n))["code"] == "too_large"
    err = await alice.command("move", move={"type": "play"})
    assert err["code"] == "bad_move"
    err = await alice.command("move", move={"type": "pass", "cards": ["2C"]}, seat=1)
    assert err["code"] == "not_your_seat"
    err = await alice.command("move", move={"type": "pass", "cards": ["2C"]}, version=version - 1)
    assert err["code"] == "stale_version"
    err = await alice.command("move", move={"type": "pass", "cards": ["2C", "3C"]})
    assert err["code"] in ("wrong_pass_count", "card_not_in_hand")
    err = await alice.command("sit", seat=9)
    assert err["code"] in ("already_seated", "bad_seat")
    # The socket still works and the table did not move.
    pong = await alice.command("chat", text="still here")
    assert pong["type"] == "ack" and pong["version"] > version
    n = len(alice.messages)
    await alice.send({"type": "resync"})
    now = await alice.wait(lambda m: m["type"] == "state", start=n)
    assert now["view"]["hand"] == state["view"]["hand"] and not now["view"]["passed"][0]
    await alice.close()


async def test_unknown_table_bad_token_and_private_table(server: str) -> None:
    ghost = Client(server, "no-such-table", None, "ghost")
    await ghost.connect()
    err = await ghost.wait(lambda m: m["type"] == "error")
    assert err["code"] == "unknown_table"
    await asyncio.wait_for(ghost._reader, 10)  # type: ignore[arg-type]
    assert ghost.closed_code == 4404

    token, _ = await guest(server, "Host")
    private = await create_table(server, token, preset="classic", private=True)
    table_id = private["table"]["id"]
    invite = private["table"]["invite"]
    bad = Client(server, table_id, "forged.token", "bad")
    await bad.connect()
    assert (await bad.wait(lambda m: m["type"] == "error"))["code"] == "bad_token"
    peeker = Client(server, table_id, None, "peeker")
    await peeker.connect()
    assert (await peeker.wait(lambda m: m["type"] == "error"))["code"] == "forbidden"
    invited = Client(server, table_id, None, "invited")
    await invited.connect(invite=invite)
    state = await invited.wait(lambda m: m["type"] == "state")
    assert state["seat"] is None and state["table"]["private"]
    # A spectator without a token may watch but not act.
    assert (await invited.command("chat", text="hi"))["code"] == "no_token"
    async with httpx.AsyncClient(base_url=f"http://{server}") as http:
        listed = (await http.get("/api/tables")).json()["tables"]
        assert table_id not in {t["id"] for t in listed}
        assert (await http.get(f"/api/tables/{table_id}")).status_code == 403
        assert (await http.get(f"/api/tables/{table_id}?invite={invite}")).status_code == 200
        assert (await http.post("/api/tables", json={})).status_code == 401
        r = await http.post(
            "/api/tables",
            json={"preset": "classic", "options": {"passing": "sideways"}},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 422 and r.json()["detail"]["code"]
        r = await http.post("/api/guest", json={"name": "   "})
        assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_name"
    for c in (bad, peeker, invited):
        await c.close()


async def test_resent_move_is_applied_once(server: str) -> None:
    alice, _, _ = await seated_table(server)
    await alice.command("start")
    state = await alice.wait_state(lambda m: m["view"] is not None and m["view"]["legal"])
    cards = state["view"]["legal"]["cards"][:3]
    first = await alice.command("move", id="same-id", move={"type": "pass", "cards": cards})
    again = await alice.command("move", id="same-id", move={"type": "pass", "cards": cards})
    assert first["type"] == "ack" and again["type"] == "ack"
    assert again.get("duplicate") and again["version"] == first["version"]
    await alice.close()


async def test_reconnect_with_stale_version_gets_missed_events(server: str) -> None:
    alice, table_id, token = await seated_table(server)
    state = await alice.wait_state(lambda m: m["table"]["seats"][3]["kind"] == "bot")
    seen = state["version"]
    await alice.close()
    # Others act while Alice is away.
    bob_token, _ = await guest(server, "Bob")
    bob = Client(server, table_id, bob_token, "bob")
    await bob.connect()
    await bob.wait(lambda m: m["type"] == "state")
    await bob.command("chat", text="where did alice go?")
    back = Client(server, table_id, token, "alice2")
    await back.connect(last_version=seen)
    replay = await back.wait(lambda m: m["type"] == "events" and m.get("replay"))
    assert replay["version"] > seen
    chat = await back.wait(
        lambda m: m["type"] == "events" and any(e["kind"] == "chat" for e in m["events"])
    )
    assert chat["events"][0]["text"] == "where did alice go?"
    fresh = await back.wait(lambda m: m["type"] == "state")
    assert fresh["version"] > seen and fresh["seat"] == 0 and not fresh.get("resync")
    # A version the log no longer covers (or never had) gives a full snapshot.
    late = Client(server, table_id, token, "alice3")
    await late.connect(last_version=10_000)
    snap = await late.wait(lambda m: m["type"] == "state")
    assert snap.get("resync")
    for c in (bob, back, late):
        await c.close()


async def test_timer_fires_computer_plays_and_seat_is_taken_back(tmp_path: Any) -> None:
    settings = make_settings(tmp_path, turn_timer_seconds=1)
    async with in_process_server(settings, fakeredis.FakeServer()) as address:
        alice, _, _ = await seated_table(address)
        await alice.command("start")
        away = await alice.wait_state(lambda m: m["table"]["seats"][0]["away"], timeout=20)
        assert away["table"]["seats"][0]["away"]
        # The computer passed for Alice.
        await alice.wait_state(lambda m: m["view"] and m["view"]["passed"][0], timeout=20)
        ack = await alice.command("back")
        assert ack["type"] == "ack"
        back = await alice.wait_state(lambda m: not m["table"]["seats"][0]["away"])
        assert back["seat"] == 0
        await alice.close()


async def test_lobby_socket_updates_live(server: str) -> None:
    import websockets

    async with websockets.connect(f"ws://{server}/ws/lobby") as lobby:
        first = orjson.loads(await lobby.recv())
        assert first["type"] == "lobby"
        token, _ = await guest(server, "Lobbyist")
        created = await create_table(server, token, preset="classic-3")
        update = orjson.loads(await asyncio.wait_for(lobby.recv(), 10))
        assert update["type"] == "lobby_update"
        assert created["table"]["id"] in {t["id"] for t in update["tables"]}
