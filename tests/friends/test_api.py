"""The friends routes and the lobby socket's friend messages, on a server with PostgreSQL:
requests, lists, presence, invitations to a seat, joining a friend's table, blocking, limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import httpx
import orjson
import pytest
import pytest_asyncio
import websockets

from app.settings import Settings
from tests.friends.helpers import COMMON, Person, account, befriend, presence_of
from tests.realtime.harness import Client, create_table, in_process_server

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def server(pg_migrated_url: str) -> AsyncIterator[str]:
    """An instance on a PostgreSQL schema of the test's own, made at head."""
    settings = Settings(instance_id="A", database_url=pg_migrated_url, **COMMON)
    async with in_process_server(settings, fakeredis.FakeServer()) as address:
        yield address


def _code(response: Any) -> str:
    return str(response.json()["detail"]["code"])


async def test_request_accept_and_lists(server: str) -> None:
    ann, bob = await account(server, "Ann"), await account(server, "Bob")
    r = await ann.post("/api/friends/requests", {"name": "BOB"})
    assert r.status_code == 201 and r.json()["status"] == "pending"
    assert [p["id"] for p in (await bob.call("GET", "/api/friends")).json()["incoming"]] == [ann.id]
    r = await bob.post(f"/api/friends/requests/{ann.id}/accept")
    assert r.json() == {
        "status": "friends",
        "player": {"id": ann.id, "name": "Ann", "is_guest": False},
    }
    friends = (await ann.call("GET", "/api/friends")).json()["friends"]
    assert [(f["id"], f["presence"]["state"]) for f in friends] == [(bob.id, "offline")]
    # errors: stable codes, nothing changed
    assert _code(await ann.post("/api/friends/requests", {"name": "Bob"})) == "already_friends"
    assert _code(await ann.post("/api/friends/requests", {"name": "zz"})) == "unknown_player"
    r = await ann.post("/api/friends/requests", {"name": 5})
    assert r.status_code == 422
    assert _code(await ann.post(f"/api/friends/requests/{bob.id}/accept")) == "no_request"
    r = await ann.call("GET", "/api/friends")
    assert r.json()["incoming"] == r.json()["outgoing"] == []
    assert (await ann.post(f"/api/friends/{bob.id}/remove")).status_code == 204
    assert (await bob.call("GET", "/api/friends")).json()["friends"] == []


async def test_friend_link_adds_a_guest(server: str) -> None:
    ann = await account(server, "Ann")
    from tests.realtime.harness import guest

    token, guest_id = await guest(server, "Wanderer")
    wanderer = Person(server, token, guest_id, "Wanderer")
    link = (await wanderer.call("GET", "/api/friends/link")).json()
    assert link["path"] == f"/?friend={link['token']}"
    r = await ann.post("/api/friends/requests", {"link": link["token"]})
    assert r.status_code == 201 and r.json()["player"]["id"] == guest_id
    renewed = (await wanderer.post("/api/friends/link")).json()["token"]
    assert renewed != link["token"]
    assert _code(await ann.post("/api/friends/requests", {"link": link["token"]})) == "bad_link"


async def test_presence_reaches_friends_and_appear_offline_hides_it(server: str) -> None:
    ann, bob, cid = [await account(server, n) for n in ("Ann", "Bob", "Cid")]
    await befriend(ann, bob)
    ann_lobby = await ann.lobby()
    bob_lobby = await bob.lobby()
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "lobby"))
    first = bob_lobby.messages[0]
    assert first["type"] == "lobby"  # the table list comes first, as before
    friends_msg = await bob_lobby.wait(lambda m: m["type"] == "friends")
    assert friends_msg["friends"][0]["presence"]["state"] == "lobby"
    # away and back
    await bob_lobby.send({"type": "away", "away": True})
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "away"))
    await bob_lobby.send({"type": "away", "away": False})
    start = len(ann_lobby.messages)
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "lobby"), start=start)
    # at a public table: playing, joinable
    table = (await create_table(server, bob.token, preset="classic"))["table"]
    at_table = Client(server, table["id"], bob.token, "bob-table")
    await at_table.connect()
    playing = presence_of(ann_lobby, bob.id, "playing")
    # joinable once the table's lobby line is read (a quarter of a second at most)
    msg = await ann_lobby.wait(lambda m: playing(m) and m["table"]["joinable"])
    assert msg["table"] == {"id": table["id"], "joinable": True, "watchable": True}
    # Cid, not a friend, hears nothing of Bob
    cid_lobby = await cid.lobby()
    start = len(ann_lobby.messages)  # before the close: the news may beat its return
    await at_table.close()
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "lobby"), start=start)
    # appear offline
    assert (await bob.post("/api/friends/settings", {"appear_offline": True})).status_code == 200
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "offline"))
    assert not any(m.get("player_id") == bob.id for m in cid_lobby.messages)
    await bob_lobby.close()
    await bob.post("/api/friends/settings", {"appear_offline": False})
    for c in (ann_lobby, cid_lobby):
        await c.close()


