"""Results records for SQL: replaced players, abandoned games, and records that cannot be lost."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
import redis.asyncio as aioredis

from app import engine
from app.db import Database
from app.db.events import GameRecord, parse_event
from app.db.replay import replay_game
from app.store import TableStore, keys
from app.tables import Actor, Table, TableService
from tests.tables.test_service import ALICE, BOB, CAROL, Clock, drive_bots, make_service

pytestmark = pytest.mark.asyncio


async def play(service: Any, table_id: str, actor: Any, seat: int, times: int = 1) -> None:
    """``actor`` makes ``times`` legal moves as soon as it is their turn."""
    for i in range(times):
        _, state = await service.read(table_id)
        moves = engine.legal_moves(state, seat)
        assert moves, f"seat {seat} has nothing to do"
        await service.move(table_id, actor, f"{actor.player_id}-{i}", engine.move_to_json(moves[0]))


async def test_a_player_who_leaves_mid_game_keeps_the_seat_in_the_records(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, results = make_service(redis_client, namespace, clock, turn_timer_seconds=0)
    table = await service.create(ALICE, "classic", {"end": "hands", "hands": 2})
    await service.sit(table.id, BOB, 1)
    for seat in (2, 3):
        await service.add_bot(table.id, ALICE, seat, "easy")
    await service.start(table.id, ALICE)
    await service.leave(table.id, BOB)  # the computer takes Bob's seat over
    t, _ = await service.read(table.id)
    assert t.seats[1].kind == "bot" and t.seats[1].vacated and t.status == "playing"
    # Carol takes the vacated seat and leaves it again: it still counts for Bob.
    await service.sit(table.id, CAROL, 1)
    await service.leave(table.id, CAROL)
    # Alice disconnects past the grace period: computers finish the game.
    await service.attach(table.id, ALICE.player_id)
    await service.detach(table.id, ALICE.player_id)
    clock.ms += 31_000
    await drive_bots(service, table.id, clock)
    records = await results.records()
    assert [r["kind"] for r in records] == ["hand", "hand", "game"]
    for record in records:
        bob_seat = record["seats"][1]
        assert bob_seat["player_id"] == BOB.player_id and bob_seat["replaced_by_bot"]
        assert bob_seat["name"] == BOB.name and bob_seat["bot_level"] is None
        assert record["seats"][0]["player_id"] == ALICE.player_id
        assert record["seats"][2]["bot_level"] == "easy" and not record["seats"][2]["player_id"]
        parsed = parse_event(orjson.loads(orjson.dumps(record)))
        assert parsed.seats[1].player_id == BOB.player_id and parsed.seats[1].replaced_by_bot
    assert records[-1]["seats"][0]["replaced_by_bot"]  # Alice was away: the computer played


async def test_last_person_leaving_lets_the_computers_finish_and_still_counts(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Leaving does not protect a rating: the game is played out and recorded as finished,
    with the person who left in their seat (replaced by a computer)."""
    clock = Clock()
    service, results = make_service(redis_client, namespace, clock, turn_timer_seconds=0)
    table = await service.create(ALICE, "classic", {"end": "hands", "hands": 1})
    for seat in (1, 2, 3):
        await service.add_bot(table.id, ALICE, seat, "standard")
    await service.start(table.id, ALICE)
    await play(service, table.id, ALICE, 0)
    await service.leave(table.id, ALICE)
    await drive_bots(service, table.id, clock)
    t, state = await service.read(table.id)
    assert t.status == "over" and t.ended == "finished" and state.phase == "over"
    hand, game = await results.records()
    for record in (hand, game):
        assert record["seats"][0]["player_id"] == ALICE.player_id
        assert record["seats"][0]["replaced_by_bot"]
    assert game["ended"] == "finished"


