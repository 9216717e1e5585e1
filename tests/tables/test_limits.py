"""Live tables per creating player and per client address (app.tables.limits), on fakeredis
and a real Redis: refused creations store nothing, finished, expired and handed-over tables
free their slots, and every instance on one Redis keeps one count."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from app.store import keys
from app.tables import Actor, Table, TableService
from app.tables.limits import TooManyTables
from tests.tables.test_service import ALICE, BOB, CAROL, Clock, drive_bots, make_service

pytestmark = pytest.mark.asyncio

HOME = "203.0.113.7"
ELSEWHERE = "198.51.100.20"
IDLE = 3600  # the default idle_table_ttl_seconds


def count_commits(service: TableService) -> list[str]:
    """The table ids the store is asked to commit from now on."""
    calls: list[str] = []
    commit = service.store.commit

    async def spy(table_id: str, **kwargs: Any) -> Any:
        calls.append(table_id)
        return await commit(table_id, **kwargs)

    service.store.commit = spy  # type: ignore[method-assign]
    return calls


async def finish_game(service: TableService, table_id: str, clock: Clock) -> None:
    """Computers in seats 1-3 and the host away (the turn timer): the game runs to its end."""
    await service.start(table_id, ALICE)
    clock.ms += 31_000
    await drive_bots(service, table_id, clock)
    table, _ = await service.read(table_id)
    assert table.status == "over"


async def test_over_the_player_limit_is_refused_and_stores_nothing(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace, max_tables_per_host=3)
    created = [await service.create(ALICE, "classic", address=HOME) for _ in range(3)]
    commits = count_commits(service)
    lobby_before = await service.store.lobby_entries()
    with pytest.raises(TooManyTables) as refused:
        await service.create(ALICE, "classic", address=HOME)
    assert refused.value.code == "too_many_tables" and refused.value.kind == "player"
    assert "3 live tables" in refused.value.message
    # A slot is sure to be free when the first table expires: within the idle time.
    assert 0 < refused.value.retry_after <= IDLE
    assert commits == []
    assert await service.store.lobby_entries() == lobby_before
    if type(redis_client).__module__.startswith("fakeredis"):  # this test's Redis alone
        found = await redis_client.keys("*:table:*")
        stored = {k.decode().split(":table:")[1].split(":")[0] for k in found}
        assert stored == {t.id for t in created}
    # Others (another player, from another address) are not affected.
    other = await service.create(BOB, "classic", address=ELSEWHERE)
    assert commits == [other.id]


async def _one_table_allowed(
    redis_client: aioredis.Redis, namespace: str, clock: Clock
) -> tuple[TableService, Table]:
    """A service allowing one table a host, and Alice's one-hand table against three
    computers (her one table)."""
    service, _ = make_service(redis_client, namespace, clock, max_tables_per_host=1)
    bots = {str(seat): "easy" for seat in (1, 2, 3)}
    return service, await service.create(ALICE, "classic", {"end": "hands", "hands": 1}, bots=bots)


async def test_a_finished_game_frees_its_slot_and_a_rematch_takes_it_again(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, table = await _one_table_allowed(redis_client, namespace, clock)
    with pytest.raises(TooManyTables):
        await service.create(ALICE, "classic")
    await finish_game(service, table.id, clock)
    second = await service.create(ALICE, "classic")
    await service.leave(second.id, ALICE)  # waiting and empty: counts until it expires
    with pytest.raises(TooManyTables):
        await service.create(ALICE, "classic")
    # The finished table is played again: it counts again (it is not over any more).
    await redis_client.delete(*keys.table_keys(second.id))  # the empty table expires
    clock.ms += IDLE * 1000
    await service.rematch(table.id, ALICE)
    with pytest.raises(TooManyTables):
        await service.create(ALICE, "classic")


async def test_leaving_a_game_to_the_computers_frees_nothing_until_it_ends(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Otherwise one player could keep any number of computer-only games running."""
    clock = Clock()
    service, table = await _one_table_allowed(redis_client, namespace, clock)
    await service.start(table.id, ALICE)
    await service.leave(table.id, ALICE)
    left, _ = await service.read(table.id)
    assert left.host is None and left.status == "playing"
    with pytest.raises(TooManyTables):
        await service.create(ALICE, "classic")
    await drive_bots(service, table.id, clock)
    await service.create(ALICE, "classic")


