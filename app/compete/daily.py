"""The daily challenge: what the routes ask for, and the background work of each instance.

A player starts the day's challenge of a preset once (guests too): a private table is made for
them in seat 0, with an Expert in every other seat, its game of ``HEARTS_DAILY_DEALS`` hands
dealt from their version's seed (app.compete.deals). The table is an ordinary one with extra
rules (``table.compete``: no chat, no spectators, nobody else sits, no rematch). Each hand the
table finishes is stored by the results writer like any other; this service reads the
player's hands from there into the daily results (``store.record_deals``), when the player
asks and in the background loop, so a player who closed the page is recorded all the same.

Nothing about a deal is shown to a player before they have finished that deal: the table's
views show only the hand in play, and every route here that names a deal's cards (its
replay, the comparison, the par's line) answers only a player whose own result on it is
recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from starlette.concurrency import run_in_threadpool

from app.compete import store
from app.compete.deals import daily_options, daily_seed, player_version
from app.compete.errors import CompeteError
from app.compete.replays import deal_replay, expert_par
from app.compete.scoring import places, total
from app.db import Database
from app.db.compete_models import DailyAttempt
from app.db.models import utcnow
from app.db.players import PlayerInfo
from app.settings import Settings
from app.tables import Actor, TableService

log = logging.getLogger(__name__)

# An attempt row whose table was never made (its instance died in between) is given up after
# this long, so the player can start again.
STARTING_SECONDS = 30
PAR_LEASE_SECONDS = 600.0
PAGE_MAX = 100


class DailyError(CompeteError):
    """The daily challenge's refusal (app.compete.errors)."""


