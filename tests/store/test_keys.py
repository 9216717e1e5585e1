"""The slot-sharded key layout: a commit's keys share one Cluster slot, and the shards spread
evenly over a cluster's masters."""

from __future__ import annotations

import random
import uuid

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

from app.store import keys


def commit_keys(namespace: str, table_id: str) -> list[str]:
    """Every key (and the shard channel) one table's commit and its other scripts touch."""
    shard = keys.shard_of(table_id)
    return [
        keys.version_key(table_id),
        keys.state_key(table_id),
        keys.log_key(table_id),
        keys.due_key(namespace, shard),
        keys.lobby_key(namespace, shard),
        keys.moves_key(table_id),
        keys.results_key(namespace, shard),
        keys.channel(table_id),
        keys.sockets_key(table_id),
        keys.chat_key(table_id, 12345),
        keys.dead_letters_key(keys.results_key(namespace, shard)),
        keys.sql_time_key(keys.results_key(namespace, shard)),
    ]


def test_every_key_of_a_commit_is_in_the_tables_slot() -> None:
    rng = random.Random(21)
    for _ in range(2000):
        table_id = "".join(
            rng.choices("0123456789abcdefghijklmnopqrstuvwxyz-_", k=rng.randint(1, 24))
        )
        namespace = rng.choice(["hearts", "t" + uuid.uuid4().hex[:12], "a.b-c_d"])
        slots = {key_slot(k.encode()) for k in commit_keys(namespace, table_id)}
        assert len(slots) == 1, (table_id, namespace, slots)
        shard = keys.shard_of(table_id)
        assert slots == {key_slot(keys.shard_tag(shard).encode())}
        # The table's keys are its own: another table's never equal them.
        assert keys.tag(table_id).endswith(":table:" + table_id)


def test_each_shard_tag_hashes_into_its_share_of_the_slots() -> None:
    width = REDIS_CLUSTER_HASH_SLOTS // keys.SHARDS
    tags = [keys.shard_tag(k) for k in range(keys.SHARDS)]
    assert len(set(tags)) == keys.SHARDS
    for k, tag in enumerate(tags):
        assert tag.startswith("{") and tag.endswith("}") and tag.count("{") == 1
        assert k * width <= key_slot(tag.encode()) < (k + 1) * width
    # Deterministic: the same tags in every process (computed, not random).
    assert tags == list(keys._shard_tags())


def cluster_create_ranges(masters: int) -> list[range]:
    """The slot ranges ``redis-cli --cluster create`` gives ``masters`` masters (redis-cli's
    clusterManagerCommandCreate: slots_per_node = 16384 / masters, the rounding carried)."""
    per_node = REDIS_CLUSTER_HASH_SLOTS / masters
    ranges, first, cursor = [], 0, 0.0
    for i in range(masters):
        last = round(cursor + per_node - 1)
        if last > REDIS_CLUSTER_HASH_SLOTS - 1 or i == masters - 1:
            last = REDIS_CLUSTER_HASH_SLOTS - 1
        ranges.append(range(first, last + 1))
        first = last + 1
        cursor += per_node
    return ranges


def test_the_shards_spread_evenly_over_the_masters() -> None:
    ranges = cluster_create_ranges(3)
    assert [(r.start, r.stop - 1) for r in ranges] == [(0, 5460), (5461, 10922), (10923, 16383)]
    for masters in (3, 4, 6, 8):
        counts = [0] * masters
        for k in range(keys.SHARDS):
            slot = key_slot(keys.shard_tag(k).encode())
            counts[next(i for i, r in enumerate(cluster_create_ranges(masters)) if slot in r)] += 1
        fair = keys.SHARDS / masters
        assert all(int(fair) <= n <= int(fair) + 1 for n in counts), (masters, counts)
    # 3 masters: 21 or 22 shards each.
    three = [0, 0, 0]
    for k in range(keys.SHARDS):
        slot = key_slot(keys.shard_tag(k).encode())
        three[next(i for i, r in enumerate(ranges) if slot in r)] += 1
    assert sorted(three) == [21, 21, 22]


def test_tables_spread_over_the_shards() -> None:
    counts = [0] * keys.SHARDS
    for _ in range(64_000):
        counts[keys.shard_of(uuid.uuid4().hex[:10])] += 1
    assert min(counts) > 800 and max(counts) < 1200  # 1000 each on average


def test_every_global_key_carries_the_namespace() -> None:
    ns = "tNAMESPACE"
    for name in (
        keys.due_key(ns, 3),
        keys.lobby_key(ns, 3),
        keys.results_key(ns, 3),
        keys.lobby_channel(ns),
        keys.instance_channel(ns, "i"),
        keys.sessions_channel(ns),
        keys.friends_channel(ns),
        keys.database_key(ns),
        keys.hosting_key(ns, "player:p"),
        keys.limits_prefix(ns),
        keys.presence_key(ns, "p"),
        keys.invites_key(ns, "p"),
        keys.player_sockets_key(ns, "p"),
        keys.address_sockets_key(ns, "a"),
        keys.player_chat_key(ns, "p", 7),
    ):
        assert ns in name, name
    assert keys.results_keys(ns) == tuple(keys.results_key(ns, k) for k in range(keys.SHARDS))
