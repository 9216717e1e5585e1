"""Every Redis key and channel name of the app, laid out for Redis Cluster.

Live tables are spread over ``SHARDS`` slot groups. A table belongs to shard
``shard_of(table_id)``; each shard has one hash tag (``shard_tag``), and every key a commit
touches carries it: the table's own keys (``{s:K.N}:table:<id>:ver``, ``:state``, ...) and the
shard's due-time set, lobby hash and results stream (``{s:K.N}:<namespace>:due``, ``:lobby``,
``:results``). So the commit script runs on one node, in one slot, on one Redis and on Cluster
alike; the global jobs (due loop, results writer, lobby index) read all ``SHARDS`` shards.

Keys that scripts or transactions use together share one tag: the hosting sets, the
rate-limit counters, the invitations and presence of players each have a tag per namespace.
Everything but the table keys (random ids) carries the namespace (``hearts`` unless
configured), so several deployments or test runs can share one Redis.
"""

from __future__ import annotations

import zlib

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

# Slot groups. 64 spreads over any cluster of up to a few dozen masters (a master owns the
# shards whose tag falls in its slots); more would multiply what the global jobs read.
SHARDS = 64


def _shard_tags() -> tuple[str, ...]:
    """One hash tag per shard, deterministic: shard k's tag hashes into the middle quarter of
    its even share of the 16384 slots (``redis-cli --cluster create`` hands each master an
    even range of slots, so each gets its even share of shards: 21 or 22 of 64 on 3 masters,
    whatever side of a range's edge a shard's share straddles)."""
    width = REDIS_CLUSTER_HASH_SLOTS // SHARDS
    tags = []
    for k in range(SHARDS):
        low = k * width + width * 3 // 8
        high = k * width + width * 5 // 8
        n = 0
        while not low <= key_slot(f"s:{k}.{n}".encode()) < high:
            n += 1
        tags.append("{s:" + f"{k}.{n}" + "}")
    return tuple(tags)


_TAGS = _shard_tags()


def shard_of(table_id: str) -> int:
    """The shard a table lives in."""
    return zlib.crc32(table_id.encode()) % SHARDS


def shard_tag(shard: int) -> str:
    """The hash tag (with its braces) of one shard."""
    return _TAGS[shard]


# -- per shard (namespace after the tag) ---------------------------------------------------


def due_key(namespace: str, shard: int) -> str:
    """Sorted set: table id -> next due time (ms) of a bot turn, timer or grace period."""
    return _TAGS[shard] + ":" + namespace + ":due"


def lobby_key(namespace: str, shard: int) -> str:
    """Hash: public table id -> lobby summary JSON."""
    return _TAGS[shard] + ":" + namespace + ":lobby"


def results_key(namespace: str, shard: int) -> str:
    """Stream: finished hands and games for SQL (app.db.outbox reads it as a consumer group)."""
    return _TAGS[shard] + ":" + namespace + ":results"


def shard_keys(namespace: str) -> tuple[str, ...]:
    """Every per-shard key of a namespace (clean-ups; each in its own slot)."""
    return tuple(f(namespace, k) for k in range(SHARDS) for f in (due_key, lobby_key, results_key))


def results_keys(namespace: str) -> tuple[str, ...]:
    """The results streams of every shard."""
    return tuple(results_key(namespace, k) for k in range(SHARDS))


def dead_letters_key(stream: str) -> str:
    """Stream: the records of ``stream`` that can never be written (beside it, one slot)."""
    return stream + ":dead"


def sql_time_key(stream: str) -> str:
    """Hash: the SQL write times of the records of ``stream`` (app.metrics; one slot)."""
    return stream + ":sqltime"


# -- one table -------------------------------------------------------------------------------


def tag(table_id: str) -> str:
    """The prefix of every key of one table: its shard's tag, then ``:table:<id>``."""
    return _TAGS[zlib.crc32(table_id.encode()) % SHARDS] + ":table:" + table_id


def version_key(table_id: str) -> str:
    return tag(table_id) + ":ver"


def state_key(table_id: str) -> str:
    return tag(table_id) + ":state"


def log_key(table_id: str) -> str:
    return tag(table_id) + ":log"


def moves_key(table_id: str) -> str:
    """List: the current game's moves, ``[seat, move JSON]`` each, for the results records."""
    return tag(table_id) + ":moves"


def sockets_key(table_id: str) -> str:
    """Hash: the table's open sockets by instance and player key (app.store.sockets)."""
    return tag(table_id) + ":sockets"


def chat_key(table_id: str, minute: int) -> str:
    """Counter: the table's chat lines in one minute (app.realtime.limits)."""
    return tag(table_id) + ":chat:" + str(minute)


def claim_tried_key(table_id: str, game_no: int, hand_no: int, seat: int) -> str:
    """Flag: this seat's claim in this hand was sent to be checked (app.tables.claims: one
    check per seat and hand, counted before it runs)."""
    return f"{tag(table_id)}:claimed:{game_no}:{hand_no}:{seat}"


def channel(table_id: str) -> str:
    """Pub/sub: the table's commits (in the table's slot)."""
    return tag(table_id) + ":changed"


