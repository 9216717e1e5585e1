"""The per-socket sender: sends at once when the socket takes them, in order when it does not."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import orjson
import pytest

from app.realtime.hub import OUTBOX_LIMIT, Connection, TableHub
from app.store.errors import StoreUnavailable

pytestmark = pytest.mark.asyncio


async def test_sends_stay_in_order_when_the_transport_pushes_back() -> None:
    sent: list[str] = []
    gate = asyncio.Event()
    gate.set()

    async def send_text(text: str) -> None:
        await gate.wait()  # as uvicorn's send waits while the transport is paused
        sent.append(text)

    closes: list[str] = []
    conn = Connection(send_text, "k", None)
    conn.on_close = lambda: closes.append("closed")
    conn.start()
    conn.send(b"1")
    assert sent == ["1"]  # sent at once, no task switch
    gate.clear()
    conn.send(b"2")  # has to wait
    conn.send(b"3")  # queued behind it
    await asyncio.sleep(0.01)
    assert sent == ["1"]
    gate.set()
    for _ in range(20):
        await asyncio.sleep(0)
    assert sent == ["1", "2", "3"]
    conn.send(b"4")
    assert sent[-1] == "4"  # at once again once the queue drained
    # A client that stops reading for good is dropped as too slow.
    gate.clear()
    for _ in range(OUTBOX_LIMIT + 2):
        conn.send(b"x")
    assert conn.too_slow and conn.closed.is_set() and closes == ["closed"]
    await conn.stop()


async def test_a_failing_send_closes_the_connection() -> None:
    async def send_text(text: str) -> None:
        raise RuntimeError("gone")

    conn = Connection(send_text, "k", None)
    conn.start()
    conn.send(b"1")
    assert conn.closed.is_set()
    await conn.stop()


async def test_a_notice_is_queued_once_whichever_way_it_comes_first() -> None:
    hub = TableHub(cast(Any, None), "t1")
    note = {"v": 5, "s": 1, "events": [{"kind": "sat", "seat": 1, "v": 5}]}
    hub.note_version = 4
    hub.committed_here(note)  # this instance committed version 5
    hub.on_message("ch", orjson.dumps(note))  # ... and its channel says so too
    hub.on_message("ch", orjson.dumps({"v": 6, "s": 1, "events": []}))  # another's change
    hub.on_message("ch", orjson.dumps({"v": 6, "s": 1, "events": []}))
    hub.on_message("ch", b"not json")  # logged and dropped
    hub.on_message("ch", b'{"v":"x"}')
    queued = [hub._notes.get_nowait() for _ in range(hub._notes.qsize())]
    assert queued == [note, {"v": 6, "s": 1, "events": []}] and hub.note_version == 6


async def test_stop_ends_the_hub_even_when_a_cancellation_is_swallowed() -> None:
    """A library awaited by the hub may swallow a cancellation: stop() cancels again."""

    class Fanout:
        async def unsubscribe(self, channel: str, callback: Any) -> None:
            return None

    hub = TableHub(cast(Any, type("Hubs", (), {"fanout": Fanout()})()), "t1")
    swallowed = asyncio.Event()

    async def handle(note: dict[str, Any]) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            swallowed.set()  # and carries on, as the hung hubs did

    hub._handle = handle  # type: ignore[method-assign]
    hub._task = asyncio.create_task(hub._run())
    hub._notes.put_nowait({"v": 1})
    await asyncio.sleep(0.05)
    stopping = asyncio.create_task(hub.stop())
    done, _ = await asyncio.wait({stopping}, timeout=5)  # no cancel of stop() on a timeout
    assert stopping in done and swallowed.is_set() and hub._task.done()


async def test_a_notice_whose_table_could_not_be_read_is_read_again() -> None:
    """Redis down or a failover under way when a change's notice came: the hub reads the
    table again later (0.25 s, doubling), until it works, so the change reaches its sockets
    even if the table changes no more (a failover test's player waited for ever for it)."""

    class Fanout:
        async def unsubscribe(self, channel: str, callback: Any) -> None:
            return None

    hub = TableHub(cast(Any, type("Hubs", (), {"fanout": Fanout()})()), "t1")
    handled: list[dict[str, Any]] = []
    failures = [StoreUnavailable("down"), StoreUnavailable("still down")]

    async def handle(note: dict[str, Any]) -> None:
        handled.append(note)
        if failures:
            raise failures.pop(0)

    hub._handle = handle  # type: ignore[method-assign]
    hub._task = asyncio.create_task(hub._run())
    hub._notes.put_nowait({"v": 7, "s": 1})
    for _ in range(200):
        await asyncio.sleep(0.01)
        if len(handled) == 3:
            break
    # The notice, then a fresh read after 0.25 s and another after 0.5 s: the last worked.
    assert handled == [{"v": 7, "s": 1}, {"resync": True}, {"resync": True}]
    await asyncio.sleep(0.3)
    assert len(handled) == 3 and hub._retry is None  # nothing more once it worked
    await hub.stop()


async def test_state_messages_views_are_the_engines_views() -> None:
    # The common part is encoded once and each seat's own keys added to it: every message
    # parses to engine.view's view of its seat (spectators: None), score sheet or not, and a
    # pause between hands offers no seat a move.
    import random

    from app import engine
    from app.realtime.hub import StateMessages
    from app.tables.model import Seat, Table

    state = engine.new_game(engine.make_rules("classic"), 3)
    rng = random.Random(3)
    for _ in range(60):  # passes done, into the first hand's tricks
        seat = engine.seats_to_act(state)[0]
        state = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
    seats = [Seat(kind="human", player_id=f"p{i}", name=f"P{i}") for i in range(4)]
    table = Table("t1", "classic", {}, 4, False, None, "p0", seats, 0, 0.0, status="playing")
    table.version = 7
    for paused in (False, True):
        table.pause_until_ms = 1.0 if paused else None
        messages = StateMessages(table, state, None, 0.0)
        for sheet in (True, False):
            for seat_no in (None, 0, 1, 2, 3):
                got = orjson.loads(messages._view(seat_no, sheet))
                want = engine.view(state, seat_no, sheet)
                if paused and seat_no is not None:
                    want["legal"] = None
                assert got == want


async def test_a_notice_of_a_version_seen_but_committed_later_resyncs_the_hub() -> None:
    """Whatever made the table's version go back (Redis lost its last writes, a failover to a
    replica behind, a restored backup), its next changes reuse version numbers the hub has
    seen: a notice of such a version committed after the newest one queues a resync (once),
    while this instance's own commits coming back from the channel queue nothing."""
    hub = TableHub(cast(Any, type("Hubs", (), {"fanout": None})()), "t1")

    def queued() -> list[Any]:
        out = []
        while not hub._notes.empty():
            out.append(hub._notes.get_nowait())
        return out

    def notice(v: int, t: float) -> bytes:
        return orjson.dumps({"v": v, "s": 1, "events": [{"kind": "chat", "t": 9e12}], "t": t})

    hub.committed_here({"v": 1, "s": 1, "t": 1000.0})  # committed here: queued at once
    hub.on_message("c", notice(1, 1000.0))  # its echo from the channel
    hub.on_message("c", notice(2, 1001.0))  # another instance's change
    hub.committed_here({"v": 3, "s": 1, "t": 1002.0})
    hub.committed_here({"v": 4, "s": 1, "t": 1003.0})
    hub.on_message("c", notice(3, 1002.0))  # echoes after a newer commit here
    hub.on_message("c", notice(4, 1003.0))
    assert [n.get("v") for n in queued()] == [1, 2, 3, 4]
    # the table went back to version 2: its next change is a version 3 again, later
    hub.on_message("c", notice(3, 5000.0))
    hub.on_message("c", notice(4, 5001.0))
    hub.committed_here({"v": 4, "s": 1, "t": 5002.0})
    assert queued() == [{"resync": True}]
    # once resynced (what _resync does first), a rewind found by this instance's own commit
    hub._went_back = False
    hub.committed_here({"v": 2, "s": 1, "t": 6000.0})
    assert queued() == [{"resync": True}]


async def test_a_join_that_reads_a_newer_version_does_not_keep_it_from_the_others() -> None:
    """A change committed while a second socket's join waited in the queue: the join reads
    the table at that version and sends it to the joiner; the change's notice, handled next,
    still sends it to every other socket (it went to none: a player waited for ever)."""
    from app import engine
    from app.tables.model import Seat, Table

    state = engine.new_game(engine.make_rules("classic"), 3)
    seats = [Seat(kind="human", player_id=f"p{i}", name=f"P{i}") for i in range(4)]
    table = Table("t1", "classic", {}, 4, False, None, "p0", seats, 0, 0.0, status="playing")
    table.version = 2

    class Service:
        def clock(self) -> float:
            return 0.0

        async def read(self, table_id: str, at_least: int | None = None) -> tuple[Any, Any]:
            return table, state

    hub = TableHub(cast(Any, type("Hubs", (), {"service": Service()})()), "t1")
    sent: dict[str, list[dict[str, Any]]] = {"p0": [], "watcher": []}

    def connection(name: str, player_id: str | None) -> Connection:
        conn = Connection(lambda _text: asyncio.sleep(0), name, player_id)
        conn.send = lambda msg: sent[name].append(orjson.loads(msg))  # type: ignore[method-assign]
        return conn

    player = connection("p0", "p0")
    player.state_version = player.event_version = 1  # it saw version 1
    hub.conns.add(player)
    hub.state_version = hub.note_version = 1
    watcher = hub.enqueue_join(connection("watcher", None), None)
    hub.committed_here({"v": 2, "s": 1, "events": [{"kind": "started", "v": 2}]})
    hub._task = asyncio.create_task(hub._run())
    await asyncio.wait_for(watcher.done, 5)
    for _ in range(100):
        if any(m["type"] == "state" for m in sent["p0"]):
            break
        await asyncio.sleep(0.01)
    hub._task.cancel()
    states = [m for m in sent["p0"] if m["type"] == "state"]
    assert [m["version"] for m in states] == [2], sent["p0"]
    assert states[0]["events"] == [{"kind": "started", "v": 2}]
    assert [m["type"] for m in sent["watcher"]] == ["state"]
