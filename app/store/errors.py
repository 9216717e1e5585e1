"""Redis did not answer: what the store raises, and what callers catch as "Redis is down".

Every Redis client the app makes (app/store/connection.py) turns a failure that means "Redis is
away" into StoreUnavailable at the call, whatever the library raised for it: redis-py's
ConnectionError and TimeoutError, a cluster's CLUSTERDOWN, TRYAGAIN, MOVED/ASK past its
redirects, "cannot be connected", an OSError, a half-read reply, or an AttributeError/TypeError
from inside redis-py when a connection was closed under a command (a failover closes a dead
node's connections while other commands still hold them). ``is_store_down`` is that rule, in
one place; the callers then answer the one documented way (HTTP 503 store_unavailable with
Retry-After, a socket closed 1013 while it opens, a command answered store_unavailable).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import redis
from redis.exceptions import (
    AskError,
    ClusterError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

# How long a client should wait before trying again (a restart with an append-only file
# takes a second or two; the clients reconnect by themselves, see app/store/fanout.py).
RETRY_AFTER_SECONDS: Final = 2


class StoreUnavailable(ConnectionError):
    """Redis is down, restarting (still loading its data) or unreachable. Nothing was changed
    by the command that got this, unless its reply was what got lost: a command resent with
    its id is then answered as a duplicate (app/tables/writer.py), never applied twice."""


# Every way a Redis call fails because Redis is away: redis-py's errors (its own
# ConnectionError and TimeoutError, BusyLoadingError included) and the store's
# StoreUnavailable (the pipelined client's, and any failure is_store_down recognises, as the
# clients of app/store/connection.py raise it). Not any OSError: a socket's client that went
# away (uvicorn's ClientDisconnected) is no Redis outage.
STORE_DOWN: Final[tuple[type[BaseException], ...]] = (
    RedisConnectionError,
    RedisTimeoutError,
    StoreUnavailable,
)

# Error replies of a Redis that is restarting or failing over (a raw ResponseError in a
# pipeline's results, or from a client that does not parse them into their own classes).
_DOWN_REPLIES: Final = (
    "LOADING",
    "MASTERDOWN",
    "READONLY",
    "CLUSTERDOWN",
    "TRYAGAIN",
    "MOVED ",
    "ASK ",
)

# redis-py's RedisClusterException is also what it raises for a command it cannot route (a
# bug of ours, not an outage): these are the ones that mean the cluster or its map is away.
_DOWN_CLUSTER_MESSAGES: Final = (
    "Redis Cluster cannot be connected",
    "startup_nodes could not agree",
    "All slots are not covered",
    "No targets were found",
    "doesn't exist in the cluster",
)

_REDIS_DIR: Final = str(Path(redis.__file__).resolve().parent)


def _raised_inside_redis_py(exc: BaseException) -> bool:
    """Whether the innermost frame of ``exc``'s traceback is redis-py's own code."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(Path(tb.tb_frame.f_code.co_filename).resolve()).startswith(_REDIS_DIR)


def is_store_down(exc: BaseException) -> bool:
    """Whether an exception from a Redis call means Redis is away (down, restarting, failing
    over, unreachable) rather than a refused or wrong command."""
    if isinstance(exc, (*STORE_DOWN, OSError, EOFError)):  # EOFError: IncompleteReadError
        return True
    if isinstance(exc, ClusterError | TryAgainError | AskError | ReadOnlyError):
        return True  # ClusterDownError, MasterDownError; AskError is MovedError's base
    if isinstance(exc, SlotNotCoveredError):
        return True
    if isinstance(exc, RedisClusterException):
        return str(exc).startswith(_DOWN_CLUSTER_MESSAGES)
    if isinstance(exc, ResponseError):
        return str(exc).startswith(_DOWN_REPLIES)
    if isinstance(exc, AttributeError | TypeError):
        # A connection closed under a command: "'NoneType' object has no attribute
        # 'writelines'" (or 'readline', 'drain'...) from redis-py's connection code.
        return _raised_inside_redis_py(exc)
    return False


def unavailable(exc: BaseException) -> StoreUnavailable:
    """The StoreUnavailable that stands for ``exc`` (``exc`` itself if it is one)."""
    if isinstance(exc, StoreUnavailable):
        return exc
    return StoreUnavailable(f"Redis unavailable: {type(exc).__name__}: {exc}")


@contextlib.contextmanager
def store_down_as_unavailable() -> Iterator[None]:
    """Run a Redis call: a failure that means Redis is away leaves as StoreUnavailable (from
    the original), anything else as it was raised."""
    try:
        yield
    except StoreUnavailable:
        raise
    except Exception as exc:
        if is_store_down(exc):
            raise unavailable(exc) from exc
        raise