async def test_private_table_shows_only_playing(server: str) -> None:
    ann, bob = await account(server, "Ann"), await account(server, "Bob")
    await befriend(ann, bob)
    ann_lobby = await ann.lobby()
    made = await create_table(server, bob.token, preset="classic", private=True)
    at_table = Client(server, made["table"]["id"], bob.token, "bob-table")
    await at_table.connect()
    msg = await ann_lobby.wait(presence_of(ann_lobby, bob.id, "playing"))
    assert msg["table"] is None
    await at_table.close()
    await ann_lobby.close()


async def test_invite_to_a_seat_then_join_with_one_call(server: str) -> None:
    host, friend, stranger = [await account(server, n) for n in ("Host", "Pal", "Zed")]
    await befriend(host, friend)
    made = await create_table(server, host.token, preset="classic", private=True)
    table_id = made["table"]["id"]
    pal_lobby = await friend.lobby()
    body = {"player_id": friend.id, "table_id": table_id}
    r = await host.post("/api/friends/invites", body)
    assert r.status_code == 201
    invite = r.json()["invite"]
    assert invite["seat"] == 1 and invite["from"] == {"id": host.id, "name": "Host"}
    pushed = await pal_lobby.wait(lambda m: m["type"] == "invite")
    assert pushed["invite"]["id"] == invite["id"]
    assert pushed["invite"]["path"] == made["invite_path"]  # a private table's link
    # refusals
    r = await host.post("/api/friends/invites", {"player_id": stranger.id, "table_id": table_id})
    assert _code(r) == "not_friends"
    r = await friend.post("/api/friends/invites", {"player_id": host.id, "table_id": table_id})
    assert _code(r) == "not_host"
    r = await host.post("/api/friends/invites", {**body, "seat": 0})
    assert _code(r) == "seat_taken"
    assert _code(await stranger.post(f"/api/friends/invites/{invite['id']}/accept")) == "no_invite"
    # one call takes the seat
    r = await friend.post(f"/api/friends/invites/{invite['id']}/accept")
    assert r.status_code == 200 and r.json()["seat"] == 1
    await pal_lobby.wait(lambda m: m["type"] == "invite_gone" and m["id"] == invite["id"])
    table = (
        await host.call(
            "GET", f"/api/tables/{table_id}", params={"invite": made["table"]["invite"]}
        )
    ).json()
    assert table["table"]["seats"][1]["player_id"] == friend.id
    assert (await friend.call("GET", "/api/friends/invites")).json() == {"invites": []}
    await pal_lobby.close()


async def test_an_invitation_goes_when_its_seat_fills(server: str) -> None:
    host, friend, other = [await account(server, n) for n in ("Host", "Pal", "Oth")]
    await befriend(host, friend)
    table_id = (await create_table(server, host.token, preset="classic"))["table"]["id"]
    pal_lobby = await friend.lobby()
    r = await host.post(
        "/api/friends/invites", {"player_id": friend.id, "table_id": table_id, "seat": 2}
    )
    invite = r.json()["invite"]
    await pal_lobby.wait(lambda m: m["type"] == "invite")
    assert (await other.post("/api/friends/join", {"table_id": table_id})).json()["seat"] == 1
    sitter = Client(server, table_id, other.token, "other")
    await sitter.connect()
    await sitter.wait(lambda m: m["type"] == "state")
    assert (await sitter.command("leave"))["type"] == "ack"
    assert (await sitter.command("sit", seat=2))["type"] == "ack"
    await pal_lobby.wait(lambda m: m["type"] == "invite_gone" and m["id"] == invite["id"])
    r = await friend.post(f"/api/friends/invites/{invite['id']}/accept")
    assert _code(r) == "no_invite"
    await sitter.close()
    await pal_lobby.close()


