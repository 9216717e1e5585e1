"""Turn-based tables in the table writer, with the clock driven by the test: a move's hours,
the warning at 80%, a move the computer plays for a player out of time, the seat taken after
three in a row and taken back, extra time from the host, no idle end, notices once per
commit, My games and its limit."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
import redis.asyncio as aioredis

from app import engine
from app.tables import Actor, TableError, TableService
from app.tables.mine import TooManyGames
from app.tables.pace import check_pace
from tests.tables.test_service import ALICE, BOB, CAROL, Clock, make_service

pytestmark = pytest.mark.asyncio

HOUR = 3_600_000.0
DAY = 24 * HOUR


class Notices:
    """What the writer hands the notifier: (player, kind, table)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str | None]] = []

    async def __call__(
        self, player_id: str, kind: str, *, table_id: str | None = None, data: Any = None
    ) -> None:
        self.sent.append((player_id, kind, table_id))

    def take(self) -> list[tuple[str, str]]:
        out = [(p, k) for p, k, _ in self.sent]
        self.sent.clear()
        return out


async def run_due(service: TableService, clock: Clock, rounds: int = 20) -> None:
    """What the due loop does at this moment: every due item, until none is left."""
    for _ in range(rounds):
        claimed = await service.store.claim_due(clock.ms, 10_000)
        if not claimed:
            return
        for table_id in claimed:
            await service.run_due(table_id)


async def two_friends(
    redis_client: aioredis.Redis, namespace: str, **overrides: Any
) -> tuple[TableService, Clock, Notices, str]:
    clock = Clock()
    service, _ = make_service(redis_client, namespace, clock, **overrides)
    notices = Notices()
    service.notify = notices
    table = await service.create(
        ALICE, "classic", bots={"2": "easy", "3": "easy"}, pace=check_pace("turn", 3600)
    )
    await service.sit(table.id, BOB, 1)
    await service.start(table.id, ALICE)
    await run_due(service, clock)  # the computers pass at once
    return service, clock, notices, table.id


async def log_events(service: TableService, table_id: str) -> list[dict[str, Any]]:
    return [e for n in await service.store.read_log(table_id) for e in orjson.loads(n)["events"]]


async def human_move(service: TableService, table_id: str, actor: Actor, n: int) -> None:
    table, state = await service.read(table_id)
    seat = table.seat_of(actor.player_id)
    assert state is not None and seat is not None
    move = engine.move_to_json(engine.legal_moves(state, seat)[0])
    await service.move(table_id, actor, f"{actor.name}{n}", move)


