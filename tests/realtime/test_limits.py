"""Limits per player, per address and per table on the sockets (app/realtime/limits.py), and
spectators that come and go without changing the table (issue 18).

Every test runs on fakeredis; the ones marked with ``kind`` run on a real Redis too.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import orjson
import pytest
import redis.asyncio as aioredis
import websockets

from app.settings import Settings
from app.store import keys, make_redis
from tests.conftest import REDIS_BACKENDS, cluster_redis_url, real_redis_url
from tests.realtime.harness import Client, create_table, guest, in_process_server, quick_values

pytestmark = pytest.mark.asyncio

SECRET = "test-secret-key-0123456789"


@contextlib.asynccontextmanager
async def server(
    kind: str, tmp_path: Any, **extra: Any
) -> AsyncIterator[tuple[str, aioredis.Redis]]:
    """An in-process server on fakeredis, on the test Redis or on the test Redis Cluster, and a
    client of that Redis."""
    base = quick_values(tmp_path, **{"run_outbox_worker": False, **extra})
    if kind == "fake":
        fake = fakeredis.FakeServer()
        async with in_process_server(Settings(**base), fake) as address:
            yield address, fakeredis.FakeAsyncRedis(server=fake)
        return
    url = cluster_redis_url() if kind == "cluster" else real_redis_url()
    namespace = "t" + uuid.uuid4().hex[:10]
    settings = Settings(redis_url=url, redis_namespace=namespace, secret_key=SECRET, **base)
    redis = make_redis(url)
    try:
        async with in_process_server(settings) as address:
            yield address, redis
    finally:
        doomed = [k async for k in redis.scan_iter(match=f"*{namespace}*")]
        if doomed:
            await redis.delete(*doomed)
        await redis.aclose()


async def table_version(redis: aioredis.Redis, table_id: str) -> int:
    return int(await redis.get(keys.version_key(table_id)))


async def stored_size(redis: aioredis.Redis, table_id: str) -> int:
    return len(await redis.get(keys.state_key(table_id)))


async def refused(client: Client) -> tuple[dict[str, Any], int | None]:
    """The error a refused socket got, and its close code."""
    err = await client.wait(lambda m: m["type"] == "error")
    assert client._reader is not None
    await asyncio.wait_for(client._reader, 10)
    return err, client.closed_code


class Lobby:
    """A raw /ws/lobby socket."""

    def __init__(self, address: str) -> None:
        self.url = f"ws://{address}/ws/lobby"
        self.ws: Any = None
        self.first: dict[str, Any] = {}

    async def connect(self) -> dict[str, Any]:
        self.ws = await websockets.connect(self.url, max_size=2**22)
        self.first = orjson.loads(await asyncio.wait_for(self.ws.recv(), 10))
        return self.first

    async def drain(self) -> tuple[list[dict[str, Any]], int | None]:
        """Every message until the server closes the socket, and the close code."""
        got: list[dict[str, Any]] = []
        try:
            while True:
                got.append(orjson.loads(await asyncio.wait_for(self.ws.recv(), 20)))
        except websockets.ConnectionClosed as exc:
            return got, exc.rcvd.code if exc.rcvd else None

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_spectators_come_and_go_without_a_table_version(kind: str, tmp_path: Any) -> None:
    """100 spectators connect and disconnect: the table's version and stored size stay the
    same, the seated host gets no state, only a few batched spectator counts."""
    async with server(kind, tmp_path) as (address, redis):
        token, _ = await guest(address, "Host")
        table_id = (
            await create_table(address, token, preset="classic", bots={"1": "easy", "2": "easy"})
        )["table"]["id"]
        host = Client(address, table_id, token, "host")
        await host.connect()
        await host.wait(lambda m: m["type"] == "state" and m["table"]["seats"][0]["connected"])
        await host.wait(lambda m: m["type"] == "spectators" and m["count"] == 0)
        await asyncio.sleep(0.3)
        version = await table_version(redis, table_id)
        size = await stored_size(redis, table_id)
        states = sum(1 for m in host.messages if m["type"] == "state")
        counts_before = sum(1 for m in host.messages if m["type"] == "spectators")
        signed_in = [(await guest(address, f"Fan{i}"))[0] for i in range(2)]

        started = time.monotonic()
        for batch in range(4):
            crowd = [
                Client(address, table_id, signed_in[i] if i < 2 and batch == 0 else None, f"s{i}")
                for i in range(25)
            ]
            await asyncio.gather(*(c.connect() for c in crowd))
            for c in crowd:
                view = await c.wait(lambda m: m["type"] == "state")
                assert view["seat"] is None and "spectators" not in view["table"]
                await c.wait(lambda m: m["type"] == "spectators")
            if batch == 0:  # the host learns how many watch (batched, within a second or so)
                await host.wait(lambda m: m["type"] == "spectators" and m["count"] == 25, 5)
            await asyncio.gather(*(c.close() for c in crowd))
        await host.wait(lambda m: m["type"] == "spectators" and m["count"] == 0, 5)
        elapsed = time.monotonic() - started
        await asyncio.sleep(1.2)

        assert await table_version(redis, table_id) == version
        assert await stored_size(redis, table_id) == size
        assert sum(1 for m in host.messages if m["type"] == "state") == states
        sent = sum(1 for m in host.messages if m["type"] == "spectators") - counts_before
        # At most one count a second (spectators_every_seconds), whatever the crowd did.
        assert 1 <= sent <= elapsed + 2, (sent, elapsed)
        # The table still works: a change is one version.
        assert (await host.command("add_bot", seat=3, level="easy"))["version"] == version + 1
        await host.close()


@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_a_spectator_who_sits_down_is_no_longer_counted(kind: str, tmp_path: Any) -> None:
    """A friend watches from the invite link, then sits down with the same socket: every
    socket on the table (the host's, another spectator's, the friend's own) is told the new
    count without anyone's socket opening or closing; standing up counts them again."""
    async with server(kind, tmp_path) as (address, _redis):
        token, _ = await guest(address, "Host")
        created = await create_table(
            address, token, preset="classic", private=True, bots={"1": "easy", "2": "easy"}
        )
        table_id, invite = created["table"]["id"], created["table"]["invite"]
        host = Client(address, table_id, token, "host")
        await host.connect()
        await host.wait(lambda m: m["type"] == "spectators" and m["count"] == 0)
        friend_token, _ = await guest(address, "Friend")
        friend = Client(address, table_id, friend_token, "friend")
        other = Client(address, table_id, None, "other")
        for c in (friend, other):
            await c.connect(invite=invite)
            await c.wait(lambda m: m["type"] == "state")
        for c in (host, friend, other):
            await c.wait(lambda m: m["type"] == "spectators" and m["count"] == 2, 5)

        marks = {c.name: len(c.messages) for c in (host, friend, other)}
        assert (await friend.command("sit", seat=3))["type"] == "ack"
        for c in (host, friend, other):
            await c.wait(
                lambda m: m["type"] == "spectators" and m["count"] == 1, 5, start=marks[c.name]
            )

        marks = {c.name: len(c.messages) for c in (host, friend, other)}
        assert (await friend.command("leave"))["type"] == "ack"
        for c in (host, friend, other):
            await c.wait(
                lambda m: m["type"] == "spectators" and m["count"] == 2, 5, start=marks[c.name]
            )
        for c in (host, friend, other):
            await c.close()


@pytest.mark.parametrize("kind", REDIS_BACKENDS)
async def test_sockets_per_player_table_and_address(kind: str, tmp_path: Any) -> None:
    """Each socket limit refuses with 4429 and its words; nothing changes; a closed socket
    frees its place."""
    limits = {"ws_sockets_per_player": 2, "ws_sockets_per_table": 4, "ws_sockets_per_address": 6}
    async with server(kind, tmp_path, **limits) as (address, redis):
        token, _ = await guest(address, "Alice")
        table_id = (await create_table(address, token, preset="classic"))["table"]["id"]
        tabs = [Client(address, table_id, token, f"a{i}") for i in range(2)]
        for tab in tabs:
            await tab.connect()
            await tab.wait(lambda m: m["type"] == "state")
        await asyncio.sleep(0.2)
        version = await table_version(redis, table_id)

        third = Client(address, table_id, token, "a3")
        await third.connect()
        err, code = await refused(third)
        assert code == 4429 and err["code"] == "too_many_sockets"
        assert "you have 2 connections" in err["message"]

        watchers = [Client(address, table_id, None, f"w{i}") for i in range(2)]
        for w in watchers:
            await w.connect()
            await w.wait(lambda m: m["type"] == "state")
        crowded = Client(address, table_id, None, "w3")
        await crowded.connect()
        err, code = await refused(crowded)
        assert code == 4429 and err["code"] == "too_many_sockets"
        assert "this table has 4 connections" in err["message"]

        lobbies = [Lobby(address) for _ in range(2)]
        for lobby in lobbies:
            assert (await lobby.connect())["type"] != "error"
        extra = Lobby(address)
        first = await extra.connect()
        assert first["code"] == "too_many_sockets" and "your network has 6" in first["message"]
        _, code = await extra.drain()
        assert code == 4429

        assert await table_version(redis, table_id) == version
        # A socket that closes frees its place at once (table and address).
        await watchers[0].close()
        await asyncio.sleep(0.2)
        again = Client(address, table_id, None, "w4")
        await again.connect()
        await again.wait(lambda m: m["type"] == "state")
        assert await table_version(redis, table_id) == version
        for c in (*tabs, watchers[1], again):
            await c.close()
        for lobby in lobbies:
            await lobby.close()


@pytest.mark.parametrize("kind", REDIS_BACKENDS)
async def test_chat_flood_from_five_sockets_is_limited(kind: str, tmp_path: Any) -> None:
    """205 chat lines from one player's five sockets: a window's worth is accepted, each as one
    version; the rest are refused and change nothing; the moves stay in the replay log."""
    async with server(kind, tmp_path) as (address, redis):
        token, _ = await guest(address, "Alice")
        table_id = (
            await create_table(
                address, token, preset="classic", bots={"1": "easy", "2": "easy", "3": "easy"}
            )
        )["table"]["id"]
        tabs = [Client(address, table_id, token, f"a{i}") for i in range(5)]
        for tab in tabs:
            await tab.connect()
            await tab.wait(lambda m: m["type"] == "state")
        assert (await tabs[0].command("start"))["type"] == "ack"
        await tabs[0].wait_state(lambda m: bool(m["view"] and m["view"]["legal"]))
        await asyncio.sleep(0.3)
        version = await table_version(redis, table_id)
        oldest = orjson.loads((await redis.lrange(keys.log_key(table_id), 0, 0))[0])["v"]

        async def flood(tab: Client, lines: int) -> list[dict[str, Any]]:
            return [await tab.command("chat", text=f"spam {i}") for i in range(lines)]

        answers = [a for got in await asyncio.gather(*(flood(t, 41) for t in tabs)) for a in got]
        assert len(answers) == 205
        accepted = [a for a in answers if a["type"] == "ack"]
        codes = {a["code"] for a in answers if a["type"] == "error"}
        # chat_lines_per_window (8) per 10 s window; the flood might straddle two windows.
        assert 1 <= len(accepted) <= 16, len(accepted)
        assert "chat_limited" in codes and codes <= {"chat_limited", "rate_limited"}
        assert await table_version(redis, table_id) == version + len(accepted)
        log = [orjson.loads(e) for e in await redis.lrange(keys.log_key(table_id), 0, -1)]
        assert log[0]["v"] == oldest  # nothing was pushed out of the replay log
        limited = next(a for a in answers if a.get("code") == "chat_limited")
        assert "8 chat lines every 10 s" in limited["message"]
        for tab in tabs:
            await tab.close()


async def test_chat_per_table(tmp_path: Any) -> None:
    async with server("fake", tmp_path, chat_lines_per_table_minute=3) as (address, redis):
        token_a, _ = await guest(address, "Alice")
        token_b, _ = await guest(address, "Bob")
        table_id = (await create_table(address, token_a, preset="classic"))["table"]["id"]
        alice = Client(address, table_id, token_a, "alice")
        bob = Client(address, table_id, token_b, "bob")
        for c in (alice, bob):
            await c.connect()
            await c.wait(lambda m: m["type"] == "state")
        assert (await alice.command("chat", text="hi"))["type"] == "ack"
        assert (await bob.command("chat", text="hello"))["type"] == "ack"
        assert (await alice.command("chat", text="ready?"))["type"] == "ack"
        version = await table_version(redis, table_id)
        err = await bob.command("chat", text="yes")
        if err["type"] == "ack":  # the minute turned during the test: the next one is fresh
            pytest.skip("the table's chat window turned over mid-test")
        assert err["code"] == "chat_limited" and "this table's chat is busy" in err["message"]
        assert await table_version(redis, table_id) == version
        for c in (alice, bob):
            await c.close()


async def test_a_resent_chat_line_is_a_duplicate_not_a_new_line_over_the_limit(
    tmp_path: Any,
) -> None:
    """A chat line resent after a dropped connection (same id) is acknowledged as the duplicate
    it is, even when the player's chat window is full: the limit counts new lines only."""
    async with server("fake", tmp_path, chat_lines_per_window=1) as (address, redis):
        token, _ = await guest(address, "Alice")
        table_id = (await create_table(address, token, preset="classic"))["table"]["id"]
        alice = Client(address, table_id, token, "alice")
        await alice.connect()
        await alice.wait(lambda m: m["type"] == "state")
        first = await alice.command("chat", text="hi", id="line-1")
        assert first["type"] == "ack" and not first.get("duplicate")
        version = await table_version(redis, table_id)
        again = await alice.command("chat", text="hi", id="line-1")
        assert again == {**first, "duplicate": True}
        other = await alice.command("chat", text="hi again", id="line-2")
        assert other["type"] == "error" and other["code"] == "chat_limited"
        assert await table_version(redis, table_id) == version
        await alice.close()


@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_lobby_floods_are_closed(kind: str, tmp_path: Any) -> None:
    async with server(kind, tmp_path) as (address, _redis):
        # 2,000 pings of 3 KB: over the lobby's message size, refused, then closed (4008).
        big = Lobby(address)
        await big.connect()
        payload = orjson.dumps({"type": "ping", "t": "x" * 3000}).decode()
        with contextlib.suppress(websockets.ConnectionClosed):
            for _ in range(2000):
                await big.ws.send(payload)
        got, code = await big.drain()
        assert code == 4008
        assert not [m for m in got if m["type"] == "pong"]
        assert {m["code"] for m in got if m["type"] == "error"} <= {"too_large", "policy"}
        assert len(got) <= 60

        # 2,000 small pings: a burst is answered, the rest refused, then closed (4008).
        fast = Lobby(address)
        await fast.connect()
        ping = orjson.dumps({"type": "ping", "t": 1}).decode()
        with contextlib.suppress(websockets.ConnectionClosed):
            for _ in range(2000):
                await fast.ws.send(ping)
        got, code = await fast.drain()
        pongs = sum(1 for m in got if m["type"] == "pong")
        assert code == 4008 and 1 <= pongs <= 60, (code, pongs)
        assert any(m.get("code") == "rate_limited" for m in got)
        assert got[-1] == {
            "type": "error",
            "code": "policy",
            "message": "too many messages over the limits; the connection was closed",
        }
        # The address may still open a lobby: being closed for flooding is no ban.
        calm = Lobby(address)
        assert (await calm.connect())["type"] != "error"
        await calm.close()


async def test_messages_per_player_and_per_address_across_sockets(tmp_path: Any) -> None:
    settings = {
        "ws_rate_per_second": 100,
        "ws_player_rate_per_second": 5,
        "ws_address_rate_per_second": 8,
    }
    async with server("fake", tmp_path, **settings) as (address, _redis):
        token, _ = await guest(address, "Alice")
        table_id = (await create_table(address, token, preset="classic"))["table"]["id"]
        tabs = [Client(address, table_id, token, f"a{i}") for i in range(3)]
        for tab in tabs:
            await tab.connect()
            await tab.wait(lambda m: m["type"] == "state")
        started = time.monotonic()
        for _ in range(20):
            for tab in tabs:
                await tab.send({"type": "ping", "t": 1})
        for tab in tabs:
            await tab.send({"type": "ping", "t": "last"})
        for tab in tabs:
            await tab.wait(lambda m: m.get("t") == "last" or m.get("code") == "rate_limited")
        await asyncio.sleep(0.3)
        elapsed = time.monotonic() - started
        pongs = sum(1 for t in tabs for m in t.messages if m["type"] == "pong")
        limited = sum(1 for t in tabs for m in t.messages if m.get("code") == "rate_limited")
        # One player's sockets share 5 a second (bursts of 10), not 100 each.
        assert pongs <= 10 + 5 * elapsed + 1, (pongs, elapsed)
        assert limited >= 63 - pongs - 1
        for tab in tabs:
            await tab.close()

        # Anonymous sockets from one address share the address's rate (8 a second, bursts 16).
        await asyncio.sleep(2.5)  # the address's bucket fills again
        watchers = [Client(address, table_id, None, f"w{i}") for i in range(3)]
        for w in watchers:
            await w.connect()
            await w.wait(lambda m: m["type"] == "state")
        started = time.monotonic()
        for _ in range(15):
            for w in watchers:
                await w.send({"type": "ping", "t": 1})
        await asyncio.sleep(0.3)
        elapsed = time.monotonic() - started
        pongs = sum(1 for w in watchers for m in w.messages if m["type"] == "pong")
        assert pongs <= 16 + 8 * elapsed + 1, (pongs, elapsed)
        for w in watchers:
            await w.close()


@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_ordinary_play_is_never_limited(kind: str, tmp_path: Any) -> None:
    """With the default limits: four friends behind one home address, three tabs each, every
    tab reloaded, and thirty spectators from the same (school) address, while they play."""
    async with server(kind, tmp_path) as (address, redis):
        friends = [await guest(address, name) for name in ("Ann", "Ben", "Cat", "Dan")]
        table_id = (await create_table(address, friends[0][0], preset="classic"))["table"]["id"]
        tabs = [
            [Client(address, table_id, token, f"{i}-{t}") for t in range(3)]
            for i, (token, _) in enumerate(friends)
        ]
        for row in tabs:
            for tab in row:
                await tab.connect()
                await tab.wait(lambda m: m["type"] == "state")
        for seat in (1, 2, 3):
            assert (await tabs[seat][0].command("sit", seat=seat))["type"] == "ack"
        # A page reload: the tab's socket closes and a new one says hello with its version.
        for i, row in enumerate(tabs):
            for t, tab in enumerate(row):
                last = tab.last_state()
                assert last is not None
                await tab.close()
                fresh = Client(address, table_id, friends[i][0], f"{i}-{t}-again")
                await fresh.connect(last_version=last["version"])
                await fresh.wait(lambda m: m["type"] == "welcome")
                row[t] = fresh
        crowd = [Client(address, table_id, None, f"fan{i}") for i in range(30)]
        await asyncio.gather(*(c.connect() for c in crowd))
        for c in crowd:
            await c.wait(lambda m: m["type"] == "state")
        assert (await tabs[0][0].command("start"))["type"] == "ack"
        for row in tabs:
            state = await row[0].wait_state(lambda m: bool(m["view"] and m["view"]["legal"]))
            cards = state["view"]["legal"]["cards"][:3]
            ack = await row[1].command("move", move={"type": "pass", "cards": cards})
            assert ack["type"] == "ack", ack
            assert (await row[2].command("chat", text="gl hf"))["type"] == "ack"
        everyone = [tab for row in tabs for tab in row] + crowd
        assert all(c.closed_code is None for c in everyone)
        assert all(m.get("code") != "rate_limited" for c in everyone for m in c.messages)
        for c in everyone:
            await c.close()
