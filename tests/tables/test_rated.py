"""Rated tables in the table service: the option, who may sit, leavers and their growing ban,
players sharing an address."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from app.settings import Settings
from app.tables import Actor, TableError
from app.tables.rated import MAX_BAN_MS, RatedBanned, ban_until
from tests.tables.test_records import play
from tests.tables.test_service import ALICE, BOB, CAROL, Clock, drive_bots, make_service

HOME, OFFICE = "203.0.113.7", "198.51.100.9"


def at(actor: Actor, address: str) -> Actor:
    return Actor(actor.player_id, actor.name, address)


async def refused(code: str, call: object) -> TableError:
    with pytest.raises(TableError) as err:
        await call  # type: ignore[misc]
    assert err.value.code == code
    return err.value


@pytest.mark.asyncio
async def test_the_rated_option_is_checked_and_shown(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace)
    await refused("bad_rated", service.create(ALICE, "classic", rated="yes"))  # type: ignore[arg-type]
    table = await service.create(ALICE, "classic", rated=True)
    assert table.public_json()["rated"] is True
    assert table.lobby_json(0)["rated"] is True
    casual = await service.create(BOB, "classic")
    assert casual.public_json()["rated"] is False


@pytest.mark.asyncio
async def test_the_gate_refuses_before_anything_changes(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace)
    table = await service.create(ALICE, "classic", rated=True)
    casual = await service.create(ALICE, "classic")
    asked: list[str] = []

    async def gate(player_id: str) -> None:
        asked.append(player_id)
        if player_id == BOB.player_id:
            raise TableError("rated_guest", "rated tables are for registered players")

    service.rated_rules.gate = gate
    version = (await service.read(table.id))[0].version
    await refused("rated_guest", service.sit(table.id, BOB, 1))
    after, _ = await service.read(table.id)
    assert after.version == version and after.seats[1].kind == "open"
    await refused("rated_guest", service.create(BOB, "classic", rated=True))
    await service.sit(casual.id, BOB, 1)  # a casual table asks nothing
    await service.sit(table.id, CAROL, 1)
    assert asked == [BOB.player_id, BOB.player_id, CAROL.player_id]


@pytest.mark.asyncio
async def test_a_leaver_is_recorded_as_leaving_and_banned_after_repeated_abandons(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, results = make_service(
        redis_client,
        namespace,
        clock,
        turn_timer_seconds=0,
        rated_free_abandons=1,
        rated_ban_minutes=120,
    )

    async def rated_game_left_by_bob() -> str:
        table = await service.create(ALICE, "classic", {"end": "hands", "hands": 1}, rated=True)
        await service.sit(table.id, BOB, 1)
        for seat in (2, 3):
            await service.add_bot(table.id, ALICE, seat, "easy")
        await service.start(table.id, ALICE)
        await service.leave(table.id, BOB)
        return table.id

    first = await rated_game_left_by_bob()
    t, _ = await service.read(first)
    assert t.seats[1].left and t.seats[1].owner_id == BOB.player_id
    # Carol takes the seat over: it still counts for Bob, who left.
    await service.sit(first, CAROL, 1)
    await service.leave(first, CAROL)
    await service.attach(first, ALICE.player_id)
    await service.detach(first, ALICE.player_id)
    clock.ms += 31_000
    await drive_bots(service, first, clock)
    game = (await results.records())[-1]
    assert game["kind"] == "game" and game["rated"] is True
    assert game["seats"][1]["player_id"] == BOB.player_id and game["seats"][1]["left"]
    assert not game["seats"][0]["left"]
    # One abandon is free (beyond its rating); Carol, who only stood in, counts none.
    assert await service.rated_rules.abandons(CAROL.player_id, clock.ms) == []
    await service.rated_rules.check_player(BOB.player_id, clock.ms)
    second = await rated_game_left_by_bob()
    err = await refused("rated_banned", service.create(BOB, "classic", rated=True))
    assert isinstance(err, RatedBanned)
    assert err.until_ms == clock.ms + 120 * 60_000 and err.retry_after == 7200
    assert "UTC" in err.message
    await service.create(BOB, "classic")  # casual tables stay open to him
    # ... and a rated table is refused to him at sitting too, until the ban ends
    other = await service.create(CAROL, "classic", rated=True)
    await refused("rated_banned", service.sit(other.id, BOB, 1))
    clock.ms += 120 * 60_000 + 1
    await service.sit(other.id, BOB, 1)
    assert second != first


@pytest.mark.asyncio
async def test_leaving_a_casual_game_or_a_rated_table_before_its_game_costs_nothing(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, _ = make_service(redis_client, namespace, clock, rated_free_abandons=0)
    casual = await service.create(ALICE, "classic")
    await service.sit(casual.id, BOB, 1)
    for seat in (2, 3):
        await service.add_bot(casual.id, ALICE, seat)
    await service.start(casual.id, ALICE)
    await service.leave(casual.id, BOB)
    assert not (await service.read(casual.id))[0].seats[1].left
    rated = await service.create(ALICE, "classic", rated=True)
    await service.sit(rated.id, BOB, 1)
    await service.leave(rated.id, BOB)  # before the start
    assert await service.rated_rules.abandons(BOB.player_id, clock.ms) == []
    await service.rated_rules.check_player(BOB.player_id, clock.ms)


def test_the_ban_grows_with_each_abandon_and_is_capped() -> None:
    settings = Settings(rated_free_abandons=1, rated_ban_minutes=120)
    hour = 3_600_000
    assert ban_until([], settings) is None
    assert ban_until([0.0], settings) is None
    assert ban_until([0.0, 10.0], settings) == 10 + 2 * hour
    assert ban_until([20.0, 0.0, 10.0], settings) == 20 + 4 * hour  # any order
    many = [float(i) for i in range(20)]
    assert ban_until(many, settings) == 19 + MAX_BAN_MS
    assert ban_until([0.0, 1.0], Settings(rated_ban_minutes=0)) is None


@pytest.mark.asyncio
async def test_shared_address_is_told_and_kept_apart_at_public_rated_tables(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace)
    # A casual table: both sit; the table tells which seats share an address.
    casual = await service.create(ALICE, "classic", address=HOME)
    await service.sit(casual.id, at(BOB, HOME), 1)
    await service.sit(casual.id, at(CAROL, OFFICE), 2)
    t, _ = await service.read(casual.id)
    public = t.public_json()
    assert public["shared_address"] == [[0, 1]]
    assert HOME not in str(public) and t.seats[0].address not in str(public)
    assert HOME not in str(t.to_json())  # stored as a keyed digest only
    # A public rated table: the second player of an address is refused.
    rated = await service.create(ALICE, "classic", address=HOME, rated=True)
    await refused("shared_address", service.sit(rated.id, at(BOB, HOME), 1))
    await service.sit(rated.id, at(CAROL, OFFICE), 1)
    # A private rated table (friends who know each other): allowed, and told.
    private = await service.create(ALICE, "classic", address=HOME, rated=True, private=True)
    await service.sit(private.id, at(BOB, HOME), 1)
    assert (await service.read(private.id))[0].public_json()["shared_address"] == [[0, 1]]


@pytest.mark.asyncio
async def test_a_rated_table_refuses_hints(redis_client: aioredis.Redis, namespace: str) -> None:
    from app.tables.rated import refuse_hints

    refuse_hints({"hints": False})
    with pytest.raises(TableError) as err:
        refuse_hints({"hints": True})
    assert err.value.code == "rated_no_hints"
    service, _ = make_service(redis_client, namespace)
    table = await service.create(ALICE, "classic", rated=True)
    assert table.rated


@pytest.mark.asyncio
async def test_a_rated_game_played_out_is_rated_for_its_players(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, results = make_service(redis_client, namespace, clock, turn_timer_seconds=0)
    table = await service.create(ALICE, "classic", {"end": "hands", "hands": 1}, rated=True)
    for seat in (1, 2, 3):
        await service.add_bot(table.id, ALICE, seat, "standard")
    await service.start(table.id, ALICE)
    await play(service, table.id, ALICE, 0)
    await service.attach(table.id, ALICE.player_id)
    await service.detach(table.id, ALICE.player_id)
    clock.ms += 31_000
    await drive_bots(service, table.id, clock)
    game = (await results.records())[-1]
    assert game["rated"] is True and game["ended"] == "finished"
    assert not any(seat.get("left") for seat in game["seats"])
