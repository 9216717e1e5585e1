"""A Redis Cluster failover in the middle of a game (issue 21): two instances, a player on A,
a spectator on B, computers at the other seats; the master that owns the table's slot dies
(SIGKILL) or hangs (SIGSTOP), its replica is promoted within the cluster's node timeout (1 s
here), and play resumes by itself: the computers' turns are taken again, the player's next
move is accepted, both sockets see the game to its end, and its results reach SQL once.

Runs on a private six-node cluster (tests/store/local_cluster.py, free ports from 7211): the
shared test cluster is never broken. Needs redis-server and redis-cli, as .ci/run has.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import time
from typing import Any

import pytest

from app.store import keys
from tests.conftest import REQUIRE_SERVICES
from tests.realtime.harness import (
    Client,
    computers_table,
    guest,
    in_process_pair,
    pick_move,
)
from tests.realtime.test_games import settings_for
from tests.realtime.test_instances import stored_once
from tests.store.local_cluster import LocalCluster

pytestmark = pytest.mark.asyncio

# From the master's death to the first move on its replica: the node timeout (1 s), the
# election, the clients finding the new master (map re-read every 0.05-0.5 s), the turns'
# leases (2 s).
RESUMES_WITHIN = 20.0


@pytest.mark.parametrize("how", ["killed", "hung"])
async def test_play_resumes_by_itself_after_the_tables_master_fails_over(
    how: str, tmp_path: Any
) -> None:
    """``killed``: SIGKILL, its connections reset at once. ``hung``: SIGSTOP, its connections
    stay open and silent (the clients find out by their own timeouts and PINGs)."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        if REQUIRE_SERVICES:
            pytest.fail("HEARTS_TEST_REQUIRE_SERVICES is set but redis-server is not installed")
        pytest.skip("no redis-server to run a private cluster")
    cluster = LocalCluster(7211).start()
    try:
        settings = settings_for(
            tmp_path,
            redis_url=cluster.url,
            redis_namespace="failover",
            secret_key="test-secret-key-0123456789",
            due_lease_seconds=2,
        ).model_copy(update={"bot_delay_min_ms": 30, "bot_delay_max_ms": 30})
        async with in_process_pair(settings) as (a, b):
            token, _ = await guest(a, "Ann")
            table_id = await computers_table(a, token)
            ann = Client(a, table_id, token, "ann")
            # The watcher's socket is relayed to A, the table's home (app/realtime/relay.py):
            # if the failover takes a relay channel's master, its page comes back (1012).
            watcher = Client(b, table_id, None, "watcher", comes_back=True)
            await ann.connect()
            await ann.wait(lambda m: m["type"] == "welcome")  # A serves the table: its home
            await watcher.connect()
            started = await ann.command("start")
            assert started["type"] == "ack", started
            acks: list[tuple[float, int]] = []  # (time, version) of Ann's accepted moves

            # Not harness.play_until_over: a move refused while the slot has no master is sent
            # again, and a second with no new state is no failure while the cluster fails over.
            async def play() -> None:
                rng = random.Random(1)
                acted = -1
                while True:
                    st = ann.last_state()
                    if st and st["table"]["status"] == "over":
                        return
                    if st and st["view"] and st["version"] > acted:
                        move = pick_move(st["view"], rng)
                        if move is not None:
                            reply = await ann.command("move", move=move, version=st["version"])
                            if reply["type"] == "ack":
                                acked = (time.monotonic(), reply["version"])
                                acks.append(acked)
                                acted = st["version"]
                            else:  # store_unavailable while the slot has no master: again
                                assert reply["code"] in ("store_unavailable", "stale_version")
                                await asyncio.sleep(0.2)
                            continue
                    n = len(ann.messages)
                    try:
                        await ann.wait(lambda m: m["type"] == "state", start=n, timeout=1.0)
                    except AssertionError:
                        if ann._reader is not None and ann._reader.done():
                            raise

            player = asyncio.create_task(play())
            await watcher.wait_state(lambda m: m["version"] >= started["version"] + 12)
            master = cluster.master_of(keys.version_key(table_id))
            killed_version = watcher.last_state()["version"]  # type: ignore[index]
            killed_at = time.monotonic()
            if how == "killed":
                cluster.kill(master)
            else:
                cluster.pause(master)

            # The watcher on B sees the table move again, and to its end.
            await watcher.wait_state(
                lambda m: m["version"] > killed_version + 2, timeout=RESUMES_WITHIN
            )
            resumed = time.monotonic() - killed_at
            final = await watcher.wait_state(
                lambda m: m["table"]["status"] == "over", timeout=RESUMES_WITHIN + 60
            )
            await asyncio.wait_for(player, 30)
            assert final["view"]["phase"] == "over"
            # A replica took the slot, and Ann's moves were accepted after the failover.
            assert cluster.master_of(keys.version_key(table_id)) != master
            assert any(t > killed_at for t, _ in acks), acks
            assert resumed < RESUMES_WITHIN
            print(f"play resumed {resumed:.1f} s after the master was {how}")
            for client in (ann, watcher):
                await client.close()
            # The game's results were written after the failover: in SQL, once (with a hung
            # master too: the RedisCluster client's reads time out after 5 s).
            await stored_once(settings.database_url, games=1, hands=1)
    finally:
        cluster.stop()
