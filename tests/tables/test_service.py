"""The table writer on fakeredis and real Redis: seats, host, start, moves, bots, timers."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import orjson
import pytest
import redis.asyncio as aioredis

from app import engine
from app.db.events import parse_event
from app.settings import Settings
from app.store import TableStore
from app.tables import Actor, TableError, TableService

pytestmark = pytest.mark.asyncio

ALICE = Actor("p-alice", "Alice")
BOB = Actor("p-bob", "Bob")
CAROL = Actor("p-carol", "Carol")


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000_000.0

    def __call__(self) -> float:
        return self.ms


class Results:
    """The results stream one test's tables write to (what app.db.outbox reads)."""

    def __init__(self, redis: aioredis.Redis, stream: str) -> None:
        self.redis = redis
        self.stream = stream

    async def records(self) -> list[dict[str, Any]]:
        entries = await self.redis.xrange(self.stream)
        return [orjson.loads(fields[b"event"]) for _id, fields in entries]


def make_service(
    redis: aioredis.Redis,
    namespace: str,
    clock: Clock | None = None,
    computer: Any = None,
    rng_seed: int = 7,
    **overrides: Any,
) -> tuple[TableService, Results]:
    settings = Settings(bot_delay_min_ms=0, bot_delay_max_ms=0, **overrides)
    stream = "{" + namespace + ":outbox}:results"
    service = TableService(
        TableStore(redis, namespace=namespace, results_stream=stream),
        settings,
        instance_id="i1",
        clock=clock or Clock(),
        rng=random.Random(rng_seed),
        computer=computer,
    )
    return service, Results(redis, stream)


async def drive_bots(service: TableService, table_id: str, clock: Clock, limit: int = 5000) -> None:
    """Run due items as an instance's due loop would, advancing the clock."""
    for _ in range(limit):
        table, _state = await service.read(table_id)
        if table.status != "playing":
            return
        clock.ms += 1
        claimed = await service.store.claim_due(clock.ms, 10_000)
        if table_id in claimed:
            await service.run_due(table_id)
    raise AssertionError("game did not finish")


async def test_seats_host_bots_and_start(redis_client: aioredis.Redis, namespace: str) -> None:
    service, _ = make_service(redis_client, namespace)
    table = await service.create(ALICE, "classic", private=False)
    assert table.seats[0].player_id == ALICE.player_id and table.host == ALICE.player_id
    with pytest.raises(TableError) as err:
        await service.start(table.id, ALICE)
    assert err.value.code == "seats_open"
    await service.sit(table.id, BOB, 1)
    with pytest.raises(TableError) as err:
        await service.sit(table.id, CAROL, 1)
    assert err.value.code == "seat_taken"
    with pytest.raises(TableError) as err:
        await service.add_bot(table.id, BOB, 2)
    assert err.value.code == "not_host"
    with pytest.raises(TableError) as err:
        await service.add_bot(table.id, ALICE, 2, "genius")
    assert err.value.code == "bad_level"
    await service.add_bot(table.id, ALICE, 2, "easy")
    await service.add_bot(table.id, ALICE, 3)
    await service.remove_bot(table.id, ALICE, 3)
    await service.add_bot(table.id, ALICE, 3, "pro")
    # The host leaves: the role passes to Bob.
    await service.leave(table.id, ALICE)
    t, _ = await service.read(table.id)
    assert t.host == BOB.player_id and t.seats[0].kind == "open"
    await service.sit(table.id, ALICE, 0)
    await service.start(table.id, BOB)
    t, state = await service.read(table.id)
    assert t.status == "playing" and state is not None and state.phase == "pass"
    entries = await service.store.lobby_entries()
    assert orjson.loads(entries[table.id])["status"] == "playing"


