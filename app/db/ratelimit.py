"""Attempt counters in Redis: fixed windows (AttemptLimiter), and the sign-in throttle
(growing delays per address, name and device, never a lockout)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.store.keys import limits_prefix

# The counters' prefix in the default namespace; the app passes its namespace's.
PREFIX = limits_prefix("hearts")


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

    async def hit(self, *keys: str, cost: int = 1) -> int | None:
        """Count an attempt costing ``cost`` attempts against every key; the seconds to wait if
        any is over its limit, else None."""
        pipe = self.redis.pipeline(transaction=True)
        for key in keys:
            full = self._key(key)
            pipe.set(full, 0, ex=self.window_seconds, nx=True)
            pipe.incrby(full, cost)
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


# --- sign-in throttling: growing delays, never a lockout ------------------------------------

# KEYS: failure counters (hashes: n = failed attempts, at = the last attempt in ms).
# ARGV: now_ms, ttl_s, then per key: free failures, base delay ms, longest delay ms.
# An attempt waits while any counter past its free failures is within its delay (base
# doubled per failure beyond the free ones, capped) of its last attempt; else it is counted
# at once, as if it failed (so parallel guesses cannot all slip through before the first
# answer), and a success takes it back.
_BEGIN_LUA = """
local now = tonumber(ARGV[1])
local wait = 0
for i, key in ipairs(KEYS) do
  local j = 3 + (i - 1) * 3
  local free = tonumber(ARGV[j])
  local n = tonumber(redis.call('HGET', key, 'n') or '0')
  if n >= free then
    local at = tonumber(redis.call('HGET', key, 'at') or '0')
    local delay = math.min(tonumber(ARGV[j + 1]) * 2 ^ (n - free), tonumber(ARGV[j + 2]))
    if at + delay > now then
      wait = math.max(wait, at + delay - now)
    end
  end
end
if wait > 0 then
  return math.ceil(wait)
end
for i, key in ipairs(KEYS) do
  redis.call('HINCRBY', key, 'n', 1)
  redis.call('HSET', key, 'at', ARGV[1])
  redis.call('EXPIRE', key, ARGV[2])
end
return 0
"""
# KEYS: the first ARGV[1] are reset (deleted), the others take one attempt back.
_SUCCESS_LUA = """
for i, key in ipairs(KEYS) do
  if i <= tonumber(ARGV[1]) then
    redis.call('DEL', key)
  elseif redis.call('HINCRBY', key, 'n', -1) <= 0 then
    redis.call('DEL', key)
  end
end
return 0
"""


@dataclass(frozen=True, slots=True)
class LoginLimits:
    """Failures allowed before the delays start, per counter (HEARTS_LOGIN_* settings)."""

    free_per_address: int
    free_per_address_name: int
    free_per_name: int
    max_delay_seconds: int
    memory_seconds: int
    # The first delay; each further failure doubles it.
    base_delay_seconds: float = 1.0
    # Wrong passwords sent with one known-device cookie before it stops counting as known.
    device_failures: int = 5

    @classmethod
    def from_settings(cls, settings: object) -> LoginLimits:
        """From the server's settings; a setting that is missing (a bare test app) takes its
        default from app.settings."""
        from app.settings import Settings

        def get(name: str) -> int:
            field = f"login_{name}"
            return int(getattr(settings, field, Settings.model_fields[field].default))

        return cls(
            free_per_address=get("free_failures_per_address"),
            free_per_address_name=get("free_failures_per_address_name"),
            free_per_name=get("free_failures_per_name"),
            max_delay_seconds=get("max_delay_seconds"),
            memory_seconds=get("failure_memory_seconds"),
        )


def _now() -> float:
    return time.time()


class LoginThrottle:
    """Sign-in attempts: failures counted per client address, per (address, account name),
    and per account name for devices that have not signed in to it before; per known-device
    cookie otherwise (OWASP's device cookies). Past its free failures a counter makes the next
    attempt wait (1 s, 2 s, 4 s, ... up to ``max_delay_seconds``): an attacker is slowed down
    and the owner is never locked out, and their known device skips the per-name counter
    that attacks from elsewhere fill."""

    def __init__(
        self,
        redis: Any,
        limits: LoginLimits,
        *,
        prefix: str = PREFIX,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.redis = redis
        self.limits = limits
        self.prefix = prefix
        self.clock = clock or _now

    def _key(self, kind: str, *parts: str) -> str:
        digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]
        return f"{self.prefix}:login-{kind}:{digest}"

    def _counters(self, address: str, name: str, device: str | None) -> list[tuple[str, int]]:
        limits = self.limits
        counters = [
            (self._key("address", address), limits.free_per_address),
            (self._key("address-name", address, name), limits.free_per_address_name),
        ]
        if device is None:
            counters.append((self._key("name", name), limits.free_per_name))
        else:
            counters.append((self._key("device", device), limits.device_failures))
        return counters

    async def device_trusted(self, device: str) -> bool:
        """A known-device cookie counts until wrong passwords were sent with it too often."""
        failures = await self.redis.hget(self._key("device", device), "n")
        return int(failures or 0) < self.limits.device_failures

    async def begin(self, address: str, name: str, device: str | None) -> int | None:
        """Count an attempt (as failed until ``succeeded``); the seconds to wait instead when
        a counter says so."""
        limits = self.limits
        counters = self._counters(address, name, device)
        base_ms = int(limits.base_delay_seconds * 1000)
        max_ms = limits.max_delay_seconds * 1000
        args: list[int] = [
            int(self.clock() * 1000),
            max(limits.memory_seconds, 2 * limits.max_delay_seconds),
        ]
        for _key, free in counters:
            args += [free, base_ms, max_ms]
        wait_ms = int(
            await self.redis.eval(_BEGIN_LUA, len(counters), *(k for k, _ in counters), *args)
        )
        return -(-wait_ms // 1000) if wait_ms > 0 else None

    async def succeeded(self, address: str, name: str, device: str | None) -> None:
        """The password was right: the (address, name) and device counters start again; the
        others take this attempt back (only failures count)."""
        counters = [key for key, _ in self._counters(address, name, device)]
        # _counters order: address, address-name, name or device.
        reset = [counters[1], counters[2]] if device is not None else [counters[1]]
        undo = [counters[0]] if device is not None else [counters[0], counters[2]]
        await self.redis.eval(_SUCCESS_LUA, len(reset) + len(undo), *reset, *undo, len(reset))
