"""bench.outbox: its records are the tables' records of whole games, and a run writes each
once and counts what it measured (on SQLite and the in-process Redis stand-in)."""

from __future__ import annotations

import fakeredis
import pytest

from app.db.events import GameRecord, HandRecord, parse_event
from bench.outbox import make_records, moves_in, run_once


def test_the_records_are_whole_games_in_the_tables_shape() -> None:
    records = make_records(3, ["p1", "p2"], seed=4)
    parsed = [parse_event(r) for r in records]
    games = [r for r in parsed if isinstance(r, GameRecord)]
    hands = [r for r in parsed if isinstance(r, HandRecord)]
    assert len(games) == 3 and len({g.table_id for g in games}) == 3
    for game in games:
        own = [h for h in hands if h.table_id == game.table_id]
        assert [h.hand_no for h in own] == list(range(len(own)))
        assert game.hands == len(own) and max(game.totals) >= 100  # played to its end
        assert all(52 <= len(h.moves) <= 56 for h in own)  # 52 cards, and 4 passes or none
    assert moves_in(records) == sum(len(h.moves) for h in hands)


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [1, 7])
async def test_a_run_writes_every_record_once_and_counts_it(size: int) -> None:
    redis = fakeredis.FakeAsyncRedis()
    try:
        run = await run_once("sqlite", size, 2, redis, "", seed=2)
    finally:
        await redis.aclose()
    records = make_records(2, ["x"], seed=2)
    assert (run.records, run.moves) == (len(records), moves_in(records))
    assert run.transactions == -(-len(records) // size)  # ceil: full transactions, then the rest
    assert run.writer_us_per_record > 0 and run.postgres_us_per_record is None
