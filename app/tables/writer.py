"""The commit path of the one writer of live tables.

Every change goes the same way: load the table from Redis, change a fresh copy (running the
engine for game moves), then one compare-and-set EVALSHA that stores it, appends the public
events to the table's log, updates the due-time index and lobby, and publishes "version n
changed" on the table's channel. A lost race reloads and tries again (or answers
``stale_version`` when the client named the version it saw). Nothing here sends to sockets:
each instance's realtime hub turns the published notice into per-seat views.

``TableWriter`` holds the service's state and this path; the commands (app.tables.seats,
.presence, .claims, .commands) are mixins over it, put together in app.tables.service.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import orjson

import app.tables.records as records
import app.tables.timers as timers
from app import engine
from app.engine import GameState
from app.settings import Settings
from app.store import LoadedTable, TableStore
from app.store.records import encode_event
from app.store.sockets import SocketCounts
from app.tables.change import Actor, Change, FindGameId, MoveResult, Mutation
from app.tables.computer import BotMemo, ComputerPlayers
from app.tables.durable import Durable
from app.tables.errors import TableError
from app.tables.limits import HostingLimits
from app.tables.mine import GameIndex
from app.tables.model import Table, lobby_listed
from app.tables.rated import RatedRules

log = logging.getLogger(__name__)

MOVE_IDS_KEPT = 16  # command ids remembered per player, so a resent command applies once
MAX_ATTEMPTS = 20  # compare-and-set retries before answering "busy"


class Notify(Protocol):
    """The shape of app.notify's ``Notifier.send``."""

    def __call__(
        self,
        player_id: str,
        kind: str,
        *,
        table_id: str | None = None,
        data: Mapping[str, object] | None = None,
    ) -> Awaitable[None]: ...


# Asked before a player takes a seat (player id, the table as Redis holds it): raises a
# TableError to refuse. The app's check of blocks (app/friends/seating.py).
SeatGate = Callable[[str, Table], Awaitable[None]]


def _now_ms() -> float:
    return time.time() * 1000.0


