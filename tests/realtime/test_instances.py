"""Two server instances on one Redis, or on a Redis Cluster, serve the same table.

With fakeredis the two instances run in this process (real sockets, one shared stand-in);
with a real Redis or the test cluster (HEARTS_TEST_REDIS_CLUSTER_URL) they are two
``python -m app`` processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import sqlalchemy as sa

from tests.realtime import harness
from tests.realtime.harness import (
    Client,
    computers_table,
    create_table,
    guest,
    play_until_over,
    redis_url,
)

pytestmark = pytest.mark.asyncio

SECRET = "test-secret-key-0123456789"


def server_env(kind: str, namespace: str, db: str) -> dict[str, str]:
    return {
        "HEARTS_REDIS_URL": redis_url(kind),
        "HEARTS_REDIS_NAMESPACE": namespace,
        "HEARTS_DATABASE_URL": db,
        "HEARTS_SECRET_KEY": SECRET,
        "HEARTS_TURN_TIMER_SECONDS": "0",
        "HEARTS_BOT_DELAY_MIN_MS": "0",
        "HEARTS_BOT_DELAY_MAX_MS": "0",
        "HEARTS_HAND_PAUSE_MS": "0",
        "HEARTS_WS_RATE_PER_SECOND": "1000",
    }


def sql_count(db: str, table: str) -> int:
    engine = sa.create_engine(db)
    try:
        with engine.connect() as connection:
            return int(connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


async def stored_once(db: str, games: int, hands: int) -> None:
    """The finished games and hands reach SQL, each once (both instances write results)."""
    deadline = time.monotonic() + 20
    while (sql_count(db, "game"), sql_count(db, "hand")) != (games, hands):
        assert time.monotonic() < deadline, (sql_count(db, "game"), sql_count(db, "hand"))
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)  # and no second copy comes later
    assert (sql_count(db, "game"), sql_count(db, "hand")) == (games, hands)


@contextlib.asynccontextmanager
async def two_instances(
    kind: str, tmp_path: Any
) -> AsyncIterator[tuple[str, str, subprocess.Popen[bytes] | None]]:
    """Instances A and B (harness.two_instances); A's process too (None when in this
    process)."""
    settings = harness.quick_values(tmp_path, ws_rate_per_second=1000, secret_key=SECRET)
    # For the computers' table at the end: their turns take a moment, and a turn an instance
    # held when it died is taken over after 2 s.
    died = {
        "HEARTS_BOT_DELAY_MIN_MS": "40",
        "HEARTS_BOT_DELAY_MAX_MS": "40",
        "HEARTS_DUE_LEASE_SECONDS": "2",
    }
    async with harness.two_instances(kind, settings, died) as ((a, proc_a), (b, _)):
        yield a, b, proc_a


def last_version(client: Client) -> int:
    """The newest version a client was sent."""
    return max(m["version"] for m in client.messages if m["type"] in ("state", "events"))


def game_events(client: Client) -> list[tuple[int, str]]:
    """The (version, event kind) sequence a client saw, in order."""
    out = []
    for msg in client.messages:
        if msg["type"] in ("events", "state"):
            out.extend((e["v"], e["kind"]) for e in msg.get("events", ()))
    return out


@pytest.mark.parametrize("kind", ["fake", "real", "cluster"])
async def test_two_instances_same_table_same_order(kind: str, tmp_path: Any) -> None:
    """The move race, the same events in the same order on both instances, a spectator who
    comes back on the other instance gets what it missed, and the results reach SQL once.
    Then (two processes) A is killed while computers play: B takes their turns over."""
    async with two_instances(kind, tmp_path) as (a, b, proc_a):
        t0, _ = await guest(a, "OnA")
        t1, _ = await guest(b, "OnB")
        table_id = (
            await create_table(a, t0, preset="classic", options={"end": "hands", "hands": 1})
        )["table"]["id"]
        p0 = Client(a, table_id, t0, "p0")
        p1 = Client(b, table_id, t1, "p1")
        watch_a = Client(a, table_id, None, "watch-a")
        watch_b = Client(b, table_id, None, "watch-b")
        roamer = Client(b, table_id, None, "roamer")  # leaves B mid-game, back on A
        for c in (p0, p1, watch_a, watch_b, roamer):
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

        async def roam() -> tuple[int, Client]:
            await roamer.wait_state(lambda m: m["version"] >= version + 12)
            seen = last_version(roamer)
            await roamer.close()
            await watch_a.wait(lambda m: m.get("version", 0) >= seen + 4)  # missed moves
            back = Client(a, table_id, None, "roamer-on-a")
            await back.connect(last_version=seen)
            return seen, back

        _, (seen, back) = await asyncio.wait_for(
            asyncio.gather(
                asyncio.gather(
                    play_until_over(p0, random.Random(0)), play_until_over(p1, random.Random(1))
                ),
                roam(),
            ),
            120,
        )
        for c in (watch_a, watch_b, p0, p1, back):
            await c.wait_state(lambda m: m["table"]["status"] == "over")
        await asyncio.sleep(0.2)
        # Everyone, on either instance, saw the same public events in the same order.
        seq = game_events(watch_a)
        assert seq and seq == game_events(watch_b)
        tail = [e for e in seq if e[0] > 10]
        for c in (p0, p1):
            assert [e for e in game_events(c) if e[0] > 10] == tail
        # The roamer, back on the other instance, got what it missed and nothing twice.
        roamed = [e for e in game_events(roamer) if e[0] <= seen] + game_events(back)
        assert roamed == seq
        for c in (p0, p1, watch_a, watch_b, back):
            await c.close()
        # One game of one hand, stored once though both instances write results.
        db = f"sqlite:///{tmp_path}/hearts.sqlite3"
        await stored_once(db, games=1, hands=1)
        if proc_a is not None:
            await computers_take_over_when_an_instance_is_killed(a, b, proc_a)
            await stored_once(db, games=2, hands=2)


async def computers_take_over_when_an_instance_is_killed(
    a: str, b: str, proc_a: subprocess.Popen[bytes]
) -> None:
    """A table of computers plays; A is killed (SIGKILL: nothing handed back). B claims the
    turns A held once their leases run out, and plays the game to its end."""
    token, _ = await guest(a, "Host")
    table_id = await computers_table(a, token)
    host = Client(a, table_id, token, "host")
    await host.connect()
    started = await host.command("start")
    assert started["type"] == "ack", started
    assert (await host.command("leave"))["type"] == "ack"  # computers only from here
    await host.close()
    watcher = Client(b, table_id, None, "watcher")
    await watcher.connect()
    await watcher.wait_state(lambda m: m["version"] >= started["version"] + 8, timeout=30)
    os.kill(proc_a.pid, signal.SIGKILL)
    proc_a.wait(10)
    killed_at = last_version(watcher)
    try:
        final = await watcher.wait_state(lambda m: m["table"]["status"] == "over", timeout=60)
    except AssertionError:
        # The watcher's socket was relayed to A, had A still been the table's home when it
        # opened (app/realtime/relay.py): B closes it with 1012 once A's key runs out, and
        # the page comes back, to B, which serves the table from then on.
        assert watcher.closed_code == 1012, watcher.closed_code
        seen = last_version(watcher)
        await watcher.close()
        watcher = Client(b, table_id, None, "watcher-again")
        await watcher.connect(last_version=seen)
        final = await watcher.wait_state(lambda m: m["table"]["status"] == "over", timeout=60)
    assert final["version"] > killed_at + 10  # B played the rest
    assert final["view"]["phase"] == "over"
    await watcher.close()