async def test_join_a_friends_public_table(server: str) -> None:
    ann, bob = await account(server, "Ann"), await account(server, "Bob")
    made = await create_table(server, ann.token, preset="classic")
    r = await bob.post("/api/friends/join", {"table_id": made["table"]["id"]})
    assert r.status_code == 200 and r.json() == {
        "table_id": made["table"]["id"],
        "seat": 1,
        "path": f"/?table={made['table']['id']}",
    }
    private = await create_table(server, ann.token, preset="classic", private=True)
    assert (
        _code(await bob.post("/api/friends/join", {"table_id": private["table"]["id"]}))
        == "forbidden"
    )
    assert _code(await bob.post("/api/friends/join", {"table_id": "nope"})) == "unknown_table"


async def test_blocking_ends_requests_invitations_presence_and_chat(server: str) -> None:
    ann, bob = await account(server, "Ann"), await account(server, "Bob")
    await befriend(ann, bob)
    bob_lobby = await bob.lobby()
    table_id = (await create_table(server, ann.token, preset="classic"))["table"]["id"]
    assert (await bob.post("/api/friends/join", {"table_id": table_id})).status_code == 200
    bob_table = Client(server, table_id, bob.token, "bob")
    await bob_table.connect()
    await bob_table.wait(lambda m: m["type"] == "state")
    assert (await bob_table.command("chat", text="hello"))["type"] == "ack"
    r = await ann.post("/api/friends/blocks", {"player_id": bob.id})
    assert r.status_code == 201
    # Bob's lobby gets his new list, without Ann
    await bob_lobby.wait(lambda m: m["type"] == "friends" and m["friends"] == [])
    reply = await bob_table.command("chat", text="still there?")
    assert reply["type"] == "error" and reply["code"] == "blocked"
    assert _code(await bob.post("/api/friends/requests", {"name": "Ann"})) == "cannot_request"
    r = await bob.post("/api/friends/invites", {"player_id": ann.id, "table_id": table_id})
    assert _code(r) == "not_friends"
    ann_lobby = await ann.lobby()
    await bob_lobby.send({"type": "away", "away": True})
    await bob_table.close()
    await bob_lobby.close()
    assert not any(m["type"] == "presence" for m in ann_lobby.messages)
    assert (await ann.post(f"/api/friends/blocks/{bob.id}/remove")).status_code == 204
    assert (await bob.post("/api/friends/requests", {"name": "Ann"})).status_code == 201
    await ann_lobby.close()


async def test_friend_requests_are_rate_limited(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.friends import api

    monkeypatch.setattr(api, "REQUESTS_PER_PLAYER", 2)
    ann = await account(server, "Ann")
    others = [await account(server, f"Pal{i}") for i in range(3)]
    for other in others[:2]:
        assert (await ann.post("/api/friends/requests", {"player_id": other.id})).status_code == 201
    r = await ann.post("/api/friends/requests", {"player_id": others[2].id})
    assert r.status_code == 429 and _code(r) == "too_many_friend_requests"
    assert int(r.headers["Retry-After"]) > 0
    assert (await others[2].call("GET", "/api/friends")).json()["incoming"] == []


async def test_hello_with_a_bad_token_is_an_error(server: str) -> None:
    lobby = Client(server, "-", "not-a-token", "x")
    lobby.url = f"ws://{server}/ws/lobby"
    await lobby.connect()
    msg = await lobby.wait(lambda m: m["type"] == "error")
    assert msg["code"] == "bad_token"
    await lobby.close()


async def test_watching_then_sitting_then_leaving(server: str) -> None:
    ann, bob = await account(server, "Ann"), await account(server, "Bob")
    await befriend(ann, bob)
    ann_lobby = await ann.lobby()
    table_id = (await create_table(server, ann.token, preset="classic"))["table"]["id"]
    bob_table = Client(server, table_id, bob.token, "bob")
    await bob_table.connect()
    await bob_table.wait(lambda m: m["type"] == "state")
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "watching"))
    assert (await bob_table.command("sit", seat=2))["type"] == "ack"
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "playing"))
    start = len(ann_lobby.messages)
    assert (await bob_table.command("leave"))["type"] == "ack"
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "watching"), start=start)
    await bob_table.close()
    await ann_lobby.close()


