"""app/api/replay_rooms.py: shared replay rooms on the in-process server: open, join (the
replay's access rule), drive with compare-and-set, hand over, the review's seat, chat,
long-poll; every refusal a clear 4xx that changes nothing; no answer names a card."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db import Database
from app.db.results import write_event
from tests.api.test_security import build, guest
from tests.db.helpers import play_random_game, seats_of

REDIS_URLS = {
    "redis": os.environ.get("HEARTS_TEST_REDIS_URL"),
    "cluster": os.environ.get("HEARTS_TEST_REDIS_CLUSTER_URL"),
}


def _client(backend: str, tmp_path: Path) -> Iterator[TestClient]:
    extra: dict[str, Any] = {}
    if backend != "memory":
        url = REDIS_URLS[backend]
        if not url:
            if os.environ.get("HEARTS_TEST_REQUIRE_SERVICES", "") not in ("", "0"):
                pytest.fail(f"no {backend} URL given")
            pytest.skip(f"no {backend} URL given")
        extra = {"redis_url": url, "redis_namespace": "rooms-" + uuid.uuid4().hex[:12]}
    with TestClient(build(tmp_path, **extra)) as test_client:
        yield test_client


@pytest.fixture(params=["memory", "redis", "cluster"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    """On the in-process stand-in, and on a real Redis and a Redis Cluster when given (each
    run in a namespace of its own): for the tests of what the store does (the compare-and-set
    of every change, joining, handing over, the long poll, the last time a page asked, the chat
    limit's counts), whose Lua scripts and keys each backend runs its own way."""
    yield from _client(request.param, tmp_path)


@pytest.fixture
def rules_client(tmp_path: Path) -> Iterator[TestClient]:
    """On the in-process stand-in only: for the tests of the routes' rules (what is refused,
    who may join or choose, what an answer holds), decided in Python over the same store calls
    that ``client``'s tests run on every backend."""
    yield from _client("memory", tmp_path)


def _db(client: TestClient) -> Database:
    database: Database = client.app.state.services.database  # type: ignore[attr-defined]
    return database


def _people(client: TestClient, *names: str) -> list[tuple[str, dict[str, str]]]:
    out = []
    for name in names:
        token, player_id = guest(client, name)
        out.append((player_id, {"Authorization": f"Bearer {token}"}))
    return out


def _game(client: TestClient, a: str, b: str, *, private: bool = False, ended: bool = True) -> int:
    """A two-hand classic game of ``a`` and ``b`` with two computers, stored; its id."""
    events, _ = play_random_game(
        "classic",
        {"end": "hands", "hands": 2},
        8_431_927_615_204_331_977,
        seats_of(a, b, None, None, bots={2: "easy", 3: "easy"}),
        5,
    )
    for event in events if ended else events[:1]:
        write_event(_db(client), {**event, "private": private})
    return 1


def _room(client: TestClient, auth: dict[str, str], room_id: str) -> dict[str, Any]:
    reply = client.get(f"/api/replay-rooms/{room_id}", headers=auth)
    assert reply.status_code == 200, reply.text
    room: dict[str, Any] = reply.json()["room"]
    return room


def _code(reply: Any) -> str:
    return str(reply.json()["detail"]["code"])


def test_two_players_go_over_a_game_together(client: TestClient) -> None:
    (alice, a_auth), (bob, b_auth) = _people(client, "Alice", "Bob")
    game = _game(client, alice, bob)
    made = client.post("/api/replay-rooms", json={"game_id": game, "hand": 1}, headers=a_auth)
    assert made.status_code == 201, made.text
    room = made.json()["room"]
    room_id = room["id"]
    assert made.json()["link"] == f"/?replay={game}&room={room_id}"
    assert room["driver"] == alice and room["members"] == [{"id": alice, "name": "Alice"}]
    assert room["position"] == {"hand": 1, "step": 0} and len(room["steps"]) == 2
    assert room["steps"][0] == 13 + 2  # the deal, 13 tricks, the result
    # Bob is not in it yet: he reads nothing until he joins; joining twice is one member.
    assert _code(client.get(f"/api/replay-rooms/{room_id}", headers=b_auth)) == "not_member"
    for _ in range(2):
        joined = client.post(f"/api/replay-rooms/{room_id}/join", json={}, headers=b_auth)
        assert joined.status_code == 200, joined.text
    room = joined.json()["room"]
    assert [m["name"] for m in room["members"]] == ["Alice", "Bob"]
    # Alice drives: two steps, Bob sees where she is.
    version = room["version"]
    for step in (1, 2):
        moved = client.post(
            f"/api/replay-rooms/{room_id}/position",
            json={"hand": 0, "step": step, "version": version},
            headers=a_auth,
        )
        assert moved.status_code == 200, moved.text
        version = moved.json()["room"]["version"]
    assert _room(client, b_auth, room_id)["position"] == {"hand": 0, "step": 2}
    # Bob may not drive; a stale version is refused with the version now.
    refused = client.post(
        f"/api/replay-rooms/{room_id}/position",
        json={"hand": 0, "step": 3, "version": version},
        headers=b_auth,
    )
    assert refused.status_code == 403 and _code(refused) == "not_driver"
    stale = client.post(
        f"/api/replay-rooms/{room_id}/position",
        json={"hand": 0, "step": 3, "version": version - 1},
        headers=a_auth,
    )
    assert stale.status_code == 409 and _code(stale) == "stale_version"
    assert stale.json()["detail"]["version"] == version
    # Alice hands over; now Bob drives and Alice may not.
    handed = client.post(
        f"/api/replay-rooms/{room_id}/driver", json={"player_id": bob}, headers=a_auth
    )
    assert handed.status_code == 200 and handed.json()["room"]["driver"] == bob
    version = handed.json()["room"]["version"]
    moved = client.post(
        f"/api/replay-rooms/{room_id}/position",
        json={"hand": 1, "step": 4, "version": version},
        headers=b_auth,
    )
    assert moved.status_code == 200, moved.text
    assert _room(client, a_auth, room_id)["position"] == {"hand": 1, "step": 4}
    # Alice no longer drives: she hands nothing over, and takes nothing back while Bob is here.
    for body, status, code in (
        ({"player_id": bob}, 403, "not_driver"),
        ({"player_id": alice}, 409, "driver_present"),
    ):
        back = client.post(f"/api/replay-rooms/{room_id}/driver", json=body, headers=a_auth)
        assert back.status_code == status and _code(back) == code, back.text
    # The chat: cleaned as table chat, in order, for every member.
    said = client.post(
        f"/api/replay-rooms/{room_id}/chat", json={"text": "  look at\ttrick 4 "}, headers=a_auth
    )
    assert said.status_code == 200, said.text
    client.post(f"/api/replay-rooms/{room_id}/chat", json={"text": "I see"}, headers=b_auth)
    chat = _room(client, a_auth, room_id)["chat"]
    assert [(c["name"], c["text"], c["n"]) for c in chat] == [
        ("Alice", "look at trick 4", 1),
        ("Bob", "I see", 2),
    ]


def test_bad_input_is_refused_and_changes_nothing(rules_client: TestClient) -> None:
    client = rules_client
    (alice, a_auth), (bob, b_auth), (_, c_auth) = _people(client, "Alice", "Bob", "Cleo")
    game = _game(client, alice, bob)
    room = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth).json()["room"]
    room_id, version = room["id"], room["version"]
    client.post(f"/api/replay-rooms/{room_id}/join", json={}, headers=b_auth)
    before = _room(client, a_auth, room_id)
    bad_positions: list[Any] = [
        {"hand": 2, "step": 0, "version": before["version"]},  # the game has 2 hands
        {"hand": 0, "step": 15, "version": before["version"]},  # hand 0 has steps 0..14
        {"hand": -1, "step": 0, "version": before["version"]},
        {"hand": "1", "step": 0, "version": before["version"]},
        {"hand": True, "step": 0, "version": before["version"]},
        {"hand": 0, "step": 1},
        {"hand": 0, "step": 1, "version": before["version"], "extra": 1},
        [0, 1],
    ]
    for body in bad_positions:
        reply = client.post(f"/api/replay-rooms/{room_id}/position", json=body, headers=a_auth)
        assert reply.status_code == 422, (body, reply.text)
        assert reply.json()["detail"]
    bad_position = client.post(
        f"/api/replay-rooms/{room_id}/position",
        json={"hand": 0, "step": 15, "version": before["version"]},
        headers=a_auth,
    )
    assert _code(bad_position) == "bad_position"
    for body in ({"player_id": alice}, {"player_id": "nobody"}, {"player_id": ""}, {}):
        reply = client.post(f"/api/replay-rooms/{room_id}/driver", json=body, headers=a_auth)
        assert reply.status_code == 422, (body, reply.text)
    too_long = "x" * 301
    for body, rule in (
        ({"text": ""}, "empty"),
        ({"text": "   "}, "empty"),
        ({"text": too_long}, "too_long"),
        ({"text": 3}, None),
        ({"text": "a\u202eb"}, "invisible"),
    ):
        reply = client.post(f"/api/replay-rooms/{room_id}/chat", json=body, headers=a_auth)
        assert reply.status_code == 422, (body, reply.text)
        assert reply.json()["detail"]
        if rule is not None:  # one stable code, as the table's chat; the rule beside it
            assert reply.json()["detail"]["code"] == "bad_chat", reply.text
            assert reply.json()["detail"]["rule"] == rule, reply.text
    # A stranger (Cleo did not join) neither reads, nor drives, nor talks.
    for path, body in (
        ("position", {"hand": 0, "step": 1, "version": before["version"]}),
        ("driver", {"player_id": bob}),
        ("chat", {"text": "hi"}),
    ):
        reply = client.post(f"/api/replay-rooms/{room_id}/{path}", json=body, headers=c_auth)
        assert reply.status_code == 403 and _code(reply) == "not_member", (path, reply.text)
    # No such room, a malformed id, no session, a bad game.
    assert _code(client.get("/api/replay-rooms/AAAAAAAAAAAA", headers=a_auth)) == "unknown_room"
    assert client.get("/api/replay-rooms/a!", headers=a_auth).status_code == 422
    assert client.get(f"/api/replay-rooms/{room_id}").status_code == 401
    for body in ({"game_id": 99}, {"game_id": 0}, {"game_id": "1"}, {}):
        reply = client.post("/api/replay-rooms", json=body, headers=a_auth)
        assert reply.status_code in (404, 422), (body, reply.text)
    assert _room(client, a_auth, room_id) == before
    assert before["version"] == version + 1  # only Bob's join changed it