def table_keys(table_id: str) -> tuple[str, ...]:
    """Every key of one table's state (for memory accounting and clean-up)."""
    return (version_key(table_id), state_key(table_id), log_key(table_id), moves_key(table_id))


# -- global (namespaced) -------------------------------------------------------------------


def lobby_channel(namespace: str) -> str:
    """Pub/sub: a public table's summary changed (the message is the table id)."""
    return namespace + ":lobby:changed"


def instance_channel(namespace: str, instance_id: str) -> str:
    return namespace + ":instance:" + instance_id


def relay_channel(namespace: str, instance_id: str) -> str:
    """Pub/sub: the frames of the table sockets relayed to or from one instance
    (app/realtime/relay.py). A shard channel (a hash tag of its own): only that instance joins
    it, and on Cluster its messages stay on the one master that owns its slot."""
    return "{" + namespace + ":relay:" + instance_id + "}"


def instance_alive_key(namespace: str, instance_id: str) -> str:
    """String with a short expiry: the instance lives while it renews it (app/realtime/relay.py)."""
    return namespace + ":alive:" + instance_id


def sessions_channel(namespace: str) -> str:
    """Pub/sub: a player's sessions changed (logout, password, deletion); the message is the
    player id. Every instance re-checks that player's tokens and open sockets."""
    return namespace + ":sessions:changed"


def friends_channel(namespace: str) -> str:
    """Pub/sub: friends, presence and invitations news for every instance (app.friends)."""
    return namespace + ":friends"


def database_key(namespace: str) -> str:
    """String: the id of the database this Redis namespace belongs to (app.db.deployment)."""
    return namespace + ":database"


def hosting_key(namespace: str, owner: str) -> str:
    """Sorted set: the live tables charged to one creator (``player:<id>`` or
    ``address:<digest>``), table id -> expiry (ms); app.tables.limits. All such sets share one
    hash tag, so one script can check a player's and an address's set together."""
    return "{" + namespace + ":hosting}:" + owner


def limits_prefix(namespace: str) -> str:
    """The prefix of the attempt counters (app.db.ratelimit): one tag, so one transaction or
    script can count several of them."""
    return "{" + namespace + ":limits}"


def hints_count_key(namespace: str, player_id: str, minute: int) -> str:
    """Counter: the hints one player asked for in one minute (app.tables.hints)."""
    return f"{namespace}:hints:{player_id}:{minute}"


def games_lock_key(namespace: str, player_id: str) -> str:
    """String: held while one instance checks a player's turn-based games against their limit
    and seats them (app.tables.mine.GameIndex.holding), so two at once cannot both pass."""
    return namespace + ":games-lock:" + player_id


def games_key(namespace: str, player_id: str) -> str:
    """Sorted set: the tables one player sat down at, table id -> when (ms); the index of
    their "My games" (app.tables.mine), checked against the tables when read."""
    return namespace + ":games:" + player_id


def presence_key(namespace: str, player_id: str) -> str:
    """A player's presence (app.friends.hub)."""
    return "{" + namespace + ":presence}:" + player_id


def invites_key(namespace: str, player_id: str) -> str:
    """Hash: the invitations waiting for one player (app.friends.invites)."""
    return "{" + namespace + ":invites}:" + player_id


def player_sockets_key(namespace: str, player_id: str) -> str:
    """A player's open sockets on every instance (app.store.sockets)."""
    return namespace + ":sockets:player:" + player_id


def address_sockets_key(namespace: str, address: str) -> str:
    """An address's open sockets on every instance (app.store.sockets)."""
    return namespace + ":sockets:addr:" + address


def player_chat_key(namespace: str, player_id: str, window: int) -> str:
    """Counter: one player's chat lines in one window (app.realtime.limits)."""
    return namespace + ":chat:" + player_id + ":" + str(window)


# --- game reviews (app/jobs/review.py, app/api/reviews.py) --------------------------


def review_channel(namespace: str, game_id: int, seat: int) -> str:
    """Shard pub/sub (SPUBLISH, in its own hash tag's slot, as a table's channel): one review's
    status and progress, to the sockets that follow it on any instance."""
    return "{" + namespace + ":review:" + str(game_id) + "}:" + str(seat)


def review_limits_prefix(namespace: str) -> str:
    """The prefix of the per-player review request counters (app.db.ratelimit.AttemptLimiter)."""
    return "{" + namespace + ":reviews}:limits"


# --- shared replay rooms (app/replays/rooms.py, app/api/replay_rooms.py) -----------------


def replay_room_key(namespace: str, room_id: str) -> str:
    """Hash: one shared replay room, ``v`` its version and ``s`` its state JSON (one key, so
    one slot on Redis Cluster; its own hash tag)."""
    return "{" + namespace + ":room:" + room_id + "}"


def replay_room_limits_prefix(namespace: str) -> str:
    """The prefix of the replay rooms' counters (rooms opened, chat lines;
    app.db.ratelimit.AttemptLimiter): one tag, as the other limits."""
    return "{" + namespace + ":replay-rooms}:limits"