async def test_a_moves_time_warning_and_timeouts(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, clock, notices, table_id = await two_friends(
        redis_client, namespace, idle_table_ttl_seconds=60
    )
    t, state = await service.read(table_id)
    assert state is not None and state.phase == "pass"
    assert t.turn_based and t.turn_timer == 0
    assert t.deadline_ms == clock.ms + HOUR and t.deadline_seats == [0, 1]
    assert sorted(notices.take()) == [("p-alice", "your_turn"), ("p-bob", "your_turn")]
    # A player away from the page for days is not "disconnected" there, nor is the game idle.
    await service.attach(table_id, ALICE.player_id)
    await service.detach(table_id, ALICE.player_id)
    assert (await service.read(table_id))[0].seats[0].gone_since == clock.ms
    # (leaving at a turn this new tells her again: test_leaving_at_a_new_turn_...)
    assert notices.take() == [("p-alice", "your_turn")]
    clock.ms += 0.8 * HOUR - 1
    await run_due(service, clock)
    assert notices.take() == []
    clock.ms += 1
    await run_due(service, clock)
    assert sorted(notices.take()) == [("p-alice", "time_almost_up"), ("p-bob", "time_almost_up")]
    await run_due(service, clock)
    assert notices.take() == []  # told once
    # Bob passes in time; Alice does not: at the hour the computer passes for her, once.
    await human_move(service, table_id, BOB, 0)
    clock.ms += 0.2 * HOUR
    await run_due(service, clock)
    t, state = await service.read(table_id)
    assert state is not None and state.phase == "play"
    assert not t.seats[0].away and not t.seats[0].forced and t.seats[0].timeouts == 1
    events = await log_events(service, table_id)
    timed_out = [e for e in events if e.get("timeout")]
    assert [(e["kind"], e["seat"]) for e in timed_out] == [("move", 0)]
    assert any(e["kind"] == "timeout" and e["seat"] == 0 for e in events)
    # The stored move is marked too (the replay shows it): Alice's pass only.
    stored = [orjson.loads(m) for m in await service.store.game_moves(table_id)]
    assert [(s, m.get("timeout", False)) for s, m in stored if s in (0, 1)] == [
        (1, False),
        (0, True),
    ]
    assert t.status == "playing"  # 1.2 hours and more with idle_table_ttl 60 s: not abandoned
    assert not t.seats[1].away  # Bob has had no socket for 1.2 hours: no grace period here


async def test_leaving_at_a_new_turn_tells_the_player_as_they_go(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """A player who moves and closes the page while the others answer had their socket open
    when their next turn began, so its notice found them at the table (the notifier sends only
    to the away): the writer tells them again as their last socket closes, while the turn is
    new (NEW_TURN_MS). Not when another socket of theirs stays open, not when it is not their
    turn, not when they stayed with the turn longer, not at a live table."""
    service, clock, notices, table_id = await two_friends(redis_client, namespace)
    notices.take()
    # Bob passes with the table open, then Alice: the play begins; whoever holds the two of
    # clubs has a new turn at once.
    await service.attach(table_id, BOB.player_id)
    await service.attach(table_id, BOB.player_id)  # a second tab
    await human_move(service, table_id, BOB, 0)
    clock.ms += 1_000
    await human_move(service, table_id, ALICE, 0)
    await run_due(service, clock)
    table, state = await service.read(table_id)
    assert state is not None and state.phase == "play"
    bob_seat = table.seat_of(BOB.player_id)
    told = notices.take()
    if bob_seat not in table.deadline_seats:  # the two of clubs elsewhere: play to Bob's turn
        while bob_seat not in (await service.read(table_id))[0].deadline_seats:
            clock.ms += 1_000
            await human_move(service, table_id, ALICE, 1)
            await run_due(service, clock)
        told = notices.take()
    assert ("p-bob", "your_turn") in told  # sent at the turn's start (the notifier drops it)
    clock.ms += 30_000
    await service.detach(table_id, BOB.player_id)
    assert notices.take() == []  # his other tab is still open
    await service.detach(table_id, BOB.player_id)
    assert notices.take() == [("p-bob", "your_turn")]
    # Back and gone again after a longer look: the turn is old news; the warning will come.
    await service.attach(table_id, BOB.player_id)
    clock.ms += 31_000
    await service.detach(table_id, BOB.player_id)
    assert notices.take() == []
    # Alice is not to act: her leaving tells her nothing.
    await service.attach(table_id, ALICE.player_id)
    await service.detach(table_id, ALICE.player_id)
    assert notices.take() == []


async def test_leaving_a_live_table_sends_no_notice(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    clock = Clock()
    service, _ = make_service(redis_client, namespace, clock)
    notices = Notices()
    service.notify = notices
    table = await service.create(ALICE, "classic", bots={"1": "easy", "2": "easy", "3": "easy"})
    await service.start(table.id, ALICE)
    await service.attach(table.id, ALICE.player_id)
    await service.detach(table.id, ALICE.player_id)
    assert notices.take() == []


async def test_three_timeouts_in_a_row_take_the_seat_until_the_player_comes_back(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, clock, notices, table_id = await two_friends(redis_client, namespace)
    await human_move(service, table_id, BOB, 0)
    n = 0
    for _ in range(200):
        t, state = await service.read(table_id)
        assert state is not None
        if t.seats[0].away:
            break
        to_act = engine.seats_to_act(state)
        if 1 in to_act and not t.seats[1].computer_plays:
            n += 1
            await human_move(service, table_id, BOB, n)
        elif 0 in to_act:
            clock.ms = (t.deadline_ms or clock.ms) + 1  # Alice lets her clock run out
            await run_due(service, clock)
        else:
            clock.ms += 1
            await run_due(service, clock)
    t, state = await service.read(table_id)
    assert t.seats[0].away and t.seats[0].timeouts == 3
    events = await log_events(service, table_id)
    assert [e["row"] for e in events if e["kind"] == "timeout"] == [1, 2, 3]
    assert any(e["kind"] == "away" and e["seat"] == 0 for e in events)
    # The computer now plays her seat at once; she takes it back.
    await service.back(table_id, ALICE)
    t, _ = await service.read(table_id)
    assert not t.seats[0].away and t.seats[0].timeouts == 0


async def test_host_gives_extra_time(redis_client: aioredis.Redis, namespace: str) -> None:
    service, clock, _notices, table_id = await two_friends(redis_client, namespace)
    t, _ = await service.read(table_id)
    deadline = t.deadline_ms
    assert deadline is not None
    await service.give_time(table_id, ALICE, 1, 7200)
    t, _ = await service.read(table_id)
    assert t.deadline_ms == deadline + 2 * HOUR
    for actor, seat, seconds, code in [
        (BOB, 1, 3600, "not_host"),
        (ALICE, 2, 3600, "not_their_turn"),
        (ALICE, 7, 3600, "bad_seat"),
    ]:
        with pytest.raises(TableError) as raised:
            await service.give_time(table_id, actor, seat, seconds)
        assert raised.value.code == code
    bad: tuple[object, ...] = (0, 1800, -3600, 3600.0, True, "3600", 8 * DAY)
    for extra in bad:
        with pytest.raises(TableError) as raised:
            await service.give_time(table_id, ALICE, 1, extra)
        assert raised.value.code == "bad_extra_time"
    t2, _ = await service.read(table_id)
    assert t2.version == t.version and t2.deadline_ms == t.deadline_ms  # nothing changed
    live = await service.create(CAROL, "classic")
    with pytest.raises(TableError) as raised:
        await service.give_time(live.id, CAROL, 0, 3600)
    assert raised.value.code == "wrong_pace"


async def test_playing_hours_stop_the_clock(redis_client: aioredis.Redis, namespace: str) -> None:
    clock = Clock()
    clock.ms = 1_772_481_600_000.0  # 2026-03-02 20:00 UTC
    service, _ = make_service(redis_client, namespace, clock)
    table = await service.create(
        ALICE,
        "classic",
        bots={"1": "easy", "2": "easy", "3": "easy"},
        pace=check_pace("turn", 12 * 3600, [8, 22], "UTC"),
    )
    await service.start(table.id, ALICE)
    t, _ = await service.read(table.id)
    # 2 hours tonight, 10 tomorrow from 08:00: 18:00 on the 3rd.
    assert t.deadline_ms == 1_772_481_600_000.0 + 22 * HOUR
    assert t.public_json()["hours"] == [8, 22]


async def test_my_games_and_the_limit_on_turn_based_games(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, clock, _notices, table_id = await two_friends(
        redis_client, namespace, turn_based_games_max=1
    )
    live = await service.create(ALICE, "classic", private=True)
    mine = await service.my_games(ALICE.player_id)
    ids = [line["id"] for line in mine["games"]]
    assert ids == [table_id, live.id]  # her turn first, then the waiting table
    first = mine["games"][0]
    assert first["my_turn"] and first["pace"] == "turn" and first["to_act"] == [0, 1]
    assert first["deadline_ms"] == clock.ms + HOUR
    assert mine["my_turn"] == 1
    assert mine["games"][1]["link"] == f"/?table={live.id}&invite={live.invite}"
    # One turn-based game is her limit: no second one, created or joined.
    with pytest.raises(TooManyGames):
        await service.create(ALICE, "classic", pace=check_pace("turn"))
    other = await service.create(CAROL, "classic", pace=check_pace("turn"))
    with pytest.raises(TooManyGames):
        await service.sit(other.id, ALICE, 1)
    # Bob left: the table leaves his list.
    await human_move(service, table_id, BOB, 0)
    await service.leave(table_id, BOB)
    assert (await service.my_games(BOB.player_id))["games"] == []


async def test_the_turn_based_limit_holds_against_creations_and_joins_at_once(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """Two instances (two services on one Redis) take Alice's last turn-based slot at the
    same moment, five times over: creating on both, or joining on one while creating on the
    other. Exactly one wins each time (the other: too_many_games); without the player's games
    lock both passed the check."""
    import asyncio

    clock = Clock()
    one, _ = make_service(redis_client, namespace, clock, turn_based_games_max=1)
    two, _ = make_service(redis_client, namespace, clock, turn_based_games_max=1)
    turn = check_pace("turn")
    for round_no in range(5):
        player = Actor(f"racer{round_no}", f"Racer {round_no}")
        host = Actor(f"host{round_no}", f"Host {round_no}")
        joinable = await one.create(host, "classic", pace=turn)
        outcomes = await asyncio.gather(
            one.create(player, "classic", pace=turn),
            two.sit(joinable.id, player, 1)
            if round_no % 2
            else two.create(player, "classic", pace=turn),
            return_exceptions=True,
        )
        won = [o for o in outcomes if not isinstance(o, BaseException)]
        lost = [o for o in outcomes if isinstance(o, BaseException)]
        assert len(won) == 1 and len(lost) == 1, outcomes
        assert isinstance(lost[0], TooManyGames), lost
        mine = await one.my_games(player.player_id)
        assert len([g for g in mine["games"] if g["pace"] == "turn"]) == 1


async def test_turn_based_tables_are_not_charged_as_live_tables(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """A player in many turn-based games may still open live tables: the live-table limits
    (per creator, per address) count live tables only; turn-based ones count for the
    turn-based limit."""
    clock = Clock()
    service, _ = make_service(
        redis_client, namespace, clock, max_tables_per_host=2, max_tables_per_address=2
    )
    for _ in range(4):
        await service.create(ALICE, "classic", pace=check_pace("turn"), address="10.0.0.1")
    await service.create(ALICE, "classic", address="10.0.0.1")
    await service.create(ALICE, "classic", address="10.0.0.1")
    with pytest.raises(TableError) as refused:
        await service.create(ALICE, "classic", address="10.0.0.1")
    assert refused.value.code == "too_many_tables"
