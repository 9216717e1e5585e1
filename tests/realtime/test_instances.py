"""Two server instances on one Redis serve the same table.

With fakeredis the two instances run in this process (real sockets, one shared stand-in);
with a real Redis they are two ``python -m app`` processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import pytest
import redis

from app.settings import Settings
from tests.conftest import real_redis_url
from tests.realtime.harness import (
    Client,
    create_table,
    guest,
    in_process_server,
    pick_move,
    subprocess_server,
)

pytestmark = pytest.mark.asyncio

SECRET = "test-secret-key-0123456789"


@contextlib.asynccontextmanager
async def two_instances(kind: str, tmp_path: Any) -> AsyncIterator[tuple[str, str]]:
    db = f"sqlite:///{tmp_path}/hearts.sqlite3"
    if kind == "fake":
        fake = fakeredis.FakeServer()
        common: dict[str, Any] = {
            "database_url": db,
            "turn_timer_seconds": 0,
            "bot_delay_min_ms": 0,
            "bot_delay_max_ms": 0,
            "hand_pause_ms": 0,
            "due_poll_seconds": 0.05,
            "ws_rate_per_second": 1000,
            "secret_key": SECRET,
        }
        async with (
            in_process_server(Settings(instance_id="A", **common), fake) as a,
            in_process_server(
                Settings(instance_id="B", migrate_on_start=False, **common), fake
            ) as b,
        ):
            yield a, b
        return
    namespace = "t" + uuid.uuid4().hex[:10]
    env = {
        "HEARTS_REDIS_URL": real_redis_url(),
        "HEARTS_REDIS_NAMESPACE": namespace,
        "HEARTS_DATABASE_URL": db,
        "HEARTS_SECRET_KEY": SECRET,
        "HEARTS_TURN_TIMER_SECONDS": "0",
        "HEARTS_BOT_DELAY_MIN_MS": "0",
        "HEARTS_BOT_DELAY_MAX_MS": "0",
        "HEARTS_HAND_PAUSE_MS": "0",
        "HEARTS_WS_RATE_PER_SECOND": "1000",
    }
    try:
        with (
            subprocess_server({**env, "HEARTS_INSTANCE_ID": "A"}) as (a, _),
            subprocess_server(
                {**env, "HEARTS_INSTANCE_ID": "B", "HEARTS_MIGRATE_ON_START": "false"}
            ) as (b, _),
        ):
            yield a, b
    finally:  # the results stream has no expiry
        client = redis.Redis.from_url(real_redis_url())
        client.delete(
            "{" + namespace + ":outbox}:results",
            f"{namespace}:due",
            f"{namespace}:lobby",
            f"{namespace}:database",
        )
        client.close()


def game_events(client: Client) -> list[tuple[int, str]]:
    """The (version, event kind) sequence a client saw, in order."""
    out = []
    for msg in client.messages:
        if msg["type"] in ("events", "state"):
            out.extend((e["v"], e["kind"]) for e in msg.get("events", ()))
    return out


@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_two_instances_same_table_same_order(kind: str, tmp_path: Any) -> None:
    async with two_instances(kind, tmp_path) as (a, b):
        t0, _ = await guest(a, "OnA")
        t1, _ = await guest(b, "OnB")
        table_id = (
            await create_table(a, t0, preset="classic", options={"end": "hands", "hands": 1})
        )["table"]["id"]
        p0 = Client(a, table_id, t0, "p0")
        p1 = Client(b, table_id, t1, "p1")
        watch_a = Client(a, table_id, None, "watch-a")
        watch_b = Client(b, table_id, None, "watch-b")
        for c in (p0, p1, watch_a, watch_b):
            await c.connect()
            await c.wait(lambda m: m["type"] == "state")
        assert (await p1.command("sit", seat=1))["type"] == "ack"
        for seat in (2, 3):
            assert (await p0.command("add_bot", seat=seat))["type"] == "ack"
        assert (await p0.command("start"))["type"] == "ack"

        # The move race: both instances get the same move for seat 0 at the same version,
        # from two sockets of the same player; exactly one applies.
        p0b = Client(b, table_id, t0, "p0-on-b")
        await p0b.connect()
        # Wait for a quiet table: the computers have passed and both sockets are current
        # (p0b's arrival changes no version: its player is connected already). If something
        # else still moved the table, both get stale_version; try again.
        welcome = await p0b.wait(lambda m: m["type"] == "welcome")
        for _attempt in range(5):
            other = await p0b.wait_state(
                lambda m: (
                    m["version"] >= welcome["version"]
                    and bool(m["view"] and m["view"]["passed"][2] and m["view"]["passed"][3])
                )
            )
            state = await p0.wait_state(lambda m, v=other["version"]: m["version"] >= v)
            cards = state["view"]["legal"]["cards"]
            version = state["version"]
            race = await asyncio.gather(
                p0.command("move", move={"type": "pass", "cards": cards[:3]}, version=version),
                p0b.command("move", move={"type": "pass", "cards": cards[3:6]}, version=version),
            )
            if any(r["type"] == "ack" for r in race):
                break
        kinds = sorted(r["type"] for r in race)
        assert kinds == ["ack", "error"], race
        loser = next(r for r in race if r["type"] == "error")
        assert loser["code"] in ("stale_version", "already_passed")
        await p0b.close()

        async def play(client: Client, seat: int) -> None:
            rng = random.Random(seat)
            acted = -1
            while True:
                st = client.last_state()
                if st and st["table"]["status"] == "over":
                    return
                if st and st["view"] and st["version"] > acted:
                    move = pick_move(st["view"], rng)
                    if move is not None:
                        acted = st["version"]
                        await client.command("move", move=move, version=st["version"])
                        continue
                n = len(client.messages)
                await client.wait(lambda m: m["type"] == "state", start=n)

        await asyncio.wait_for(asyncio.gather(play(p0, 0), play(p1, 1)), 120)
        for c in (watch_a, watch_b, p0, p1):
            await c.wait_state(lambda m: m["table"]["status"] == "over")
        await asyncio.sleep(0.2)
        # Everyone, on either instance, saw the same public events in the same order.
        seq = game_events(watch_a)
        assert seq and seq == game_events(watch_b)
        tail = [e for e in seq if e[0] > 10]
        for c in (p0, p1):
            assert [e for e in game_events(c) if e[0] > 10] == tail
        for c in (p0, p1, watch_a, watch_b):
            await c.close()