class DailyService:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        tables: TableService,
        clock: Callable[[], float],
        instance_id: str = "",
    ) -> None:
        self.settings = settings
        self.database = database
        self.tables = tables
        self.clock = clock  # ms, as the table service's
        self.instance_id = instance_id
        self._secret: str | None = settings.daily_secret or None

    # -- the day's deals ----------------------------------------------------------------------

    async def secret(self) -> str:
        if self._secret is None:
            self._secret = await run_in_threadpool(store.stored_secret, self.database)
        return self._secret

    def today(self) -> date:
        return datetime.fromtimestamp(self.clock() / 1000, UTC).date()

    def check_preset(self, preset: str) -> str:
        if preset not in self.settings.daily_preset_list:
            raise DailyError(
                404,
                "unknown_daily",
                f"there is no daily challenge of {preset!r}; the dailies are: "
                + ", ".join(self.settings.daily_preset_list),
            )
        return preset

    async def _seed(self, day: date, preset: str, version: int) -> int:
        return daily_seed(await self.secret(), day, preset, version)

    # -- playing ------------------------------------------------------------------------------

    async def start(self, player: PlayerInfo, preset: str, address: str | None) -> dict[str, Any]:
        """The player's table for today's challenge: made now, or the one they have."""
        self.check_preset(preset)
        day = self.today()
        deals = self.settings.daily_deals
        secret = await self.secret()
        version = player_version(secret, day, preset, player.id, self.settings.daily_versions)
        for _ in range(2):
            attempt, created = await run_in_threadpool(
                store.begin_attempt, self.database, day, preset, player.id, player.name, version
            )
            assert attempt.id is not None
            if created:
                break
            if attempt.table_id:
                return await self.status(player, preset)
            started = attempt.started_at.replace(tzinfo=UTC)
            if utcnow() - started < timedelta(seconds=STARTING_SECONDS):
                raise DailyError(409, "daily_starting", "your table is being made: try again")
            await run_in_threadpool(store.drop_attempt, self.database, attempt.id)
        else:
            raise DailyError(409, "daily_starting", "your table is being made: try again")
        compete = {
            "kind": "daily",
            "day": day.isoformat(),
            "preset": preset,
            "deals": deals,
            "seed": daily_seed(secret, day, preset, version),
        }
        options = daily_options(preset, deals)
        players = len(self._seats(preset))
        bots = {str(seat): "expert" for seat in range(1, players)}
        try:
            table = await self.tables.create_compete(
                Actor(player.id, player.name),
                preset,
                options,
                compete=compete,
                bots=bots,
                address=address,
            )
        except BaseException:
            await run_in_threadpool(store.drop_attempt, self.database, attempt.id)
            raise
        await run_in_threadpool(store.set_table, self.database, attempt.id, table.id)
        return await self.status(player, preset)

    def _seats(self, preset: str) -> range:
        from app import engine

        return range(engine.PRESETS[preset].players)

    async def _attempt(self, player: PlayerInfo, preset: str, day: date) -> DailyAttempt | None:
        attempt = await run_in_threadpool(store.find_attempt, self.database, day, preset, player.id)
        if attempt is not None and attempt.id is not None and attempt.table_id:
            added = await run_in_threadpool(
                store.record_deals, self.database, attempt.id, self.settings.daily_deals
            )
            if added:
                attempt = await run_in_threadpool(
                    store.find_attempt, self.database, day, preset, player.id
                )
        return attempt

    async def status(self, player: PlayerInfo, preset: str) -> dict[str, Any]:
        """Today's challenge for the player: not started, or their table and every deal
        they finished with its matchpoints, their percentage so far, and their streak."""
        self.check_preset(preset)
        day = self.today()
        attempt = await self._attempt(player, preset, day)
        out: dict[str, Any] = {
            "day": day.isoformat(),
            "preset": preset,
            "deals": self.settings.daily_deals,
            "attempt": None,
            "streak": await run_in_threadpool(store.streak_of, self.database, player.id, day),
        }
        if attempt is not None and attempt.id is not None and attempt.table_id:
            out["attempt"] = await run_in_threadpool(
                store.attempt_summary, self.database, attempt.id
            )
        return out

    async def deal(
        self, player: PlayerInfo, preset: str, deal_no: int, with_attempt: int | None
    ) -> dict[str, Any]:
        """One deal the player finished: the spread of everyone's points on their version,
        their matchpoints, the Expert's par, and their play beside another player's."""
        self.check_preset(preset)
        if not 0 <= deal_no < self.settings.daily_deals:
            last = self.settings.daily_deals - 1
            raise DailyError(422, "bad_deal", f"deals are 0 to {last}", {"last": last})
        day = self.today()
        attempt = await self._attempt(player, preset, day)
        if attempt is None:
            raise DailyError(404, "no_attempt", "you have not started today's challenge")
        facts = await run_in_threadpool(
            store.deal_facts, self.database, attempt, deal_no, with_attempt
        )
        if facts is None:
            raise DailyError(403, "deal_not_reached", "finish this deal to see how others did")
        seed = await self._seed(day, preset, facts.result.version)
        options = daily_options(preset, self.settings.daily_deals)
        mine = total([(facts.counts, facts.result.points)])
        par = await run_in_threadpool(
            lambda: store.par_of(
                self.database,
                day,
                preset,
                deal_no,
                facts.result.version,
                queue=self.settings.daily_par,
            )
        )
        lines = [facts.result.moves, facts.other.moves if facts.other else None]
        lines.append(par.moves if par is not None else None)
        # The replays replay up to the whole game (filler hands first): off the event loop.
        mine_replay, other_replay, par_replay = await run_in_threadpool(
            lambda: [
                None if moves is None else deal_replay(preset, options, seed, deal_no, moves)
                for moves in lines
            ]
        )
        other = None
        if facts.other is not None:
            other = {
                "attempt": facts.other.attempt_id,
                "name": facts.other_name,
                "points": facts.other.points,
                "replay": other_replay,
            }
        return {
            "day": day.isoformat(),
            "preset": preset,
            "deal_no": deal_no,
            "points": facts.result.points,
            "matchpoints": mine.matchpoints,
            "of": mine.possible,
            "percent": round(mine.percent, 2),
            "players": sum(facts.counts.values()),
            "spread": [{"points": p, "players": n} for p, n in sorted(facts.counts.items())],
            "par": None
            if par is None
            else {"status": par.status, "points": par.points, "replay": par_replay},
            "mine": mine_replay,
            "other": other,
        }

    # -- leaderboards ---------------------------------------------------------------------------

    async def day_board(
        self, preset: str, day_text: str | None, cursor: str | None, limit: int
    ) -> dict[str, Any]:
        self.check_preset(preset)
        day = _parse_day(day_text) if day_text else self.today()
        if day > self.today():
            raise DailyError(422, "bad_day", "that day has not come yet")
        after = _parse_cursor(cursor, int) if cursor else None
        lines, players = await run_in_threadpool(
            store.day_page, self.database, day, preset, after[:2] if after else None, limit
        )
        page = _ranked(lines, after, limit, "attempt")
        return {"day": day.isoformat(), "preset": preset, "players": players, **page}

    async def month_board(
        self, preset: str, month: str | None, cursor: str | None, limit: int
    ) -> dict[str, Any]:
        self.check_preset(preset)
        month = month or store.month_of(self.today())
        _parse_day(month + "-01")  # 422 bad_day unless YYYY-MM
        after = _parse_cursor(cursor, str) if cursor else None
        lines = await run_in_threadpool(
            store.month_page, self.database, month, preset, after[:2] if after else None, limit
        )
        return {"month": month, "preset": preset, **_ranked(lines, after, limit, "player_id")}

    # -- background work ------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event, poll_seconds: float = 2.0) -> None:
        """Record the deals of open attempts and refresh the leaderboards every
        ``HEARTS_DAILY_REFRESH_SECONDS``; compute queued pars as they come."""
        last_refresh = 0.0
        failing = False
        while not stop.is_set():
            try:
                now = self.clock() / 1000
                if now - last_refresh >= self.settings.daily_refresh_seconds:
                    last_refresh = now
                    await self.refresh()
                if self.settings.daily_par:
                    await self.compute_par()
                if failing:
                    failing = False
                    log.info("daily challenge: background work works again")
            except Exception:
                # Once per outage (the database away): not a traceback every poll.
                if not failing:
                    log.exception("daily challenge: background work failed")
                failing = True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), poll_seconds)

    async def refresh(self) -> None:
        """Record what open attempts played, then recompute the day's percentages (today's
        and yesterday's: an attempt started before midnight may finish after)."""
        since = utcnow() - timedelta(seconds=self.settings.idle_table_ttl_seconds + 3600)
        ids = await run_in_threadpool(store.open_attempts, self.database, since, 500)
        for attempt_id in ids:
            await run_in_threadpool(
                store.record_deals, self.database, attempt_id, self.settings.daily_deals
            )
        today = self.today()
        for preset in self.settings.daily_preset_list:
            for day in (today, today - timedelta(days=1)):
                await run_in_threadpool(
                    store.refresh,
                    self.database,
                    day,
                    preset,
                    max(60.0, 2 * self.settings.daily_refresh_seconds),
                )

    async def compute_par(self) -> bool:
        """Compute one queued par in the computer players' workers; whether there was one."""
        row = await run_in_threadpool(
            store.take_par, self.database, self.instance_id or "instance", PAR_LEASE_SECONDS
        )
        if row is None:
            return False
        seed = await self._seed(row.day, row.preset, row.version)
        options = daily_options(row.preset, self.settings.daily_deals)
        computer = self.tables.computer
        points, moves = await computer.run(
            expert_par,
            row.preset,
            options,
            seed,
            row.deal_no,
            0,
            computer.budget_ms,
            computer.hard_cap_ms,
        )
        await run_in_threadpool(store.finish_par, self.database, row, points, moves)
        return True


