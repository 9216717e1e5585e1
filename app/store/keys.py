"""Key names. Every key of one table shares the hash tag ``{table:ID}`` (one Cluster slot)."""

from __future__ import annotations

# Global keys live under a namespace (``hearts`` unless configured), so that several
# deployments or test runs can share one Redis database.


def due_key(namespace: str) -> str:
    """Sorted set: table id -> next due time (ms) of a bot turn, timer or grace period."""
    return namespace + ":due"


def lobby_key(namespace: str) -> str:
    """Hash: public table id -> lobby summary JSON."""
    return namespace + ":lobby"


def lobby_channel(namespace: str) -> str:
    """Pub/sub: a public table's summary changed (the message is the table id)."""
    return namespace + ":lobby:changed"


def hosting_key(namespace: str, owner: str) -> str:
    """Sorted set: the live tables charged to one creator (``player:<id>`` or
    ``address:<digest>``), table id -> expiry (ms); app.tables.limits. All such sets share one
    hash tag, so one script can check a player's and an address's set together."""
    return "{" + namespace + ":hosting}:" + owner


def tag(table_id: str) -> str:
    return "{table:" + table_id + "}"


def version_key(table_id: str) -> str:
    return tag(table_id) + ":ver"


def state_key(table_id: str) -> str:
    return tag(table_id) + ":state"


def log_key(table_id: str) -> str:
    return tag(table_id) + ":log"


def moves_key(table_id: str) -> str:
    """List: the current game's moves, ``[seat, move JSON]`` each, for the results records."""
    return tag(table_id) + ":moves"


def channel(table_id: str) -> str:
    return tag(table_id) + ":changed"


def instance_channel(namespace: str, instance_id: str) -> str:
    return namespace + ":instance:" + instance_id


def sessions_channel(namespace: str) -> str:
    """Pub/sub: a player's sessions changed (logout, password, deletion); the message is the
    player id. Every instance re-checks that player's tokens and open sockets."""
    return namespace + ":sessions:changed"


def table_keys(table_id: str) -> tuple[str, ...]:
    """Every key of one table (for memory accounting and clean-up)."""
    return (version_key(table_id), state_key(table_id), log_key(table_id), moves_key(table_id))


# --- game reviews (issue 16; app/jobs/review.py, app/api/reviews.py) --------------------------


def review_channel(namespace: str, game_id: int, seat: int) -> str:
    """Shard pub/sub (SPUBLISH, in its own hash tag's slot, as a table's channel): one review's
    status and progress, to the sockets that follow it on any instance."""
    return "{" + namespace + ":review:" + str(game_id) + "}:" + str(seat)


def review_limits_prefix(namespace: str) -> str:
    """The prefix of the per-player review request counters (app.db.ratelimit.AttemptLimiter)."""
    return "{" + namespace + ":reviews}:limits"
