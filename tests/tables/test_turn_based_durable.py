"""Turn-based tables outlive what Redis loses: each version is copied to SQL before the move
is answered; a table Redis lost (its keys deleted mid-game) or holds behind SQL (writes lost in
a failover) comes back from SQL on its next read or move with every answered move, and the
game ends with the right result, one row per hand. Page-out: an idle table leaves Redis and
comes back when opened, moved at, or when its clock falls due, at the cost of one SQL read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis.asyncio as aioredis
import sqlalchemy as sa

from app import engine
from app.db import Database, make_database
from app.db.copies import SqlCopies, load_copy
from app.db.models import Game, Hand
from app.store import keys
from app.store.codec import decode_state
from app.store.errors import StoreUnavailable
from app.tables import TableService
from app.tables.durable import Durable
from app.tables.pace import check_pace
from tests.db.conftest import _migrate, migrated_sqlite_file  # noqa: F401 - fixture
from tests.tables.test_service import ALICE, BOB, Clock, make_service
from tests.tables.test_turn_based import HOUR, human_move, run_due

pytestmark = pytest.mark.asyncio

PAGE_OUT_S = 600


@pytest.fixture
def database(tmp_path: Path, migrated_sqlite_file: Path) -> Iterator[Database]:  # noqa: F811
    url = f"sqlite:///{tmp_path / 'hearts.sqlite3'}"
    _migrate(url, migrated_sqlite_file)
    db = make_database(url)
    yield db
    db.dispose()


async def friends_game(
    redis_client: aioredis.Redis,
    namespace: str,
    database: Database,
    hands: int = 2,
    **overrides: Any,
) -> tuple[TableService, Clock, SqlCopies, str]:
    """Alice and Bob and two computers at a turn-based table (1 h a move), a game of
    ``hands`` hands, with SQL copies; the computers have passed."""
    clock = Clock()
    service, _ = make_service(redis_client, namespace, clock, **overrides)
    copies = SqlCopies(database)
    service.durable = Durable(service.store, service.settings, copies)
    table = await service.create(
        ALICE,
        "classic",
        {"end": "hands", "hands": hands},
        bots={"2": "easy", "3": "easy"},
        pace=check_pace("turn", 3600),
    )
    await service.sit(table.id, BOB, 1)
    await service.start(table.id, ALICE)
    await run_due(service, clock)
    return service, clock, copies, table.id


async def play_on(service: TableService, clock: Clock, table_id: str, moves: int) -> int:
    """Up to ``moves`` moves of the humans (each an hour apart; the computers answer at
    once): the number made before the game ended."""
    for n in range(moves):
        table, state = await service.read(table_id)
        if table.status != "playing":
            return n
        assert state is not None
        clock.ms += HOUR / 4
        await run_due(service, clock)  # a hand's pause, the computers
        table, state = await service.read(table_id)
        if table.status != "playing":
            return n
        assert state is not None
        to_act = [s for s in (0, 1) if engine.legal_moves(state, s)]
        if to_act:
            await human_move(service, table_id, (ALICE, BOB)[to_act[0]], table.version)
        await run_due(service, clock)
    return moves


async def played_to_the_end(
    service: TableService, clock: Clock, database: Database, table_id: str, *, hands: int
) -> Any:
    """Play the game out and check it: the right result, one row per hand, and every hand's
    moves (those made before Redis lost anything included): 52 cards played. The table."""
    while await play_on(service, clock, table_id, 50) == 50:
        pass
    table, state = await service.read(table_id)
    assert table.status == "over" and state is not None and state.phase == "over"
    [game] = rows(database, Game, table_id)
    assert game.status == "finished" and game.totals == [int(x) for x in state.scores]
    with database.session() as session:
        stored = list(session.execute(sa.select(Hand).where(Hand.game_id == game.id)).scalars())
    assert sorted(h.hand_no for h in stored) == list(range(hands))
    assert all(sum(m["type"] == "play" for _seat, m in h.moves) == 52 for h in stored), [
        h.moves[:3] for h in stored
    ]
    return table


async def redis_keys(redis_client: aioredis.Redis, table_id: str) -> dict[str, Any]:
    stored = await redis_client.get(keys.state_key(table_id))
    return {
        "ver": await redis_client.get(keys.version_key(table_id)),
        # as JSON: set back as it is, it is read as a table stored before the codec
        "state": None if stored is None else decode_state(stored),
        "moves": await redis_client.lrange(keys.moves_key(table_id), 0, -1),
    }


def rows(database: Database, model: Any, table_id: str) -> list[Any]:
    with database.session() as session:
        found = session.execute(sa.select(model).where(model.table_id == table_id))
        return list(found.scalars())


async def test_redis_losing_the_table_mid_game_loses_no_answered_move(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, clock, copies, table_id = await friends_game(redis_client, namespace, database)
    await play_on(service, clock, table_id, 6)
    before = await redis_keys(redis_client, table_id)
    copy = load_copy(database, table_id)
    assert copy is not None and copy.version == int(before["ver"])
    assert copy.state == before["state"] and copy.moves == before["moves"]
    # Redis loses every key of the table (a restart without AOF, eviction).
    await redis_client.delete(*keys.table_keys(table_id))
    service.forget(table_id)
    assert service.durable is not None
    reads, restored = copies.reads, service.durable.restored
    table, _state = await service.read(table_id)
    assert table.version == int(before["ver"])
    assert await redis_keys(redis_client, table_id) == before  # every answered move is back
    assert copies.reads - reads <= 2 and service.durable.restored == restored + 1
    # Its clock is back too: a due item at the deadline (or a page-out visit).
    assert await service.store.due_of(table_id) is not None
    await play_on(service, clock, table_id, 8)
    # Redis loses its newest writes (a failover): it holds an older version than SQL.
    old = await redis_keys(redis_client, table_id)
    assert old["ver"] is not None
    await play_on(service, clock, table_id, 3)
    newest = await redis_keys(redis_client, table_id)
    assert int(newest["ver"]) > int(old["ver"])
    await redis_client.set(keys.version_key(table_id), old["ver"])
    await redis_client.set(keys.state_key(table_id), old["state"])
    await redis_client.delete(keys.moves_key(table_id))
    await redis_client.rpush(keys.moves_key(table_id), *old["moves"])
    service.forget(table_id)
    table, _state = await service.read(table_id)  # the read sees SQL is newer
    assert table.version == int(newest["ver"])
    assert await redis_keys(redis_client, table_id) == newest
    table = await played_to_the_end(service, clock, database, table_id, hands=2)
    copy = load_copy(database, table_id)
    assert copy is not None and copy.version == table.version


async def test_a_move_on_a_table_redis_holds_behind_is_made_on_sqls_version(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, clock, _copies, table_id = await friends_game(redis_client, namespace, database)
    await play_on(service, clock, table_id, 2)
    old = await redis_keys(redis_client, table_id)
    await play_on(service, clock, table_id, 2)
    table, state = await service.read(table_id)
    assert state is not None
    seat = next(s for s in (0, 1) if engine.legal_moves(state, s))
    actor = (ALICE, BOB)[seat]
    move = engine.move_to_json(engine.legal_moves(state, seat)[0])
    newest_version = table.version
    # Redis falls back to the older version; this instance still has the newest cached.
    await redis_client.set(keys.version_key(table_id), old["ver"])
    await redis_client.set(keys.state_key(table_id), old["state"])
    done = await service.move(table_id, actor, "m1", move)
    assert done.version == newest_version + 1
    # Sent again (a lost reply): applied once.
    again = await service.move(table_id, actor, "m1", move)
    assert again.version == done.version
    copy = load_copy(database, table_id)
    assert copy is not None and copy.version >= done.version


async def paged_out(redis_client: aioredis.Redis, table_id: str) -> bool:
    found = await redis_keys(redis_client, table_id)
    ver = found["ver"]
    return ver is not None and int(ver) < 0 and found["state"] is None and not found["moves"]


async def idle_table(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> tuple[TableService, Clock, SqlCopies, str]:
    service, clock, copies, table_id = await friends_game(
        redis_client, namespace, database, turn_based_page_out_seconds=PAGE_OUT_S
    )
    clock.ms += PAGE_OUT_S * 1000 - 1
    await run_due(service, clock)
    assert not await paged_out(redis_client, table_id)
    clock.ms += 1
    await run_due(service, clock)
    assert await paged_out(redis_client, table_id)
    # Its clock's due item stays: the warning at 80% of the hour, then the deadline.
    table = copy_json(database, table_id)
    assert await service.store.due_of(table_id) == min(table["warn_ms"], table["deadline_ms"])
    lobby = await service.store.lobby_entry(table_id)
    assert lobby is None or orjson.loads(lobby)["id"] == table_id
    return service, clock, copies, table_id


def copy_json(database: Database, table_id: str) -> dict[str, Any]:
    copy = load_copy(database, table_id)
    assert copy is not None
    parsed: dict[str, Any] = orjson.loads(copy.state)
    return parsed


async def test_page_out_then_in_by_opening(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, clock, copies, table_id = await idle_table(redis_client, namespace, database)
    version = -int((await redis_keys(redis_client, table_id))["ver"])
    reads = copies.reads
    table, state = await service.read(table_id)
    assert copies.reads - reads == 1  # a page-in costs one SQL read
    assert table.version == version and state is not None
    assert not await paged_out(redis_client, table_id)
    # Open, with a socket on it: it stays in while someone looks at it.
    await service.attach(table_id, ALICE.player_id)
    clock.ms += 2 * PAGE_OUT_S * 1000 - 1
    await service.store.make_due_now([table_id], clock.ms)
    await run_due(service, clock)
    assert not await paged_out(redis_client, table_id)


async def test_page_in_by_a_move(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, clock, copies, table_id = await idle_table(redis_client, namespace, database)
    copy = load_copy(database, table_id)
    assert copy is not None
    state = engine.state_from_json(orjson.loads(copy.state)["game"])
    move = engine.move_to_json(engine.legal_moves(state, 1)[0])
    done = await service.move(table_id, BOB, "b1", move)
    assert done.version == copy.version + 1
    assert not await paged_out(redis_client, table_id)
    saved = load_copy(database, table_id)
    assert saved is not None and saved.version == done.version


async def test_page_in_when_its_clock_falls_due(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, clock, _copies, table_id = await idle_table(redis_client, namespace, database)
    deadline = copy_json(database, table_id)["deadline_ms"]
    clock.ms = deadline
    await run_due(service, clock)  # warnings were due earlier; the timeouts now
    table, state = await service.read(table_id)
    assert state is not None and state.phase == "play"  # the computer passed for both
    assert table.seats[0].timeouts == 1 and table.seats[1].timeouts == 1


async def test_a_stale_cached_copy_elsewhere_cannot_commit_over_a_paged_out_table(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, clock, copies, table_id = await friends_game(
        redis_client, namespace, database, turn_based_page_out_seconds=PAGE_OUT_S
    )
    other, _ = make_service(redis_client, namespace, clock, turn_based_page_out_seconds=PAGE_OUT_S)
    other.durable = Durable(other.store, other.settings, copies)
    table, state = await other.read(table_id)  # the other instance caches this version
    assert state is not None
    moves_before = await redis_client.lrange(keys.moves_key(table_id), 0, -1)
    clock.ms += PAGE_OUT_S * 1000
    await run_due(service, clock)
    assert await paged_out(redis_client, table_id)
    move = engine.move_to_json(engine.legal_moves(state, 1)[0])
    done = await other.move(table_id, BOB, "b1", move)
    assert done.version == table.version + 1
    moves = await redis_client.lrange(keys.moves_key(table_id), 0, -1)
    assert moves[: len(moves_before)] == moves_before and len(moves) == len(moves_before) + 1


async def test_my_games_lists_a_paged_out_table_without_paging_it_in(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, _clock, _copies, table_id = await idle_table(redis_client, namespace, database)
    mine = await service.my_games(BOB.player_id)
    assert [g["id"] for g in mine["games"]] == [table_id] and mine["my_turn"] == 1
    assert await paged_out(redis_client, table_id)


class Away:
    """A database that is down: every call fails."""

    async def load(self, table_id: str) -> Any:
        raise sa.exc.OperationalError("SELECT", {}, Exception("the database is down"))

    async def save(self, copy: Any, records: Any = ()) -> bool:
        raise sa.exc.OperationalError("UPDATE", {}, Exception("the database is down"))


async def test_with_sql_away_moves_go_on_from_redis_and_the_next_copy_catches_up(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    service, clock, copies, table_id = await friends_game(redis_client, namespace, database)
    durable = service.durable
    assert durable is not None
    durable.copies = Away()
    table, state = await service.read(table_id)
    assert state is not None
    move = engine.move_to_json(engine.legal_moves(state, 1)[0])
    done = await service.move(table_id, BOB, "b1", move)  # answered, from Redis alone
    assert done.version == table.version + 1 and durable.saves_failed == 1
    # A table Redis does not hold cannot be read meanwhile: an outage, not "unknown".
    await redis_client.delete(*keys.table_keys(table_id))
    service.forget(table_id)
    with pytest.raises(StoreUnavailable):
        await service.read(table_id)
    # The database is back: the copy it has (before Bob's pass) comes back; Bob's pass,
    # answered while SQL was down and then lost by Redis, is the one move lost.
    durable.copies = copies
    table, _state = await service.read(table_id)
    assert table.version == done.version - 1
    await human_move(service, table_id, BOB, 2)
    saved = load_copy(database, table_id)
    assert saved is not None and saved.version == table.version + 1


async def test_a_redis_that_lost_everything_gets_its_turn_based_games_back_at_start(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    """The embedded stand-in restarted (or a Redis flushed): the table, its clock and both
    players' My games entries are gone. At start the server puts back every game SQL holds
    that is not over (one that Redis still knows is left alone), so its players find it in
    My games and its clock runs, without anyone opening its link."""
    service, clock, _copies, table_id = await friends_game(redis_client, namespace, database)
    await play_on(service, clock, table_id, 4)
    before = await redis_keys(redis_client, table_id)
    store = service.store
    lost = [*keys.table_keys(table_id)]
    lost += [keys.games_key(namespace, p.player_id) for p in (ALICE, BOB)]
    await redis_client.delete(*lost)
    await redis_client.zrem(store.due_keys[keys.shard_of(table_id)], table_id)
    service.forget(table_id)
    assert (await service.my_games(ALICE.player_id))["games"] == []
    assert service.durable is not None
    assert await service.durable.restore_lost(clock(), service.games) == 1
    assert await redis_keys(redis_client, table_id) == before
    assert await store.due_of(table_id) is not None  # its clock runs again
    for player in (ALICE, BOB):
        listed = (await service.my_games(player.player_id))["games"]
        assert [g["id"] for g in listed] == [table_id], listed
    # Nothing more to do the next time: Redis has it.
    assert await service.durable.restore_lost(clock(), service.games) == 0