def _parse_day(text: str) -> date:
    try:
        if len(text) != 10:
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise DailyError(422, "bad_day", "a day is YYYY-MM-DD, a month YYYY-MM") from None


def _parse_cursor(text: str, last_id: Callable[[str], Any]) -> tuple[float, Any, int, int]:
    """A page cursor "<value>:<last line's id>:<lines before the next page>:<last line's
    place>"."""
    try:
        if len(text) > 80:
            raise ValueError(text)
        value, last, count, place = text.split(":")
        out = (float(value), last_id(last), int(count), int(place))
        if not 0 < out[3] <= out[2] or not last:
            raise ValueError(text)
        return out
    except (ValueError, TypeError):
        raise DailyError(422, "bad_cursor", "that cursor is not one this server gave") from None


def _ranked(
    lines: list[dict[str, Any]], after: tuple[float, Any, int, int] | None, limit: int, id_key: str
) -> dict[str, Any]:
    """A page's lines with their ranks (ties share one: app.compete.scoring.places), and the
    cursor of the next page (None at the end): the stored value of the last line (its
    ``key``, taken out), its id, the lines so far and its rank."""
    count = after[2] if after else 0
    keys = [line.pop("key") for line in lines]
    ranks = places(keys, count, (after[0], after[3]) if after else None)
    for line, rank in zip(lines, ranks, strict=True):
        line["rank"] = rank
    next_cursor = None
    if len(lines) == limit:
        next_cursor = f"{keys[-1]!r}:{lines[-1][id_key]}:{count + len(lines)}:{ranks[-1]}"
    return {"lines": lines, "next": next_cursor}
