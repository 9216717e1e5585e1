"""The lobby: the in-memory index (pages, filters, cursors), its feed from Redis, and the
HTTP and WebSocket reads over real sockets (one instance and two)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import httpx
import orjson
import pytest
import redis.asyncio as aioredis
import websockets
from hypothesis import given, settings
from hypothesis import strategies as st

from app.realtime.lobby import LobbyFeed
from app.realtime.lobby_index import (
    VARIANTS,
    LobbyError,
    LobbyFilter,
    LobbyIndex,
    decode_cursor,
    encode_cursor,
    parse_entry,
    parse_filter,
    parse_limit,
)
from app.settings import Settings
from app.store import Fanout, TableStore, keys, make_redis
from tests.realtime.harness import create_table, guest, in_process_server, quick_settings

PRESET_OF = {"classic": "classic", "dummy": "two-player-dummy", "double": "double-hearts"}
PRESET_OF["twentyeight"] = "two-player-28"
FAR = 10**13  # an expiry time far away (ms)


def line(
    table_id: str,
    *,
    variant: str = "classic",
    free: int = 1,
    created: int = 1000,
    status: str = "waiting",
    humans: int = 1,
    expires: float = FAR,
    pace: str = "live",
    players: int = 4,
) -> bytes:
    """A lobby line as app.tables.model.lobby_json writes it."""
    seats: list[dict[str, Any]] = []
    for i in range(players):
        if i < humans:
            seat = {"kind": "human", "name": f"P{i}", "player_id": f"{table_id}-p{i}"}
        elif i < humans + free:
            seat = {"kind": "open", "name": None, "player_id": None}
        else:
            seat = {"kind": "bot", "name": None, "level": "easy", "player_id": None}
        seats.append({"seat": i, "level": None, "away": False, **seat})
    return orjson.dumps(
        {
            "id": table_id,
            "preset": PRESET_OF[variant],
            "options": {},
            "players": players,
            "status": status,
            "game_no": 0,
            "turn_timer": 30,
            "pace": pace,
            "spectators": 0,
            "seats": seats,
            "open_seats": free,
            "created_ms": created,
            "expires_ms": expires,
        }
    )


# -- the index ---------------------------------------------------------------------------

table_specs = st.lists(
    st.tuples(
        st.sampled_from(sorted(PRESET_OF)),
        st.integers(0, 3),  # free seats
        st.integers(0, 30),  # created (many ties: the id breaks them)
    ),
    max_size=60,
)


def walk(index: LobbyIndex, f: LobbyFilter, limit: int) -> list[str]:
    """Every page of a filter, cursor to cursor (through the cursor's text form)."""
    seen: list[str] = []
    cursor = None
    for _ in range(1000):
        page = index.page(f, cursor, limit)
        seen += [e.id for e in page]
        if not page or not index.has_after(f, page[-1].key):
            return seen
        cursor = decode_cursor(encode_cursor(page[-1].key))
    raise AssertionError("the walk does not end")


@settings(max_examples=150, deadline=None)
@given(
    specs=table_specs,
    variant=st.sampled_from([None, *VARIANTS]),
    free_seats=st.integers(0, 4),
    limit=st.integers(1, 7),
)
def test_a_walk_of_pages_lists_each_matching_table_once(
    specs: list[tuple[str, int, int]], variant: str | None, free_seats: int, limit: int
) -> None:
    index = LobbyIndex()
    for i, (v, free, created) in enumerate(specs):
        index.put(f"t{i:03d}", line(f"t{i:03d}", variant=v, free=free, created=created))
    f = LobbyFilter(variant, free_seats)
    expected = [
        f"t{i:03d}"
        for i, (v, free, _c) in enumerate(specs)
        if (variant is None or v == variant) and free >= free_seats
    ]
    seen = walk(index, f, limit)
    assert sorted(seen) == sorted(expected)  # exactly once each, nothing else
    assert index.count(f) == len(expected)
    # Newest first (ties by id).
    created = {f"t{i:03d}": c for i, (_v, _f, c) in enumerate(specs)}
    assert seen == sorted(seen, key=lambda t: (-created[t], t))


@settings(max_examples=100, deadline=None)
@given(specs=table_specs, seed=st.integers(0, 2**32), limit=st.integers(1, 5))
def test_a_walk_meanwhile_changes_sees_each_lasting_table_once(
    specs: list[tuple[str, int, int]], seed: int, limit: int
) -> None:
    """Tables created, changed or removed during a walk do not make it skip or repeat the
    tables that stay listed throughout."""
    rng = random.Random(seed)
    index = LobbyIndex()
    ids = [f"t{i:03d}" for i in range(len(specs))]
    for table_id, (v, free, created) in zip(ids, specs, strict=True):
        index.put(table_id, line(table_id, variant=v, free=free, created=created))
    f = LobbyFilter(None, 0)
    lasting = set(ids)
    seen: list[str] = []
    cursor = None
    n = 0
    while True:
        page = index.page(f, cursor, limit)
        seen += [e.id for e in page]
        if not page or not index.has_after(f, page[-1].key):
            break
        cursor = page[-1].key
        for _ in range(rng.randint(0, 3)):  # the world moves on between two pages
            action = rng.random()
            if action < 0.4:
                n += 1
                new_id = f"n{n:03d}"
                index.put(new_id, line(new_id, created=rng.randint(0, 40)))
            elif lasting and action < 0.7:
                gone = rng.choice(sorted(lasting))
                lasting.discard(gone)
                index.put(gone, None)
            elif lasting:
                changed = rng.choice(sorted(lasting))
                old = index.entries[changed]
                index.put(changed, line(changed, created=-old.key[0], free=rng.randint(0, 2)))
    assert len(seen) == len(set(seen))
    assert lasting <= set(seen)


def test_filters_are_exact_and_unlisted_lines_are_left_out() -> None:
    index = LobbyIndex()
    index.put("a", line("a", variant="classic", free=2, created=5))
    index.put("b", line("b", variant="double", free=0, created=6))
    index.put("c", line("c", variant="classic", free=0, created=7))
    index.put("over", line("over", status="over", created=8))
    index.put("bots", line("bots", humans=0, free=1, created=9, status="playing"))
    index.put("junk", b"{not json")
    ids = lambda f: [e.id for e in index.page(f, None, 50)]  # noqa: E731
    assert ids(LobbyFilter()) == ["c", "b", "a"]
    assert ids(LobbyFilter("classic")) == ["c", "a"]
    assert ids(LobbyFilter(None, 1)) == ["a"]
    assert ids(LobbyFilter(None, 2)) == ["a"]
    assert ids(LobbyFilter(None, 3)) == []
    assert ids(LobbyFilter("double", 1)) == []
    # A table that fills up leaves the "free seat" lists; one that finishes leaves them all.
    index.put("a", line("a", variant="classic", free=0, created=5))
    assert ids(LobbyFilter(None, 1)) == []
    index.put("c", line("c", status="over", created=7))
    assert ids(LobbyFilter()) == ["b", "a"]
    assert index.count(LobbyFilter("classic")) == 1


def test_the_players_hook_puts_their_tables_first() -> None:
    """The hook for "friends' tables first": the tables where given players sit."""
    index = LobbyIndex()
    for i in range(30):
        index.put(f"t{i:02d}", line(f"t{i:02d}", created=i, free=i % 2))
    first = index.of_players(LobbyFilter(), {"t03-p0", "t10-p0", "nobody"}, 10)
    assert [e.id for e in first] == ["t10", "t03"]
    assert [e.id for e in index.of_players(LobbyFilter(None, 1), {"t03-p0", "t10-p0"}, 10)] == [
        "t03"
    ]
    index.put("t10", None)
    assert [e.id for e in index.of_players(LobbyFilter(), {"t10-p0"}, 10)] == []


@pytest.mark.parametrize(
    ("variant", "free_seats", "limit", "code"),
    [
        ("chess", None, None, "bad_filter"),
        (3, None, None, "bad_filter"),
        (None, "-1", None, "bad_filter"),
        (None, "x", None, "bad_filter"),
        (None, 9, None, "bad_filter"),
        (None, True, None, "bad_filter"),
        (None, 1.5, None, "bad_filter"),
        (None, None, "0", "bad_filter"),
        (None, None, 51, "bad_filter"),
        (None, None, "many", "bad_filter"),
    ],
)
def test_bad_filters_are_refused(variant: Any, free_seats: Any, limit: Any, code: str) -> None:
    with pytest.raises(LobbyError) as err:
        parse_filter(variant, free_seats)
        parse_limit(limit, 20, 50)
    assert err.value.code == code


@pytest.mark.parametrize("text", ["x", "12", ".abc", "12.", "1.a b", "-5.abc", "1" * 17 + ".a"])
def test_bad_cursors_are_refused(text: str) -> None:
    with pytest.raises(LobbyError) as err:
        decode_cursor(text)
    assert err.value.code == "bad_cursor"


# -- the feed: Redis to the index ----------------------------------------------------------


async def write(
    store: TableStore, table_id: str, raw: bytes | None, version: int = 0, ttl: int = 600
) -> None:
    """Commit a table change that writes (or removes) its lobby line, as the service does."""
    result = await store.commit(
        table_id,
        expected_version=version,
        blob=b"{}",
        message=b'{"v":1}',
        ttl_seconds=ttl,
        lobby_summary="remove" if raw is None else raw,
    )
    assert result.ok


@contextlib.asynccontextmanager
async def feed_on(client: aioredis.Redis, namespace: str) -> AsyncIterator[LobbyFeed]:
    store = TableStore(client, namespace=namespace)
    fanout = Fanout(client, keys.instance_channel(namespace, "i"))
    await fanout.start()
    feed = LobbyFeed(store, fanout)
    feed.BATCH_SECONDS = 0.02
    try:
        yield feed
    finally:
        await feed.stop()
        await fanout.stop()
        await client.delete(*store.lobby_keys)


async def until(predicate: Any, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


@pytest.mark.asyncio
async def test_the_feed_loads_follows_and_resyncs(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    store = TableStore(redis_client, namespace=namespace)
    ns = namespace + "-"  # table keys are not namespaced: ids of their own
    for i in range(1200):  # more than one HSCAN slice
        await redis_client.hset(
            store.lobby_key_of(ns + f"t{i:04d}"),
            ns + f"t{i:04d}",
            line(ns + f"t{i:04d}", created=i),
        )
    async with feed_on(redis_client, namespace) as feed:
        index = await feed.ready()
        assert index.count(LobbyFilter()) == 1200
        calls: list[set[str]] = []
        feed.listeners.append(lambda changed, _touched: calls.append(changed))
        # Changes arrive through the channel, batched.
        await write(store, ns + "new", line(ns + "new", created=5000))
        await write(store, ns + "t0001", line(ns + "t0001", created=1, free=0), version=0)
        await until(lambda: ns + "new" in index.entries and index.entries[ns + "t0001"].free == 0)
        assert set().union(*calls) == {ns + "new", ns + "t0001"}
        await write(store, ns + "new", None, version=1)
        await until(lambda: ns + "new" not in index.entries)
        # A change nobody announced (a lost pub/sub message) is found by the resync.
        await redis_client.hset(
            store.lobby_key_of(ns + "quiet"), ns + "quiet", line(ns + "quiet", created=7000)
        )
        await redis_client.hdel(store.lobby_key_of(ns + "t0002"), ns + "t0002")
        await redis_client.hset(
            store.lobby_key_of(ns + "t0003"), ns + "t0003", line(ns + "t0003", status="over")
        )
        await feed.resync()
        assert ns + "quiet" in index.entries
        assert ns + "t0002" not in index.entries and ns + "t0003" not in index.entries
        assert index.count(LobbyFilter()) == 1200 - 2 + 1


@pytest.mark.asyncio
async def test_expired_tables_leave_the_lobby(redis_client: aioredis.Redis, namespace: str) -> None:
    """A line past its expiry whose table is gone is dropped, from Redis too; one whose table
    still lives (it changed since the line was written) stays."""
    store = TableStore(redis_client, namespace=namespace)
    ns = namespace + "-"  # table keys are not namespaced: ids of their own
    await redis_client.hset(
        store.lobby_key_of(ns + "gone"), ns + "gone", line(ns + "gone", expires=1)
    )
    await write(store, ns + "alive", line(ns + "alive", expires=1))  # its keys exist
    await redis_client.hset(store.lobby_key_of(ns + "later"), ns + "later", line(ns + "later"))
    async with feed_on(redis_client, namespace) as feed:
        index = await feed.ready()
        assert set(index.entries) == {ns + "alive", ns + "later"}
        assert await redis_client.hexists(store.lobby_key_of(ns + "gone"), ns + "gone") == 0
        await redis_client.delete(*keys.table_keys(ns + "alive"))
        await feed.resync()
        assert set(index.entries) == {ns + "later"}


# -- over real sockets --------------------------------------------------------------------


def make_settings(tmp_path: Any, **extra: Any) -> Settings:
    return quick_settings(tmp_path, **{"bot_workers": 0, **extra})


@contextlib.asynccontextmanager
async def lobby_server(
    tmp_path: Any, tables: int, **extra: Any
) -> AsyncIterator[tuple[str, TableStore]]:
    """A server whose lobby holds ``tables`` public tables (made by their commits)."""
    fake = fakeredis.FakeServer()
    store = TableStore(make_redis("memory://", fake_server=fake), namespace="hearts")
    for i in range(tables):
        variant = VARIANTS[i % len(VARIANTS)]
        await write(store, f"t{i:04d}", line(f"t{i:04d}", variant=variant, free=i % 3, created=i))
    async with in_process_server(make_settings(tmp_path, **extra), fake) as address:
        yield address, store


async def get_json(http: httpx.AsyncClient, path: str, **params: Any) -> Any:
    r = await http.get(path, params=params)
    return r.status_code, r.json()


@pytest.mark.asyncio
async def test_http_pages_are_capped_filtered_and_walk_every_table_once(tmp_path: Any) -> None:
    async with (
        lobby_server(tmp_path, 300) as (address, _store),
        httpx.AsyncClient(base_url=f"http://{address}") as http,
    ):
        status, first = await get_json(http, "/api/tables")
        assert status == 200
        # A page, not the lobby: the default size, the count, a cursor to go on.
        assert len(first["tables"]) == 20 and first["total"] == 300 and first["next"]
        assert [t["id"] for t in first["tables"]] == [f"t{i:04d}" for i in range(299, 279, -1)]
        status, body = await get_json(http, "/api/tables", limit=51)
        assert status == 422 and body["detail"]["code"] == "bad_filter"
        for variant in (None, "classic", "double"):
            for free_seats in (0, 1, 2):
                params: dict[str, Any] = {"free_seats": free_seats, "limit": 50}
                if variant:
                    params["variant"] = variant
                seen: list[str] = []
                cursor = None
                while True:
                    status, page = await get_json(
                        http, "/api/tables", **params, **({"cursor": cursor} if cursor else {})
                    )
                    assert status == 200 and len(page["tables"]) <= 50
                    seen += [t["id"] for t in page["tables"]]
                    cursor = page["next"]
                    if cursor is None:
                        break
                expected = [
                    f"t{i:04d}"
                    for i in range(299, -1, -1)
                    if (variant is None or VARIANTS[i % len(VARIANTS)] == variant)
                    and i % 3 >= free_seats
                ]
                assert seen == expected and page["total"] == len(expected)
        for bad in ({"variant": "chess"}, {"free_seats": "x"}, {"limit": "0"}):
            status, body = await get_json(http, "/api/tables", **bad)
            assert status == 422 and body["detail"]["code"] == "bad_filter"
        status, body = await get_json(http, "/api/tables", cursor="nope")
        assert status == 422 and body["detail"]["code"] == "bad_cursor"


class LobbyClient:
    def __init__(self, address: str, query: str = "") -> None:
        self.url = f"ws://{address}/ws/lobby{query}"
        self.raw: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.ws: Any = None
        self.task: asyncio.Task[None] | None = None
        self.close_code: int | None = None

    async def __aenter__(self) -> LobbyClient:
        self.ws = await websockets.connect(self.url, max_size=2**24)
        self.task = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.ws.close()
        if self.task is not None:
            await self.task

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.raw.append(raw)
                self.messages.append(orjson.loads(raw))
        except websockets.ConnectionClosed:
            pass
        self.close_code = self.ws.close_code

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(orjson.dumps(msg).decode())

    async def wait(self, pred: Any, start: int = 0, timeout: float = 10.0) -> dict[str, Any]:
        for _ in range(int(timeout / 0.02)):
            for msg in self.messages[start:]:
                if pred(msg):
                    return msg
            await asyncio.sleep(0.02)
        raise AssertionError(f"no such message in {self.messages[start:]}")


@pytest.mark.asyncio
async def test_socket_pages_updates_and_limits(tmp_path: Any) -> None:
    async with lobby_server(
        tmp_path,
        300,
        lobby_page_size=5,
        lobby_page_max=10,
        lobby_socket_max_tables=20,
        ws_max_message_bytes=1024,
    ) as (address, store):
        token, _ = await guest(address, "Host")
        async with LobbyClient(address) as every, LobbyClient(address, "?variant=double") as dbl:
            first = await every.wait(lambda m: m["type"] == "lobby")
            assert len(first["tables"]) == 5 and first["total"] == 300 and first["more"]
            shown = [t["id"] for t in first["tables"]]
            assert shown == ["t0299", "t0298", "t0297", "t0296", "t0295"]
            dfirst = await dbl.wait(lambda m: m["type"] == "lobby")
            assert {t["preset"] for t in dfirst["tables"]} == {"double-hearts"}
            assert dfirst["total"] == 75
            # More: the next page comes as an update; then the window is full (20 tables).
            for _ in range(3):
                n = len(every.messages)
                await every.send({"type": "more"})
                page = await every.wait(lambda m: m["type"] == "lobby_update", start=n)
                shown += [t["id"] for t in page["tables"]]
            assert shown == [f"t{i:04d}" for i in range(299, 279, -1)]
            n = len(every.messages)
            await every.send({"type": "more"})
            err = await every.wait(lambda m: m["type"] == "error", start=n)
            assert err["code"] == "lobby_list_full"
            # Many shown tables change at once: the update is split, 10 lines a message.
            n, nd = len(every.messages), len(dbl.messages)
            async with store.redis.pipeline(transaction=False) as pipe:  # one batch
                for i in range(280, 300):
                    pipe.hset(
                        store.lobby_key_of(f"t{i:04d}"),
                        f"t{i:04d}",
                        line(f"t{i:04d}", free=0, humans=2, created=i),
                    )
                for i in range(280, 300):
                    pipe.publish(store.lobby_channel, f"t{i:04d}")
                await pipe.execute()
            await every.wait(lambda m: m["type"] == "lobby_update" and m["total"], start=n)
            await asyncio.sleep(0.6)
            updates = [m for m in every.messages[n:] if m["type"] == "lobby_update"]
            assert sorted(len(u["tables"]) for u in updates) == [10, 10]
            assert {t["id"] for u in updates for t in u["tables"]} == set(shown)
            # The double-hearts socket saw its 5 tables turn classic: they leave its list
            # and the next ones fill it.
            dupdate = await dbl.wait(lambda m: m["type"] == "lobby_update", start=nd)
            assert dupdate["total"] == 70 and len(dupdate["removed"]) == 5
            assert len(dupdate["tables"]) == 5
            # A new table reaches the sockets it belongs to, not the others.
            n, nd = len(every.messages), len(dbl.messages)
            created = await create_table(address, token, preset="classic")
            new_id = created["table"]["id"]
            update = await every.wait(lambda m: m["type"] == "lobby_update", start=n)
            assert [t["id"] for t in update["tables"]] == [new_id]
            assert update["total"] == 301 and len(update["removed"]) == 1  # the window slides
            await asyncio.sleep(0.6)
            assert dbl.messages[nd:] == []
            # Subscribe changes the filter; bad values are refused and change nothing.
            n = len(dbl.messages)
            await dbl.send({"type": "subscribe", "free_seats": 2, "limit": 3})
            sub = await dbl.wait(lambda m: m["type"] == "lobby", start=n)
            assert (
                sub["filter"] == {"variant": None, "free_seats": 2, "pace": None}
                and len(sub["tables"]) == 3
            )
            assert all(t["open_seats"] >= 2 for t in sub["tables"])
            for bad in (
                {"type": "subscribe", "variant": "chess"},
                {"type": "subscribe", "limit": 11},
                {"type": "subscribe", "free_seats": "two"},
            ):
                n = len(dbl.messages)
                await dbl.send(bad)
                assert (await dbl.wait(lambda m: True, start=n))["code"] == "bad_filter"
            n = len(dbl.messages)
            await dbl.send({"type": "teleport"})
            assert (await dbl.wait(lambda m: True, start=n))["code"] == "unknown_type"
            await dbl.ws.send("x" * 2000)
            assert (await dbl.wait(lambda m: True, start=n + 1))["code"] == "too_large"
            n = len(dbl.messages)
            await dbl.send({"type": "ping", "t": 5})
            assert await dbl.wait(lambda m: True, start=n) == {"type": "pong", "t": 5}
            # Every message stayed within the cap: 10 lines at most.
            for msg in every.messages + dbl.messages:
                assert len(msg.get("tables", ())) <= 10
        async with LobbyClient(address, "?limit=11") as bad:
            err = await bad.wait(lambda m: m["type"] == "error")
            assert err["code"] == "bad_filter"
            await asyncio.wait_for(bad.task, 5)
            assert bad.close_code == 4400


@pytest.mark.asyncio
async def test_the_first_message_does_not_grow_with_the_lobby(tmp_path: Any) -> None:
    sizes = []
    for n, sub in ((30, "small"), (600, "large")):
        (tmp_path / sub).mkdir()
        async with (
            lobby_server(tmp_path / sub, n) as (address, _store),
            LobbyClient(address) as client,
        ):
            first = await client.wait(lambda m: m["type"] == "lobby")
            assert first["total"] == n and len(first["tables"]) == 20
            sizes.append(len(client.raw[0]))
    # 20 lines either way (only the digits of ids and times differ); the whole lobby of 600
    # tables was 20 times the size of the small one.
    assert sizes[1] < sizes[0] * 1.05


@pytest.mark.asyncio
async def test_tables_without_people_leave_the_lobby_and_stay_reachable(tmp_path: Any) -> None:
    async with lobby_server(tmp_path, 0) as (address, _store):
        token, _ = await guest(address, "Solo")
        created = await create_table(
            address, token, preset="classic", bots={"1": "easy", "2": "easy", "3": "easy"}
        )
        table_id = created["table"]["id"]
        async with (
            LobbyClient(address) as lobby,
            httpx.AsyncClient(base_url=f"http://{address}") as http,
        ):
            first = await lobby.wait(lambda m: m["type"] == "lobby")
            assert [t["id"] for t in first["tables"]] == [table_id]
            from tests.realtime.harness import Client

            solo = Client(address, table_id, token, "solo")
            await solo.connect()
            await solo.wait(lambda m: m["type"] == "state")
            assert (await solo.command("start"))["type"] == "ack"
            n = len(lobby.messages)
            assert (await solo.command("leave"))["type"] == "ack"  # the computers play on
            update = await lobby.wait(
                lambda m: m["type"] == "lobby_update" and m["removed"], start=n
            )
            assert update["removed"] == [table_id] and update["total"] == 0
            _, page = await get_json(http, "/api/tables")
            assert page["tables"] == [] and page["total"] == 0
            r = await http.get(f"/api/tables/{table_id}")
            assert r.status_code == 200 and r.json()["table"]["status"] in ("playing", "over")
            await solo.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["fake", "real", "cluster"])
async def test_lobby_updates_reach_sockets_on_another_instance(kind: str, tmp_path: Any) -> None:
    from tests.realtime.test_instances import two_instances

    async with two_instances(kind, tmp_path) as (a, b, _):
        token, _ = await guest(a, "OnA")
        async with LobbyClient(b) as on_b, LobbyClient(a, "?variant=double") as dbl_a:
            await on_b.wait(lambda m: m["type"] == "lobby")
            await dbl_a.wait(lambda m: m["type"] == "lobby")
            created = await create_table(a, token, preset="double-hearts")
            table_id = created["table"]["id"]
            update = await on_b.wait(lambda m: m["type"] == "lobby_update")
            assert [t["id"] for t in update["tables"]] == [table_id]
            update = await dbl_a.wait(lambda m: m["type"] == "lobby_update")
            assert [t["id"] for t in update["tables"]] == [table_id]
            async with httpx.AsyncClient(base_url=f"http://{b}") as http:
                _, page = await get_json(http, "/api/tables", variant="double")
                assert [t["id"] for t in page["tables"]] == [table_id]


def test_a_listed_line_keeps_its_players_ids_in_the_index_and_sends_none() -> None:
    """The lobby is everyone's: the seated players' ids stay in the index (friends' tables
    first) and never leave it, whatever the stored line holds (names are what seats show)."""
    entry = parse_entry("t1", line("t1", humans=2, free=2))
    assert entry is not None
    assert entry.players == frozenset({"t1-p0", "t1-p1"})
    sent = orjson.loads(entry.raw)
    assert [s.get("name") for s in sent["seats"]] == ["P0", "P1", None, None]
    assert b"player_id" not in entry.raw and b"t1-p0" not in entry.raw


def test_the_pace_filter_lists_live_or_turn_based_tables() -> None:
    """A lobby read by pace: turn-based tables alone (games over days), live ones alone, or
    both; with the variant and free-seat filters as before. A bad pace is refused."""
    index = LobbyIndex()
    index.put("live1", line("live1", free=1, created=5))
    index.put("turn1", line("turn1", free=1, created=6, pace="turn"))
    index.put("turn2", line("turn2", variant="double", free=0, created=7, pace="turn"))
    ids = lambda f: [e.id for e in index.page(f, None, 50)]  # noqa: E731
    assert ids(LobbyFilter()) == ["turn2", "turn1", "live1"]
    assert ids(parse_filter(None, None, "turn")) == ["turn2", "turn1"]
    assert ids(parse_filter(None, None, "live")) == ["live1"]
    assert ids(parse_filter(None, "1", "turn")) == ["turn1"]
    assert ids(parse_filter("double", None, "live")) == []
    assert index.count(parse_filter(None, None, "turn")) == 2
    index.put("turn1", line("turn1", status="over", created=6, pace="turn"))
    assert ids(parse_filter(None, None, "turn")) == ["turn2"]
    for bad in ("slow", 1, True, ["turn"]):
        with pytest.raises(LobbyError) as err:
            parse_filter(None, None, bad)
        assert err.value.code == "bad_filter"
