"""The WebSocket protocol over real sockets: bad input, reconnect, timers, private tables."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import fakeredis
import httpx
import orjson
import pytest
import pytest_asyncio

from app.settings import Settings
from tests.realtime import harness
from tests.realtime.harness import Client, create_table, guest, in_process_server, pick_move

pytestmark = pytest.mark.asyncio


def make_settings(tmp_path: Any, **extra: Any) -> Settings:
    return harness.quick_settings(tmp_path, **{"ws_max_message_bytes": 1024, **extra})


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


async def test_a_malformed_last_version_in_hello_is_refused(server: str) -> None:
    """Refuse rather than bend (issue 20): a last_version that is no whole number of 0 or
    more was silently ignored; it is now an error and the socket closes (4400)."""
    token, _ = await guest(server, "Host")
    table_id = (await create_table(server, token, preset="classic"))["table"]["id"]
    for bad in ("7", -1, 1.5, True, [3]):
        client = Client(server, table_id, token, "odd")
        await client.connect(last_version=bad)  # type: ignore[arg-type]
        err = await client.wait(lambda m: m["type"] == "error")
        assert err["code"] == "bad_hello", bad
        await asyncio.wait_for(client._reader, 10)  # type: ignore[arg-type]
        assert client.closed_code == 4400
    fine = Client(server, table_id, token, "fine")
    await fine.connect(last_version=0)
    assert (await fine.wait(lambda m: m["type"] in ("state", "events")))["type"]
    await fine.close()


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


async def test_every_command_resent_on_a_new_socket_is_applied_once(server: str) -> None:
    """The page resends every unanswered command with its id after a reconnect: the server
    answers a command it already applied with the same version, and applies it no more."""
    alice, table_id, token = await seated_table(server, bots=2)
    bob_token, _ = await guest(server, "Bob")
    bob = Client(server, table_id, bob_token, "bob")
    await bob.connect()
    await bob.wait(lambda m: m["type"] == "state")
    sent = {
        "sit": {"seat": 3},
        "chat": {"text": "hi all"},
    }
    firsts = {}
    for kind, fields in sent.items():
        firsts[kind] = await bob.command(kind, id=f"bob-{kind}", **fields)
        assert firsts[kind]["type"] == "ack" and not firsts[kind].get("duplicate")
    start = await alice.command("start", id="alice-start")
    assert start["type"] == "ack"
    await bob.close()
    # Back on a new socket: the same commands, the same ids.
    bob = Client(server, table_id, bob_token, "bob")
    await bob.connect()
    await bob.wait(lambda m: m["type"] == "state")
    for kind, fields in sent.items():
        again = await bob.command(kind, id=f"bob-{kind}", **fields)
        assert again["type"] == "ack" and again.get("duplicate"), again
        assert again["version"] == firsts[kind]["version"]
    again = await alice.command("start", id="alice-start")
    assert again == {**start, "duplicate": True}
    # One chat line and one start in the table's history.
    viewer = Client(server, table_id, token, "viewer")
    await viewer.connect(last_version=1)
    state = await viewer.wait(lambda m: m["type"] == "state")
    replayed = [e for m in viewer.messages if m["type"] == "events" for e in m["events"]]
    assert [e["text"] for e in replayed if e["kind"] == "chat"] == ["hi all"]
    assert [e["kind"] for e in replayed].count("started") == 1
    assert state["table"]["seats"][3]["name"] == "Bob"
    for c in (alice, bob, viewer):
        await c.close()


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


MARKUP_NAME = "<img src=x onerror=f(1)>"  # 24 characters: the longest name allowed


async def test_names_and_chat_arrive_as_typed(server: str) -> None:
    """One rule for user text: raw JSON strings everywhere (the page sets it as text), never
    HTML-escaped in one place and raw in another."""
    token, player_id = await guest(server, MARKUP_NAME)
    created = await create_table(server, token, preset="classic")
    table_id = created["table"]["id"]
    assert created["table"]["seats"][0]["name"] == MARKUP_NAME
    alice = Client(server, table_id, token, "alice")
    watcher = Client(server, table_id, None, "watcher")
    await alice.connect()
    await watcher.connect(last_version=0)
    welcome = await alice.wait(lambda m: m["type"] == "welcome")
    assert welcome["player"]["name"] == MARKUP_NAME
    state = await watcher.wait(lambda m: m["type"] == "state")
    assert state["table"]["seats"][0]["name"] == MARKUP_NAME
    created_event = await watcher.wait(lambda m: m["type"] == "events" and m.get("replay"))
    assert created_event["events"][0] == {"kind": "created", "by": MARKUP_NAME, "v": 1}
    text = "<img src=x onerror=alert(1)> & &lt;3 \"quoted\" 'single'"
    assert (await alice.command("chat", text=text))["type"] == "ack"
    chat = await watcher.wait(
        lambda m: m["type"] == "events" and m["events"][0]["kind"] == "chat" and not m.get("replay")
    )
    assert chat["events"][0]["name"] == MARKUP_NAME and chat["events"][0]["text"] == text
    for raw in watcher.raw:  # no message holds an escaped form of the text
        assert "&lt;" not in raw.replace("&lt;3", "") and "&amp;" not in raw
    async with httpx.AsyncClient(base_url=f"http://{server}") as http:
        lobby = await http.get("/api/tables")
        assert lobby.headers["content-type"] == "application/json"
        line = next(t for t in lobby.json()["tables"] if t["id"] == table_id)
        assert line["seats"][0]["name"] == MARKUP_NAME
        me = await http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert me.json() == {
            "id": player_id,
            "name": MARKUP_NAME,
            "is_guest": True,
            "language": None,
        }
    for c in (alice, watcher):
        await c.close()


async def test_create_a_table_with_computer_players(server: str) -> None:
    token, _ = await guest(server, "Host")
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=f"http://{server}", headers=auth) as http:
        bad_bodies = {
            "bad_seat": [{"0": "easy"}, {"4": "easy"}, {"x": "pro"}, {"-2": "pro"}],
            "bad_level": [{"1": "grandmaster"}, {"1": 2}, {"1": "pro", "2": ""}],
        }
        for code, cases in bad_bodies.items():
            for bots in cases:
                r = await http.post("/api/tables", json={"preset": "classic", "bots": bots})
                assert r.status_code == 422, (bots, r.text)
                assert r.json()["detail"]["code"] == code, bots
                assert r.json()["detail"]["message"]
        r = await http.post("/api/tables", json={"preset": "classic", "bots": ["pro", "easy"]})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "bots"]
        # A bad option or timer with good computers: nothing is created either.
        r = await http.post("/api/tables", json={"preset": "nope", "bots": {"1": "pro"}})
        assert r.status_code == 422 and r.json()["detail"]["code"] == "unknown_preset"
        assert (await http.get("/api/tables")).json()["tables"] == []

        r = await http.post(
            "/api/tables",
            json={"preset": "classic", "bots": {"1": "easy", "2": "standard", "3": "expert"}},
        )
        assert r.status_code == 201, r.text
        table = r.json()["table"]
        assert [(s["kind"], s["level"]) for s in table["seats"]] == [
            ("human", None),
            ("bot", "easy"),
            ("bot", "standard"),
            ("bot", "expert"),
        ]
        listed = (await http.get("/api/tables")).json()["tables"]
        assert [t["id"] for t in listed] == [table["id"]] and listed[0]["open_seats"] == 0
    host = Client(server, table["id"], token, "host")
    await host.connect()
    assert (await host.command("start"))["type"] == "ack"  # every seat filled in one request
    await host.close()


async def test_state_messages_carry_the_server_clock(tmp_path: Any) -> None:
    settings = make_settings(tmp_path, turn_timer_seconds=30)
    async with in_process_server(settings, fakeredis.FakeServer()) as address:
        token, _ = await guest(address, "Alice")
        bots = {"1": "easy", "2": "easy", "3": "easy"}
        created = await create_table(address, token, preset="classic", bots=bots)
        alice = Client(address, created["table"]["id"], token, "alice")
        before = time.time() * 1000
        await alice.connect(compact=True)
        first = await alice.wait(lambda m: m["type"] == "state")
        assert before - 1 <= first["server_ms"] <= time.time() * 1000 + 1
        assert first["table"]["deadline_ms"] is None
        await alice.command("start")
        started = await alice.wait_state(lambda m: m["view"] is not None)
        # The time left on the turn, by the server's clock (whatever the client's says).
        left = started["table"]["deadline_ms"] - started["server_ms"]
        # (server_ms is whole milliseconds, the deadline is not: up to 1 ms over.)
        assert 25_000 < left < 30_001
        later = await alice.wait_state(lambda m: m["version"] > started["version"])
        assert (
            "table" not in later or later["table"]["deadline_ms"] == started["table"]["deadline_ms"]
        )
        assert later["server_ms"] >= started["server_ms"]
        await alice.close()


async def play_until(
    client: Client, done: Callable[[dict[str, Any]], bool], seed: int = 3
) -> dict[str, Any]:
    """The client plays a random legal move whenever its newest state offers one, until a
    state satisfies ``done``; returns that state."""
    rng = random.Random(seed)
    seen = 0
    while True:
        msg = await client.wait(lambda m: m["type"] == "state", start=seen)
        # The message found, by identity from ``seen`` on: list.index finds the first equal
        # one, and a state delivered twice would send ``seen`` back for good (a busy loop).
        seen = next(i for i in range(seen, len(client.messages)) if client.messages[i] is msg) + 1
        latest = client.last_state()
        assert latest is not None
        if done(latest):
            return latest
        if latest is msg and latest["view"] and (move := pick_move(latest["view"], rng)):
            reply = await client.command("move", move=move, version=latest["version"])
            assert reply["type"] == "ack" or reply["code"] == "stale_version", reply


async def test_pause_between_hands_over_sockets(tmp_path: Any) -> None:
    settings = make_settings(tmp_path, hand_pause_ms=400)
    async with in_process_server(settings, fakeredis.FakeServer()) as address:
        token, _ = await guest(address, "Alice")
        bots = {"1": "easy", "2": "easy", "3": "easy"}
        options = {"end": "hands", "hands": 2}
        created = await create_table(address, token, preset="classic", options=options, bots=bots)
        alice = Client(address, created["table"]["id"], token, "alice")
        await alice.connect()
        await alice.wait(lambda m: m["type"] == "state")
        await alice.command("start")
        paused = await play_until(alice, lambda m: m["table"]["pause_until_ms"] is not None)
        view = paused["view"]
        assert view["hands_played"] == 1 and view["hand_no"] == 1 and view["legal"] is None
        assert paused["table"]["deadline_ms"] is None
        until = paused["table"]["pause_until_ms"]
        assert 0 < until - paused["server_ms"] <= 400
        # Nobody acts during the pause: a move is refused, the computers wait.
        cards = view["hand"][:3]
        refused = await alice.command("move", move={"type": "pass", "cards": cards})
        assert refused["code"] == "between_hands", refused
        opened = await alice.wait_state(
            lambda m: m["version"] > paused["version"] and m["table"]["pause_until_ms"] is None
        )
        assert opened["version"] == paused["version"] + 1  # the change that opens the hand
        assert opened["server_ms"] >= until and opened["view"]["legal"]["type"] == "pass"
        assert opened["view"]["passed"] == [False] * 4
        assert (await alice.command("move", move={"type": "pass", "cards": cards}))["type"] == "ack"
        over = await play_until(alice, lambda m: m["table"]["status"] == "over")
        assert over["table"]["pause_until_ms"] is None  # no pause after the last hand
        await alice.close()


async def test_game_over_links_the_stored_game_for_everyone(server: str) -> None:
    token, _ = await guest(server, "Alice")
    bots = {"1": "easy", "2": "easy", "3": "easy"}
    options = {"end": "hands", "hands": 1}
    created = await create_table(server, token, preset="classic", options=options, bots=bots)
    table_id = created["table"]["id"]
    alice = Client(server, table_id, token, "alice")
    watcher = Client(server, table_id, None, "watcher")
    await alice.connect()
    await watcher.connect()
    await alice.wait(lambda m: m["type"] == "state")
    await watcher.wait(lambda m: m["type"] == "state")
    await alice.command("start")
    await play_until(alice, lambda m: m["table"]["status"] == "over")
    over = await watcher.wait(lambda m: any(e["kind"] == "game_over" for e in m.get("events", ())))
    game_over = next(e for e in over["events"] if e["kind"] == "game_over")
    assert game_over["game_no"] == 1 and over["table"]["game_id"] is None
    # The results writer stores the game a moment later: the table says under which id.
    for client in (watcher, alice):
        recorded = await client.wait(
            lambda m: any(e["kind"] == "recorded" for e in m.get("events", ()))
        )
        event = next(e for e in recorded["events"] if e["kind"] == "recorded")
        assert event["game_no"] == 1 and isinstance(event["game_id"], int)
        assert recorded["type"] == "state" and recorded["table"]["game_id"] == event["game_id"]
    async with httpx.AsyncClient(base_url=f"http://{server}") as http:
        game = (await http.get(f"/api/games/{event['game_id']}")).json()
        assert game["table_id"] == table_id and game["game_no"] == 1
        replay = await http.get(f"/api/games/{event['game_id']}/replay")
        assert replay.status_code == 200 and replay.json()["matches_record"]
    # Someone who opens the table later gets the id in the table record.
    late = Client(server, table_id, None, "late")
    await late.connect()
    state = await late.wait(lambda m: m["type"] == "state")
    assert state["table"]["game_id"] == event["game_id"]
    for c in (alice, watcher, late):
        await c.close()
