"""Presence in Redis (app.friends.hub): combining instances' fields, expiry, the heartbeat."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pytest
import redis.asyncio as aioredis

from app.friends.hub import FriendsHub, _Local, combine, presence_key
from app.friends.invites import Invitations, invites_key
from app.settings import SettingsError, load_settings
from app.store import make_redis
from tests.store.test_redis_restart import RedisServer


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
async def test_heartbeat_refreshes_every_local_player_in_one_pipeline(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    redis = redis_client
    ns = namespace
    hub = FriendsHub(redis, None, _NoFanout(), ns, "A", ttl_seconds=30)  # type: ignore[arg-type]
    hub.local["p1"] = _Local(tables={"t1": (True, True, 1.0)})
    hub.local["p2"] = _Local(tables={"t2": (False, False, 1.0)}, hidden=True)  # appear offline
    await hub.heartbeat()
    assert await redis.hkeys(presence_key(ns, "p1")) == [b"A"]
    assert 0 < await redis.pttl(presence_key(ns, "p1")) <= 30_000
    assert not await redis.exists(presence_key(ns, "p2"))
    state = await hub.presence_of(["p1", "p2"])
    assert state["p1"] == {"s": "playing", "t": "t1", "pub": True}
    assert state["p2"] == {"s": "offline"}
    # One player's change: written and read back in one transaction (one key), announced.
    hub.local["p1"] = _Local(lobby={object(): False})
    await hub._publish_presence("p1")
    assert (await hub.presence_of(["p1"]))["p1"] == {"s": "lobby"}
    hub.local["p1"].hidden = True
    await hub._publish_presence("p1")
    assert not await redis.exists(presence_key(ns, "p1"))


@pytest.mark.asyncio
async def test_invitations_are_kept_per_invitee(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    invitations = Invitations(redis_client, namespace)
    first = await invitations.add("bob", {"table_id": "t1", "from": "ann"})
    again = await invitations.add("bob", {"table_id": "t1", "from": "ann"})  # replaces it
    other = await invitations.add("bob", {"table_id": "t2", "from": "cy"})
    # Oldest first, by the millisecond (then the random id): these may share one.
    assert {i["id"] for i in await invitations.of("bob")} == {again["id"], other["id"]}
    assert await invitations.get("bob", first["id"]) is None
    assert (await invitations.get("bob", other["id"]) or {})["from"] == "cy"
    assert await redis_client.ttl(invites_key(namespace, "bob")) > 0
    assert await invitations.drop("bob", again["id"])
    assert not await invitations.drop("bob", again["id"])
    assert await invitations.of("ann") == []


@pytest.mark.asyncio
async def test_a_dead_instances_players_go_offline_at_the_next_reconcile(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Instance B holds Bob and dies without a word: his field expires, and instance A, whose
    lobby socket of Ann watches him, shows him offline at its next heartbeat."""
    redis = redis_client
    ns = namespace
    # Long enough for B's heartbeat and A's two reconciles on a loaded machine (0.3 s was not:
    # Bob had expired before A first looked).
    ttl = 1.5
    a = FriendsHub(redis, None, _NoFanout(), ns, "A", ttl_seconds=ttl)  # type: ignore[arg-type]
    b = FriendsHub(redis, None, _NoFanout(), ns, "B", ttl_seconds=ttl)  # type: ignore[arg-type]
    ann_socket = _Conn()
    a.local["ann"] = _Local(lobby={ann_socket: False}, friends={"bob"})
    a.watchers["bob"] = {"ann"}
    b.local["bob"] = _Local(lobby={object(): False})
    await b.heartbeat()
    await a.reconcile()
    assert ann_socket.sent[-1] == {
        "type": "presence", "player_id": "bob", "state": "lobby", "table": None
    }  # fmt: skip
    await a.reconcile()  # nothing new: nothing sent
    assert len(ann_socket.sent) == 1
    await asyncio.sleep(ttl + 0.05)  # B is gone: no heartbeat
    await a.reconcile()
    assert ann_socket.sent[-1]["state"] == "offline"


