"""Creation limits of the HTTP routes: new guests per client address, and the answer to a
table creation over its limits (app.tables.limits). Both answer HTTP 429 with a stable code
and ``Retry-After`` (seconds), and create nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException
from starlette.requests import HTTPConnection

from app.api.client import address_group, client_address
from app.db.ratelimit import AttemptLimiter
from app.store import keys
from app.tables.limits import TooManyTables

if TYPE_CHECKING:
    from app.services import Services


def too_many(
    code: str, message: str, retry_after: int, values: Mapping[str, object] | None = None
) -> HTTPException:
    """429 ``code`` with ``Retry-After``; ``values``: the named values its words need."""
    detail: dict[str, object] = {"code": code, "message": message, "retry_after": retry_after}
    if values:
        detail["values"] = dict(values)
    return HTTPException(429, detail=detail, headers={"Retry-After": str(retry_after)})


async def limit_or_refuse(
    redis: Any,
    name: str,
    *keys: str,
    attempts: int,
    window_seconds: int,
    prefix: str,
    code: str,
    what: str,
) -> None:
    """Count one attempt of ``name`` against every key (an AttemptLimiter's fixed window);
    429 ``code`` ("too many {what}; try again in N s") when any key is over ``attempts``."""
    limiter = AttemptLimiter(
        redis, name, attempts=attempts, window_seconds=window_seconds, prefix=prefix
    )
    wait = await limiter.hit(*keys)
    if wait is not None:
        raise too_many(code, f"too many {what}; try again in {wait} s", wait)


def limit_address(conn: HTTPConnection) -> str:
    """The client's address as the creation limits count it (an IPv6 /64 as one)."""
    return address_group(client_address(conn))


async def check_new_guest(services: Services, conn: HTTPConnection) -> None:
    """Count one new guest against the client's address; 429 ``too_many_guests`` when the
    address has had ``max_guests_per_address`` in the current window."""
    settings = services.settings
    if settings.max_guests_per_address <= 0:
        return
    limiter = AttemptLimiter(
        services.redis,
        "guests",
        attempts=settings.max_guests_per_address,
        window_seconds=settings.guest_window_seconds,
        prefix=keys.limits_prefix(settings.redis_namespace),
    )
    wait = await limiter.hit(limit_address(conn))
    if wait is not None:
        raise too_many(
            "too_many_guests",
            f"{settings.max_guests_per_address} new guests were already made from your network "
            f"address in the last {_duration(settings.guest_window_seconds)}, the most allowed: "
            f"keep playing as the guest you have, or try again in {wait} s",
            wait,
            {
                "limit": settings.max_guests_per_address,
                "window": settings.guest_window_seconds,
                "wait": wait,
            },
        )


def tables_refused(exc: TooManyTables) -> HTTPException:
    return too_many(exc.code, exc.message, exc.retry_after)


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return "hour" if hours == 1 else f"{hours} hours"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return "minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds} seconds"
