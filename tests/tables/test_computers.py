"""Computer players at the table: app.bots through the writer, seeded, CAS-safe, view-only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import redis.asyncio as aioredis

from app import engine
from app.bots import choose_move
from app.settings import SettingsError, load_settings
from app.tables import BOT_LEVELS, TableError
from app.tables.computer import ComputerPlayers, bot_seed
from tests.tables.test_service import ALICE, Clock, drive_bots, make_service

pytestmark = pytest.mark.asyncio

ONE_HAND = {"end": "hands", "hands": 1}


class RecordingComputer(ComputerPlayers):
    """The real bots, in-process, remembering every view and seed they were given; an optional
    hook runs during the first search (to change the table under it)."""

    def __init__(self, hook: Any = None) -> None:
        super().__init__(0, budget_ms=5, hard_cap_ms=60_000)
        self.calls: list[tuple[str, dict[str, Any], int]] = []
        self.hook = hook

    # The overridden method's own signature (app.tables.computer), as an override must have.
    async def choose(
        self,
        level: str,
        view: Mapping[str, Any],
        seed: int,
        options: Mapping[str, object] | None = None,
    ) -> dict[str, object]:
        self.calls.append((level, dict(view), seed))
        if self.hook is not None:
            hook, self.hook = self.hook, None
            await hook()
        return choose_move(level, view, seed, self.budget_ms, options, self.hard_cap_ms)


async def test_levels_and_settings() -> None:
    assert BOT_LEVELS == ("easy", "standard", "pro", "expert")
    assert load_settings(bot_workers=0).bot_workers == 0
    for bad in ({"bot_workers": -1}, {"bot_workers": 1000}, {"bot_budget_ms": -5}):
        with pytest.raises(SettingsError) as err:
            load_settings(**bad)
        assert "HEARTS_BOT_" in str(err.value)


async def test_bad_level_is_refused(redis_client: aioredis.Redis, namespace: str) -> None:
    service, _ = make_service(redis_client, namespace)
    table = await service.create(ALICE, "classic")
    with pytest.raises(TableError) as err:
        await service.add_bot(table.id, ALICE, 1, "grandmaster")
    assert err.value.code == "bad_level"
    await service.add_bot(table.id, ALICE, 1, "expert")


async def play_one_hand(
    redis_client: aioredis.Redis, namespace: str, computer: RecordingComputer
) -> list[dict[str, Any]]:
    """Alice (away at once: a computer plays for her) with Pro, Expert and Standard."""
    clock = Clock()
    service, results = make_service(redis_client, namespace, clock, computer=computer)
    table = await service.create(ALICE, "classic", ONE_HAND)
    for seat, level in ((1, "pro"), (2, "expert"), (3, "standard")):
        await service.add_bot(table.id, ALICE, seat, level)
    await service.start(table.id, ALICE)
    clock.ms += 31_000
    await drive_bots(service, table.id, clock)
    return await results.records()


async def test_game_with_computers_replays_exactly_and_bots_see_only_their_view(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    first, second = RecordingComputer(), RecordingComputer()
    records = await play_one_hand(redis_client, namespace, first)
    again = await play_one_hand(redis_client, namespace + "b", second)
    hand, game = records[0], records[-1]
    assert hand["kind"] == "hand" and game["kind"] == "game" and game["ended"] == "finished"
    # Same table seed (the service's seeded rng), same decisions: the same game.
    assert [r["moves"] for r in records if r["kind"] == "hand"] == [
        r["moves"] for r in again if r["kind"] == "hand"
    ]
    assert hand["seed"] == again[0]["seed"]
    assert {level for level, _, _ in first.calls} == {"pro", "expert", "standard"}

    # Every decision got exactly its seat's engine view at that point, and a seed made of
    # the table seed and the move number.
    rules = engine.make_rules("classic", ONE_HAND)
    state = engine.new_game(rules, int(hand["seed"]))
    calls = iter(first.calls)
    for move_no, (seat, move) in enumerate(hand["moves"]):
        level, view, seed = next(calls)
        assert view == engine.view(state, seat)
        assert seed == bot_seed(int(hand["seed"]), move_no)
        assert level == ("standard", "pro", "expert", "standard")[seat]
        state = engine.apply(state, seat, engine.move_from_json(move))
    assert state.phase == "over"


async def test_search_is_redone_only_when_the_position_changed(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """The search runs before the compare-and-set; a commit that lands meanwhile makes the
    move be decided again (if the position changed) and never applied twice."""
    clock = Clock()
    service: Any = None
    table_id = ""

    async def alice_passes() -> None:
        _, state = await service.read(table_id)
        await service.move(
            table_id, ALICE, "p", engine.move_to_json(engine.legal_moves(state, 0)[0])
        )

    computer = RecordingComputer(hook=alice_passes)
    service, _ = make_service(redis_client, namespace, clock, computer=computer)
    table = await service.create(ALICE, "classic", ONE_HAND, turn_timer=0)
    table_id = table.id
    for seat in (1, 2, 3):
        await service.add_bot(table.id, ALICE, seat, "standard")
    await service.start(table.id, ALICE)
    before, _ = await service.read(table.id)
    await service.run_due(table.id)
    after, state = await service.read(table.id)
    # The first search saw Alice not yet passed; her pass landed during it, so the computer
    # decided again at the new position, and its pass was applied once.
    assert [c[1]["passed"][0] for c in computer.calls] == [False, True]
    assert state.passes[0] and state.passes[1]
    assert not state.passes[2] and not state.passes[3]
    assert after.version == before.version + 2 and after.move_no == 2

    # A change that leaves the position as it was (chat) reuses the decision.
    async def chat() -> None:
        await service.chat(table_id, ALICE, "hello")

    computer.hook = chat
    computer.calls.clear()
    await service.run_due(table.id)
    _, state = await service.read(table.id)
    assert len(computer.calls) == 1 and state.passes[2]
