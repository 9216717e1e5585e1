"""Table sockets relayed to their table's home instance (app/realtime/relay.py): two
instances in this process on one Redis (the stand-in, a real Redis, the Cluster); a table's
first socket names its home, and sockets that reach the other instance are passed on."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import fakeredis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.realtime.relay import BYTES, CLOSE, GONE, OPEN, TEXT, Relay, _Edge, record, records
from app.settings import Settings
from app.store import TableStore, keys
from tests.conftest import backend_url, drop_namespace
from tests.realtime.harness import (
    Client,
    create_table,
    guest,
    in_process_server,
    play_until_over,
)
from tests.realtime.test_games import settings_for

KINDS = [OPEN, TEXT, BYTES, GONE, CLOSE]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(KINDS),
            st.binary(min_size=16, max_size=16),
            st.binary(max_size=300),
        ),
        max_size=20,
    )
)
def test_records_read_back_as_written(items: list[tuple[bytes, bytes, bytes]]) -> None:
    data = b"".join(record(k, s, p) for k, s, p in items)
    assert list(records(data)) == items
    if data:  # a message cut short is refused, not half read
        with pytest.raises(ValueError):
            list(records(data[:-1]))


class Sent:
    """Stands for an edge's client socket: what it was sent."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.ended = False

    def send(self, data: bytes) -> None:
        self.frames.append(data)

    def end(self) -> None:
        self.ended = True


@pytest.mark.asyncio
async def test_a_bad_record_does_not_cost_the_others_in_its_message() -> None:
    """One socket's bad record (an open that is not JSON) is dropped alone: the frames for
    the other sockets in the same message still reach them; a message cut short is dropped
    whole, nothing half read."""
    store = TableStore(fakeredis.FakeAsyncRedis(), namespace="ns")
    relay = Relay(store, None, "ns", "B", 60_000.0, max_message_bytes=4096)
    socket = Sent()
    sid = b"0123456789abcdef"
    relay.edges[sid] = _Edge(sid, "A", socket)  # type: ignore[arg-type]
    message = record(OPEN, b"fedcba9876543210", b"{not json") + record(TEXT, sid, b'{"a":1}')
    relay.on_message("ch", message)
    assert socket.frames == [b'{"a":1}'] and not relay.homes
    relay.on_message("ch", record(TEXT, sid, b"two") + record(TEXT, sid, b"three")[:-1])
    assert socket.frames == [b'{"a":1}']
    relay.on_message("ch", record(CLOSE, sid, b"\x03\xf4"))  # 1012, before any other answer
    assert socket.ended and relay.edges[sid].close == (1012, "")


Instances = tuple[str, str, list[Any]]


@contextlib.contextmanager
def one_redis(backend: str, tmp_path: Any) -> Iterator[tuple[Settings, Any]]:
    """The settings of instances on one Redis of ``backend`` (a namespace of their own,
    dropped afterwards), and the stand-in server they share (None on a real Redis)."""
    namespace = "relay" + uuid.uuid4().hex[:8]
    url = backend_url(backend)
    settings = settings_for(tmp_path, redis_url=url, redis_namespace=namespace, secret_key="r" * 32)
    try:
        yield settings, fakeredis.FakeServer() if backend == "fake" else None
    finally:
        if backend != "fake":
            drop_namespace(url, namespace)


def instance(settings: Settings, name: str, first: bool) -> Settings:
    """Instance ``name``'s settings: the first one migrates the database."""
    return settings.model_copy(update={"instance_id": name, "migrate_on_start": first})


@contextlib.asynccontextmanager
async def two_instances(backend: str, tmp_path: Any) -> AsyncIterator[Instances]:
    """Instances A and B on one Redis of ``backend``: (A's address, B's, [A's app, B's])."""
    apps: list[Any] = []
    with one_redis(backend, tmp_path) as (settings, fake):
        async with (
            in_process_server(instance(settings, "A", True), fake, None, apps) as a,
            in_process_server(instance(settings, "B", False), fake, None, apps) as b,
        ):
            yield a, b, apps