async def test_an_idle_game_is_recorded_as_abandoned_with_its_moves(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, results = make_service(
        redis_client, namespace, clock, turn_timer_seconds=0, idle_table_ttl_seconds=600
    )
    table = await service.create(ALICE, "classic")
    await service.sit(table.id, BOB, 1)
    for seat in (2, 3):
        await service.add_bot(table.id, ALICE, seat, "standard")
    await service.start(table.id, ALICE)
    await play(service, table.id, ALICE, 0)
    await play(service, table.id, BOB, 1)
    for _ in range(2):  # the computers pass
        clock.ms += 1
        for tid in await service.store.claim_due(clock.ms, 10_000):
            await service.run_due(tid)
    await service.leave(table.id, BOB)  # a computer takes Bob's seat: it still counts for him
    # The keys outlive the idle time, so the due loop finds the table to record it.
    assert await redis_client.ttl(keys.state_key(table.id)) > 600
    assert await service.store.due_of(table.id) is not None
    before, state = await service.read(table.id)
    # Nobody moves for the idle time (Alice must lead, with no turn timer).
    assert engine.seats_to_act(state) == (0,) or state.phase == "play"
    clock.ms += 600_000 + 1
    for _ in range(5):
        for tid in await service.store.claim_due(clock.ms, 10_000):
            await service.run_due(tid)
    t, state = await service.read(table.id)
    assert t.status == "over" and t.ended == "abandoned"
    assert t.public_json()["ended"] == "abandoned"
    assert await service.store.due_of(table.id) is None  # nobody plays on
    [record] = await results.records()
    assert record["kind"] == "game" and record["ended"] == "abandoned"
    assert [s["player_id"] for s in record["seats"]] == [ALICE.player_id, BOB.player_id, None, None]
    assert record["seats"][1]["replaced_by_bot"] and not record["seats"][0]["replaced_by_bot"]
    parsed = parse_event(orjson.loads(orjson.dumps(record)))
    assert isinstance(parsed, GameRecord) and parsed.ended == "abandoned"
    # The moves so far rebuild the position the table was left in.
    assert len(record["moves"]) == t.move_no >= 4
    replay = replay_game("classic", record["options"], record["seed"], record["moves"])
    assert replay["phase"] == state.phase == "play"
    assert replay["totals"] == record["totals"]
    log = [orjson.loads(e) for e in await service.store.read_log(table.id)]
    assert any(e["kind"] == "abandoned" for e in log[-1]["events"])
    assert await redis_client.ttl(keys.state_key(table.id)) <= 900


async def test_results_are_added_in_the_commit_itself(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """The record goes into the stream in the same Lua step as the move: no instance can die
    between the two; a lost compare-and-set adds nothing."""
    store = TableStore(redis_client, namespace=namespace)
    tid = namespace + "t"
    stream = keys.results_key(namespace, keys.shard_of(tid))  # in the table's slot
    ok = await store.commit(
        tid, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, records=[b'{"a":1}']
    )
    assert ok.ok
    stale = await store.commit(
        tid, expected_version=0, blob=b"s", message=b"m", ttl_seconds=60, records=[b'{"b":1}']
    )
    assert not stale.ok
    entries = await redis_client.xrange(stream)
    assert [fields[b"event"] for _id, fields in entries] == [b'{"a":1}']
    # The game's move list: appended by commits, emptied by a new game.
    await store.commit(
        tid, expected_version=1, blob=None, message=b"m", ttl_seconds=60, moves=[b"[0,1]", b"[1,2]"]
    )
    assert await store.game_moves(tid) == [b"[0,1]", b"[1,2]"]
    assert await store.game_moves(tid, 1) == [b"[1,2]"]
    await store.commit(
        tid,
        expected_version=2,
        blob=None,
        message=b"m",
        ttl_seconds=60,
        moves=[b"[2,3]"],
        new_game=True,
    )
    assert await store.game_moves(tid) == [b"[2,3]"]


def results_database(tmp_path: Any) -> tuple[Database, Actor]:
    """A migrated SQLite database for the results, and its guest Alice as a table's actor."""
    from app.db import make_database, upgrade_to_head
    from app.db.players import create_guest

    url = f"sqlite:///{tmp_path}/r.sqlite3"
    upgrade_to_head(url)
    database = make_database(url)
    alice = create_guest(database, "Alice")
    return database, Actor(alice.id, alice.name)


async def computers_hand(service: TableService, host: Actor, private: bool = False) -> Table:
    """``host``'s one-hand classic table against three Easy computers, started."""
    table = await service.create(host, "classic", {"end": "hands", "hands": 1}, private=private)
    for seat in (1, 2, 3):
        await service.add_bot(table.id, host, seat, "easy")
    await service.start(table.id, host)
    return table


async def test_finished_game_records_reach_sql_once(
    redis_client: aioredis.Redis, namespace: str, tmp_path: Any
) -> None:
    """End to end: the records a game commits are written by the outbox worker, once."""
    from app.db.outbox import OutboxWorker

    database, actor = results_database(tmp_path)
    clock = Clock()
    service, results = make_service(redis_client, namespace, clock)
    table = await computers_hand(service, actor)
    clock.ms += 31_000
    await drive_bots(service, table.id, clock)
    worker = OutboxWorker(redis_client, database, streams=results.streams, block_ms=10)
    await worker.drain()
    assert worker.written == 2
    from sqlmodel import select

    from app.db.models import Game

    with database.session() as session:
        game = session.exec(select(Game)).one()
        assert game.status == "finished" and game.hands_played == 1
    database.dispose()