class TableWriter:
    def __init__(
        self,
        store: TableStore,
        settings: Settings,
        *,
        instance_id: str,
        clock: Callable[[], float] = _now_ms,
        rng: random.Random | None = None,
        computer: ComputerPlayers | None = None,
        find_game_id: FindGameId | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.instance_id = instance_id
        # Open sockets per table (and, for app.realtime.limits, per player and address),
        # counted in Redis outside the table: a spectator coming or going changes no version.
        self.sockets = SocketCounts(
            store.redis, instance_id, settings.ws_count_lease_seconds * 1000.0
        )
        self.clock = clock
        self.rng = rng or random.SystemRandom()
        # Computer players; without one, searches run in a thread of this process.
        self.computer = computer or ComputerPlayers(
            0, budget_ms=settings.bot_budget_ms, hard_cap_ms=settings.bot_hard_cap_ms
        )
        # The SQL side's id of a finished game (app.db), for the replay link; without it none
        # is looked up.
        self.find_game_id = find_game_id
        # Live tables per creator and per client address, counted in Redis.
        self.limits = HostingLimits(store.redis, settings, namespace=store.namespace)
        # Rated tables: who may sit, abandons, address digests (the app sets its SQL gate).
        self.rated_rules = RatedRules(store.redis, settings, store.namespace)
        # Who may sit beyond the table's own rules (set by the app; None: anyone).
        self.seat_gate: SeatGate | None = None
        # The tables each player sat down at, for their My games (app.tables.mine).
        self.games = GameIndex(store.redis, store.namespace)
        # Told of every change this instance commits (table id, the published notice), so
        # its own sockets need not wait for the notice to come back through Redis.
        self.committed: Callable[[str, dict[str, Any]], None] | None = None
        # Called with a table's id when a commit here changed its lobby line (the lobby
        # index of this instance reads it before its next page: read-your-writes).
        self.lobby_changed: Callable[[str], None] | None = None
        # Called after a commit with the notices it gives (a turn-based table's "your turn",
        # "time almost up", "game over"): app.notify's Notifier.send, or None (none sent).
        self.notify: Notify | None = None
        # SQL copies of turn-based tables (app.tables.durable): restore, page-out. None: off.
        self.durable: Durable | None = None
        # Read cache for views: table id -> (version, table, state).
        self._read_cache: dict[str, tuple[int, Table, GameState | None]] = {}
        if store.fast is not None:
            # Redis restarted: a crash may have cost it its last writes, and a cached copy
            # could then match a version number Redis reaches again with other content.
            store.fast.on_reconnect(self._read_cache.clear)
        # Computer decisions by position (app.tables.computer.computer_move).
        self._bot_memo: BotMemo = {}
        self._locks: dict[str, _TableLock] = {}
        # Claims being checked on this instance: (table id, seat); one at a time per seat.
        self._claiming: set[tuple[str, int]] = set()
        # Commits of this instance waiting for their reply, by table.
        self._committing: dict[str, set[asyncio.Future[None]]] = {}

    # -- reading ---------------------------------------------------------------------------

    async def read(
        self, table_id: str, at_least: int | None = None, *, page_in: bool = True
    ) -> tuple[Table, GameState | None]:
        """The table and its engine state (shared, read-only objects: do not mutate).

        With ``at_least``, a cached copy that new (e.g. what this instance just committed)
        is returned without asking Redis. Without ``page_in``, a turn-based table out of
        Redis is read from its SQL copy and left out (My games lists it so).
        """
        if at_least is not None:
            cached = self._read_cache.get(table_id)
            if cached is not None and cached[0] >= at_least:
                return cached[1], cached[2]
            landing = self._committing.get(table_id)
            if landing:
                # This instance is committing a change here: most likely that very version.
                await asyncio.wait(list(landing))
                cached = self._read_cache.get(table_id)
                if cached is not None and cached[0] >= at_least:
                    return cached[1], cached[2]
        loaded = await self._fetch(table_id, page_in=page_in)
        cached = self._read_cache.get(table_id)
        if cached is not None and cached[0] == loaded.version:
            return cached[1], cached[2]
        table, state = _parse(loaded)
        if page_in and await self._caught_up(table):
            return await self.read(table_id)  # Redis had lost versions: SQL's is back
        if cached is None or cached[0] < loaded.version:
            # Not over a newer copy: this instance may have committed one meanwhile.
            self._read_cache[table_id] = (loaded.version, table, state)
        return table, state

    def forget(self, table_id: str) -> None:
        self._read_cache.pop(table_id, None)

    async def _fetch(self, table_id: str, *, page_in: bool = True) -> LoadedTable:
        """What Redis holds of the table (``unknown_table`` when nothing: expired or never)."""
        loaded = await self.store.load(table_id)
        if loaded is None and self.durable is not None:
            # Lost by Redis, or paged out: a turn-based table comes back from SQL.
            if page_in:
                loaded = await self.durable.restore(table_id, self.clock())
            else:
                loaded = await self.durable.peek(table_id)
        if loaded is None:
            self._read_cache.pop(table_id, None)
            raise TableError(
                "unknown_table", f"no table {table_id!r} (it may have expired)", {"table": table_id}
            )
        return loaded

    async def _load(
        self, table_id: str, *, cached: bool = False
    ) -> tuple[Table, GameState | None, bool]:
        """A private, changeable copy of the table, its engine state (immutable, so shared),
        and whether they came from this instance's cache.

        With ``cached``, the copy this instance last committed or read is used when there is
        one: no Redis round trip and no parsing. The compare-and-set then catches a stale
        copy, and callers decide anything that does not commit (an error, a no-op) again on a
        fresh read.
        """
        if cached:
            hit = self._read_cache.get(table_id)
            if hit is not None:
                return hit[1].clone(), hit[2], True
        loaded = await self._fetch(table_id)
        hit = self._read_cache.get(table_id)
        if hit is not None and hit[0] == loaded.version:
            return hit[1].clone(), hit[2], False  # parsed already (the hub read it)
        table, state = _parse(loaded)
        if hit is not None and hit[0] < loaded.version:
            # A newer version than the cached one (a lost race): the hub will want it too.
            self._read_cache[table_id] = (loaded.version, table, state)
            table = table.clone()
        return table, state, False

    # -- commands: once per command id -----------------------------------------------------

    async def applied_version(
        self, table_id: str, actor: Actor, command_id: str | None
    ) -> int | None:
        """The version that holds the player's command ``command_id`` if it was applied
        already (a resend), else None: lets a limit that counts new commands (chat) answer a
        resend as the duplicate it is instead of counting it again."""
        if command_id is None:
            return None
        table, _ = await self.read(table_id)
        for seen_id, seen_version in table.recent_moves.get(actor.player_id, ()):
            if seen_id == command_id:
                return int(seen_version)
        return None

    async def _command(
        self, table_id: str, actor: Actor, command_id: str | None, fn: Mutation
    ) -> MoveResult:
        """Apply a player's command once per ``command_id``: the ids of each player's last
        MOVE_IDS_KEPT applied commands are kept in the table (with the version that holds
        each), so a command resent after a dropped connection is answered with that version
        and applied no second time. An id is remembered only when its command was applied
        (a refused one may be sent again), and only in the commit that applies it."""

        def once(table: Table, state: GameState | None, now: float) -> Change:
            if command_id is not None:
                for seen_id, seen_version in table.recent_moves.get(actor.player_id, ()):
                    if seen_id == command_id:
                        return Change(commit=False, result=MoveResult(int(seen_version), True))
            change = fn(table, state, now)
            if isinstance(change.result, TableError):
                return change  # a refusal that is recorded (a claim): its id is not kept
            if change.commit:
                change.result = MoveResult(table.version + 1)
                if command_id is not None:
                    ids = table.recent_moves.setdefault(actor.player_id, [])
                    ids.append([command_id, table.version + 1])
                    del ids[:-MOVE_IDS_KEPT]
                    change.save_table = True
            return change

        done = await self._mutate(table_id, once)
        result = done.result
        if isinstance(result, TableError):
            raise result
        return result if isinstance(result, MoveResult) else MoveResult(int(done.version))

    # -- the writer ------------------------------------------------------------------------

    async def _mutate(self, table_id: str, fn: Mutation) -> _Committed:
        # Changes to one table made on this instance take turns: each then starts from the
        # copy the previous one committed, instead of racing it and losing the
        # compare-and-set (four players passing at once). Other instances still race; the
        # compare-and-set settles those.
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = _TableLock()
        lock.users += 1
        try:
            async with lock:
                return await self._mutate_now(table_id, fn)
        finally:
            lock.users -= 1
            if lock.users == 0:
                self._locks.pop(table_id, None)

    async def _mutate_now(self, table_id: str, fn: Mutation) -> _Committed:
        for attempt in range(MAX_ATTEMPTS):
            table, state, cached = await self._load(table_id, cached=attempt == 0)
            before = table.lobby_json(0)
            now = self.clock()
            try:
                change = fn(table, state, now)
            except TableError:
                if cached or await self._caught_up(table):
                    continue  # answer errors from what Redis (or SQL, newer) holds
                raise
            if not change.commit:
                if cached:
                    continue
                await self._fix_due(table, state, now)
                return _Committed(table.version, change.result)
            if await self._commit(table, before, state, change, expected=table.version):
                return _Committed(table.version, change.result)
        raise TableError("busy", "the table is very busy; try again")

    def _schedule(
        self,
        table: Table,
        old_state: GameState | None,
        state: GameState,
        now: float,
        *,
        moved: bool = False,
    ) -> None:
        timers.schedule(
            table,
            old_state,
            state,
            now,
            settings=self.settings,
            rng=self.rng,
            computer=self.computer,
            moved=moved,
        )

    async def _fix_due(self, table: Table, state: GameState | None, now: float) -> None:
        """After a no-op visit (e.g. a claimed due item that was not due after all)."""
        if table.status == "playing" and state is not None and table.pause_until_ms is None:
            self._schedule(table, state, state, now)
        due = self._next_due(table, now)
        await self.store.set_due_if_version(table.id, table.version, due)

    async def _caught_up(self, table: Table, version: int | None = None) -> bool:
        """A turn-based table read from Redis at ``version`` (its own by default): True when
        SQL held a newer version (Redis lost writes), which is now back in Redis."""
        if self.durable is None or not table.turn_based:
            return False
        at = table.version if version is None else version
        if not await self.durable.catch_up(table.id, at, self.clock()):
            return False
        self._read_cache.pop(table.id, None)
        return True

    def _next_due(self, table: Table, now: float) -> float | None:
        return timers.next_due(
            table, now, self.settings, self.find_game_id, page_out=self.durable is not None
        )

    async def _commit(
        self,
        table: Table,
        before: dict[str, Any] | None,
        old_state: GameState | None,
        change: Change,
        *,
        expected: int,
    ) -> bool:
        now = self.clock()
        new_version = expected + 1
        found: list[dict[str, Any]] = []  # results records
        state = old_state
        if change.new_state is not None:
            state = change.new_state
            table.game = engine.state_to_json(state)
            if not change.new_game:
                found = await records.results(
                    self.store, table, old_state, state, change.moves, now
                )
            if state.phase == "over":
                table.status = "over"
                table.ended = "finished"
                table.game_ended_ms = now
                if table.turn_based:
                    change.notices += [
                        (seat.player_id, "game_over")
                        for seat in table.seats
                        if seat.kind == "human" and seat.player_id is not None
                    ]
                change.events.append(
                    {
                        "kind": "game_over",
                        "game_no": table.game_no,
                        "winners": records.winners(state),
                        "scores": records.scores(state),
                    }
                )
            elif (
                old_state is not None
                and len(state.history) > len(old_state.history)
                and self.settings.hand_pause_ms > 0
            ):
                # A hand ended: a pause to read its result before anyone plays on.
                table.pause_until_ms = now + self.settings.hand_pause_ms
        if change.abandon is not None and table.status == "playing" and state is not None:
            found.append(await records.abandoned(self.store, table, state, change.moves, now))
            table.status = "over"
            table.ended = "abandoned"
            table.game_ended_ms = now
            change.events.append({"kind": "abandoned", "reason": change.abandon})
        table.move_no += len(change.moves)
        if table.status == "playing" and state is not None:
            deadline = table.deadline_ms
            self._schedule(table, old_state, state, now, moved=change.new_state is not None)
            if table.turn_based and table.deadline_ms not in (None, deadline):
                # A turn begins at a turn-based table: its players are told (after the commit).
                change.notices += [
                    (player_id, "your_turn")
                    for i in table.deadline_seats
                    if (player_id := table.seats[i].player_id) is not None
                ]
        else:
            table.deadline_ms = None
            table.deadline_seats = []
            table.bot_due_ms = None
            table.pause_until_ms = None
        if change.state_changed:
            table.updated_ms = now  # chat is no activity: an idle game still ends on time
        ttl = timers.ttl(table, self.settings)
        for event in change.events:
            event["v"] = new_version
        # "t": when the commit began (ms), for the delivery-latency metric (app/metrics.py).
        note = {
            "v": new_version,
            "s": 1 if change.state_changed else 0,
            "events": change.events,
            "t": round(now, 1),
        }
        message = orjson.dumps(note)
        # A turn-based table's every version is whole, for its SQL copy.
        whole = change.state_changed or change.save_table or table.turn_based
        blob = orjson.dumps(table.to_json()) if whole else None
        due = self._next_due(table, now)
        if await self._caught_up(table, expected):
            return False  # Redis had lost versions SQL holds: made again on the restored one
        # The table's channel often tells this instance's hub of the change before the reply
        # comes back: the hub waits for the reply (``read``) instead of reading the table.
        landing: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        committing = self._committing.setdefault(table.id, set())
        committing.add(landing)
        lobby = _lobby_change(before, table, now + ttl * 1000)
        try:
            result = await self.store.commit(
                table.id,
                expected_version=expected,
                blob=blob,
                message=message,
                ttl_seconds=ttl,
                due="remove" if due is None else due,
                lobby_summary=lobby,
                moves=[orjson.dumps(m) for m in change.moves],
                new_game=change.new_game,
                records=[encode_event(r) for r in found],
            )
        finally:
            # Its waiters run after this change is in the read cache (no await until then).
            landing.set_result(None)
            committing.discard(landing)
            if not committing and self._committing.get(table.id) is committing:
                del self._committing[table.id]
        if not result.ok:
            return False
        table.version = new_version
        if self.durable is not None and table.turn_based and blob is not None:
            # Before the move is answered: an answered move is in SQL (app.tables.durable).
            await self.durable.save(table, blob, found)
        if blob is not None:
            # What was just stored is what the hubs will read (and the next change start
            # from): keep it. The object is not changed after this.
            self._read_cache[table.id] = (new_version, table, state)
        if self.committed is not None:
            self.committed(table.id, note)
        if lobby != "keep" and self.lobby_changed is not None:
            self.lobby_changed(table.id)
        if change.notices and self.notify is not None:
            await self._send_notices(table, change.notices)
        return True

    async def _send_notices(self, table: Table, notices: list[tuple[str, str]]) -> None:
        """Hand a commit's notices to the notifier: by the instance that committed, once."""
        assert self.notify is not None
        data = {"preset": table.preset, "game_no": table.game_no}
        for player_id, kind in notices:
            try:
                await self.notify(player_id, kind, table_id=table.id, data=data)
            except Exception:
                log.exception("notice %s for %s at table %s not sent", kind, player_id, table.id)


def _lobby_change(
    before: dict[str, Any] | None, after: Table, expires_ms: float
) -> bytes | Literal["keep", "remove"]:
    if after.private:
        return "keep"
    line = after.lobby_json(0)
    if not lobby_listed(line):
        # Finished, or nobody left but computers: out of the public list (a rematch or a
        # newcomer's seat puts it back); the table itself stays reachable by its link.
        return "remove" if before is None or lobby_listed(before) else "keep"
    if before is not None and line == before:
        return "keep"
    return orjson.dumps(after.lobby_json(expires_ms))


class _TableLock(asyncio.Lock):
    """A table's turn-taking lock, with the number of changes holding or awaiting it."""

    def __init__(self) -> None:
        super().__init__()
        self.users = 0


@dataclass(frozen=True, slots=True)
class _Committed:
    version: int
    result: MoveResult | TableError | None


def _parse(loaded: LoadedTable) -> tuple[Table, GameState | None]:
    """A stored table and its engine state. Only this service writes tables, so the state is
    loaded without the engine's checks (``trusted``: several times faster, the same state)."""
    table = Table.from_json(orjson.loads(loaded.blob), loaded.version)
    state = engine.state_from_json(table.game, trusted=True) if table.game is not None else None
    return table, state
