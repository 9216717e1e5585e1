"""A table's making is a lease (app.compete.events_runner): a maker killed between its claim
and storing the table id (its task cancelled: no more renewals) holds the table only for the
claim's few seconds, after which another runner makes it and tells its players; a maker that
is alive but slow keeps renewing its claim and is not overtaken however long it takes. Two
runners over stand-in tables, their wall clocks the test's (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from app.compete import events_runner, events_store
from app.compete.events_runner import CLAIM_SECONDS, EventRunner, claimed_at
from app.db import Database
from tests.compete.standins import Tables, Told, registered_event

PEOPLE = ["ann", "bob", "cat", "dan"]

pytestmark = pytest.mark.asyncio


class Gated(Tables):
    """Tables whose making waits until ``gate`` opens (the maker is mid-make meanwhile)."""

    def __init__(self) -> None:
        super().__init__(prefix="A")
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()

    async def create_compete(self, actor: Any, *args: Any, **kw: Any) -> Any:
        self.entered.set()
        await self.gate.wait()
        return await super().create_compete(actor, *args, **kw)


class Clock:
    def __init__(self) -> None:
        self.now = round(time.time(), 1)

    def __call__(self) -> float:
        return self.now


class Race:
    """A Swiss event of four whose first round is seated (one table to make); runner A
    (tables ``Gated``) has claimed the table and is making it; runner B (stand-in tables)
    polls; both on the test's wall clock."""

    def __init__(self, database: Database) -> None:
        now = datetime.now(UTC)
        self.db = database
        self.eid = registered_event(database, PEOPLE, name="Cup", format="swiss", rounds=1, now=now)
        assert events_store.start_round(database, self.eid, 1)
        self.clock, self.told = Clock(), Told()
        self.a_tables, self.b_tables = Gated(), Tables()
        self.a = EventRunner(
            database, self.a_tables, "A", wall=self.clock, notify=self.told, remind_minutes=0
        )
        self.b = EventRunner(
            database, self.b_tables, "B", wall=self.clock, notify=self.told, remind_minutes=0
        )

    async def a_making(self) -> tuple[asyncio.Task[None], str]:
        """A's poll, stopped in the making; and A's claim."""
        step = asyncio.create_task(self.a._look_after(self.eid, 1))
        await asyncio.wait_for(self.a_tables.entered.wait(), 5)
        claim = self.table_id()
        assert claim is not None and claim.startswith("making:A:")
        return step, claim

    def table_id(self) -> str | None:
        tables = events_store.round_tables(self.db, self.eid, 1)
        return str(tables[0]["table_id"]) if tables[0]["table_id"] else None

    def started(self) -> list[str]:
        return sorted(p for p, kind, _ in self.told.sent if kind == "event_started")


async def test_a_killed_maker_holds_the_table_only_for_the_claims_seconds(
    database: Database,
) -> None:
    race = Race(database)
    a_step, claim = await race.a_making()
    a_step.cancel()  # A dies mid-make: no table, no renewal
    with pytest.raises(asyncio.CancelledError):
        await a_step
    assert CLAIM_SECONDS <= 10  # a few seconds, not a minute
    race.clock.now = claimed_at(claim) + CLAIM_SECONDS - 0.5
    await race.b._look_after(race.eid, 1)  # the claim may still be renewed: B leaves it
    assert race.table_id() == claim and not race.b_tables.made
    race.clock.now = claimed_at(claim) + CLAIM_SECONDS + 0.5
    await race.b._look_after(race.eid, 1)  # A's lease ran out: B makes the table, tells them
    assert race.table_id() == "T1" and list(race.b_tables.made) == ["T1"]
    assert race.started() == PEOPLE and not race.a_tables.made


async def test_a_slow_maker_renews_its_claim_and_is_not_overtaken(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events_runner, "RENEW_SECONDS", 0.05)
    race = Race(database)
    a_step, first = await race.a_making()
    for _ in range(30):  # 30 claim lengths (the old claim's minute and more) go by
        race.clock.now += CLAIM_SECONDS * 0.75
        deadline = time.monotonic() + 5
        while abs(claimed_at(race.table_id() or first) - race.clock.now) > 0.01:
            assert time.monotonic() < deadline, "the claim was not renewed"
            await asyncio.sleep(0.01)
        await race.b._look_after(race.eid, 1)  # A is alive: its claim is fresh
    assert not race.b_tables.made and race.clock.now - claimed_at(first) > 60
    race.a_tables.gate.set()
    await asyncio.wait_for(a_step, 5)
    assert race.table_id() == "A1" and list(race.a_tables.made) == ["A1"]
    assert race.started() == PEOPLE and not race.a_tables.discarded


async def test_a_maker_overtaken_stores_nothing_and_tells_nobody(database: Database) -> None:
    """The lease's other side: a maker stalled past its claim (no renewal got through) and
    overtaken makes its table in vain and takes it out again; the players hear once, of the
    table stored."""
    race = Race(database)
    a_step, claim = await race.a_making()
    race.clock.now = claimed_at(claim) + CLAIM_SECONDS + 1  # before A's first renewal is due
    await race.b._look_after(race.eid, 1)
    assert race.table_id() == "T1"
    race.a_tables.gate.set()
    await asyncio.wait_for(a_step, 10)
    assert list(race.a_tables.made) == ["A1"] and race.table_id() == "T1"  # B's stays
    assert race.a_tables.discarded == ["A1"]  # A's, made in vain, is taken out again
    assert not race.b_tables.discarded
    assert race.started() == PEOPLE