def test_a_private_games_room_is_only_for_who_may_read_its_replay(rules_client: TestClient) -> None:
    client = rules_client
    (alice, a_auth), (bob, b_auth), (_, e_auth) = _people(client, "Alice", "Bob", "Eve")
    game = _game(client, alice, bob, private=True)
    assert (
        client.post("/api/replay-rooms", json={"game_id": game}, headers=e_auth).status_code == 404
    )
    made = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth)
    assert made.status_code == 201, made.text
    room_id = made.json()["room"]["id"]
    # Eve, without the share token (or a wrong one), is told there is no such room.
    never = client.post("/api/replay-rooms/AAAAAAAAAAAA/join", json={}, headers=e_auth)
    for body in ({}, {"share": "A" * 22}):
        reply = client.post(f"/api/replay-rooms/{room_id}/join", json=body, headers=e_auth)
        assert reply.status_code == 404 and reply.json() == never.json(), reply.text
    # Bob played it: he joins without a token; Eve joins with the game's share token.
    assert (
        client.post(f"/api/replay-rooms/{room_id}/join", json={}, headers=b_auth).status_code == 200
    )
    token = client.get(f"/api/games/{game}", headers=a_auth).json()["share_token"]
    shared = client.post(f"/api/replay-rooms/{room_id}/join", json={"share": token}, headers=e_auth)
    assert shared.status_code == 200, shared.text
    assert len(shared.json()["room"]["members"]) == 3
    # Someone with the token may open a room too (the link carries it).
    opened = client.post(
        "/api/replay-rooms", json={"game_id": game, "share": token}, headers=e_auth
    )
    assert opened.status_code == 201 and f"share={token}" in opened.json()["link"]


