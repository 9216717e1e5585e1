"""The daily service: the Expert's par of a deal version, computed in the computer players'
pool (here a thread, at a tiny search budget) and stored once; a deal's page, shown only once
the player's own result on it is recorded."""

from __future__ import annotations

import asyncio
import logging
from datetime import date
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from app import engine
from app.compete import store
from app.compete.daily import DailyError, DailyService, _parse_cursor, _ranked
from app.compete.deals import daily_options, daily_seed, player_version
from app.compete.replays import deal_replay, expert_par
from app.db import Database, make_database
from app.db.models import Game, Hand, Player
from app.db.players import PlayerInfo
from app.settings import Settings
from app.tables.computer import ComputerPlayers
from tests.tables.test_service import Clock, make_service

DAY = date(2026, 11, 27)


@pytest.mark.asyncio
async def test_a_queued_par_is_computed_once(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    tables, _ = make_service(redis_client, namespace, computer=ComputerPlayers(0, budget_ms=2))
    settings = Settings(daily_secret="par-test-secret-0123456789", daily_deals=4)
    daily = DailyService(settings, database, tables, Clock(), "i1")
    assert not await daily.compute_par()  # nothing queued
    store.par_of(database, DAY, "classic", 2, 1, queue=True)
    assert await daily.compute_par()
    assert not await daily.compute_par()  # done: not computed again
    row = store.par_of(database, DAY, "classic", 2, 1, queue=False)
    assert row is not None and row.status == "done" and row.moves is not None
    assert row.points is not None and 0 <= row.points <= 26
    # the par's line is a whole legal hand of that deal, the Expert in every seat
    seed = daily_seed(settings.daily_secret, DAY, "classic", 1)
    hand = deal_replay("classic", daily_options("classic", 4), seed, 2, row.moves)
    assert hand["complete"] and hand["result"]["points"][0] == row.points
    assert hand["pass_direction"] == "across"  # the third deal of the cycle
    assert len(hand["tricks"]) == engine.make_rules("classic").players * 13 // 4
    tables.computer.close()


@pytest.mark.asyncio
async def test_a_deal_page_shows_only_a_played_deal(
    redis_client: aioredis.Redis, namespace: str, database: Database
) -> None:
    tables, _ = make_service(redis_client, namespace, computer=ComputerPlayers(0, budget_ms=2))
    settings = Settings(daily_secret="deal-test-secret-0123456789", daily_deals=2, daily_par=False)
    daily = DailyService(settings, database, tables, Clock(), "i1")
    day = daily.today()
    ann = PlayerInfo(id="ann", name="Ann", is_guest=False)
    version = player_version(settings.daily_secret, day, "classic", "ann", settings.daily_versions)
    seed = daily_seed(settings.daily_secret, day, "classic", version)
    options = daily_options("classic", 2)
    # Ann's first deal as her table's results writer would store it (real moves of the deal)
    _points, moves = expert_par("classic", options, seed, 0, 0, 2, None)
    hand = deal_replay("classic", options, seed, 0, moves)
    with database.session() as session:
        session.add(Player(id="ann", name="Ann", is_guest=False))
        session.commit()
    attempt, _ = store.begin_attempt(database, day, "classic", "ann", "Ann", version)
    assert attempt.id is not None
    store.set_table(database, attempt.id, "t-ann")
    with database.session() as session:
        game = Game(table_id="t-ann", game_no=1, variant="classic", players=4)
        session.add(game)
        session.flush()
        assert game.id is not None
        session.add(Hand(game_id=game.id, hand_no=0, points=hand["result"]["points"], moves=moves))
        session.commit()
    with pytest.raises(DailyError) as err:
        await daily.deal(ann, "classic", 1, None)
    assert err.value.code == "deal_not_reached"
    page = await daily.deal(ann, "classic", 0, None)
    assert page["mine"]["deal"] == hand["deal"] and page["mine"]["tricks"] == hand["tricks"]
    assert (page["players"], page["of"], page["other"], page["par"]) == (1, 0, None, None)
    assert page["spread"] == [{"points": hand["result"]["points"][0], "players": 1}]
    status = await daily.status(ann, "classic")
    assert status["attempt"]["deals_done"] == 1 and not status["attempt"]["finished"]
    tables.computer.close()


@pytest.mark.asyncio
async def test_the_background_loop_says_an_outage_once(
    redis_client: aioredis.Redis, namespace: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A database without the daily's tables (as one that is away): the failure is logged
    once, not at every poll."""
    tables, _ = make_service(redis_client, namespace)
    empty = make_database(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    daily = DailyService(Settings(daily_refresh_seconds=0.01), empty, tables, Clock(), "i1")
    stop = asyncio.Event()
    with caplog.at_level(logging.INFO, logger="app.compete.daily"):
        task = asyncio.create_task(daily.run(stop, poll_seconds=0.01))
        await asyncio.sleep(1.0)  # about a hundred polls, each failing
        stop.set()
        await task
    failed = [r for r in caplog.records if "background work failed" in r.getMessage()]
    assert len(failed) == 1
    empty.dispose()


def test_a_leaderboard_tie_shares_a_rank_across_pages() -> None:
    """Equal percentages share a rank (1, 1, 3), also when the tie spans two pages."""
    first = _ranked([{"key": 75.0, "attempt": 9}, {"key": 50.0, "attempt": 8}], None, 2, "attempt")
    assert [line["rank"] for line in first["lines"]] == [1, 2]
    after = _parse_cursor(first["next"], int)
    second = _ranked(
        [{"key": 50.0, "attempt": 7}, {"key": 50.0, "attempt": 6}], after, 2, "attempt"
    )
    assert [line["rank"] for line in second["lines"]] == [2, 2]
    third = _ranked([{"key": 40.0, "attempt": 5}], _parse_cursor(second["next"], int), 2, "attempt")
    assert [line["rank"] for line in third["lines"]] == [5] and third["next"] is None
    for bad in ("50.0:7:4:0", "50.0:7:4:5", "50.0:7:4"):  # no place, or one past the lines
        with pytest.raises(DailyError):
            _parse_cursor(bad, int)