async def test_signing_out_ends_the_lobby_sockets_friends(server: str) -> None:
    ann, bob = await account(server, "Ann"), await account(server, "Bob")
    await befriend(ann, bob)
    bob_lobby = await bob.lobby()
    ann_lobby = await ann.lobby()
    await bob_lobby.wait(presence_of(bob_lobby, ann.id, "lobby"))
    assert (await bob.post("/api/account/logout")).status_code == 204
    msg = await bob_lobby.wait(lambda m: m["type"] == "error")
    assert msg["code"] == "bad_token"
    # Bob's socket stays (the tables) but is no one's now: Ann sees him offline
    await ann_lobby.wait(presence_of(ann_lobby, bob.id, "offline"))
    await bob_lobby.close()
    await ann_lobby.close()


async def test_the_lobby_page_lists_friends_tables_first(server: str) -> None:
    """GET /api/tables: a signed-in player with friends gets ``first``, the listed tables where
    a friend sits (Bob's, older than Cara's); without friends, signed out, or on a later page
    (a cursor), no ``first``."""
    ann, bob, cara = [await account(server, n) for n in ("Ann", "Bob", "Cara")]
    await befriend(ann, bob)
    bobs = (await create_table(server, bob.token, preset="classic"))["table"]["id"]
    caras = (await create_table(server, cara.token, preset="classic"))["table"]["id"]
    await create_table(server, bob.token, preset="classic", private=True)  # never listed
    page: dict[str, Any] = {}
    for _ in range(100):
        page = (await ann.call("GET", "/api/tables")).json()
        if {bobs, caras} <= {t["id"] for t in page["tables"]}:
            break
        await asyncio.sleep(0.05)
    assert [t["id"] for t in page["tables"]][:2] == [caras, bobs]  # newest first
    assert [t["id"] for t in page["first"]] == [bobs]
    assert "first" not in (await cara.call("GET", "/api/tables")).json()  # no friends
    async with httpx.AsyncClient(base_url=f"http://{server}") as http:
        assert "first" not in (await http.get("/api/tables")).json()  # signed out
    later = (await ann.call("GET", "/api/tables", params={"limit": 1})).json()
    assert [t["id"] for t in later["first"]] == [bobs]
    after = (await ann.call("GET", "/api/tables", params={"cursor": later["next"]})).json()
    assert "first" not in after and bobs in {t["id"] for t in after["tables"]}
    assert (await ann.call("GET", "/api/tables", params={"variant": "double"})).json()[
        "first"
    ] == []  # the filter applies to friends' tables too


async def _invite(host: Person, friend: Person, private: bool = True) -> tuple[str, str]:
    """A table of ``host``'s and an invitation of ``friend`` to it: (table id, invite id)."""
    made = await create_table(host.address, host.token, preset="classic", private=private)
    table_id = made["table"]["id"]
    _codes[table_id] = made["table"]["invite"]
    r = await host.post("/api/friends/invites", {"player_id": friend.id, "table_id": table_id})
    assert r.status_code == 201, r.text
    return table_id, str(r.json()["invite"]["id"])


_codes: dict[str, str | None] = {}  # table id -> its private code (the host's knowledge)


async def _seated(host: Person, table_id: str) -> list[str | None]:
    params = {"invite": _codes[table_id]} if _codes.get(table_id) else {}
    table = (await host.call("GET", f"/api/tables/{table_id}", params=params)).json()
    return [s["player_id"] for s in table["table"]["seats"]]