async def until(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


def states(client: Client) -> list[tuple[int, Any]]:
    """The (version, view) of every state a client was sent, in order."""
    return [(m["version"], m["view"]) for m in client.messages if m["type"] == "state"]


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["fake", "real", "cluster"])
async def test_a_tables_sockets_on_another_instance_are_served_by_its_home(
    backend: str, tmp_path: Any
) -> None:
    """A player and a spectator on B, the table's first socket on A: B passes their frames
    on, A serves them. The game plays to its end; the relayed spectator is sent exactly the
    states the spectator on A is (nothing a spectator may not see rides the relay); bad
    input through the relay gets the endpoint's own answers; leaving is seen by the home."""
    async with two_instances(backend, tmp_path) as (a, b, (app_a, app_b)):
        relay_a, relay_b = app_a.state.services.relay, app_b.state.services.relay
        t0, _ = await guest(a, "Ann")
        t1, _ = await guest(b, "Bob")
        created = await create_table(a, t0, preset="classic", options={"end": "hands", "hands": 1})
        table_id = created["table"]["id"]
        ann = Client(a, table_id, t0, "ann")
        await ann.connect()
        await ann.wait(lambda m: m["type"] == "welcome")  # A names itself the home
        bob = Client(b, table_id, t1, "bob")
        watch_b = Client(b, table_id, None, "watch-b")
        watch_a = Client(a, table_id, None, "watch-a")
        for c in (bob, watch_b, watch_a):
            await c.connect()
            await c.wait(lambda m: m["type"] == "state")
        assert len(relay_b.edges) == 2 and len(relay_a.homes) == 2
        assert not relay_a.edges and not relay_b.homes
        # B holds no hub for the table (it reads and parses nothing of it); A serves all four.
        assert table_id not in app_b.state.services.hubs.tables
        assert len(app_a.state.services.hubs.tables[table_id].conns) == 4

        # Bad input through the relay: the endpoint's own answers, as on a direct socket,
        # and the socket stays.
        for bad in ("x" * 5000, b"\x00\x01", "{"):
            for c in (bob, ann):
                n = len(c.messages)
                await c.send(bad)
                await c.wait(lambda m: m["type"] == "error", start=n)
            codes = [[m["code"] for m in c.messages if m["type"] == "error"] for c in (bob, ann)]
            assert codes[0] == codes[1], codes
        assert codes[0][0] == "too_large"
        assert (await bob.command("sit", seat=1))["type"] == "ack"
        for seat in (2, 3):
            assert (await ann.command("add_bot", seat=seat))["type"] == "ack"
        assert (await ann.command("start"))["type"] == "ack"
        await asyncio.wait_for(
            asyncio.gather(
                play_until_over(ann, random.Random(0)), play_until_over(bob, random.Random(1))
            ),
            60,
        )
        for c in (watch_a, watch_b, bob):
            await c.wait_state(lambda m: m["table"]["status"] == "over")
        final = (await bob.wait_state(lambda m: m["table"]["status"] == "over"))["version"]
        await watch_a.wait_state(lambda m, v=final: m["version"] >= v)
        await watch_b.wait_state(lambda m, v=final: m["version"] >= v)
        assert states(watch_b) == states(watch_a)
        assert all(view is None or "hand" not in view for _, view in states(watch_b))
        # Bob's own hand came through the relay, and only his.
        hands = [v for _, v in states(bob) if v is not None and v.get("seat") == 1]
        assert hands and all(v["seat"] == 1 for _, v in states(bob) if v is not None)

        await bob.close()
        await watch_b.close()
        await until(lambda: not relay_a.homes and not relay_b.edges, "the home saw them leave")
        assert len(app_a.state.services.hubs.tables[table_id].conns) == 2
        for c in (ann, watch_a):
            await c.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["fake", "real"])
