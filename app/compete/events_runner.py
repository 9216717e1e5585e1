"""The events' scheduler: a background loop on every instance that starts the rounds of the
events that are due, makes each round's tables (ordinary tables, app.tables, made by
``create_compete`` with the event's extra rules and deal seed), marks latecomers once the
grace time is over, and records each table's final scores when its game ends, starting the
next round when the last table of one is in.

Everything it knows is in SQL (app.compete.events_store) and every step is a compare-and-set
there, so the loops of several instances may run together, and an instance that dies
mid-round leaves nothing behind: the next poll of any instance carries on (a table being made
by the dead one is made again once its claim, renewed every ``RENEW_SECONDS`` while its
maker lives, is ``CLAIM_SECONDS`` old; its tables live in Redis).

It also tells the players (app.notify): every registered player ``remind_minutes`` before the
start (``event_soon``, once per event: the instance whose compare-and-set on the event's
``reminded_at`` hit sends it), and each seated player when their round's table is made
(``event_started``, by the instance whose table was stored over its own claim; in an arena
only at a player's first game, its next tables being on the event's page).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from starlette.concurrency import run_in_threadpool

from app.compete import arena_store, event_reminders, events_store
from app.compete.arena_runner import ArenaSteps
from app.compete.deals import daily_options
from app.compete.events import HANDS_PER_ROUND, deal_seed
from app.db import Database
from app.db.models import utcnow
from app.tables.change import Actor

log = logging.getLogger(__name__)

# A table's making is a lease: the maker's claim ``making:<instance>:<time>`` is renewed every
# RENEW_SECONDS while the table is being made; one not renewed for CLAIM_SECONDS (its maker
# died, or stalls far longer than a renewal) is taken over and the table made again.
CLAIM_SECONDS = 6.0
RENEW_SECONDS = 2.0
COMPUTER_LEVEL = "standard"  # fills a short table
REMIND_MINUTES = 10  # when neither the runner nor the table service's settings say

# ``notify(player_id, kind, *, table_id=None, data=None)``: the notifier's send (app.notify).
Notify = Callable[..., Awaitable[None]]


class EventRunner(ArenaSteps):
    def __init__(
        self,
        database: Database,
        tables: Any,  # app.tables.TableService
        instance_id: str,
        hands: int = HANDS_PER_ROUND,
        wall: Callable[[], float] = time.time,
        *,
        notify: Notify | None = None,
        remind_minutes: int | None = None,
    ) -> None:
        # Parameters kept as given, as every service's constructor here keeps them: alike in form,
        # no logic to share.
        self.database = database
        self.hands = hands
        self.tables = tables
        self.instance_id = instance_id
        self.wall = wall
        # None: the table service's (app.main sets ``tables.notify`` and has its settings).
        self.notify = notify
        self.remind_minutes = remind_minutes

    def _notifier(self) -> Notify | None:
        if self.notify is not None:
            return self.notify
        found: Notify | None = getattr(self.tables, "notify", None)
        return found

    def _remind_minutes(self) -> int:
        if self.remind_minutes is not None:
            return self.remind_minutes
        settings = getattr(self.tables, "settings", None)
        return int(getattr(settings, "events_remind_minutes", REMIND_MINUTES))

    async def run(self, stop: asyncio.Event, poll_seconds: float = 2.0) -> None:
        failing = False
        while not stop.is_set():
            try:
                await self.step()
                if failing:
                    failing = False
                    log.info("events: the scheduler works again")
            except Exception:
                if not failing:  # once per outage, not a traceback every poll
                    log.exception("events: the scheduler failed")
                failing = True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), poll_seconds)

    async def step(self) -> None:
        """One poll: remind who is registered, start what is due, then look after every
        running round."""
        db = self.database
        now = utcnow()
        await self._remind(now)
        due = await run_in_threadpool(events_store.due_to_start, db, now, 20)
        arenas = await run_in_threadpool(arena_store.arenas_among, db, due)
        for event_id in due:
            if event_id in arenas:
                await run_in_threadpool(arena_store.start, db, event_id, now)
            else:
                await run_in_threadpool(events_store.start_round, db, event_id, 1)
        running = await run_in_threadpool(events_store.running_rounds, db, 100)
        arenas = await run_in_threadpool(arena_store.arenas_among, db, [e for e, _ in running])
        for event_id, round_no in running:
            if event_id in arenas:  # arena_runner.ArenaSteps
                await self._look_after_arena(event_id)
            else:
                await self._look_after(event_id, round_no)

    async def _remind(self, now: datetime) -> None:
        """``event_soon`` to the players of the events that start within ``remind_minutes``."""
        minutes, notify = self._remind_minutes(), self._notifier()
        if minutes <= 0 or notify is None:
            return
        db = self.database
        soon = now + timedelta(minutes=minutes)
        for event_id in await run_in_threadpool(event_reminders.due_to_remind, db, soon, 20):
            got = await run_in_threadpool(event_reminders.claim_reminder, db, event_id, now)
            if got is None:  # another instance sends it, or the event has begun
                continue
            left = max(1, math.ceil((got["starts_at"] - now).total_seconds() / 60))
            data = {"event": event_id, "event_name": got["name"], "minutes": left}
            for player_id in got["players"]:
                await notify(player_id, "event_soon", data=data)

    async def _look_after(self, event_id: int, round_no: int) -> None:
        db = self.database
        tables = await run_in_threadpool(events_store.round_tables, db, event_id, round_no)
        completed = False
        for info in tables:
            if info["scored"]:
                continue
            table_id = info["table_id"]
            if table_id is None or table_id.startswith("making:"):
                await self._make(event_id, round_no, info)
                continue
            completed = await self._follow(event_id, round_no, info) or completed
        if completed or (tables and all(info["scored"] for info in tables)):
            # The round is over: seat the next one. Also when no table was completed by this
            # poll: the instance whose scores completed it may have died before seating the
            # next (start_round is a compare-and-set: the round is seated once, by whoever).
            seated = await run_in_threadpool(events_store.start_round, db, event_id, round_no + 1)
            if seated:  # its tables at once, not at the next poll
                await self._look_after(event_id, round_no + 1)

    async def _make(self, event_id: int, round_no: int, info: dict[str, Any]) -> None:
        was = info["table_id"]
        if was is not None and self.wall() - claimed_at(was) < CLAIM_SECONDS:
            return  # another instance is making it
        claim = [self._marker()]  # the claim now (renewed while the table is made)
        table_no = info["table_no"]
        db = self.database
        if not await run_in_threadpool(
            events_store.claim_table, db, event_id, round_no, table_no, was, claim[0]
        ):
            return
        done = asyncio.Event()

        async def renew() -> None:
            while not done.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(done.wait(), RENEW_SECONDS)
                    return
                new = self._marker()
                if new == claim[0]:
                    continue
                try:
                    renewed = await run_in_threadpool(
                        events_store.claim_table, db, event_id, round_no, table_no, claim[0], new
                    )
                except Exception:  # the table may still be stored under the claim it holds
                    log.exception("events: a table's claim was not renewed")
                    return
                if not renewed:
                    return  # taken over: this maker's table will not be stored
                claim[0] = new

        renewing = asyncio.create_task(renew())
        try:
            table = await self._create(event_id, round_no, info)
        finally:
            done.set()
            await renewing  # stops between renewals: claim[0] is the claim in SQL
        stored = await run_in_threadpool(
            events_store.set_table, db, event_id, round_no, table_no, table.id, claim[0]
        )
        if not stored:  # taken over: the one that took it made the seat's table, tells them
            await self.tables.discard_compete(table)  # this one was made in vain
            return
        notify = self._notifier()
        if notify is None:
            return
        data = {"event": event_id, "event_name": info.get("name", "")}
        players = [s["player_id"] for s in info["seats"] if s["player_id"]]
        for player_id in await self._to_tell(event_id, round_no, info, players):
            await notify(player_id, "event_started", data=data)

    def _marker(self) -> str:
        return f"making:{self.instance_id[:20]}:{self.wall():.1f}"

    async def _create(self, event_id: int, round_no: int, info: dict[str, Any]) -> Any:
        """The round's table, an ordinary table (app.tables) with the event's rules."""
        seats = info["seats"]
        humans = {
            n: Actor(s["player_id"], s["name"]) for n, s in enumerate(seats) if s["player_id"]
        }
        first = min(humans)
        bots = {str(n): COMPUTER_LEVEL for n, s in enumerate(seats) if not s["player_id"]}
        if first != 0:  # the table's creator sits in seat 0: the leaders' order is kept
            raise ValueError("a round's table has its first player in seat 0")
        seed = deal_seed(info["seed"], info["format"], round_no, info["table_no"])
        return await self.tables.create_compete(
            humans[0],
            info["preset"],
            daily_options(info["preset"], self.hands),
            compete={  # all but the seed public: the table page names the event and round
                "kind": "event",
                "event": event_id,
                "name": info.get("name", ""),
                "format": info["format"],
                "round": round_no,
                "table": info["table_no"],
                "seed": seed,
            },
            bots=bots,
            others={n: a for n, a in humans.items() if n != 0},
        )

    async def _follow(
        self,
        event_id: int,
        round_no: int,
        info: dict[str, Any],
        record: Callable[..., bool] = events_store.record_table,
    ) -> bool:
        """Who came, who is late, and the scores once the game is over (``record``: the
        format's way to keep them; an arena's is arena_store.record_game). True when the
        table's scores completed the round."""
        table, _state = await self.tables.read(info["table_id"])
        db = self.database
        for seat, mine in zip(table.seats, info["seats"], strict=True):
            pid = mine["player_id"]
            if pid and seat.player_id == pid and not seat.away and seat.gone_since is None:
                await run_in_threadpool(events_store.seen, db, event_id, round_no, pid)
        started = table.game_started_ms or table.created_ms
        over = table.ended is not None and table.game is not None
        # Late: not come by the end of the grace time, or by the end of a game that ended
        # sooner (a table of computers plays fast): a no-show never scores the computer's game.
        if over or self.tables.clock() - started >= info["grace_seconds"] * 1000:
            late = [
                mine["player_id"]
                for seat, mine in zip(table.seats, info["seats"], strict=True)
                if mine["player_id"] and not mine["late"] and _never_played(seat)
            ]
            if late:
                await run_in_threadpool(events_store.late, db, event_id, round_no, late)
        if not over or table.game is None:
            return False
        scores = [int(v) for v in table.game["scores"]]
        return await run_in_threadpool(record, db, event_id, round_no, info["table_no"], scores)


def claimed_at(marker: str) -> float:
    """When a claim ``making:<instance>:<time>`` was taken or last renewed (epoch seconds)."""
    return float(marker.rsplit(":", 1)[1])


def _never_played(seat: Any) -> bool:
    """The seat's player has not been at the table since it started (the computer played
    every move so far for them)."""
    return bool(seat.away)
