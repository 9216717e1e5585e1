"""Redis did not answer: what the store raises, and what callers catch as "Redis is down"."""

from __future__ import annotations

from typing import Final

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
# ConnectionError and TimeoutError, BusyLoadingError included) and the pipelined client's
# StoreUnavailable (refused, unreachable, lost, loading). Not any OSError: a socket's client
# that went away (uvicorn's ClientDisconnected) is no Redis outage.
STORE_DOWN: Final[tuple[type[BaseException], ...]] = (
    RedisConnectionError,
    RedisTimeoutError,
    StoreUnavailable,
)
