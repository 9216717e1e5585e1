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


def tag(table_id: str) -> str:
    return "{table:" + table_id + "}"


def version_key(table_id: str) -> str:
    return tag(table_id) + ":ver"


def state_key(table_id: str) -> str:
    return tag(table_id) + ":state"


def log_key(table_id: str) -> str:
    return tag(table_id) + ":log"


def channel(table_id: str) -> str:
    return tag(table_id) + ":changed"


def instance_channel(namespace: str, instance_id: str) -> str:
    return namespace + ":instance:" + instance_id
