"""The Redis client factory."""

from __future__ import annotations

import asyncio

import pytest

from app.store import make_redis

pytestmark = pytest.mark.asyncio


async def test_the_embedded_stand_in_waits_for_a_connection_under_a_burst() -> None:
    """Many sockets opening at once on the embedded server each read the table: past the pool's
    size the stand-in used to raise MaxConnectionsError instead of waiting (issue 18 review)."""
    client = make_redis("memory://", max_connections=8)
    try:

        async def one(i: int) -> bytes | None:
            await client.set(f"k{i}", i)
            value: bytes | None = await client.get(f"k{i}")
            return value

        got = await asyncio.gather(*(one(i) for i in range(300)))
        assert got == [str(i).encode() for i in range(300)]
    finally:
        await client.aclose()