async def test_bad_options_and_unknown_table(redis_client: aioredis.Redis, namespace: str) -> None:
    service, _ = make_service(redis_client, namespace)
    with pytest.raises(TableError) as err:
        await service.create(ALICE, "no-such-preset")
    assert err.value.code == "unknown_preset"
    with pytest.raises(TableError) as err:
        await service.create(ALICE, "classic", {"target_score": "lots"})
    assert err.value.code != "unknown_table"
    with pytest.raises(TableError) as err:
        await service.sit("nope", ALICE, 0)
    assert err.value.code == "unknown_table"


async def test_moves_idempotent_stale_and_errors(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    table = await service.create(ALICE, "classic")
    await service.sit(table.id, BOB, 1)
    await service.add_bot(table.id, ALICE, 2)
    await service.add_bot(table.id, ALICE, 3)
    await service.start(table.id, ALICE)
    t, state = await service.read(table.id)
    legal = engine.legal_moves(state, 0)
    move = engine.move_to_json(legal[0])
    with pytest.raises(TableError) as err:
        await service.move(table.id, ALICE, "m1", move, expected_version=t.version - 1)
    assert err.value.code == "stale_version"
    with pytest.raises(TableError) as err:
        await service.move(table.id, CAROL, "m1", move)
    assert err.value.code == "not_seated"
    with pytest.raises(TableError) as err:
        await service.move(table.id, ALICE, "m1", {"type": "dance"})
    assert err.value.code == "bad_move"
    bob_cards = engine.legal_moves(state, 1)[0]
    with pytest.raises(TableError) as err:  # Bob's cards are not Alice's
        await service.move(table.id, ALICE, "m1", engine.move_to_json(bob_cards))
    assert err.value.code == "card_not_in_hand"
    after_errors, _ = await service.read(table.id)
    assert after_errors.version == t.version
    first = await service.move(table.id, ALICE, "m1", move, expected_version=t.version)
    assert first.version == t.version + 1 and not first.duplicate
    again = await service.move(table.id, ALICE, "m1", move, expected_version=t.version)
    assert again.duplicate and again.version == first.version
    t2, state2 = await service.read(table.id)
    assert t2.version == first.version
    with pytest.raises(TableError) as err:
        await service.move(table.id, ALICE, "m2", move)
    assert err.value.code == "already_passed"


async def test_move_race_exactly_one_applies(redis_client: aioredis.Redis, namespace: str) -> None:
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    table = await service.create(ALICE, "classic")
    for seat in (1, 2, 3):
        await service.add_bot(table.id, ALICE, seat)
    await service.start(table.id, ALICE)
    t, state = await service.read(table.id)
    moves = engine.legal_moves(state, 0)[:2]
    results = await asyncio.gather(
        *(
            service.move(table.id, ALICE, f"race{i}", engine.move_to_json(m), t.version)
            for i, m in enumerate(moves)
        ),
        return_exceptions=True,
    )
    applied = [r for r in results if not isinstance(r, BaseException)]
    errors = [r for r in results if isinstance(r, TableError)]
    assert len(applied) == 1 and len(errors) == 1
    assert errors[0].code in ("stale_version", "already_passed")


async def test_full_game_with_computers_records_results(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, results = make_service(redis_client, namespace, clock)
    table = await service.create(ALICE, "classic", {"end": "hands", "hands": 2})
    for seat in (1, 2, 3):
        await service.add_bot(table.id, ALICE, seat)
    await service.start(table.id, ALICE)
    # Alice times out at once and the computer plays for her ("away").
    clock.ms += 31_000
    await drive_bots(service, table.id, clock)
    t, state = await service.read(table.id)
    assert t.status == "over" and state.phase == "over"
    assert t.seats[0].away
    outbox = await results.records()
    kinds = [e["kind"] for e in outbox]
    assert kinds.count("hand") == 2 and kinds[-1] == "game"
    assert outbox[-1]["seats"][0]["player_id"] == ALICE.player_id
    assert outbox[-1]["seats"][0]["replaced_by_bot"] and outbox[-1]["ended"] == "finished"
    for record in outbox:  # every record is one the SQL side accepts
        parse_event(orjson.loads(orjson.dumps(record)))
    assert outbox[0]["moves"] and all(len(m) == 2 for m in outbox[0]["moves"])
    # Rematch starts a new game with the same seats.
    await service.rematch(table.id, ALICE)
    t, state = await service.read(table.id)
    assert t.status == "playing" and t.game_no == 2


async def test_timer_then_seat_taken_back(redis_client: aioredis.Redis, namespace: str) -> None:
    clock = Clock()
    service, _ = make_service(redis_client, namespace, clock, turn_timer_seconds=10)
    table = await service.create(ALICE, "classic")
    for seat in (1, 2, 3):
        await service.add_bot(table.id, ALICE, seat)
    await service.start(table.id, ALICE)
    t, _ = await service.read(table.id)
    assert t.deadline_ms == clock.ms + 10_000
    assert await service.store.due_of(table.id) == clock.ms  # bots pass at once (delay 0)
    clock.ms += 10_001
    for _ in range(10):
        for tid in await service.store.claim_due(clock.ms, 10_000):
            await service.run_due(tid)
    t, state = await service.read(table.id)
    assert t.seats[0].away
    await service.back(table.id, ALICE)
    t, _ = await service.read(table.id)
    assert not t.seats[0].away


async def test_disconnect_grace_makes_seat_away(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, _ = make_service(
        redis_client, namespace, clock, turn_timer_seconds=0, disconnect_grace_seconds=5
    )
    table = await service.create(ALICE, "classic")
    for seat in (1, 2, 3):
        await service.add_bot(table.id, ALICE, seat)
    await service.attach(table.id, ALICE.player_id)
    await service.start(table.id, ALICE)
    await service.detach(table.id, ALICE.player_id)
    t, _ = await service.read(table.id)
    assert t.seats[0].gone_since == clock.ms
    clock.ms += 5_001
    for _ in range(5):
        for tid in await service.store.claim_due(clock.ms, 10_000):
            await service.run_due(tid)
    t, _ = await service.read(table.id)
    assert t.seats[0].away
    await service.attach(table.id, ALICE.player_id)
    t, _ = await service.read(table.id)
    assert not t.seats[0].away and t.public_json()["seats"][0]["connected"]


async def test_chat_is_escaped_and_bounded(redis_client: aioredis.Redis, namespace: str) -> None:
    service, _ = make_service(redis_client, namespace, chat_max_chars=20)
    table = await service.create(ALICE, "classic")
    version = await service.chat(table.id, ALICE, "<b>hi</b>")
    log = [orjson.loads(e) for e in await service.store.read_log(table.id)]
    assert log[-1]["v"] == version and log[-1]["s"] == 0
    assert log[-1]["events"][0]["text"] == "&lt;b&gt;hi&lt;/b&gt;"
    for bad in ("", "   ", "x" * 21):
        with pytest.raises(TableError) as err:
            await service.chat(table.id, ALICE, bad)
        assert err.value.code == "bad_chat"


async def test_clone_copies_what_a_change_edits() -> None:
    from app.tables.model import Seat, Table

    table = Table(
        id="t",
        preset="classic",
        options={"end": "hands"},
        players=4,
        private=False,
        invite=None,
        host="a",
        seats=[Seat(kind="human", player_id="a", name="A", owner_id="a")] + [Seat()] * 3,
        turn_timer=30,
        created_ms=1.0,
        deadline_seats=[0],
        presence={"a": {"i1": 1}},
        recent_moves={"a": [["m1", 3]]},
        version=7,
    )
    copy = table.clone()
    assert copy.to_json() == table.to_json() and copy.version == 7
    copy.seats[0].away = True
    copy.deadline_seats.append(1)
    copy.presence["a"]["i1"] = 2
    copy.recent_moves["a"].append(["m2", 8])
    assert not table.seats[0].away and table.deadline_seats == [0]
    assert table.presence == {"a": {"i1": 1}} and table.recent_moves == {"a": [["m1", 3]]}