@pytest.mark.parametrize("how", ["host blocks", "invitee blocks", "host unfriends"])
async def test_a_block_or_an_unfriending_drops_invitations_both_ways(server: str, how: str) -> None:
    host, pal = await account(server, "Host"), await account(server, "Pal")
    await befriend(host, pal)
    table_id, invite_id = await _invite(host, pal)
    # and one the other way: Pal, host of a table of their own, invites Host
    _, back_id = await _invite(pal, host, private=False)
    pal_lobby, host_lobby = await pal.lobby(), await host.lobby()
    assert [i["id"] for i in (await pal.call("GET", "/api/friends/invites")).json()["invites"]] == [
        invite_id
    ]
    if how == "host blocks":
        assert (await host.post("/api/friends/blocks", {"player_id": pal.id})).status_code == 201
    elif how == "invitee blocks":
        assert (await pal.post("/api/friends/blocks", {"player_id": host.id})).status_code == 201
    else:
        assert (await host.post(f"/api/friends/{pal.id}/remove")).status_code == 204
    await pal_lobby.wait(lambda m: m["type"] == "invite_gone" and m["id"] == invite_id)
    await host_lobby.wait(lambda m: m["type"] == "invite_gone" and m["id"] == back_id)
    for person in (pal, host):
        assert (await person.call("GET", "/api/friends/invites")).json() == {"invites": []}
        listing = (await person.call("GET", "/api/friends")).json()
        assert listing["invites"] == []
    # neither the invitation nor the private code is anywhere Pal can read
    reply = await pal.post(f"/api/friends/invites/{invite_id}/accept")
    assert reply.status_code == 404 and _code(reply) == "no_invite"
    assert pal.id not in await _seated(host, table_id)
    assert _code(await host.post(f"/api/friends/invites/{back_id}/accept")) == "no_invite"
    for lobby in (pal_lobby, host_lobby):
        await lobby.close()


async def test_an_invitation_checks_the_friendship_when_it_is_used(
    server: str, pg_migrated_url: str
) -> None:
    """A friendship that ended without the route that drops invitations (another instance
    that failed half way, a change made in the database): the invitation is not listed and
    accepting it seats nobody."""
    from app.db import make_database
    from app.friends import store

    host, pal = await account(server, "Host"), await account(server, "Pal")
    await befriend(host, pal)
    table_id, invite_id = await _invite(host, pal)
    database = make_database(pg_migrated_url)
    try:
        store.remove(database, host.id, pal.id)  # the friendship only: the invitation stays
    finally:
        database.dispose()
    reply = await pal.post(f"/api/friends/invites/{invite_id}/accept")
    assert reply.status_code == 410 and _code(reply) == "invite_withdrawn"
    assert pal.id not in await _seated(host, table_id)
    assert (await pal.call("GET", "/api/friends/invites")).json() == {"invites": []}
    made_again = await _invite_listing_after_refriending(host, pal, table_id)
    assert made_again != invite_id


async def _invite_listing_after_refriending(host: Person, pal: Person, table_id: str) -> str:
    """Friends again: a new invitation is listed (the check reads the friendship now)."""
    await befriend(host, pal)
    r = await host.post("/api/friends/invites", {"player_id": pal.id, "table_id": table_id})
    listed = (await pal.call("GET", "/api/friends/invites")).json()["invites"]
    assert [i["id"] for i in listed] == [r.json()["invite"]["id"]]
    return str(r.json()["invite"]["id"])


async def test_a_friends_only_lobby_socket_gets_invitations_without_tables(server: str) -> None:
    """``/ws/lobby?tables=0`` (the banner on a table or replay page): the friend messages and
    invitations with the table's size and free seats, no table list; bad values refused."""
    host, friend, other = [await account(server, n) for n in ("Host", "Pal", "Ott")]
    await befriend(host, friend)
    made = await create_table(server, host.token, preset="classic", private=True)
    table_id = made["table"]["id"]
    banner = Client(server, "-", friend.token, "Pal")
    banner.url = f"ws://{server}/ws/lobby?tables=0"
    await banner.connect()
    await banner.wait(lambda m: m["type"] == "friends")
    # someone not invited, on the same kind of socket: never the invitation nor the code
    outsider = Client(server, "-", other.token, "Ott")
    outsider.url = f"ws://{server}/ws/lobby?tables=0"
    await outsider.connect()
    await outsider.wait(lambda m: m["type"] == "friends")
    r = await host.post("/api/friends/invites", {"player_id": friend.id, "table_id": table_id})
    assert r.status_code == 201
    pushed = (await banner.wait(lambda m: m["type"] == "invite"))["invite"]
    assert pushed["path"] == made["invite_path"]  # the invited player's link
    assert (pushed["players"], pushed["free"], pushed["private"]) == (4, 3, True)
    assert pushed["from"]["name"] == "Host"
    await banner.send({"type": "subscribe"})
    refused = await banner.wait(lambda m: m["type"] == "error")
    assert refused["code"] == "no_tables"
    assert not [m for m in banner.messages if m["type"] in ("lobby", "lobby_update")]
    # a friend request reaches it too, in the friends message's incoming list
    await other.post("/api/friends/requests", {"player_id": friend.id})
    listed = await banner.wait(
        lambda m: m["type"] == "friends" and any(p["id"] == other.id for p in m["incoming"])
    )
    assert listed["invites"][0]["free"] == 3
    code = made["table"]["invite"]
    assert not [raw for raw in outsider.raw if code in raw or '"invite"' in raw]
    await outsider.close()
    await banner.close()
    async with websockets.connect(f"ws://{server}/ws/lobby?tables=2") as bad:
        closed = orjson.loads(await bad.recv())
        assert closed["code"] == "bad_tables"
        with pytest.raises(websockets.ConnectionClosed):
            await bad.recv()