async def test_handing_a_table_over_frees_the_players_slot_not_the_addresses(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(
        redis_client, namespace, max_tables_per_host=1, max_tables_per_address=2
    )
    first = await service.create(ALICE, "classic", address=HOME)
    await service.sit(first.id, BOB, 1)
    with pytest.raises(TooManyTables) as refused:
        await service.create(ALICE, "classic", address=HOME)
    assert refused.value.kind == "player"
    await service.leave(first.id, ALICE)  # Bob hosts it now
    await service.create(ALICE, "classic", address=HOME)
    # The address still has both tables: the one Bob hosts and Alice's new one.
    with pytest.raises(TooManyTables) as refused:
        await service.create(CAROL, "classic", address=HOME)
    assert refused.value.kind == "address" and "network address" in refused.value.message
    await service.create(CAROL, "classic", address=ELSEWHERE)


async def test_an_expired_table_frees_its_slot(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, _ = make_service(
        redis_client, namespace, clock, max_tables_per_host=2, max_tables_per_address=2
    )
    old = await service.create(ALICE, "classic", address=HOME)
    await service.create(ALICE, "classic", address=HOME)
    with pytest.raises(TooManyTables):
        await service.create(ALICE, "classic", address=HOME)
    # An hour later the first table's keys are gone (what their expiry does).
    clock.ms += IDLE * 1000
    await redis_client.delete(*keys.table_keys(old.id))
    await service.create(ALICE, "classic", address=HOME)
    # The sets hold what counts, no more: the expired table was dropped from both.
    player_set = keys.hosting_key(namespace, "player:" + ALICE.player_id)
    members = {m.decode() for m in await redis_client.zrange(player_set, 0, -1)}
    assert old.id not in members and len(members) == 2
    # Nothing stays forever: the sets expire with their creator's activity.
    assert 0 < await redis_client.pttl(player_set) <= 24 * 3600 * 1000


async def test_a_refused_or_failed_creation_keeps_no_reservation(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace, max_tables_per_host=1)

    async def broken(table_id: str, **kwargs: Any) -> Any:
        raise ConnectionError("Redis went away")

    commit = service.store.commit
    service.store.commit = broken  # type: ignore[method-assign]
    with pytest.raises(ConnectionError):
        await service.create(ALICE, "classic")
    service.store.commit = commit  # type: ignore[method-assign]
    await service.create(ALICE, "classic")  # the failed attempt left its slot free


async def test_an_empty_waiting_table_expires_soon(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace, empty_table_ttl_seconds=300)
    shared = await service.create(ALICE, "classic")
    await service.sit(shared.id, BOB, 1)
    await service.leave(shared.id, ALICE)
    assert await redis_client.ttl(keys.state_key(shared.id)) > 300  # Bob is still there
    alone = await service.create(ALICE, "classic", bots={"1": "easy"})
    await service.leave(alone.id, ALICE)
    assert 0 < await redis_client.ttl(keys.state_key(alone.id)) <= 300


async def test_instances_on_one_redis_keep_one_count(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Two instances (two services on one Redis), creations at once: exactly the limit."""
    a, _ = make_service(redis_client, namespace, max_tables_per_host=5)
    b, _ = make_service(redis_client, namespace, max_tables_per_host=5)
    b.instance_id = "i2"
    results = await asyncio.gather(
        *((a if i % 2 else b).create(ALICE, "classic", address=f"192.0.2.{i}") for i in range(16)),
        return_exceptions=True,
    )
    made = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, TooManyTables)]
    assert len(made) == 5 and len(refused) == 11, results
    # And per address, from many players.
    a2, _ = make_service(redis_client, namespace, max_tables_per_address=4)
    b2, _ = make_service(redis_client, namespace, max_tables_per_address=4)
    results = await asyncio.gather(
        *(
            (a2 if i % 2 else b2).create(Actor(f"p-{i}", f"P{i}"), "classic", address=HOME)
            for i in range(12)
        ),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 4, results
    assert all(isinstance(r, TooManyTables) for r in results if isinstance(r, BaseException))


async def test_four_friends_behind_one_address_play_as_usual(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """The defaults: each friend makes a few tables, they sit at each other's, nobody waits."""
    service, _ = make_service(redis_client, namespace)
    friends = [Actor(f"p-friend{i}", f"Friend{i}") for i in range(4)]
    tables = [await service.create(f, "classic", address=HOME) for f in friends for _ in range(3)]
    for table in tables[:4]:
        for seat, friend in enumerate(f for f in friends if f.player_id != table.host):
            await service.sit(table.id, friend, seat + 1)
    await service.start(tables[0].id, friends[0])
