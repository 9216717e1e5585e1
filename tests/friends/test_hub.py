"""Presence in Redis (app.friends.hub): combining instances' fields, expiry, the heartbeat."""

from __future__ import annotations

from typing import Any

import fakeredis
import orjson
import pytest

from app.friends.hub import FriendsHub, _Local, combine, presence_key


def _field(state: str, at: float, **extra: Any) -> bytes:
    return orjson.dumps({"s": state, "at": at, **extra})


def test_combine_prefers_a_table_then_the_lobby_and_ignores_stale_fields() -> None:
    now = 100_000.0
    fields = {
        b"A": _field("away", now - 1000),
        b"B": _field("lobby", now - 2000),
        b"C": _field("playing", now - 40_000, t="old", pub=True),  # older than the expiry
    }
    assert combine(fields, now, 30_000) == {"s": "lobby"}
    fields[b"D"] = _field("playing", now - 5000, t="t1", pub=False)
    assert combine(fields, now, 30_000) == {"s": "playing", "t": "t1", "pub": False}
    assert combine({}, now, 30_000) == {"s": "offline"}
    assert combine({b"A": b"not json"}, now, 30_000) == {"s": "offline"}


class _Conn:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, data: bytes) -> None:
        self.sent.append(orjson.loads(data))


class _NoFanout:
    async def subscribe(self, *_: Any) -> None:
        return None


@pytest.mark.asyncio
async def test_heartbeat_refreshes_every_local_player_in_one_pipeline() -> None:
    redis = fakeredis.FakeAsyncRedis()
    hub = FriendsHub(redis, None, _NoFanout(), "ns", "A", ttl_seconds=30)  # type: ignore[arg-type]
    hub.local["p1"] = _Local(tables={"t1": (True, True, 1.0)})
    hub.local["p2"] = _Local(tables={"t2": (False, False, 1.0)}, hidden=True)  # appear offline
    await hub.heartbeat()
    assert await redis.hkeys(presence_key("ns", "p1")) == [b"A"]
    assert 0 < await redis.pttl(presence_key("ns", "p1")) <= 30_000
    assert not await redis.exists(presence_key("ns", "p2"))
    state = await hub.presence_of(["p1", "p2"])
    assert state["p1"] == {"s": "playing", "t": "t1", "pub": True}
    assert state["p2"] == {"s": "offline"}
    await redis.aclose()
