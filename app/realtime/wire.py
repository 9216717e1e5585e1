"""Writing WebSocket frames straight to the server's transport (the sends of the move path).

Every change of a table sends one state message to each of its sockets, and the mover an ack:
seven sends a move at a table of four players and two spectators. Through ASGI each send
decodes the message to text, passes four layers (Starlette's WebSocket, its exception
wrapper, uvicorn's protocol, the websockets library's framing), which re-encode it, and
writes it with its own system call. When the socket runs on uvicorn's ``websockets-sansio``
protocol with no extension (no per-message deflate), :class:`app.realtime.hub.Connection`
instead frames the message itself (a server frame is not masked: the header and the payload
as they are) and writes it to the transport, and the sends to one socket in the same turn of
the event loop (the mover's ack and its new state) go out in one write (bench.load measures
the difference: docs/scaling.md).

Anything else (a send while the transport pushes back, a closing socket, another server or
protocol, the test client) goes through ASGI as before.
"""

from __future__ import annotations

import struct
from typing import Any

from starlette.websockets import WebSocket

try:  # uvicorn's own module: another version or server leaves every send on the ASGI path
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - depends on the installed uvicorn
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]


def text_frame(payload: bytes) -> bytes:
    """One unfragmented text frame as a server sends it (FIN, opcode 1, no mask)."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + payload
    return struct.pack("!BBQ", 0x81, 127, n) + payload


def wire_of(ws: WebSocket) -> Any | None:
    """The uvicorn protocol object under ``ws`` when frames may be written to its transport
    directly (an accepted socket with no extension), else None."""
    # Starlette keeps the server's ``receive`` as it is (only ``send`` is wrapped): a bound
    # method of the protocol object.
    proto = getattr(getattr(ws, "_receive", None), "__self__", None)
    if WebSocketsSansIOProtocol is None or not isinstance(proto, WebSocketsSansIOProtocol):
        return None
    # The attributes this module reads, checked once a socket: a uvicorn that renamed one
    # keeps this socket on the ASGI path instead of failing its sends.
    try:
        if not proto.handshake_complete or proto.conn.extensions:
            return None  # per-message deflate: websockets compresses each frame
        proto.writable.is_set()
        _ = (proto.close_sent, proto.conn.close_sent, proto.transport.is_closing())
    except AttributeError:
        return None
    return proto


def writable(proto: Any) -> bool:
    """The transport takes data without pushing back (uvicorn's flow control): checked at
    each send, so kept to one attribute; whether the socket is still open is checked once a
    write, by :func:`closing`."""
    return bool(proto.writable.is_set())


def closing(proto: Any) -> bool:
    """This side sent its close (uvicorn's flag, or a close frame the websockets protocol
    object wrote itself), or the connection is going: no frame may follow."""
    return bool(
        proto.close_sent or proto.conn.close_sent is not None or proto.transport.is_closing()
    )