def test_a_game_in_play_gets_no_room(rules_client: TestClient) -> None:
    client = rules_client
    (alice, a_auth), (bob, _) = _people(client, "Alice", "Bob")
    game = _game(client, alice, bob, ended=False)
    reply = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth)
    assert reply.status_code == 409 and _code(reply) == "game_in_progress"


def test_a_long_poll_returns_on_a_change(client: TestClient) -> None:
    (alice, a_auth), (bob, b_auth) = _people(client, "Alice", "Bob")
    game = _game(client, alice, bob)
    room_id = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth).json()[
        "room"
    ]["id"]
    version = client.post(f"/api/replay-rooms/{room_id}/join", json={}, headers=b_auth).json()[
        "room"
    ]["version"]
    # Nothing changes: the wait ends with the same version.
    started = time.monotonic()
    same = client.get(f"/api/replay-rooms/{room_id}?after={version}&wait=0.4", headers=b_auth)
    assert same.json()["room"]["version"] == version
    assert 0.3 < time.monotonic() - started < 3
    # Alice moves while Bob waits: his answer comes with the move, long before the wait ends.
    seen: list[Any] = []

    def wait() -> None:
        seen.append(
            client.get(f"/api/replay-rooms/{room_id}?after={version}&wait=15", headers=b_auth)
        )

    waiter = threading.Thread(target=wait)
    started = time.monotonic()
    waiter.start()
    time.sleep(0.4)
    client.post(
        f"/api/replay-rooms/{room_id}/position",
        json={"hand": 0, "step": 5, "version": version},
        headers=a_auth,
    )
    waiter.join(10)
    assert seen and time.monotonic() - started < 5
    room = seen[0].json()["room"]
    assert room["version"] == version + 1 and room["position"] == {"hand": 0, "step": 5}