async def test_when_the_home_stops_its_relayed_pages_come_back_and_play_on(
    backend: str, tmp_path: Any
) -> None:
    """A stops: the sockets it served for B are closed with 1012; each page comes back to
    B at once, which now serves the table itself, and play goes on."""
    apps: list[Any] = []
    with one_redis(backend, tmp_path) as (settings, fake):
        async with in_process_server(instance(settings, "B", True), fake, None, apps) as b:
            bob_token, _ = await guest(b, "Bob")
            async with in_process_server(instance(settings, "A", False), fake, None, apps) as a:
                ann_token, _ = await guest(a, "Ann")
                created = await create_table(
                    a, ann_token, preset="classic", options={"end": "hands", "hands": 1}
                )
                table_id = created["table"]["id"]
                ann = Client(a, table_id, ann_token, "ann")
                await ann.connect()
                await ann.wait(lambda m: m["type"] == "welcome")
                bob = Client(b, table_id, bob_token, "bob", comes_back=True)
                await bob.connect()
                await bob.wait(lambda m: m["type"] == "state")
                assert (await bob.command("sit", seat=1))["type"] == "ack"
                assert len(apps[0].state.services.relay.edges) == 1
                for seat in (2, 3):
                    assert (await ann.command("add_bot", seat=seat))["type"] == "ack"
                assert (await ann.command("start"))["type"] == "ack"
                assert (await ann.command("leave"))["type"] == "ack"  # a computer takes seat 0
                await ann.close()
                before = bob.reconnects
            # A is gone (its relay closed Bob's socket with 1012): Bob comes back to B.
            deadline = time.monotonic() + 10
            while bob.reconnects == before:  # its wait() comes back, as the page does
                assert time.monotonic() < deadline, "Bob was not sent back"
                with contextlib.suppress(AssertionError):
                    await bob.wait(lambda m: False, timeout=0.1)
            assert bob.reconnects == before + 1
            assert bob.closed_code is None
            await until(
                lambda: [m["type"] for m in bob.messages].count("welcome") == 2, "B welcomed Bob"
            )
            relay_b = apps[0].state.services.relay
            assert not relay_b.edges  # served by B itself now
            assert table_id in apps[0].state.services.hubs.tables
            await asyncio.wait_for(play_until_over(bob, random.Random(2)), 60)
            await bob.close()


@pytest.mark.asyncio
async def test_an_edge_turned_away_by_a_stopping_home_serves_the_socket_itself(
    tmp_path: Any,
) -> None:
    """The home has begun to stop (SIGTERM: ``going``) but B still reads it alive: the home
    turns the socket away before answering it, and B serves it itself, the client's hello
    read again. The client sees one welcome and no close."""
    async with two_instances("real", tmp_path) as (a, b, (app_a, app_b)):
        t0, _ = await guest(a, "Ann")
        created = await create_table(a, t0, preset="classic", options={"end": "hands", "hands": 1})
        table_id = created["table"]["id"]
        ann = Client(a, table_id, t0, "ann")
        await ann.connect()
        await ann.wait(lambda m: m["type"] == "welcome")
        relay_a = app_a.state.services.relay
        app_a.state.going()
        await until(lambda: relay_a._going is not None and relay_a._going.done(), "A said so")
        # B still believes A alive (the moment between A's SIGTERM and its key's deletion).
        await app_a.state.services.redis.set(relay_a.homes_store.alive_key, b"1", px=5000)
        watcher = Client(b, table_id, None, "watcher")
        await watcher.connect()
        first = await watcher.wait(lambda m: m["type"] == "state")
        assert [m["type"] for m in watcher.messages].count("welcome") == 1
        assert first["table_id"] == table_id and watcher.closed_code is None
        assert not app_b.state.services.relay.edges
        assert table_id in app_b.state.services.hubs.tables
        # B named itself the table's home.
        home = await app_b.state.services.redis.hget(keys.sockets_key(table_id), "home")
        assert home == b"B"
        await watcher.close()
        await ann.close()