async def test_a_player_blocked_by_someone_seated_gets_no_seat_by_any_door(server: str) -> None:
    """Cat, seated at Ann's public table, blocked Bob: Bob is refused a seat there by the
    table socket's sit and by joining a friend's table (``blocked``), the table unchanged;
    at a table where nobody blocked him he sits. Checked when the seat is taken: a block made
    after Bob opened the table holds."""
    ann, bob, cat = [await account(server, n) for n in ("Ann", "Bob", "Cat")]
    await befriend(ann, bob)
    table_id = (await create_table(server, ann.token, preset="classic"))["table"]["id"]
    cat_table = Client(server, table_id, cat.token, "cat")
    await cat_table.connect()
    assert (await cat_table.command("sit", seat=2))["type"] == "ack"
    bob_table = Client(server, table_id, bob.token, "bob")
    await bob_table.connect()
    await bob_table.wait(lambda m: m["type"] == "state")
    assert (await cat.post("/api/friends/blocks", {"player_id": bob.id})).status_code == 201
    reply = await bob_table.command("sit", seat=1)
    assert reply["type"] == "error" and reply["code"] == "blocked", reply
    r = await bob.post("/api/friends/join", {"table_id": table_id})
    assert r.status_code >= 400 and _code(r) == "blocked", r.text
    assert bob.id not in await _seated(ann, table_id)
    # Cat leaves: nobody seated blocked Bob any more, and the same doors seat him.
    assert (await cat_table.command("leave"))["type"] == "ack"
    assert (await bob_table.command("sit", seat=1))["type"] == "ack"
    assert bob.id in await _seated(ann, table_id)
    other = (await create_table(server, cat.token, preset="classic"))["table"]["id"]
    assert _code(await bob.post("/api/friends/join", {"table_id": other})) == "blocked"
    for client in (cat_table, bob_table):
        await client.close()


async def test_my_games_is_told_when_a_turn_based_game_of_mine_changes(server: str) -> None:
    """A turn-based table: whoever's turn comes is told on their lobby socket ("games", the
    table's id) so the page's My games reads its list again at once; nobody else is told of
    that table."""
    ann, bob, cat = [await account(server, n) for n in ("Ann", "Bob", "Cat")]
    made = await create_table(
        server,
        ann.token,
        preset="classic",
        pace="turn",
        move_seconds=86400,
        bots={"2": "easy", "3": "easy"},
    )
    table_id = made["table"]["id"]
    lobbies = {p.name: await p.lobby() for p in (ann, bob, cat)}
    ann_table = Client(server, table_id, ann.token, "ann")
    bob_table = Client(server, table_id, bob.token, "bob")
    await ann_table.connect()
    await bob_table.connect()
    assert (await bob_table.command("sit", seat=1))["type"] == "ack"
    assert (await ann_table.command("start"))["type"] == "ack"
    # Everyone passes at once: both people are told their turn came.
    for name in ("Ann", "Bob"):
        told = await lobbies[name].wait(lambda m: m["type"] == "games")
        assert told == {"type": "games", "table_id": table_id}
    await asyncio.sleep(0.3)
    assert not any(m["type"] == "games" for m in lobbies["Cat"].messages)
    for client in (ann_table, bob_table, *lobbies.values()):
        await client.close()
