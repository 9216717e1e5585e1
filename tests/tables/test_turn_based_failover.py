"""A turn-based game through a real Redis Cluster failover that loses writes: on a private
six-node cluster (tests/store/local_cluster.py, free ports from 7251; the shared test cluster
is never broken), the link of the replica of the master that holds the table is cut (it signs
in to its master as an unknown user) so it misses the last moves, the master is killed
(SIGKILL) and the replica is promoted with an older version of the table than the players
were answered. The next read sees SQL is
newer and puts SQL's version back; the game goes on to its end with the right result and one
row for its hand, every answered move in it."""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

import pytest

from app.db import Database
from app.db.copies import load_copy
from app.store import keys, make_redis
from tests.conftest import REQUIRE_SERVICES
from tests.db.conftest import migrated_sqlite_file  # noqa: F401 - fixture
from tests.store.local_cluster import LocalCluster
from tests.tables.test_turn_based_durable import (  # noqa: F401 - database: a fixture
    database,
    friends_game,
    play_on,
    played_to_the_end,
)

pytestmark = pytest.mark.asyncio


def replica_of(cluster: LocalCluster, key: str) -> tuple[int, int]:
    """(master, replica) ports serving ``key``'s slot, once the node asked lists a replica for
    it: a replica in sync may reach another node's CLUSTER SLOTS a moment later (the cluster
    bus's gossip; seen on a loaded machine)."""
    from redis.cluster import key_slot

    slot = key_slot(key.encode())
    found: list[tuple[int, int]] = []

    def listed() -> bool:
        client = cluster.client(cluster.alive()[0])
        for start, end, master, *replicas in client.execute_command("CLUSTER SLOTS"):
            if start <= slot <= end and replicas:
                found.append((int(master[1]), int(replicas[0][1])))
                return True
        return False

    cluster._wait(listed, f"a replica of slot {slot} in CLUSTER SLOTS")
    return found[-1]


async def test_a_failover_that_loses_the_last_moves_loses_no_answered_move(
    database: Database,  # noqa: F811 - the fixture imported above
) -> None:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        if REQUIRE_SERVICES:
            pytest.fail("HEARTS_TEST_REQUIRE_SERVICES is set but redis-server is not installed")
        pytest.skip("no redis-server to run a private cluster")
    cluster = await asyncio.to_thread(lambda: LocalCluster(7251).start())
    redis_client: Any = None
    try:
        await asyncio.to_thread(cluster.wait_replicas)
        redis_client = make_redis(cluster.url)
        service, clock, copies, table_id = await friends_game(
            redis_client, "tbfail", database, hands=1
        )
        await play_on(service, clock, table_id, 4)
        master, replica = await asyncio.to_thread(replica_of, cluster, keys.state_key(table_id))
        behind = int(await redis_client.get(keys.version_key(table_id)))
        # The replica misses what comes next (its link to the master cut: it signs in to the
        # master as a user the master does not know), the players answered all the same.
        cut = cluster.client(replica)
        cut.config_set("masteruser", "nobody")
        cut.config_set("masterauth", "not-the-password")
        cut.execute_command("CLIENT", "KILL", "TYPE", "master")
        await asyncio.to_thread(
            cluster._wait,
            lambda: cut.info("replication").get("master_link_status") == "down",
            "the replica's link cut",
        )
        await play_on(service, clock, table_id, 3)
        answered = int(await redis_client.get(keys.version_key(table_id)))
        assert answered > behind
        copy = load_copy(database, table_id)
        assert copy is not None and copy.version == answered
        # The master dies; the replica is promoted with the older table.
        cluster.kill(master)
        promoted = cluster.client(replica)
        await asyncio.to_thread(
            cluster._wait,
            lambda: promoted.execute_command("ROLE")[0] == b"master",
            "the replica promoted",
        )
        await asyncio.to_thread(cluster.wait_ok, (master,))
        held = promoted.get(keys.version_key(table_id))
        assert held is not None and int(held) < answered, (held, answered)
        # The next read finds SQL newer and puts its version back in Redis.
        service.forget(table_id)
        for _ in range(100):  # the client finds the new master within a few tries
            try:
                table, _state = await service.read(table_id)
                break
            except Exception:  # noqa: BLE001 - store_unavailable while the map is re-read
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the table could not be read after the failover")
        assert table.version == answered
        assert int(await redis_client.get(keys.version_key(table_id))) == answered
        await played_to_the_end(service, clock, database, table_id, hands=1)
        del copies
    finally:
        if redis_client is not None:
            await redis_client.aclose()
        await asyncio.to_thread(cluster.stop)
