"""The read cache of the writer fed by change notices (``TableWriter.accept``): a notice that
carries the state its commit stored is taken in place of a read from Redis, whichever order
the notices come in, and never over a copy as new or newer."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis.asyncio as aioredis

from app import engine
from app.store import keys
from app.store.codec import BadState
from app.tables import Actor, TableService
from tests.tables.test_service import make_service

pytestmark = pytest.mark.asyncio

PLAYERS = [Actor(f"p{i}", f"P{i}") for i in range(4)]


async def playing_table(service: TableService) -> str:
    table = await service.create(PLAYERS[0], "classic", {"end": "hands", "hands": 1})
    for seat in (1, 2, 3):
        await service.sit(table.id, PLAYERS[seat], seat)
    await service.start(table.id, PLAYERS[0])
    return table.id


async def play_one(service: TableService, table_id: str, rng: random.Random, n: int) -> None:
    _table, state = await service.read(table_id)
    assert state is not None
    seat = engine.seats_to_act(state)[0]
    move = rng.choice(engine.legal_moves(state, seat))
    await service.move(table_id, PLAYERS[seat], f"m{n}", engine.move_to_json(move))


async def stored(redis: aioredis.Redis, table_id: str) -> tuple[int, bytes]:
    """What Redis holds (version, the stored state): what that version's notice carries."""
    version = await redis.get(keys.version_key(table_id))
    blob = await redis.get(keys.state_key(table_id))
    assert version is not None and blob is not None
    assert isinstance(blob, bytes)
    return int(version), blob


def count_loads(service: TableService) -> list[int]:
    """How many times the service reads a table from Redis from now on (one counter)."""
    reads = [0]
    real_load = service.store.load

    async def counted_load(table_id: str) -> Any:
        reads[0] += 1
        return await real_load(table_id)

    service.store.load = counted_load  # type: ignore[method-assign,assignment]
    return reads


def as_json(read: tuple[Any, Any]) -> tuple[Any, Any]:
    table, state = read
    return table.to_json(), engine.state_to_json(state)


async def test_accepted_states_are_read_without_redis_in_any_order(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    writer, _ = make_service(redis_client, namespace)  # the instance that commits
    other, _ = make_service(redis_client, namespace)  # the one that only listens
    table_id = await playing_table(writer)
    rng = random.Random(5)
    await other.read(table_id)
    states: dict[int, bytes] = {}
    for n in range(6):
        await play_one(writer, table_id, rng, n)
        version, blob = await stored(redis_client, table_id)
        states[version] = blob
    first, last = min(states), max(states)

    reads = count_loads(other)
    want = {v: as_json(await writer.read(table_id)) for v in (last,)}

    # In order: each version taken from its notice, no read.
    other.forget(table_id)
    for version in range(first, last + 1):
        other.accept(table_id, version, states[version])
        table, _state = await other.read(table_id, at_least=version)
        assert table.version == version
    assert reads == [0]
    assert as_json(await other.read(table_id, at_least=last)) == want[last]

    # A duplicate (or an older writer's copy of a version held already) is not parsed again.
    held = await other.read(table_id, at_least=last)
    other.accept(table_id, last, b"\x01not deflate at all")
    assert (await other.read(table_id, at_least=last))[0] is held[0]
    # Out of order: an older version's notice after a newer one leaves the newer copy.
    other.accept(table_id, first, states[first])
    assert (await other.read(table_id, at_least=last))[0] is held[0]
    assert reads == [0]

    # A gap (notices lost in between): the state is whole, so the newest one is all it takes.
    other.forget(table_id)
    other.accept(table_id, first, states[first])
    other.accept(table_id, last, states[last])
    assert as_json(await other.read(table_id, at_least=last)) == want[last] and reads == [0]

    # A state that does not decode: refused, the cache left as it was; the read goes to Redis.
    other.forget(table_id)
    other.accept(table_id, first, states[first])
    with pytest.raises(BadState):
        other.accept(table_id, last, b"\x01not deflate at all")
    assert as_json(await other.read(table_id, at_least=last)) == want[last] and reads == [1]


async def test_a_notice_of_this_instances_own_commit_waits_for_its_reply(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """While this instance commits to the table, the notice's state is left alone: the commit's
    reply caches the same version, already parsed, and a read of it waits for that."""
    writer, _ = make_service(redis_client, namespace)
    table_id = await playing_table(writer)
    version, blob = await stored(redis_client, table_id)
    writer.forget(table_id)
    writer._committing[table_id] = set()
    writer.accept(table_id, version, blob)
    assert table_id not in writer._read_cache
    del writer._committing[table_id]
    writer.accept(table_id, version, blob)
    assert writer._read_cache[table_id][0] == version
