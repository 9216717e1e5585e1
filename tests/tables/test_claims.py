"""Claims through the table writer (issue 19): at one's turn to play, one refused claim per hand
(recorded and announced, nothing else changed), an accepted one ends the hand with the claimant's
cards shown; and the auto_end option at a table."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
import redis.asyncio as aioredis

from app import engine
from app.engine.claim import claim_wins_all
from app.tables import Actor, TableError, TableService

from .test_service import ALICE, BOB, CAROL, make_service

pytestmark = pytest.mark.asyncio

DAVE = Actor("p-dave", "Dave")
PEOPLE = (ALICE, BOB, CAROL, DAVE)
CLAIM = {"type": "claim"}


async def _table(service: TableService, options: dict[str, object] | None = None) -> str:
    table = await service.create(ALICE, "classic", options)
    for seat, who in enumerate(PEOPLE[1:], start=1):
        await service.sit(table.id, who, seat)
    await service.start(table.id, ALICE)
    return table.id


async def _events(service: TableService, table_id: str) -> list[dict[str, Any]]:
    log = [orjson.loads(e) for e in await service.store.read_log(table_id)]
    return [e for note in log for e in note["events"]]


async def _play_one(
    service: TableService, table_id: str, rng: random.Random, n: int, dump: bool = False
) -> None:
    """One random legal move of the seat to act (``dump``: a scoring card when it may)."""
    _, state = await service.read(table_id)
    seat = engine.seats_to_act(state)[0]
    legal = engine.legal_moves(state, seat)
    scoring = state.t.pos_mask | state.t.neg_mask
    points = [m for m in legal if isinstance(m, engine.PlayCard) and scoring >> m.card & 1]
    move = rng.choice(points if dump and points else legal)
    await service.move(table_id, PEOPLE[seat], f"m{n}", engine.move_to_json(move))


async def _to_play(
    service: TableService, table_id: str, rng: random.Random
) -> tuple[engine.GameState | None, int]:
    """Random moves until the play begins (the passes): the state then, and the moves made."""
    n = 0
    _, state = await service.read(table_id)
    while state.phase != "play":
        await _play_one(service, table_id, rng, n := n + 1)
        _, state = await service.read(table_id)
    return state, n


async def _code(service: TableService, table_id: str, who: Actor, move_id: str) -> str:
    return (await _refusal(service, table_id, who, move_id)).code


async def _refusal(service: TableService, table_id: str, who: Actor, move_id: str) -> TableError:
    with pytest.raises(TableError) as err:
        await service.move(table_id, who, move_id, CLAIM)
    return err.value


async def test_claims_refused_once_per_hand_then_accepted(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    table_id = await _table(service)
    rng = random.Random(5)
    assert await _code(service, table_id, ALICE, "c0") == "wrong_phase"  # passing
    state, n = await _to_play(service, table_id, rng)
    # the first trick: 13 cards each, nobody takes them all
    mover = before_mover = engine.seats_to_act(state)[0]
    other = PEOPLE[(mover + 1) % 4]
    assert await _code(service, table_id, other, "c1") == "not_your_turn"
    before, _ = await service.read(table_id)
    assert not claim_wins_all(state, mover)
    refused = await _refusal(service, table_id, PEOPLE[mover], "c2")
    # the reason goes to the page as a named value, for its words (error.claim_refused.tricks)
    assert (refused.code, refused.values) == ("claim_refused", {"reason": "tricks"})
    after, state_after = await service.read(table_id)
    # recorded and announced; the game itself is unchanged
    assert after.version == before.version + 1 and after.game == before.game
    assert after.public_json()["claim_refused_hands"][mover] == state.hand_no
    assert (await _events(service, table_id))[-1] == {
        "kind": "claim_refused",
        "seat": mover,
        "v": after.version,
    }
    # the same id again is decided again (a refused command is not kept): now over the limit
    assert await _code(service, table_id, PEOPLE[mover], "c2") == "claim_refused_already"
    assert (await service.read(table_id))[0].version == after.version
    # play on until a seat at its turn can claim the rest, then claim it
    while True:
        _, state = await service.read(table_id)
        assert state.hand_no == 0, "no claim came up in the first hand"
        mover = engine.seats_to_act(state)[0]
        if state.phase == "play" and claim_wins_all(state, mover):
            break
        await _play_one(service, table_id, rng, n := n + 1)
    cards = engine.view(state, mover)["hand"]
    left = state.t.hand_size - state.trick_no
    done = await service.move(table_id, PEOPLE[mover], "win", CLAIM)
    t, s = await service.read(table_id)
    assert t.version == done.version and s.hand_no == 1
    claim = [e for e in await _events(service, table_id) if e["kind"] == "claim"]
    assert claim == [
        {"kind": "claim", "seat": mover, "cards": cards, "tricks": left, "v": done.version}
    ]
    assert all(tr.winner == mover for tr in s.prev_tricks[13 - left :])
    moves = [orjson.loads(m) for m in await service.store.game_moves(table_id)]
    assert moves[-1] == [mover, CLAIM]
    # a resend of the accepted claim is a duplicate, not a new claim
    again = await service.move(table_id, PEOPLE[mover], "win", CLAIM)
    assert again.duplicate and again.version == done.version
    # the refusal was in hand 0: in hand 1 the seat may claim again
    assert t.public_json()["claim_refused_hands"][before_mover] == 0


async def test_a_claim_at_a_table_with_auto_end(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """The option reaches the game; hands may end before their last trick."""
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    table_id = await _table(service, {"auto_end": True, "end": "hands", "hands": 2})
    rng = random.Random(2)
    n = 0
    t, state = await service.read(table_id)
    assert state.rules.auto_end and t.public_json()["options"] == {
        "auto_end": True,
        "end": "hands",
        "hands": 2,
    }
    while t.status == "playing":
        await _play_one(service, table_id, rng, n := n + 1, dump=True)
        t, state = await service.read(table_id)
    # the points go early: the hands end before their 13th trick, the rest unplayed
    assert len(state.history) == 2 and all(sum(r.tricks_won) < 13 for r in state.history)


class _Meanwhile:
    """A computer pool whose claim check lets something happen while it runs."""

    def __init__(self) -> None:
        self.during: Any = None

    def checks_full(self) -> bool:
        return False

    async def check(self, fn: Any, *args: Any) -> Any:
        if self.during is not None:
            during, self.during = self.during, None
            await during()
        return fn(*args)


async def _race(
    redis_client: aioredis.Redis, namespace: str
) -> tuple[_Meanwhile, TableService, str, random.Random]:
    """A started table whose claim checks run in a ``_Meanwhile`` pool (set ``during`` to
    act while one runs), and the random source of its moves."""
    pool = _Meanwhile()
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0, computer=pool)
    return pool, service, await _table(service), random.Random(3)


async def test_a_claim_checked_while_the_game_moved_on_applies_nothing(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    pool, service, table_id, rng = await _race(redis_client, namespace)
    state, n = await _to_play(service, table_id, rng)
    mover = engine.seats_to_act(state)[0]
    second: list[str] = []

    async def claim_again_and_play() -> None:
        # the same seat claims again meanwhile: one check at a time
        second.append(await _code(service, table_id, PEOPLE[mover], "again"))
        # and plays a card (as a turn timer would for them): the checked game is gone
        await _play_one(service, table_id, rng, n + 1)

    pool.during = claim_again_and_play
    before, _ = await service.read(table_id)
    assert await _code(service, table_id, PEOPLE[mover], "c") == "stale_version"
    assert second == ["claim_pending"]
    after, _ = await service.read(table_id)
    # only the card was applied: no refusal recorded, no claim event
    assert after.version == before.version + 1
    assert after.public_json()["claim_refused_hands"] == [None] * 4
    kinds = [e["kind"] for e in await _events(service, table_id)]
    assert "claim" not in kinds and "claim_refused" not in kinds


async def test_a_claim_whose_check_went_stale_still_used_the_hands_check(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """A claim on one socket and a card played at once on another: the check ends
    ``stale_version``, and the attempt was counted before it ran, so the seat's next claim in
    that hand is refused without another check (three checks a hand got through before)."""
    pool, service, table_id, rng = await _race(redis_client, namespace)
    state, n = await _to_play(service, table_id, rng)
    mover = engine.seats_to_act(state)[0]
    hand = state.hand_no

    async def play_a_card() -> None:
        await _play_one(service, table_id, rng, 500)

    pool.during = play_a_card
    assert await _code(service, table_id, PEOPLE[mover], "c1") == "stale_version"
    while True:  # on to the seat's next turn in the same hand
        _, state = await service.read(table_id)
        assert state.hand_no == hand
        if state.phase == "play" and engine.seats_to_act(state)[0] == mover:
            break
        await _play_one(service, table_id, rng, n := n + 1)
    checks: list[int] = []

    async def count() -> None:
        checks.append(1)

    pool.during = count
    before, _ = await service.read(table_id)
    assert await _code(service, table_id, PEOPLE[mover], "c2") == "claim_refused_already"
    assert checks == [] and (await service.read(table_id))[0].version == before.version


async def test_claim_checks_have_their_own_worker_and_a_bound() -> None:
    """A check runs while every computer worker is busy (it never waits for, nor delays, a
    computer's move), and past ``CHECKS_WAITING`` waiting checks the next is refused at once."""
    import asyncio
    import threading

    from app.tables.computer import CHECKS_WAITING, ChecksBusy, ComputerPlayers

    computers = ComputerPlayers(0)
    busy, release = threading.Event(), threading.Event()

    def hold(event: threading.Event) -> str:
        busy.set()
        release.wait(30)
        return "done"

    try:
        computer_task = asyncio.ensure_future(computers.run(hold, release))
        await asyncio.to_thread(busy.wait, 30)
        assert await computers.check(sum, [1, 2]) == 3  # while the computers' worker is held
        assert not computer_task.done()
        busy.clear()
        held = [asyncio.ensure_future(computers.check(hold, release))]
        await asyncio.to_thread(busy.wait, 30)
        held += [asyncio.ensure_future(computers.check(sum, [i])) for i in range(CHECKS_WAITING)]
        await asyncio.sleep(0)
        assert computers.checks_full()
        with pytest.raises(ChecksBusy):
            await computers.check(sum, [0])
        release.set()
        assert await computer_task == "done"
        assert await asyncio.gather(*held) == ["done", *range(CHECKS_WAITING)]
        assert computers.checks == 0 and not computers.checks_full()
    finally:
        release.set()
        await asyncio.to_thread(computers.close)
