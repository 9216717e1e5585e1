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
    # no host at a competition's table: nobody's host powers or badge are shown
    assert stored.host == ALICE.player_id
    assert stored.public_json()["host"] is None and stored.public_json()["host_seat"] is None
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


async def test_a_competition_table_made_in_vain_is_taken_out(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """An event's table whose maker was overtaken (another instance made the seat's table)
    leaves Redis and its creator's list of games, its clock with it; other tables stay."""
    service, _ = make_service(redis_client, namespace)
    compete = {"kind": "event", "event": 1, "round": 1, "table": 0, "seed": SEED}
    bots = {"2": "easy", "3": "easy"}
    made = await service.create_compete(
        ALICE, "classic", {}, compete=compete, bots=bots, others={1: BOB}
    )
    kept = await service.create_compete(
        ALICE, "classic", {}, compete=compete, bots=bots, others={1: BOB}
    )
    assert made.id in await service.games.table_ids(ALICE.player_id)
    assert await service.store.due_of(made.id) is not None  # the computers' turns are due
    await service.discard_compete(made)
    with pytest.raises(TableError) as err:
        await service.read(made.id)
    assert err.value.code == "unknown_table"
    assert await service.store.due_of(made.id) is None
    assert await service.games.table_ids(ALICE.player_id) == [kept.id]
    assert (await service.read(kept.id))[0].status == "playing"
    plain = await service.create(ALICE, "classic", {})
    with pytest.raises(TableError) as err:  # only a competition's table
        await service.discard_compete(plain)
    assert err.value.code == "bad_compete"
    assert (await service.read(plain.id))[0].status == "waiting"
