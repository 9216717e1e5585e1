"""Hints at a table (app.tables.hints): only at a casual table chosen with hints, only for a
seated player who has a choice now, from that seat's view, limited per player and minute, and
marked on the table (``hint_used``) once per seat and game."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
import redis.asyncio as aioredis

from app import engine
from app.review.hint import hint
from app.tables import Actor, TableError, TableService

from .test_service import ALICE, BOB, CAROL, Clock, make_service

pytestmark = pytest.mark.asyncio

DAVE = Actor("p-dave", "Dave")
EVE = Actor("p-eve", "Eve")
PEOPLE = (ALICE, BOB, CAROL, DAVE)


async def _table(service: TableService, *, hints: bool = True) -> str:
    table = await service.create(ALICE, "classic", hints=hints)
    for seat, who in enumerate(PEOPLE[1:], start=1):
        await service.sit(table.id, who, seat)
    await service.start(table.id, ALICE)
    return table.id


async def _code(service: TableService, table_id: str, who: Actor) -> str:
    with pytest.raises(TableError) as err:
        await service.hint(table_id, who)
    return err.value.code


async def _events(service: TableService, table_id: str) -> list[dict[str, Any]]:
    log = [orjson.loads(e) for e in await service.store.read_log(table_id)]
    return [e for note in log for e in note["events"]]


async def test_hint_at_the_pass_is_the_seats_own_cards_and_marks_the_game(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    table_id = await _table(service)
    before, state = await service.read(table_id)
    assert state is not None
    assert before.public_json()["hints"] is True and before.public_json()["hints_used"] == []
    answer = await service.hint(table_id, BOB)
    assert answer["kind"] == "pass"
    cards = answer["best"]["cards"]
    assert len(cards) == 3
    hand = engine.view(state, 1)["hand"]
    assert isinstance(hand, list)
    assert set(cards) <= set(hand)
    assert answer["text"].startswith("Pass ")
    after, _ = await service.read(table_id)
    # the game is unchanged; the table says Bob used a hint in this game, once
    assert after.game == before.game
    assert after.public_json()["hints_used"] == [1]
    await service.hint(table_id, BOB)
    marks = [e for e in await _events(service, table_id) if e["kind"] == "hint_used"]
    assert [(e["kind"], e["seat"]) for e in marks] == [("hint_used", 1)]


async def test_a_hint_is_worked_out_at_the_reviews_units(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    """The table's hint is the review's verdict at the server's review budget
    (``HEARTS_REVIEW_UNITS``, a pass three times a play's): the pure hint at those units, from
    the seat's view, to the figure; at another budget it would be other figures."""
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0, review_units=40)
    table_id = await _table(service)
    _, state = await service.read(table_id)
    assert state is not None
    answer = await service.hint(table_id, BOB)
    view = engine.view(state, 1, sheet=False)
    rules = engine.make_rules("classic")
    assert answer == hint(view, rules, play_units=40, pass_units=120, cap_ms=1e9)


async def test_hint_refusals(redis_client: aioredis.Redis, namespace: str) -> None:
    clock = Clock()
    service, _ = make_service(
        redis_client, namespace, clock=clock, turn_timer_seconds=0, hints_per_minute=2
    )
    plain = await _table(service, hints=False)
    assert await _code(service, plain, ALICE) == "hints_off"
    table_id = await _table(service)
    assert await _code(service, table_id, EVE) == "not_seated"
    waiting = (await service.create(BOB, "classic", hints=True)).id
    assert await _code(service, waiting, BOB) == "wrong_status"
    # pass every seat's cards: then one seat plays
    _, state = await service.read(table_id)
    assert state is not None
    for seat, who in enumerate(PEOPLE):
        move = engine.legal_moves(state, seat)[0]
        await service.move(table_id, who, f"p{seat}", engine.move_to_json(move))
    _, state = await service.read(table_id)
    assert state is not None
    to_play = engine.seats_to_act(state)[0]
    other = PEOPLE[(to_play + 1) % 4]
    assert await _code(service, table_id, other) == "not_your_turn"
    before, _ = await service.read(table_id)
    answer = await service.hint(table_id, PEOPLE[to_play])
    assert answer["kind"] == "play"
    legal = {engine.move_to_json(m)["card"] for m in engine.legal_moves(state, to_play)}
    assert answer["best"]["card"] in legal
    await service.hint(table_id, PEOPLE[to_play])
    # two a minute: the third waits for the next minute, and changes nothing
    mid, _ = await service.read(table_id)
    assert await _code(service, table_id, PEOPLE[to_play]) == "too_many_hints"
    assert (await service.read(table_id))[0].version == mid.version
    clock.ms += 60_000
    assert (await service.hint(table_id, PEOPLE[to_play]))["kind"] == "play"
    assert before.game == (await service.read(table_id))[0].game


async def test_a_rated_table_has_no_hints_and_bad_values_are_refused(
    redis_client: aioredis.Redis, namespace: str
) -> None:
    service, _ = make_service(redis_client, namespace)
    with pytest.raises(TableError) as err:
        await service.create(ALICE, "classic", rated=True, hints=True)
    assert err.value.code == "rated_no_hints"
    with pytest.raises(TableError) as err:
        await service.create(ALICE, "classic", hints="yes")  # type: ignore[arg-type]
    assert err.value.code == "bad_hints"


async def test_the_flag_survives_storage(redis_client: aioredis.Redis, namespace: str) -> None:
    service, _ = make_service(redis_client, namespace, turn_timer_seconds=0)
    table_id = await _table(service)
    await service.hint(table_id, CAROL)
    table, _ = await service.read(table_id)
    again = type(table).from_json(table.to_json(), table.version)
    assert again.hints and again.hint_seats() == [2]
    plain = type(table).from_json(
        {**table.to_json(), "hints": False, "hints_used": {}}, table.version
    )
    assert "hints" not in plain.to_json() and plain.public_json()["hints_used"] == []
