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
from app.store import TableStore, keys
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
    """The results streams one test's tables write to, one per shard (what app.db.outbox
    reads)."""

    def __init__(self, redis: aioredis.Redis, namespace: str) -> None:
        self.redis = redis
        self.streams = keys.results_keys(namespace)

    async def records(self) -> list[dict[str, Any]]:
        """Every record, each shard's in its order (a test's table writes to one)."""
        found = []
        for stream in self.streams:
            entries = await self.redis.xrange(stream)
            found += [orjson.loads(fields[b"event"]) for _id, fields in entries]
        return found


def make_service(
    redis: aioredis.Redis,
    namespace: str,
    clock: Clock | None = None,
    computer: Any = None,
    rng_seed: int = 7,
    **overrides: Any,
) -> tuple[TableService, Results]:
    find_game_id = overrides.pop("find_game_id", None)
    overrides.setdefault("hand_pause_ms", 0)
    settings = Settings(bot_delay_min_ms=0, bot_delay_max_ms=0, **overrides)
    service = TableService(
        TableStore(redis, namespace=namespace),
        settings,
        instance_id="i1",
        clock=clock or Clock(),
        rng=random.Random(rng_seed),
        computer=computer,
        find_game_id=find_game_id,
    )
    return service, Results(redis, namespace)


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


async def test_chat_is_sent_as_typed_and_bounded(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace, chat_max_chars=30)
    markup = Actor("p-markup", "<img src=x onerror=f(1)>")
    table = await service.create(markup, "classic")
    version = (await service.chat(table.id, markup, "<b>hi</b> & &lt;")).version
    log = [orjson.loads(e) for e in await service.store.read_log(table.id)]
    assert log[-1]["v"] == version and log[-1]["s"] == 0
    # Raw text, like every name (docs/protocol.md): clients insert it as text, never as HTML.
    assert log[-1]["events"][0]["text"] == "<b>hi</b> & &lt;"
    assert log[-1]["events"][0]["name"] == markup.name
    assert log[0]["events"][0] == {"kind": "created", "by": markup.name, "v": 1}
    t, _ = await service.read(table.id)
    assert t.public_json()["seats"][0]["name"] == markup.name
    for bad in ("", "   ", "x" * 31):
        with pytest.raises(TableError) as err:
            await service.chat(table.id, ALICE, bad)
        assert err.value.code == "bad_chat"


