"""Sign-in throttling: growing delays per address, per address and name, and per name from
unknown devices; the owner's known device still signs in while the name is under attack."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import fakeredis
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.api.accounts import router
from app.db import Database, ratelimit
from app.db.ratelimit import LoginLimits, LoginThrottle

PASSWORD = "correct horse battery"
WRONG = "wrong horse battery"
SECRET = "throttle-test-secret"


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(ratelimit, "_now", fake)
    return fake


def make_app(database: Database, **settings: Any) -> FastAPI:
    app = FastAPI()
    app.include_router(router)
    app.state.database = database
    app.state.redis = fakeredis.FakeAsyncRedis()
    app.state.settings = SimpleNamespace(secret_key=SECRET, **settings)
    return app


@pytest.fixture
def app(sqlite_database: Database) -> FastAPI:
    return make_app(sqlite_database)


class Device:
    """One browser (its own cookies) at one address."""

    def __init__(self, app: FastAPI, address: str) -> None:
        self.client = TestClient(app, client=(address, 40000))

    def login(self, name: str, password: str) -> Any:
        return self.client.post("/api/account/login", json={"name": name, "password": password})

    def close(self) -> None:
        self.client.close()


@pytest.fixture
def devices(app: FastAPI) -> Iterator[Any]:
    made: list[Device] = []

    def device(address: str) -> Device:
        made.append(Device(app, address))
        return made[-1]

    yield device
    for d in made:
        d.close()


def register(device: Device, name: str) -> None:
    reply = device.client.post("/api/account/register", json={"name": name, "password": PASSWORD})
    assert reply.status_code == 201, reply.text
    assert "hearts_device" in device.client.cookies


def test_an_attack_from_many_addresses_slows_unknown_devices_not_the_owner(
    devices: Any, clock: Clock
) -> None:
    owner = devices("198.51.100.7")
    register(owner, "Olive")  # this browser is now a known device of the account
    # Ten wrong passwords from ten addresses: one each, so no address is slowed down...
    for i in range(10):
        assert devices(f"203.0.113.{i}").login("olive", WRONG).status_code == 401
    # ...but the name is, for devices that never signed in to it: 1 s, 2 s, 4 s, 8 s...
    waits = []
    for i in range(10, 15):
        refused = devices(f"203.0.113.{i}").login("olive", WRONG)
        assert refused.status_code == 429
        assert refused.json()["detail"]["code"] == "too_many_attempts"
        waits.append(int(refused.headers["Retry-After"]))
        clock.advance(waits[-1])
        assert devices(f"203.0.113.{i + 100}").login("olive", WRONG).status_code == 401
    assert waits == [1, 2, 4, 8, 16]
    # Asking again while refused does not count: the wait stays where it was.
    again = [int(devices("203.0.113.200").login("olive", WRONG).headers["Retry-After"])]
    again.append(int(devices("203.0.113.201").login("olive", WRONG).headers["Retry-After"]))
    assert again == [32, 32]
    # The owner's known device signs in at once, with the right password.
    signed_in = owner.login("OLIVE", PASSWORD)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["player"]["name"] == "Olive"
    # The owner on a new phone waits like anyone else, then signs in: a delay, no lockout.
    phone = devices("198.51.100.8")
    delayed = phone.login("olive", PASSWORD)
    assert delayed.status_code == 429
    clock.advance(int(delayed.headers["Retry-After"]))
    assert phone.login("olive", PASSWORD).status_code == 200
    # The phone is known from now on.
    assert phone.login("olive", PASSWORD).status_code == 200


def test_the_attackers_address_is_slowed_down(devices: Any, clock: Clock) -> None:
    register(devices("198.51.100.7"), "Pat")
    attacker = devices("203.0.113.66")
    assert [attacker.login("pat", WRONG).status_code for _ in range(5)] == [401] * 5
    waits = []
    for _ in range(12):
        refused = attacker.login("pat", WRONG)
        assert refused.status_code == 429
        waits.append(int(refused.headers["Retry-After"]))
        clock.advance(waits[-1])
        assert attacker.login("pat", WRONG).status_code == 401
    # Doubling from 1 s, never longer than the longest wait (300 s by default).
    assert waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]
    # One address guessing many names is slowed down too (after 20 failures).
    spray = devices("203.0.113.67")
    codes = [spray.login(f"name{i}", WRONG).status_code for i in range(21)]
    assert codes == [401] * 20 + [429]


def test_only_failures_count(devices: Any, clock: Clock) -> None:
    owner = devices("198.51.100.9")
    register(owner, "Quinn")
    stranger = devices("198.51.100.9")  # same address, another browser
    for _ in range(3):
        assert [stranger.login("quinn", WRONG).status_code for _ in range(4)] == [401] * 4
        # A success resets the (address, name) counter: typos never add up to a wait.
        assert stranger.login("quinn", PASSWORD).status_code == 200
    # Successes do not count against the address or the name either.
    for _ in range(30):
        assert owner.login("quinn", PASSWORD).status_code == 200


def test_a_forged_or_abused_device_cookie_is_an_unknown_device(
    sqlite_database: Database, clock: Clock
) -> None:
    app = make_app(sqlite_database, login_free_failures_per_address_name=100)
    owner = Device(app, "198.51.100.10")
    register(owner, "Rita")
    for i in range(10):
        assert Device(app, f"203.0.113.{i}").login("rita", WRONG).status_code == 401
    assert Device(app, "203.0.113.50").login("rita", WRONG).status_code == 429
    # A made-up device cookie does not pass for a known device.
    forger = Device(app, "203.0.113.51")
    forger.client.cookies.set("hearts_device", "W1sicml0YSIsICJ4Il1d.forged", path="/api/account")
    assert forger.login("rita", PASSWORD).status_code == 429
    # The owner's device cookie, copied by someone who guesses with it: after 5 wrong
    # passwords it stops counting as known.
    thief = Device(app, "203.0.113.52")
    thief.client.cookies.set(
        "hearts_device", owner.client.cookies["hearts_device"], path="/api/account"
    )
    assert [thief.login("rita", WRONG).status_code for _ in range(5)] == [401] * 5
    assert thief.login("rita", WRONG).status_code == 429
    assert owner.login("rita", PASSWORD).status_code == 429
    # Signing in again (after the wait) gives the owner a fresh device cookie.
    clock.advance(300)
    assert owner.login("rita", PASSWORD).status_code == 200
    assert owner.login("rita", PASSWORD).status_code == 200
    for client in (owner, forger, thief):
        client.close()


@pytest.mark.asyncio
async def test_the_throttle_script_on_redis(any_redis: Any) -> None:
    """The Lua script on fakeredis and on a real Redis: parallel attempts are counted at once
    (none slips through before the first failure is known), successes are taken back."""
    clock = Clock()
    limits = LoginLimits(
        free_per_address=100,
        free_per_address_name=3,
        free_per_name=100,
        max_delay_seconds=60,
        memory_seconds=600,
    )
    prefix = "{t" + uuid.uuid4().hex + "}"
    throttle = LoginThrottle(any_redis, limits, prefix=prefix, clock=clock)
    address, name = "192.0.2.1", "sam"
    started = [await throttle.begin(address, name, None) for _ in range(5)]
    assert started == [None, None, None, 1, 1]  # the 4th waits before any answer is in
    clock.advance(1)
    assert await throttle.begin(address, name, None) is None
    assert await throttle.begin(address, name, None) == 2
    await throttle.succeeded(address, name, None)
    assert await throttle.begin(address, name, None) is None  # (address, name) starts again
    assert await throttle.device_trusted("nonce")
    for i in range(limits.device_failures):
        assert await throttle.begin(f"192.0.2.{10 + i}", name, "nonce") is None
    assert not await throttle.device_trusted("nonce")
    keys = [key async for key in any_redis.scan_iter(match=prefix + "*")]
    # address, (address, name), name; then per address both, and the one device counter
    assert len(keys) == 3 + 2 * limits.device_failures + 1
    ttls = [await any_redis.ttl(key) for key in keys]
    assert all(0 < ttl <= 600 for ttl in ttls)
    await any_redis.delete(*keys)


@pytest.mark.asyncio
async def test_counters_of_one_attempt_share_a_slot_on_every_backend(
    redis_client: Any, namespace: str
) -> None:
    """The counters one attempt touches are in one transaction or script: on Redis Cluster
    they must share a slot (the namespace's ``{<ns>:limits}`` tag), or CROSSSLOT."""
    prefix = "{" + namespace + ":limits}"
    limiter = ratelimit.AttemptLimiter(
        redis_client, "guests", attempts=2, window_seconds=60, prefix=prefix
    )
    assert await limiter.hit("1.2.3.4", "1.2.3.0/24") is None
    assert await limiter.hit("1.2.3.4", "1.2.3.0/24") is None
    wait = await limiter.hit("1.2.3.4", "1.2.3.0/24")
    assert wait is not None and 0 < wait <= 60
    await limiter.reset("1.2.3.4", "1.2.3.0/24")
    assert await limiter.hit("1.2.3.4", "1.2.3.0/24") is None
    limits = LoginLimits(
        free_per_address=1,
        free_per_address_name=1,
        free_per_name=1,
        max_delay_seconds=60,
        memory_seconds=600,
    )
    throttle = LoginThrottle(redis_client, limits, prefix=prefix, clock=lambda: 1000.0)
    assert await throttle.begin("1.2.3.4", "ann", None) is None  # counted as failed
    wait = await throttle.begin("1.2.3.4", "ann", None)
    assert wait is not None and wait >= 1
    await throttle.succeeded("1.2.3.4", "ann", None)
    assert await throttle.device_trusted("some-device")