def test_the_chat_is_rate_limited(client: TestClient) -> None:
    (alice, a_auth), (bob, _) = _people(client, "Alice", "Bob")
    game = _game(client, alice, bob)
    room_id = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth).json()[
        "room"
    ]["id"]
    codes = [
        client.post(
            f"/api/replay-rooms/{room_id}/chat", json={"text": f"line {i}"}, headers=a_auth
        ).status_code
        for i in range(7)
    ]
    assert codes == [200] * 5 + [429] * 2
    limited = client.post(f"/api/replay-rooms/{room_id}/chat", json={"text": "x"}, headers=a_auth)
    assert _code(limited) == "too_many_chat" and limited.headers["Retry-After"]
    assert len(_room(client, a_auth, room_id)["chat"]) == 5


def test_a_member_takes_control_once_the_driver_is_away(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.api import replay_rooms

    (alice, a_auth), (bob, b_auth) = _people(client, "Alice", "Bob")
    game = _game(client, alice, bob)
    room_id = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth).json()[
        "room"
    ]["id"]
    client.post(f"/api/replay-rooms/{room_id}/join", json={}, headers=b_auth)
    _room(client, a_auth, room_id)  # Alice's page is there
    before = _room(client, b_auth, room_id)
    # While Alice's page asks for the room, Bob may not take control.
    take = client.post(
        f"/api/replay-rooms/{room_id}/driver", json={"player_id": bob}, headers=b_auth
    )
    assert take.status_code == 409 and _code(take) == "driver_present", take.text
    assert _room(client, b_auth, room_id) == before
    # Once she has not asked for a while (her page closed), he may.
    monkeypatch.setattr(replay_rooms, "AWAY_SECONDS", 0.0)
    time.sleep(0.01)
    take = client.post(
        f"/api/replay-rooms/{room_id}/driver", json={"player_id": bob}, headers=b_auth
    )
    assert take.status_code == 200 and take.json()["room"]["driver"] == bob, take.text