async def test_every_command_resent_with_its_id_applies_once(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """A client resends every command not answered before its connection dropped, with the
    same id (static/js/table.js): sit, chat, start, rematch, ... apply once, and the resend
    is answered with the version that holds the first, also on another instance."""
    clock = Clock()
    one, _ = make_service(redis_client, namespace, clock, turn_timer_seconds=0)
    two, _ = make_service(redis_client, namespace, clock, turn_timer_seconds=0)
    table = await one.create(ALICE, "classic", options={"end": "hands", "hands": 1})

    async def twice(command: str, *args: Any, command_id: str) -> int:
        """The command on one instance, then resent to the other: applied once."""
        first = await getattr(one, command)(table.id, *args, command_id=command_id)
        assert not first.duplicate
        t, _ = await two.read(table.id)
        log = await one.store.read_log(table.id)
        again = await getattr(two, command)(table.id, *args, command_id=command_id)
        assert again.duplicate and again.version == first.version, (again, first)
        t2, _ = await two.read(table.id)
        assert t2.version == t.version and len(await one.store.read_log(table.id)) == len(log)
        return int(first.version)

    await twice("sit", BOB, 1, command_id="b-sit")
    await twice("add_bot", ALICE, 2, command_id="a-add2")
    await twice("add_bot", ALICE, 3, command_id="a-add3")
    await twice("remove_bot", ALICE, 3, command_id="a-rm")
    await twice("add_bot", ALICE, 3, "easy", command_id="a-add3b")
    chat = await twice("chat", BOB, "hello", command_id="b-chat")
    log = [orjson.loads(e) for e in await one.store.read_log(table.id)]
    said = [e for n in log for e in n["events"] if e["kind"] == "chat"]
    assert [(e["text"], e["v"]) for e in said] == [("hello", chat)]
    assert log[-1]["s"] == 0  # a chat still changes no state: nobody gets a new view
    await twice("start", ALICE, command_id="a-start")
    await twice("leave", BOB, command_id="b-leave")
    t, _ = await one.read(table.id)
    assert t.seats[1].kind == "bot" and t.seats[1].vacated
    await twice("sit", BOB, 1, command_id="b-sit2")
    await play_out(one, table.id, clock, ALICE, BOB)
    await twice("rematch", BOB, command_id="b-rematch")
    t, _ = await one.read(table.id)
    assert t.status == "playing" and t.game_no == 2
    # A refused command is not remembered (so it may be sent again).
    with pytest.raises(TableError) as err:
        await one.sit(table.id, CAROL, 2, command_id="c-sit")
    assert err.value.code == "seat_taken"
    t, _ = await one.read(table.id)
    assert CAROL.player_id not in t.recent_moves
    # Each player's last MOVE_IDS_KEPT ids are kept, no more.
    for i in range(20):
        await one.chat(table.id, BOB, f"line {i}", command_id=f"b-line{i}")
    t, _ = await two.read(table.id)
    assert [i for i, _v in t.recent_moves[BOB.player_id]] == [f"b-line{i}" for i in range(4, 20)]


async def play_out(service: TableService, table_id: str, clock: Clock, *humans: Actor) -> None:
    """Play the game out: the computers by their due items, ``humans`` by a legal move."""
    for n in range(5000):
        table, state = await service.read(table_id)
        if table.status != "playing":
            return
        to_act = engine.seats_to_act(state)
        human = next((p for p in humans if table.seat_of(p.player_id) in to_act), None)
        if human is not None:
            seat = table.seat_of(human.player_id)
            assert seat is not None
            move = engine.move_to_json(engine.legal_moves(state, seat)[0])
            await service.move(table_id, human, f"h{n}", move)
            continue
        clock.ms += 1
        if table_id in await service.store.claim_due(clock.ms, 10_000):
            await service.run_due(table_id)
    raise AssertionError("game did not finish")


async def test_chat_is_no_activity_for_the_idle_timeout(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """A chat stores the table now (for its id) but, as before, is not play: a game in which
    only chat happened still ends as idle when its time comes."""
    clock = Clock()
    service, _ = make_service(redis_client, namespace, clock, idle_table_ttl_seconds=60)
    table = await service.create(ALICE, "classic", bots={"1": "easy", "2": "easy", "3": "easy"})
    await service.start(table.id, ALICE)
    started, _ = await service.read(table.id)
    clock.ms += 30_000
    await service.chat(table.id, ALICE, "anyone?", command_id="a1")
    t, _ = await service.read(table.id)
    assert t.updated_ms == started.updated_ms and t.recent_moves[ALICE.player_id]
    clock.ms = started.updated_ms + 60_001
    assert table.id in await service.store.claim_due(clock.ms, 10_000)
    await service.run_due(table.id)
    t, _ = await service.read(table.id)
    assert t.status == "over" and t.ended == "abandoned"


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
        recent_moves={"a": [["m1", 3]]},
        version=7,
    )
    copy = table.clone()
    assert copy.to_json() == table.to_json() and copy.version == 7
    copy.seats[0].away = True
    copy.deadline_seats.append(1)
    copy.recent_moves["a"].append(["m2", 8])
    assert not table.seats[0].away and table.deadline_seats == [0]
    assert table.recent_moves == {"a": [["m1", 3]]}


async def test_create_with_computer_seats(redis_client: aioredis.Redis, namespace: str) -> None:
    service, _ = make_service(redis_client, namespace)
    table = await service.create(ALICE, "classic", bots={"3": "expert", "1": "easy"})
    t, _ = await service.read(table.id)
    assert [(s.kind, s.level) for s in t.seats] == [
        ("human", None),
        ("bot", "easy"),
        ("open", None),
        ("bot", "expert"),
    ]
    log = [orjson.loads(e) for e in await service.store.read_log(table.id)]
    assert all(isinstance(entry.pop("t"), float) for entry in log)  # commit time (metrics)
    assert log == [
        {
            "v": 1,
            "s": 1,
            "events": [
                {"kind": "created", "by": "Alice", "v": 1},
                {"kind": "bot_added", "seat": 1, "level": "easy", "v": 1},
                {"kind": "bot_added", "seat": 3, "level": "expert", "v": 1},
            ],
        }
    ]
    lobby = orjson.loads((await service.store.lobby_entries())[table.id])
    assert [s["kind"] for s in lobby["seats"]] == ["human", "bot", "open", "bot"]
    # Every other seat a computer: the host may start at once. Integer keys work in Python.
    full = await service.create(ALICE, "classic-3", bots={1: "pro", 2: "standard"})
    await service.start(full.id, ALICE)
    assert (await service.read(full.id))[0].status == "playing"


@pytest.mark.parametrize(
    ("bots", "code"),
    [
        ({"0": "easy"}, "bad_seat"),  # the creator's seat
        ({"4": "easy"}, "bad_seat"),  # classic has seats 0-3
        ({"-1": "easy"}, "bad_seat"),
        ({"one": "easy"}, "bad_seat"),
        ({"01": "easy"}, "bad_seat"),
        ({"": "easy"}, "bad_seat"),
        ({"1": "genius"}, "bad_level"),
        ({"1": 3}, "bad_level"),
        ({"1": None}, "bad_level"),
        ({"1": "easy", "2": "Pro"}, "bad_level"),
    ],
)
async def test_create_refuses_bad_computer_seats_and_stores_nothing(
    redis_client: aioredis.Redis, namespace: str, bots: dict[str, object], code: str
) -> None:
    service, _ = make_service(redis_client, namespace)
    with pytest.raises(TableError) as err:
        await service.create(ALICE, "classic", bots=bots)
    assert err.value.code == code and err.value.message
    assert await service.store.lobby_entries() == {}
    assert await redis_client.keys(f"*{namespace}*") == []


async def run_due_until(
    service: TableService, table_id: str, clock: Clock, done: Any, limit: int = 3000
) -> None:
    """Run due items at the clock, a millisecond at a time, until ``done(table, state)``."""
    for _ in range(limit):
        table, state = await service.read(table_id)
        if done(table, state):
            return
        clock.ms += 1
        for tid in await service.store.claim_due(clock.ms, 10_000):
            await service.run_due(tid)
    raise AssertionError("never got there")


async def test_pause_between_hands(redis_client: aioredis.Redis, namespace: str) -> None:
    clock = Clock()
    service, _ = make_service(
        redis_client, namespace, clock, turn_timer_seconds=10, hand_pause_ms=3000
    )
    table = await service.create(ALICE, "classic", bots={"1": "easy", "2": "easy", "3": "easy"})
    await service.start(table.id, ALICE)
    clock.ms += 10_001  # Alice's timer runs out: the computer plays the first hand for her
    await run_due_until(service, table.id, clock, lambda t, s: len(s.history) == 1)
    t, state = await service.read(table.id)
    ended = clock.ms
    assert state.hand_no == 1 and state.phase == "pass"  # the engine dealt the next hand
    assert t.pause_until_ms == ended + 3000
    assert t.deadline_ms is None and t.bot_due_ms is None
    assert t.public_json()["pause_until_ms"] == ended + 3000
    assert await service.store.due_of(table.id) == ended + 3000
    # Nobody moves during the pause: not the computers, not Alice (back from away).
    await service.back(table.id, ALICE)
    t, _ = await service.read(table.id)
    version = t.version
    cards = engine.move_to_json(engine.legal_moves(state, 0)[0])
    clock.ms = ended + 2999
    with pytest.raises(TableError) as err:
        await service.move(table.id, ALICE, "early", cards)
    assert err.value.code == "between_hands" and "opens in 1 s" in err.value.message
    assert await service.store.claim_due(clock.ms, 10_000) == []
    t, state = await service.read(table.id)
    assert t.version == version and not any(state.passes)
    # The pause ends. The instance that claims it dies before acting; once its lease is over,
    # another instance claims the table and opens the hand: one change, the turn timer
    # starts then, the computers pass.
    clock.ms = ended + 3000
    assert await service.store.claim_due(clock.ms, 10_000) == [table.id]
    other, _ = make_service(
        redis_client, namespace, clock, turn_timer_seconds=10, hand_pause_ms=3000
    )
    assert await other.store.claim_due(clock.ms + 9_999, 10_000) == []
    clock.ms += 10_000
    assert await other.store.claim_due(clock.ms, 10_000) == [table.id]
    await other.run_due(table.id)
    t, state = await service.read(table.id)
    assert t.version == version + 1 and t.pause_until_ms is None
    assert t.deadline_ms == clock.ms + 10_000 and t.deadline_seats == [0]
    assert t.bot_due_ms == clock.ms
    await run_due_until(service, table.id, clock, lambda t, s: sum(map(bool, s.passes)) == 3)
    await service.move(table.id, ALICE, "now", cards)
    t, state = await service.read(table.id)
    assert state.phase == "play"


async def test_no_pause_after_the_last_hand_or_when_off(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, _ = make_service(redis_client, namespace, clock, hand_pause_ms=0)
    bots = {"1": "easy", "2": "easy", "3": "easy"}
    table = await service.create(BOB, "classic", {"end": "hands", "hands": 2}, bots=bots)
    await service.start(table.id, BOB)
    await service.leave(table.id, BOB)  # a computer plays Bob's seat to the end
    seen_pause = []

    def done(t: Any, s: Any) -> bool:
        seen_pause.append(t.pause_until_ms)
        return t.status == "over"

    await run_due_until(service, table.id, clock, done)
    assert set(seen_pause) == {None}
    paused, _ = make_service(redis_client, namespace, clock, hand_pause_ms=500, rng_seed=8)
    table = await paused.create(BOB, "classic", {"end": "hands", "hands": 1}, bots=bots)
    await paused.start(table.id, BOB)
    await paused.leave(table.id, BOB)
    await run_due_until(paused, table.id, clock, lambda t, s: t.status == "over")
    t, _ = await paused.read(table.id)
    assert t.pause_until_ms is None  # the game ended with the hand: no pause


async def test_stored_game_id_is_looked_up_after_the_game(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    stored: dict[tuple[str, int], int] = {}
    asked: list[float] = []

    async def find_game_id(table_id: str, game_no: int) -> int | None:
        asked.append(clock.ms)
        return stored.get((table_id, game_no))

    service, _ = make_service(
        redis_client, namespace, clock, find_game_id=find_game_id, turn_timer_seconds=10
    )
    bots = {"1": "easy", "2": "easy", "3": "easy"}
    table = await service.create(ALICE, "classic", {"end": "hands", "hands": 1}, bots=bots)
    await service.start(table.id, ALICE)
    clock.ms += 10_001  # Alice is away: the computers play the game out
    await run_due_until(service, table.id, clock, lambda t, s: t.status == "over")
    ended = clock.ms
    t, _ = await service.read(table.id)
    log = [orjson.loads(e) for e in await service.store.read_log(table.id)]
    over = log[-1]["events"][-1]
    assert over["kind"] == "game_over" and over["game_no"] == 1 and t.game_id is None
    # Not stored yet: looked up again later and later (0.5 s, 1 s, 2 s ... after the end).
    assert await service.store.due_of(table.id) == ended + 500
    for wait in (500, 1000, 2000):
        clock.ms = ended + wait
        assert await service.store.claim_due(clock.ms, 10_000) == [table.id]
        await service.run_due(table.id)
        assert await service.store.due_of(table.id) == ended + 2 * wait
    assert asked == [ended + 500, ended + 1000, ended + 2000]
    assert (await service.read(table.id))[0].version == t.version  # nothing committed
    # The results writer stored it: the table says so, once, and looks no more.
    stored[(table.id, 1)] = 42
    clock.ms = ended + 4000
    await service.store.claim_due(clock.ms, 10_000)
    await service.run_due(table.id)
    t, _ = await service.read(table.id)
    assert t.game_id == 42 and t.public_json()["game_id"] == 42
    log = [orjson.loads(e) for e in await service.store.read_log(table.id)]
    assert log[-1]["events"] == [{"kind": "recorded", "game_no": 1, "game_id": 42, "v": t.version}]
    assert await service.store.due_of(table.id) is None
    # A rematch starts a game with no stored id yet.
    await service.rematch(table.id, ALICE)
    t, _ = await service.read(table.id)
    assert t.game_id is None and t.game_no == 2


async def test_game_id_look_up_gives_up(redis_client: aioredis.Redis, namespace: str) -> None:
    clock = Clock()

    async def never(table_id: str, game_no: int) -> int | None:
        return None

    service, _ = make_service(redis_client, namespace, clock, find_game_id=never)
    bots = {"1": "easy", "2": "easy", "3": "easy"}
    table = await service.create(ALICE, "classic", {"end": "hands", "hands": 1}, bots=bots)
    await service.start(table.id, ALICE)
    await service.leave(table.id, ALICE)
    await run_due_until(service, table.id, clock, lambda t, s: t.status == "over")
    ended = clock.ms
    looks = 0
    while (due := await service.store.due_of(table.id)) is not None:
        clock.ms = due
        await service.store.claim_due(clock.ms, 10_000)
        await service.run_due(table.id)
        looks += 1
    assert 10 <= looks <= 20 and 300_000 <= clock.ms - ended <= 330_000


async def test_instances_racing_from_their_cached_copies(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Two instances change a table from the copies they hold: the stale one loses the
    compare-and-set, reads the table again (kept for its hub too) and applies on top."""
    one, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    two, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    table = await one.create(ALICE, "classic")
    await one.sit(table.id, BOB, 1)
    for seat in (2, 3):
        await one.add_bot(table.id, ALICE, seat)
    await one.start(table.id, ALICE)
    started, state = await two.read(table.id)  # both instances hold the started table
    alice_pass = engine.move_to_json(engine.legal_moves(state, 0)[0])
    bob_pass = engine.move_to_json(engine.legal_moves(state, 1)[0])
    await one.move(table.id, ALICE, "a1", alice_pass)
    result = await two.move(table.id, BOB, "b1", bob_pass)  # from a stale copy: retried
    assert result.version == started.version + 2
    for service in (one, two):
        t, s = await service.read(table.id)
        assert t.version == started.version + 2 and s.passes[0] and s.passes[1]
        assert t.recent_moves[ALICE.player_id] == [["a1", started.version + 1]]
        assert t.recent_moves[BOB.player_id] == [["b1", started.version + 2]]
    # What the second instance held before the race was left as it was: changes use copies.
    assert not state.passes[0] and not started.recent_moves


async def test_a_read_of_the_version_being_committed_here_waits_for_the_commit(
    redis_client: aioredis.Redis, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's channel may announce a change before its commit's reply comes back: the
    hub's read of that version then waits for the reply instead of reading Redis."""
    service, _ = make_service(redis_client, namespace)
    table = await service.create(ALICE, "classic")
    store = service.store
    reply = asyncio.Event()
    loads = 0
    real_commit, real_load = store.commit, store.load

    async def held_commit(*args: Any, **kwargs: Any) -> Any:
        result = await real_commit(*args, **kwargs)
        await reply.wait()
        return result

    async def counted_load(table_id: str) -> Any:
        nonlocal loads
        loads += 1
        return await real_load(table_id)

    monkeypatch.setattr(store, "commit", held_commit)
    monkeypatch.setattr(store, "load", counted_load)
    sitting = asyncio.create_task(service.sit(table.id, BOB, 1))
    await asyncio.sleep(0.05)  # committed in Redis, the reply held back
    reading = asyncio.create_task(service.read(table.id, at_least=table.version + 1))
    await asyncio.sleep(0.05)
    assert not reading.done()
    reply.set()
    seen, _ = await reading
    assert (await sitting).version == seen.version == table.version + 1
    assert seen.seats[1].player_id == BOB.player_id and loads == 0


async def test_chat_follows_the_name_character_rules(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Invisible, format and separator characters and mark stacks are refused (bad_chat, the
    rule in the message, nothing logged); tabs and line breaks become spaces; emoji stay."""
    service, _ = make_service(redis_client, namespace)
    table = await service.create(ALICE, "classic")
    for bad, rule in [
        ("hi\u200bthere", "invisible"),
        ("\u3164", "invisible"),
        ("\u2800", "invisible"),
        ("\u202egnp.exe", "invisible"),
        ("a\u2028b", "separator"),
        ("Z" + "\u0301" * 23, "combining marks"),
        ("bell\x07", "control"),
    ]:
        before = await service.store.read_log(table.id)
        with pytest.raises(TableError) as err:
            await service.chat(table.id, ALICE, bad)
        assert err.value.code == "bad_chat" and rule in err.value.message, bad
        assert await service.store.read_log(table.id) == before
    await service.chat(table.id, ALICE, "gg\n\U0001f44d\U0001f3fd well\tplayed ")
    said = orjson.loads((await service.store.read_log(table.id))[-1])["events"][0]
    assert said["text"] == "gg \U0001f44d\U0001f3fd well played"
