"""bench.ports.free_port: a port a server can then listen on."""

from __future__ import annotations

import socket

from bench.ports import free_port


def test_a_free_port_can_be_listened_on() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        s.listen()