def test_the_driver_shares_a_seats_review_with_the_room(rules_client: TestClient) -> None:
    client = rules_client
    """The room names the seat whose review every page shows: the opener's own seat by default
    (the first for someone who did not play), then the driver's choice; each choice or request
    bumps ``asked`` so every page reads the review again. Only the driver chooses."""
    (alice, a_auth), (bob, b_auth), (_, c_auth) = _people(client, "Alice", "Bob", "Cleo")
    game = _game(client, alice, bob)
    opened = [
        client.post("/api/replay-rooms", json=body, headers=auth).json()["room"]["review"]
        for body, auth in (
            ({"game_id": game}, b_auth),  # Bob played seat 1
            ({"game_id": game}, c_auth),  # Cleo did not play: the first seat
            ({"game_id": game, "review_seat": 3}, a_auth),
        )
    ]
    assert opened == [{"seat": 1, "asked": 0}, {"seat": 0, "asked": 0}, {"seat": 3, "asked": 0}]
    room_id = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth).json()[
        "room"
    ]["id"]
    client.post(f"/api/replay-rooms/{room_id}/join", json={}, headers=b_auth)
    assert _room(client, b_auth, room_id)["review"] == {"seat": 0, "asked": 0}
    for seat, asked in ((2, 1), (2, 2), (0, 3)):
        chose = client.post(
            f"/api/replay-rooms/{room_id}/review", json={"seat": seat}, headers=a_auth
        )
        assert chose.status_code == 200, chose.text
        assert chose.json()["room"]["review"] == {"seat": seat, "asked": asked}
    assert _room(client, b_auth, room_id)["review"] == {"seat": 0, "asked": 3}
    # Control handed over: now Bob chooses, and Alice may not.
    client.post(f"/api/replay-rooms/{room_id}/driver", json={"player_id": bob}, headers=a_auth)
    refused = client.post(f"/api/replay-rooms/{room_id}/review", json={"seat": 1}, headers=a_auth)
    assert refused.status_code == 403 and _code(refused) == "not_driver"
    chose = client.post(f"/api/replay-rooms/{room_id}/review", json={"seat": 1}, headers=b_auth)
    assert chose.json()["room"]["review"] == {"seat": 1, "asked": 4}


