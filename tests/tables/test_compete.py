"""A competition's table: made private and started from its own seed in one go, with its extra
rules (no chat, nobody else sits, no leaving mid-game, no rematch, the seed never shown)."""

from __future__ import annotations

import orjson
import pytest
import redis.asyncio as aioredis

from app import engine
from app.tables import TableError
from tests.tables.test_service import ALICE, BOB, make_service

pytestmark = pytest.mark.asyncio

SEED = 123_456_789_012


async def test_a_competition_table_deals_from_its_seed_and_refuses_extras(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace)
    options = {"end": "hands", "hands": 2}
    compete = {"kind": "daily", "day": "2026-11-27", "preset": "classic", "seed": SEED}
    bots = {"1": "easy", "2": "easy", "3": "easy"}
    table = await service.create_compete(ALICE, "classic", options, compete=compete, bots=bots)
    stored, state = await service.read(table.id)
    assert stored.status == "playing" and stored.private and stored.seed == SEED
    assert state is not None
    expected = engine.new_game(engine.make_rules("classic", options), SEED)
    assert state.hands == expected.hands
    public = orjson.dumps(stored.public_json())
    assert str(SEED).encode() not in public
    assert stored.public_json()["compete"] == {
        "kind": "daily",
        "day": "2026-11-27",
        "preset": "classic",
    }
    for attempt in (
        service.chat(table.id, ALICE, "hello"),
        service.sit(table.id, BOB, 1),
        service.leave(table.id, ALICE),
        service.rematch(table.id, ALICE),
    ):
        with pytest.raises(TableError) as err:
            await attempt
        assert err.value.code == "compete_table", err.value
    after, _ = await service.read(table.id)
    assert after.version == stored.version  # nothing changed


async def test_a_competition_table_needs_a_seed(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace)
    for seed in (None, 0, -3, True, "12"):
        with pytest.raises(TableError) as err:
            await service.create_compete(
                ALICE, "classic", {}, compete={"kind": "daily", "seed": seed}, bots={}
            )
        assert err.value.code == "bad_compete"