@pytest.mark.asyncio
async def test_redis_away_logs_one_warning_and_presence_comes_back_by_itself(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis goes away for longer than the expiry: each heartbeat fails, one warning line for
    the whole outage (no traceback), a state change meanwhile is lost; once Redis answers, the
    next turn writes the player's state again and Ann's lobby is shown it."""
    server = fakeredis.FakeServer()
    redis = fakeredis.FakeAsyncRedis(server=server)
    hub = FriendsHub(redis, None, _NoFanout(), "ns", "A", ttl_seconds=0.3)  # type: ignore[arg-type]
    ann_socket = _Conn()
    hub.local["ann"] = _Local(lobby={ann_socket: False}, friends={"bob"})
    hub.watchers["bob"] = {"ann"}
    bob = _Local(lobby={object(): False})
    hub.local["bob"] = bob
    assert await hub.beat_once(heartbeat=True)
    assert ann_socket.sent[-1]["state"] == "lobby"
    caplog.set_level("WARNING", logger="app.friends.hub")
    server.connected = False
    for _ in range(3):
        assert not await hub.beat_once(heartbeat=True)
    bob.tables["t1"] = (True, True, 1.0)  # Bob sat down meanwhile: his announcement fails
    hub._announce("bob")
    while hub._tasks:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.35)  # longer than the expiry: Bob's field is gone
    assert not await hub.beat_once(heartbeat=True)
    assert [(r.levelname, r.exc_info) for r in caplog.records] == [("WARNING", None)]
    assert "Redis unavailable" in caplog.records[0].getMessage()
    server.connected = True
    assert await hub.beat_once(heartbeat=True)
    assert caplog.records[-1].getMessage() == "presence: Redis answers again"
    assert len(caplog.records) == 2
    assert ann_socket.sent[-1]["state"] == "playing"
    assert ann_socket.sent[-1]["table"]["id"] == "t1"
    assert await hub.presence_of(["bob"]) == {"bob": {"s": "playing", "t": "t1", "pub": True}}
    await redis.aclose()


def test_presence_timings_are_settings_and_bad_ones_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HEARTS_PRESENCE_HEARTBEAT_SECONDS", "5")
    monkeypatch.setenv("HEARTS_PRESENCE_EXPIRY_SECONDS", "12.5")
    monkeypatch.setenv("HEARTS_PRESENCE_INVITE_CHECK_SECONDS", "1")
    settings = load_settings()
    assert (
        settings.presence_heartbeat_seconds,
        settings.presence_expiry_seconds,
        settings.presence_invite_check_seconds,
    ) == (5, 12.5, 1)
    for name, value in (
        ("HEARTS_PRESENCE_HEARTBEAT_SECONDS", "0"),
        ("HEARTS_PRESENCE_EXPIRY_SECONDS", "-1"),
        ("HEARTS_PRESENCE_INVITE_CHECK_SECONDS", "soon"),
        ("HEARTS_PRESENCE_EXPIRY_SECONDS", "5"),  # not longer than the heartbeat
    ):
        with monkeypatch.context() as patch:
            patch.setenv(name, value)
            with pytest.raises(SettingsError) as err:
                load_settings()
        assert name in str(err.value)


def test_the_hub_takes_its_timings() -> None:
    hub = FriendsHub(
        None, None, _NoFanout(), "ns", "A",  # type: ignore[arg-type]
        heartbeat_seconds=5, ttl_seconds=12, invite_check_seconds=0.5,
    )  # fmt: skip
    assert (hub.heartbeat_seconds, hub.ttl_ms, hub.invite_check_seconds) == (5, 12_000, 0.5)


@pytest.mark.asyncio
async def test_a_real_redis_stopped_then_started_again(tmp_path: Path) -> None:
    """The production client (app.store.make_redis) against an own redis-server that stops:
    what it raises is taken for an outage (one warning, no traceback), and the first turn after
    the restart writes the presence again."""
    directory = tmp_path / "redis"
    directory.mkdir()
    server = RedisServer(directory)
    server.start()
    redis = make_redis(server.url)
    hub = FriendsHub(redis, None, _NoFanout(), "ns", "A", ttl_seconds=2)  # type: ignore[arg-type]
    hub.local["bob"] = _Local(lobby={object(): False})
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("app.friends.hub").addHandler(handler)
    try:
        assert await hub.beat_once(heartbeat=True)
        server.kill()
        for _ in range(2):
            assert not await hub.beat_once(heartbeat=True)
        assert [(r.levelname, r.exc_info) for r in records] == [("WARNING", None)]
        assert "Redis unavailable" in records[0].getMessage()
        await asyncio.sleep(2.1)  # longer than the expiry: gone when Redis comes back
        server.start()
        assert not await redis.exists(presence_key("ns", "bob"))
        assert await hub.beat_once(heartbeat=True)
        assert records[-1].getMessage() == "presence: Redis answers again"
        assert await hub.presence_of(["bob"]) == {"bob": {"s": "lobby"}}
    finally:
        logging.getLogger("app.friends.hub").removeHandler(handler)
        await redis.aclose()
        server.stop()
