"""A free TCP port on 127.0.0.1 for a server a benchmark or a test starts (the system picks
one; it is free again once the probe's socket closes, for the server to take)."""

from __future__ import annotations

import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
