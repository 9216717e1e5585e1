"""Frames written straight to the transport: the same bytes as the websockets library's, one
write per socket per turn of the loop, and the ASGI path kept in order when the transport
pushes back."""

from __future__ import annotations

import asyncio

import pytest
from websockets.frames import Frame, Opcode

from app.realtime.hub import Connection
from app.realtime.wire import text_frame

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("size", [0, 1, 125, 126, 3000, 65535, 65536, 70000])
async def test_a_text_frame_is_what_websockets_would_write(size: int) -> None:
    payload = bytes(48 + i % 10 for i in range(size))
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) == expected


class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed


class FakeWire:
    """What Connection reads of uvicorn's protocol object."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.close_sent = False
        self.conn = FakeProtocol()
        self.transport = FakeTransport()


class FakeProtocol:
    close_sent: object = None  # websockets: the close frame this side sent


async def turn() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_the_sends_of_one_turn_go_out_in_one_write() -> None:
    via_asgi: list[str] = []

    async def send_text(text: str) -> None:
        via_asgi.append(text)

    wire = FakeWire()
    conn = Connection(send_text, "k", None, wire=wire)
    conn.start()
    conn.send(b'{"type":"ack"}')
    conn.send(b'{"type":"state"}')
    assert wire.transport.writes == []  # at the end of this turn
    await turn()
    assert wire.transport.writes == [
        text_frame(b'{"type":"ack"}') + text_frame(b'{"type":"state"}')
    ]
    assert via_asgi == []
    await conn.stop()


async def test_a_transport_that_pushes_back_gets_the_rest_through_asgi_in_order() -> None:
    gate = asyncio.Event()
    via_asgi: list[str] = []

    async def send_text(text: str) -> None:
        await gate.wait()  # uvicorn's send waits while the transport is paused
        via_asgi.append(text)

    wire = FakeWire()
    conn = Connection(send_text, "k", None, wire=wire)
    conn.start()
    conn.send(b"1")
    wire.writable.clear()  # paused: what was framed goes first, the next send waits
    conn.send(b"2")
    assert wire.transport.writes == [text_frame(b"1")]
    wire.writable.set()
    conn.send(b"3")  # queued behind "2", not written ahead of it
    await turn()
    assert wire.transport.writes == [text_frame(b"1")] and via_asgi == []
    gate.set()
    await turn()
    assert via_asgi == ["2", "3"]
    conn.send(b"4")  # the queue is empty again: framed and written directly
    await turn()
    assert wire.transport.writes == [text_frame(b"1"), text_frame(b"4")]
    await conn.stop()


async def test_what_was_sent_before_a_close_goes_out_and_nothing_after() -> None:
    async def send_text(text: str) -> None:
        raise AssertionError("not through ASGI")

    wire = FakeWire()
    conn = Connection(send_text, "k", None, wire=wire)
    conn.start()
    conn.send(b"last words")
    await conn.stop()  # flushed before the socket's close
    assert wire.transport.writes == [text_frame(b"last words")]
    conn.send(b"after")
    await turn()
    assert wire.transport.writes == [text_frame(b"last words")]
    # A transport already closing takes nothing.
    wire2 = FakeWire()
    conn2 = Connection(send_text, "k", None, wire=wire2)
    conn2.send(b"x")
    wire2.transport.closed = True
    await turn()
    assert wire2.transport.writes == []
    # Nor one whose close frame went out (websockets wrote it: a failed ping, a bad frame).
    wire3 = FakeWire()
    conn3 = Connection(send_text, "k", None, wire=wire3)
    conn3.send(b"x")
    wire3.conn.close_sent = object()
    await turn()
    assert wire3.transport.writes == []