def test_a_bad_review_seat_is_refused_and_changes_nothing(rules_client: TestClient) -> None:
    client = rules_client
    (alice, a_auth), (bob, b_auth), (_, c_auth) = _people(client, "Alice", "Bob", "Cleo")
    game = _game(client, alice, bob)
    room_id = client.post("/api/replay-rooms", json={"game_id": game}, headers=a_auth).json()[
        "room"
    ]["id"]
    client.post(f"/api/replay-rooms/{room_id}/join", json={}, headers=b_auth)
    before = _room(client, a_auth, room_id)
    for body in (
        {"seat": 4},  # a four-seat game: seats 0 to 3
        {"seat": 16},
        {"seat": -1},
        {"seat": "1"},
        {"seat": True},
        {"seat": 1.0},
        {"seat": None},
        {},
        {"seat": 1, "extra": 1},
        [1],
    ):
        reply = client.post(f"/api/replay-rooms/{room_id}/review", json=body, headers=a_auth)
        assert reply.status_code == 422, (body, reply.text)
        assert reply.json()["detail"]
    four = client.post(f"/api/replay-rooms/{room_id}/review", json={"seat": 4}, headers=a_auth)
    assert _code(four) == "bad_seat" and four.json()["detail"]["players"] == 4
    # A follower, a stranger, a room that is not there, no session.
    follower = client.post(f"/api/replay-rooms/{room_id}/review", json={"seat": 1}, headers=b_auth)
    assert follower.status_code == 403 and _code(follower) == "not_driver"
    stranger = client.post(f"/api/replay-rooms/{room_id}/review", json={"seat": 1}, headers=c_auth)
    assert stranger.status_code == 403 and _code(stranger) == "not_member"
    gone = client.post("/api/replay-rooms/AAAAAAAAAAAA/review", json={"seat": 1}, headers=a_auth)
    assert gone.status_code == 404 and _code(gone) == "unknown_room"
    assert client.post(f"/api/replay-rooms/{room_id}/review", json={"seat": 1}).status_code == 401
    assert _room(client, a_auth, room_id) == before
    # Opening a room with a seat past the game's is refused too.
    for seat in (4, 15):
        reply = client.post(
            "/api/replay-rooms", json={"game_id": game, "review_seat": seat}, headers=c_auth
        )
        assert reply.status_code == 422 and _code(reply) == "bad_seat", reply.text
    opening: Any
    for opening in ({"game_id": game, "review_seat": 16}, {"game_id": game, "review_seat": "0"}):
        reply = client.post("/api/replay-rooms", json=opening, headers=c_auth)
        assert reply.status_code == 422, (opening, reply.text)


def test_nothing_a_room_answers_names_a_card_or_the_seed(rules_client: TestClient) -> None:
    client = rules_client
    """The room holds the position and the review's seat, never a card: every answer of every
    room route (open, join, read, move, review, hand over, chat, and their refusals) is
    scanned for a card's name and for the game's seed, so a room can never show a hand the
    replay would not (the page reads the replay and the review under their own rules)."""
    from tests.realtime.leak_scan import mentions

    (alice, a_auth), (bob, b_auth), (_, c_auth) = _people(client, "Alice", "Bob", "Cleo")
    game = _game(client, alice, bob, private=True)
    answers: list[Any] = []

    def call(method: str, path: str, auth: dict[str, str], body: Any = None) -> Any:
        reply = client.request(method, path, json=body, headers=auth)
        answers.append(reply)
        return reply

    room = call("POST", "/api/replay-rooms", a_auth, {"game_id": game}).json()["room"]
    path = f"/api/replay-rooms/{room['id']}"
    call("POST", "/api/replay-rooms", c_auth, {"game_id": game})  # not hers to read
    call("POST", f"{path}/join", c_auth, {})
    call("POST", f"{path}/join", b_auth, {})
    version = call("GET", f"{path}?after=0", b_auth).json()["room"]["version"]
    for step in range(15):
        moved = call(
            "POST", f"{path}/position", a_auth, {"hand": 1, "step": step, "version": version}
        )
        version = moved.json()["room"]["version"]
    call("POST", f"{path}/position", a_auth, {"hand": 1, "step": 15, "version": version})
    call("POST", f"{path}/review", a_auth, {"seat": 2})
    call("POST", f"{path}/review", b_auth, {"seat": 2})
    call("POST", f"{path}/chat", b_auth, {"text": "well played"})
    call("POST", f"{path}/driver", a_auth, {"player_id": bob})
    call("GET", path, c_auth)
    assert len(answers) > 20
    assert list(mentions({"planted": "QS"}))  # the scan has teeth
    seed = str(8_431_927_615_204_331_977).encode()
    for reply in answers:
        assert reply.status_code < 500, reply.text
        assert not list(mentions(reply.json())), (reply.request.url, reply.text)
        assert seed not in reply.content
