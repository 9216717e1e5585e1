"""Fixed-window attempt counters in Redis (login and registration attempts)."""

from __future__ import annotations

import hashlib
from typing import Any

PREFIX = "{hearts:limits}"


class AttemptLimiter:
    """At most `attempts` hits per key in each window of `window_seconds`."""

    def __init__(
        self, redis: Any, name: str, *, attempts: int, window_seconds: int, prefix: str = PREFIX
    ) -> None:
        self.redis = redis
        self.name = name
        self.attempts = attempts
        self.window_seconds = window_seconds
        self.prefix = prefix

    def _key(self, key: str) -> str:
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]  # bounded, no raw user text
        return f"{self.prefix}:{self.name}:{digest}"

    async def hit(self, *keys: str) -> int | None:
        """Count one attempt against every key; the seconds to wait if any is over its limit,
        else None."""
        pipe = self.redis.pipeline(transaction=True)
        for key in keys:
            full = self._key(key)
            pipe.set(full, 0, ex=self.window_seconds, nx=True)
            pipe.incr(full)
            pipe.ttl(full)
        replies = await pipe.execute()
        wait: int | None = None
        for i in range(len(keys)):
            count, ttl = int(replies[3 * i + 1]), int(replies[3 * i + 2])
            if count > self.attempts:
                seconds = ttl if ttl > 0 else self.window_seconds
                wait = max(wait or 0, seconds)
        return wait

    async def reset(self, *keys: str) -> None:
        if keys:
            await self.redis.delete(*(self._key(k) for k in keys))
