"""The one writer of live tables.

Every change goes the same way: load the table from Redis, change a fresh copy (running the
engine for game moves), then one compare-and-set EVALSHA that stores it, appends the public
events to the table's log, updates the due-time index and lobby, and publishes "version n
changed" on the table's channel. A lost race reloads and tries again (or answers
``stale_version`` when the client named the version it saw). Nothing here sends to sockets:
each instance's realtime hub turns the published notice into per-seat views.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from app import engine
from app.bots import LEVELS
from app.engine.claim import claim_outcome, claimed_cards, claimed_tricks
from app.settings import Settings
from app.store import LoadedTable, TableStore, keys
from app.store.records import encode_event
from app.store.sockets import Counted, SocketCounts, table_sockets_key
from app.tables.computer import STAND_IN_LEVEL, ComputerPlayers, bot_seed
from app.tables.errors import TableError
from app.tables.limits import HostingLimits
from app.tables.model import Seat, Table, lobby_listed
from app.text import TextRuleError, clean_chat

log = logging.getLogger(__name__)

# Computer levels a seat may ask for (app.bots: Easy, Standard, Pro, Expert).
BOT_LEVELS: tuple[str, ...] = tuple(LEVELS)
DEFAULT_BOT_LEVEL = "standard"
MOVE_IDS_KEPT = 16  # command ids remembered per player, so a resent command applies once
MAX_ATTEMPTS = 20  # compare-and-set retries before answering "busy"
BOT_MEMO_SIZE = 2000  # computer decisions kept for a retried compare-and-set
# Looking up a finished game's stored id (the results writer stores it a moment after the
# game ends): first after this long, then after as long again as has passed (at most
# RECORD_STEP_MS between looks), until RECORD_WAIT_MS after the end.
RECORD_FIRST_MS = 500.0
RECORD_STEP_MS = 30_000.0
RECORD_WAIT_MS = 300_000.0


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks for a change: a signed-in player (guest or account)."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What a command (a move, sit, chat, start, ...) did."""

    version: int  # the table version that holds the command
    duplicate: bool = False  # the command id was seen before; nothing was applied now


@dataclass(slots=True)
class Change:
    """What one mutation did; the writer turns it into a commit."""

    events: list[dict[str, Any]] = field(default_factory=list)
    new_state: Any = None  # an engine GameState when the game moved
    moves: list[list[Any]] = field(default_factory=list)  # [seat, move JSON] applied now
    new_game: bool = False  # a game starts: the move list begins afresh
    abandon: str | None = None  # end the game unfinished ("idle": nothing happened too long)
    state_changed: bool = True  # False for chat: only the log and the version move
    save_table: bool = False  # store the table even so (it remembers a command id)
    commit: bool = True
    result: Any = None


Mutation = Callable[[Table, Any, float], Change]
# The stored id of a table's game (table id, game number), or None while it is not written.
FindGameId = Callable[[str, int], Awaitable[int | None]]


def _now_ms() -> float:
    return time.time() * 1000.0


class TableService:
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
        # Told of every change this instance commits (table id, the published notice), so
        # its own sockets need not wait for the notice to come back through Redis.
        self.committed: Callable[[str, dict[str, Any]], None] | None = None
        # Called with a table's id when a commit here changed its lobby line (the lobby
        # index of this instance reads it before its next page: read-your-writes).
        self.lobby_changed: Callable[[str], None] | None = None
        # Read cache for views: table id -> (version, table, state).
        self._read_cache: dict[str, tuple[int, Table, Any]] = {}
        if store.fast is not None:
            # Redis restarted: a crash may have cost it its last writes, and a cached copy
            # could then match a version number Redis reaches again with other content.
            store.fast.on_reconnect(self._read_cache.clear)
        # Computer decisions by position: (table, game, move number, seat, level) -> move.
        # A lost compare-and-set at the same position reuses the decision (it would be the
        # same: the view and the seed are the same); a new position searches again.
        self._bot_memo: dict[tuple[str, int, int, int, str], dict[str, object]] = {}
        self._locks: dict[str, _TableLock] = {}
        # Claims being checked on this instance: (table id, seat); one at a time per seat.
        self._claiming: set[tuple[str, int]] = set()
        # Commits of this instance waiting for their reply, by table.
        self._committing: dict[str, set[asyncio.Future[None]]] = {}

    # -- reading ---------------------------------------------------------------------------

    async def read(self, table_id: str, at_least: int | None = None) -> tuple[Table, Any]:
        """The table and its engine state (shared, read-only objects: do not mutate).

        With ``at_least``, a cached copy that new (e.g. what this instance just committed)
        is returned without asking Redis.
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
        loaded = await self.store.load(table_id)
        if loaded is None:
            self._read_cache.pop(table_id, None)
            raise TableError("unknown_table", f"no table {table_id!r} (it may have expired)")
        cached = self._read_cache.get(table_id)
        if cached is not None and cached[0] == loaded.version:
            return cached[1], cached[2]
        table, state = _parse(loaded)
        if cached is None or cached[0] < loaded.version:
            # Not over a newer copy: this instance may have committed one meanwhile.
            self._read_cache[table_id] = (loaded.version, table, state)
        return table, state

    def forget(self, table_id: str) -> None:
        self._read_cache.pop(table_id, None)

    # -- creating --------------------------------------------------------------------------

    async def create(
        self,
        actor: Actor,
        preset: str,
        options: Mapping[str, object] | None = None,
        *,
        private: bool = False,
        turn_timer: int | None = None,
        bots: Mapping[str, object] | Mapping[int, object] | None = None,
        address: str | None = None,
    ) -> Table:
        """A new table with ``actor`` in seat 0 as its host, and computer players in the seats
        ``bots`` names (seat number -> level). Every value is checked before anything is
        stored: a bad one raises and creates nothing. The creator and ``address`` (the client's,
        when known) may have only so many live tables (app.tables.limits): TooManyTables."""
        try:
            rules = engine.make_rules(preset, options)
        except engine.RulesError as exc:
            raise TableError(getattr(exc, "code", "bad_options"), str(exc)) from None
        if turn_timer is None:
            turn_timer = 0 if private else self.settings.turn_timer_seconds
        if not 0 <= turn_timer <= 3600:
            raise TableError("bad_timer", "turn_timer must be between 0 and 3600 seconds")
        computers = _bot_seats(bots or {}, rules.players)
        now = self.clock()
        table = Table(
            id=secrets.token_urlsafe(8).replace("-", "x").replace("_", "y"),
            preset=preset,
            options=rules.to_options(),
            players=rules.players,
            private=private,
            invite=secrets.token_urlsafe(9) if private else None,
            host=actor.player_id,
            seats=[Seat() for _ in range(rules.players)],
            turn_timer=turn_timer,
            created_ms=now,
            updated_ms=now,
        )
        # The creator sits in the first seat.
        table.seats[0] = Seat(kind="human", player_id=actor.player_id, name=actor.name)
        events: list[dict[str, Any]] = [{"kind": "created", "by": actor.name}]
        for seat_no, level in computers.items():
            table.seats[seat_no] = Seat(kind="bot", level=level)
            events.append({"kind": "bot_added", "seat": seat_no, "level": level})
        charged = await self.limits.reserve(table.id, actor.player_id, address, now)
        try:
            result = await self._commit(table, None, None, Change(events=events), expected=0)
        except BaseException:
            await self.limits.release(table.id, charged)
            raise
        if not result:
            await self.limits.release(table.id, charged)
            raise TableError("busy", "table id collision; try again")
        table.version = 1
        return table

    # -- seats and host --------------------------------------------------------------------

    async def sit(
        self, table_id: str, actor: Actor, seat_no: int, *, command_id: str | None = None
    ) -> MoveResult:
        present = (await self._count(table_id, actor.player_id, 0, report=False)).holder > 0

        def fn(table: Table, state: Any, now: float) -> Change:
            seat = self._seat(table, seat_no)
            if table.seat_of(actor.player_id) is not None:
                raise TableError("already_seated", "you already have a seat at this table")
            if seat.kind == "open" and table.status in ("waiting", "over"):
                pass
            elif seat.kind == "bot" and seat.vacated and table.status == "playing":
                pass  # take over a seat a player left during the game
            else:
                raise TableError("seat_taken", f"seat {seat_no} is not free")
            table.seats[seat_no] = Seat(
                kind="human",
                player_id=actor.player_id,
                name=actor.name,
                level=seat.level,
                gone_since=None if present else now,
                # Mid-game the seat still counts for the person who began the game in it.
                owner_id=seat.owner_id if table.status == "playing" else None,
                owner_name=seat.owner_name if table.status == "playing" else None,
                replaced_hand=seat.replaced_hand,
                replaced_game=seat.replaced_game,
            )
            if table.host is None:
                table.host = actor.player_id
            return Change(events=[{"kind": "sat", "seat": seat_no, "name": actor.name}])

        result = await self._command(table_id, actor, command_id, fn)
        await self._recount(table_id, result.version)  # a spectator took a seat
        return result

    async def leave(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: Any, now: float) -> Change:
            seat_no = self._my_seat(table, actor)
            old = table.seats[seat_no]
            if table.status == "playing":
                # The computer finishes the game; a newcomer may take the seat over. The seat
                # still counts for its player in the records (replaced by a computer).
                table.seats[seat_no] = Seat(
                    kind="bot",
                    level=STAND_IN_LEVEL,
                    vacated=True,
                    name=None,
                    owner_id=old.owner_id or old.player_id,
                    owner_name=old.owner_name or old.name,
                    replaced_hand=True,
                    replaced_game=True,
                )
            else:
                table.seats[seat_no] = Seat()
            if table.host == actor.player_id:
                table.host = next(
                    (s.player_id for s in table.seats if s.kind == "human" and s.player_id), None
                )
            return Change(events=[{"kind": "left", "seat": seat_no, "name": actor.name}])

        result = await self._command(table_id, actor, command_id, fn)
        await self._recount(table_id, result.version)  # still watching, maybe
        return result

    async def add_bot(
        self,
        table_id: str,
        actor: Actor,
        seat_no: int,
        level: str = DEFAULT_BOT_LEVEL,
        *,
        command_id: str | None = None,
    ) -> MoveResult:
        _check_level(level)

        def fn(table: Table, state: Any, now: float) -> Change:
            self._require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "computer players are set before the start")
            seat = self._seat(table, seat_no)
            if seat.kind != "open":
                raise TableError("seat_taken", f"seat {seat_no} is not free")
            table.seats[seat_no] = Seat(kind="bot", level=level)
            return Change(events=[{"kind": "bot_added", "seat": seat_no, "level": level}])

        return await self._command(table_id, actor, command_id, fn)

    async def remove_bot(
        self, table_id: str, actor: Actor, seat_no: int, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: Any, now: float) -> Change:
            self._require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "computer players are set before the start")
            if self._seat(table, seat_no).kind != "bot":
                raise TableError("bad_seat", f"seat {seat_no} has no computer player")
            table.seats[seat_no] = Seat()
            return Change(events=[{"kind": "bot_removed", "seat": seat_no}])

        return await self._command(table_id, actor, command_id, fn)

    async def start(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: Any, now: float) -> Change:
            self._require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "the game has already started")
            return self._begin_game(table)

        return await self._command(table_id, actor, command_id, fn)

    async def rematch(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: Any, now: float) -> Change:
            self._my_seat(table, actor)
            if table.status != "over":
                raise TableError("wrong_status", "a rematch starts after the game is over")
            return self._begin_game(table)

        return await self._command(table_id, actor, command_id, fn)

    def _begin_game(self, table: Table) -> Change:
        if any(s.kind == "open" for s in table.seats):
            raise TableError("seats_open", "every seat needs a player or a computer to start")
        rules = engine.make_rules(table.preset, table.options)
        table.seed = self.rng.randrange(1, 2**62)
        table.game_no += 1
        table.status = "playing"
        table.ended = None
        table.hands_recorded = 0
        table.move_no = table.hand_first_move = 0
        table.game_started_ms = table.hand_started_ms = self.clock()
        table.bot_due_ms = None
        table.deadline_ms = None
        table.pause_until_ms = table.game_ended_ms = None
        table.game_id = None
        for seat in table.seats:
            seat.vacated = False if seat.kind == "human" else seat.vacated
            person = seat.kind == "human"
            seat.owner_id = seat.player_id if person else None
            seat.owner_name = seat.name if person else None
            seat.replaced_hand = seat.replaced_game = False
        state = engine.new_game(rules, table.seed)
        return Change(
            events=[{"kind": "started", "game_no": table.game_no}], new_state=state, new_game=True
        )

    async def back(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        """The player takes their away seat back from the computer."""

        def fn(table: Table, state: Any, now: float) -> Change:
            seat_no = self._my_seat(table, actor)
            seat = table.seats[seat_no]
            if not seat.away:
                return Change(commit=False)
            seat.away = False
            return Change(events=[{"kind": "back", "seat": seat_no}])

        return await self._command(table_id, actor, command_id, fn)

    # -- presence --------------------------------------------------------------------------

    async def attach(self, table_id: str, player_key: str, *, cap: int = 0) -> Counted:
        """A socket of ``player_key`` (a player id, or "anon:<socket id>") opened on this
        instance. It is counted outside the table (app/store/sockets.py): only a seated
        player's coming back changes the table (the seat is connected again, and no longer
        away). With ``cap``, a table that has that many sockets already refuses it
        (``too_many_sockets``) and nothing changes."""
        table, _ = await self.read(table_id)
        counted = await self._count(table_id, player_key, 1, cap=cap, table=table)
        if not counted.ok:
            raise TableError(
                "too_many_sockets",
                f"this table has {counted.sockets} connections open, the most it takes; "
                "try again later",
            )
        if table.seat_of(player_key) is not None:
            await self._sync_presence(table_id, player_key, counted.holder > 0, arrived=True)
        return counted

    async def detach(self, table_id: str, player_key: str) -> Counted | None:
        """A socket that ``attach`` counted closed (None: the table is gone)."""
        try:
            table, _ = await self.read(table_id)
        except TableError as exc:
            if exc.code != "unknown_table":
                raise
            await self.sockets.change(table_sockets_key(table_id), self.clock(), -1, player_key)
            return None
        counted = await self._count(table_id, player_key, -1, table=table)
        if table.seat_of(player_key) is not None:
            await self._sync_presence(table_id, player_key, counted.holder > 0)
        return counted

    async def spectators(self, table_id: str) -> Counted:
        """The table's socket counts now (``viewers``: spectators, seated players left out)."""
        return await self._count(table_id, "", 0)

    async def _count(
        self,
        table_id: str,
        player_key: str,
        delta: int,
        *,
        cap: int = 0,
        table: Table | None = None,
        report: bool = True,
    ) -> Counted:
        """Change (or just read) the table's socket counts; a change publishes the new
        spectator count on the table's channel (``{"sp": n, "q": seq}``)."""
        if table is None and report:
            with contextlib.suppress(TableError):
                table, _ = await self.read(table_id)
        return await self.sockets.change(
            table_sockets_key(table_id),
            self.clock(),
            delta,
            player_key,
            cap=cap,
            report=_seated(table) if table is not None else (),
            channel=keys.channel(table_id) if delta else "",
        )

    async def _recount(self, table_id: str, version: int) -> None:
        """Who sits changed (at ``version``): publish the spectator count again."""
        try:
            table, _ = await self.read(table_id, at_least=version)
            await self.sockets.change(
                table_sockets_key(table_id),
                self.clock(),
                0,
                report=_seated(table),
                channel=keys.channel(table_id),
            )
        except Exception:  # a count shown a little late is no reason to fail the command
            log.warning("could not recount the spectators of %s", table_id, exc_info=True)

    async def _sync_presence(
        self, table_id: str, player_key: str, present: bool, *, arrived: bool = False
    ) -> None:
        """Make the seat of ``player_key`` say what the socket counts say: connected (and, for
        a socket that just ``arrived``, no longer away) or gone since now. Sockets open and
        close on several instances at once, so after a change the counts are read again until
        the table and they agree."""

        def mutation(present: bool, arrived: bool) -> Mutation:
            def fn(table: Table, state: Any, now: float) -> Change:
                seat_no = table.seat_of(player_key)
                if seat_no is None:
                    return Change(commit=False)
                seat = table.seats[seat_no]
                if not present:
                    if seat.gone_since is not None:
                        return Change(commit=False)
                    seat.gone_since = now
                    return Change()
                if seat.gone_since is None and not (arrived and seat.away):
                    return Change(commit=False)
                seat.gone_since = None
                if arrived and seat.away:
                    seat.away = False
                    return Change(events=[{"kind": "back", "seat": seat_no}])
                return Change()

            return fn

        for _attempt in range(4):
            try:
                before = (await self.read(table_id))[0].version
                after = (await self._mutate(table_id, mutation(present, arrived))).version
            except TableError as exc:
                if exc.code == "unknown_table":
                    return
                raise
            if after == before:
                return  # the table agreed already
            arrived = False
            counted = await self._count(table_id, player_key, 0, report=False)
            now_present = counted.holder > 0
            if now_present == present:
                return
            present = now_present

    # -- chat ------------------------------------------------------------------------------

    async def chat(
        self, table_id: str, actor: Actor, text: str, *, command_id: str | None = None
    ) -> MoveResult:
        try:
            clean = clean_chat(text)  # names' character rules (app/text.py)
        except TextRuleError as exc:
            raise TableError("bad_chat", exc.message) from None
        if len(clean) > self.settings.chat_max_chars:
            raise TableError(
                "bad_chat", f"messages are limited to {self.settings.chat_max_chars} characters"
            )

        def fn(table: Table, state: Any, now: float) -> Change:
            # Sent as typed, like every name: clients insert it as text (docs/protocol.md).
            event = {
                "kind": "chat",
                "player_id": actor.player_id,
                "name": actor.name,
                "seat": table.seat_of(actor.player_id),
                "text": clean,
                "ts": int(now),
            }
            return Change(events=[event], state_changed=False)

        return await self._command(table_id, actor, command_id, fn)

    # -- moves -----------------------------------------------------------------------------

    async def move(
        self,
        table_id: str,
        actor: Actor,
        move_id: str,
        move_json: Any,
        expected_version: int | None = None,
    ) -> MoveResult:
        try:
            move = engine.move_from_json(move_json)
        except engine.IllegalMove as exc:
            raise TableError(exc.code, exc.message) from None
        if isinstance(move, engine.Claim):
            return await self._claim(table_id, actor, move_id, expected_version)

        def fn(table: Table, state: Any, now: float) -> Change:
            seat_no = self._mover(table, state, actor, expected_version, now)
            try:
                new_state = engine.apply(state, seat_no, move)
            except engine.IllegalMove as exc:
                raise TableError(exc.code, exc.message) from None
            seat = table.seats[seat_no]
            events: list[dict[str, Any]] = []
            if seat.away:
                seat.away = False
                events.append({"kind": "back", "seat": seat_no})
            events.append({"kind": "move", "seat": seat_no, "move": public_move(move)})
            return Change(
                events=events,
                new_state=new_state,
                moves=[[seat_no, engine.move_to_json(move)]],
            )

        return await self._command(table_id, actor, move_id, fn)

    def _mover(
        self, table: Table, state: Any, actor: Actor, expected_version: int | None, now: float
    ) -> int:
        """The seat of a player who may move now (the checks every move shares)."""
        if expected_version is not None and expected_version != table.version:
            raise TableError(
                "stale_version",
                f"the table is at version {table.version}, not {expected_version}",
            )
        if table.status == "over":
            raise TableError("game_over", "the game is over")
        if table.status != "playing" or state is None:
            raise TableError("wrong_status", "the game has not started")
        seat_no = self._my_seat(table, actor)
        if table.pause_until_ms is not None and now < table.pause_until_ms:
            left = math.ceil((table.pause_until_ms - now) / 1000)
            raise TableError("between_hands", f"the next hand opens in {left} s")
        return seat_no

    def _claimant(
        self, table: Table, state: Any, actor: Actor, expected_version: int | None, now: float
    ) -> int:
        """The seat of a player who may claim now: while cards are played, at their own turn
        (from their hand or half dummy), and not after a refused claim in this hand."""
        seat_no = self._mover(table, state, actor, expected_version, now)
        if state.phase != "play":
            raise TableError("wrong_phase", "a claim is made while cards are played")
        if seat_no not in engine.seats_to_act(state):
            raise TableError("not_your_turn", "you may claim at your turn to play")
        if table.claim_refused_hands()[seat_no] == state.hand_no:
            raise TableError(
                "claim_refused_already",
                "one claim per hand may be refused, and yours was: play the hand out",
            )
        return seat_no

    async def _claim(
        self, table_id: str, actor: Actor, move_id: str, expected_version: int | None
    ) -> MoveResult:
        """A claim of every remaining trick (docs/rules.md "Claims"). The exact check runs in
        the computer players' workers (up to ``claim.NODE_BUDGET`` positions, about 2.5 s of
        CPU: bench.claim), on the state read first; the commit then applies its outcome if the
        game is still there. Accepted: the hand is played out as the claim (event ``claim``
        with the claimant's cards). Refused: the refusal is recorded and announced (event
        ``claim_refused``), nothing else changes, and the claimant gets ``claim_refused``;
        a second claim of theirs in the same hand is ``claim_refused_already``."""
        seen = await self.applied_version(table_id, actor, move_id)
        if seen is not None:
            return MoveResult(seen, True)
        table, state = await self.read(table_id)
        seat_no = self._claimant(table, state, actor, expected_version, self.clock())
        key = (table_id, seat_no)
        if key in self._claiming:
            raise TableError("claim_pending", "your claim is being checked")
        self._claiming.add(key)
        try:
            checked = table.game
            after_json, code, message = await self.computer.run(claim_outcome, checked, seat_no)
        finally:
            self._claiming.discard(key)
        if after_json is None and code != "claim_refused":
            raise TableError(code, message)
        after = None if after_json is None else engine.state_from_json(after_json, trusted=True)

        def fn(table: Table, state: Any, now: float) -> Change:
            if table.game != checked:
                raise TableError("stale_version", "the game moved on while your claim was checked")
            # the version was checked before the check; a chat since then changes no game
            seat_no = self._claimant(table, state, actor, None, now)
            seat = table.seats[seat_no]
            events: list[dict[str, Any]] = []
            if seat.away:
                seat.away = False
                events.append({"kind": "back", "seat": seat_no})
            if after is None:
                table.claims_refused[str(seat_no)] = [table.game_no, state.hand_no]
                events.append({"kind": "claim_refused", "seat": seat_no})
                return Change(events=events, result=TableError("claim_refused", message))
            events.append(
                {
                    "kind": "claim",
                    "seat": seat_no,
                    "cards": claimed_cards(state, seat_no),
                    "tricks": claimed_tricks(state, after),
                }
            )
            return Change(
                events=events,
                new_state=after,
                moves=[[seat_no, engine.move_to_json(engine.Claim())]],
            )

        return await self._command(table_id, actor, move_id, fn)

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

        def once(table: Table, state: Any, now: float) -> Change:
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

    # -- due times: bot turns, turn timers, disconnect grace --------------------------------

    async def run_due(self, table_id: str) -> None:
        """Act on whatever is due at this table (called by the instance that claimed it).

        A computer's search runs before the compare-and-set, on the view of the version just
        read; its move is committed only if the table is still at that version. Otherwise
        the table is read again and, at a new position, the computer decides again.
        """
        try:
            for _attempt in range(MAX_ATTEMPTS):
                # Always what Redis holds: a search on a stale copy would be wasted.
                table, state, _cached = await self._load(table_id)
                before = table.lobby_json(0)
                now = self.clock()
                if table.status == "over":
                    change, seat_no = await self._recorded_change(table, now), None
                else:
                    present = await self._present_after_grace(table, now)
                    change, seat_no = self._due_change(table, state, now, present)
                if seat_no is not None:
                    move = await self._computer_move(table, state, seat_no)
                    self._apply_computer_move(table, state, seat_no, move, change)
                if not change.commit:
                    await self._fix_due(table, state, now)
                    return
                if await self._commit(table, before, state, change, expected=table.version):
                    return
            log.warning("table %s: due work lost %d races in a row", table_id, MAX_ATTEMPTS)
        except TableError as exc:
            if exc.code == "unknown_table":
                await self.store.drop_due(table_id)
                return
            raise

    async def _present_after_grace(self, table: Table, now: float) -> frozenset[str]:
        """Of the seated players whose disconnect grace ran out, those with a socket open
        after all (a socket that opened on another instance as this one's closed)."""
        grace_ms = self.settings.disconnect_grace_seconds * 1000
        if table.status != "playing" or not any(
            s.kind == "human"
            and not s.away
            and s.gone_since is not None
            and s.gone_since + grace_ms <= now
            for s in table.seats
        ):
            return frozenset()
        counted = await self._count(table.id, "", 0, table=table)
        return frozenset(p for p, here in zip(_seated(table), counted.present, strict=True) if here)

    def _due_change(
        self, table: Table, state: Any, now: float, present: frozenset[str] = frozenset()
    ) -> tuple[Change, int | None]:
        """Timers, grace periods and idleness at ``now``; and the seat a computer plays now.
        ``present``: seated players whose grace ran out but who have a socket open."""
        if table.status != "playing" or state is None:
            return Change(commit=False), None
        if now >= table.updated_ms + self.settings.idle_table_ttl_seconds * 1000:
            return Change(abandon="idle"), None
        # Between hands nobody acts; once the pause is over, the commit's schedule opens the
        # next hand (fresh deadline, computers after their natural delay).
        between = table.pause_until_ms is not None
        resumed = table.pause_until_ms is not None and table.pause_until_ms <= now
        events: list[dict[str, Any]] = []
        actors = engine.seats_to_act(state)
        grace_ms = self.settings.disconnect_grace_seconds * 1000
        healed = False
        for i, seat in enumerate(table.seats):
            if (
                seat.kind == "human"
                and not seat.away
                and seat.gone_since is not None
                and seat.gone_since + grace_ms <= now
            ):
                if seat.player_id in present:
                    seat.gone_since = None  # connected after all
                    healed = True
                    continue
                seat.away = True
                events.append({"kind": "away", "seat": i, "reason": "disconnected"})
        if table.deadline_ms is not None and table.deadline_ms <= now:
            for i in table.deadline_seats:
                if i in actors and not table.seats[i].computer_plays:
                    table.seats[i].away = True
                    events.append({"kind": "away", "seat": i, "reason": "timeout"})
            table.deadline_ms = None
            table.deadline_seats = []
        if events and not between and any(table.seats[i].computer_plays for i in actors):
            table.bot_due_ms = min(table.bot_due_ms or now, now)
        seat_no = None
        if not between and table.bot_due_ms is not None and table.bot_due_ms <= now:
            seat_no = next((i for i in actors if table.seats[i].computer_plays), None)
            table.bot_due_ms = None
        if not events and seat_no is None and not resumed and not healed:
            return Change(commit=False), None
        return Change(events=events), seat_no

    async def _recorded_change(self, table: Table, now: float) -> Change:
        """A finished game's stored id, once the results writer has stored it (else no
        change: ``_next_due`` looks again later)."""
        if self.find_game_id is None or self._record_due(table, now) is None:
            return Change(commit=False)
        try:
            game_id = await self.find_game_id(table.id, table.game_no)
        except Exception:
            log.exception("could not look up the stored game of table %s", table.id)
            return Change(commit=False)
        if game_id is None:
            return Change(commit=False)
        table.game_id = game_id
        event = {"kind": "recorded", "game_no": table.game_no, "game_id": game_id}
        return Change(events=[event])

    def _record_due(self, table: Table, now: float) -> float | None:
        """When to look for the last game's stored id next, or None (found, or given up)."""
        if (
            self.find_game_id is None
            or table.status != "over"
            or table.game_id is not None
            or table.game_ended_ms is None
        ):
            return None
        waited = now - table.game_ended_ms
        if waited > RECORD_WAIT_MS:
            return None
        return now + min(max(waited, RECORD_FIRST_MS), RECORD_STEP_MS)

    def _level_of(self, seat: Seat) -> str:
        if seat.kind == "bot" and seat.level in BOT_LEVELS:
            return seat.level
        return STAND_IN_LEVEL  # a person away, or an unknown level

    async def _computer_move(self, table: Table, state: Any, seat_no: int) -> engine.Move:
        """The computer's move for ``seat_no``, decided from that seat's view only."""
        level = self._level_of(table.seats[seat_no])
        key = (table.id, table.game_no, table.move_no, seat_no, level)
        move_json = self._bot_memo.get(key)
        if move_json is None:
            seat_view = engine.view(state, seat_no)
            try:
                move_json = await self.computer.choose(
                    level, seat_view, bot_seed(table.seed, table.move_no), table.options
                )
            except Exception:
                log.exception("computer player %s failed at table %s", level, table.id)
                return engine.legal_moves(state, seat_no)[0]
            if len(self._bot_memo) >= BOT_MEMO_SIZE:
                self._bot_memo.clear()
            self._bot_memo[key] = move_json
        try:
            return engine.move_from_json(move_json)
        except engine.IllegalMove:
            log.error("computer player %s made no move at table %s: %r", level, table.id, move_json)
            return engine.legal_moves(state, seat_no)[0]

    def _apply_computer_move(
        self, table: Table, state: Any, seat_no: int, move: engine.Move, change: Change
    ) -> None:
        try:
            new_state = engine.apply(state, seat_no, move)
        except engine.IllegalMove as exc:
            log.error("computer move %s refused at table %s: %s", move, table.id, exc.code)
            move = engine.legal_moves(state, seat_no)[0]
            new_state = engine.apply(state, seat_no, move)
        seat = table.seats[seat_no]
        if seat.owner_id is not None or seat.kind == "human":
            seat.replaced_hand = seat.replaced_game = True
        change.new_state = new_state
        change.moves.append([seat_no, engine.move_to_json(move)])
        change.events.append(
            {"kind": "move", "seat": seat_no, "move": public_move(move), "computer": True}
        )

    # -- the writer ------------------------------------------------------------------------

    async def _load(self, table_id: str, *, cached: bool = False) -> tuple[Table, Any, bool]:
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
        loaded = await self.store.load(table_id)
        if loaded is None:
            self._read_cache.pop(table_id, None)
            raise TableError("unknown_table", f"no table {table_id!r} (it may have expired)")
        hit = self._read_cache.get(table_id)
        if hit is not None and hit[0] == loaded.version:
            return hit[1].clone(), hit[2], False  # parsed already (the hub read it)
        table, state = _parse(loaded)
        if hit is not None and hit[0] < loaded.version:
            # A newer version than the cached one (a lost race): the hub will want it too.
            self._read_cache[table_id] = (loaded.version, table, state)
            table = table.clone()
        return table, state, False

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
                if cached:
                    continue  # answer errors from what Redis holds, not from a copy
                raise
            if not change.commit:
                if cached:
                    continue
                await self._fix_due(table, state, now)
                return _Committed(table.version, change.result)
            if await self._commit(table, before, state, change, expected=table.version):
                return _Committed(table.version, change.result)
        raise TableError("busy", "the table is very busy; try again")

    async def _fix_due(self, table: Table, state: Any, now: float) -> None:
        """After a no-op visit (e.g. a claimed due item that was not due after all)."""
        if table.status == "playing" and state is not None and table.pause_until_ms is None:
            self._schedule(table, state, state, now)
        await self.store.set_due_if_version(table.id, table.version, self._next_due(table, now))

    async def _commit(
        self,
        table: Table,
        before: dict[str, Any] | None,
        old_state: Any,
        change: Change,
        *,
        expected: int,
    ) -> bool:
        now = self.clock()
        new_version = expected + 1
        records: list[dict[str, Any]] = []
        state = old_state
        if change.new_state is not None:
            state = change.new_state
            table.game = engine.state_to_json(state)
            if not change.new_game:
                records = await self._results(table, old_state, state, change.moves, now)
            if state.phase == "over":
                table.status = "over"
                table.ended = "finished"
                table.game_ended_ms = now
                change.events.append(
                    {
                        "kind": "game_over",
                        "game_no": table.game_no,
                        "winners": _winners(state),
                        "scores": _scores(state),
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
            records.append(await self._abandoned(table, state, change.moves, now))
            table.status = "over"
            table.ended = "abandoned"
            table.game_ended_ms = now
            change.events.append({"kind": "abandoned", "reason": change.abandon})
        table.move_no += len(change.moves)
        if table.status == "playing" and state is not None:
            self._schedule(table, old_state, state, now, moved=change.new_state is not None)
        else:
            table.deadline_ms = None
            table.deadline_seats = []
            table.bot_due_ms = None
            table.pause_until_ms = None
        if change.state_changed:
            table.updated_ms = now  # chat is no activity: an idle game still ends on time
        ttl = self._ttl(table)
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
        blob = orjson.dumps(table.to_json()) if change.state_changed or change.save_table else None
        due = self._next_due(table, now)
        # The table's channel often tells this instance's hub of the change before the reply
        # comes back: the hub waits for the reply (``read``) instead of reading the table.
        landing: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        committing = self._committing.setdefault(table.id, set())
        committing.add(landing)
        lobby = self._lobby_change(before, table, now + ttl * 1000)
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
                records=[encode_event(r) for r in records],
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
        if blob is not None:
            # What was just stored is what the hubs will read (and the next change start
            # from): keep it. The object is not changed after this.
            self._read_cache[table.id] = (new_version, table, state)
        if self.committed is not None:
            self.committed(table.id, note)
        if lobby != "keep" and self.lobby_changed is not None:
            self.lobby_changed(table.id)
        return True

    def _ttl(self, table: Table) -> int:
        """Seconds the table's keys live without a change. A game in progress keeps a margin
        past the idle time, so the due loop can record it as abandoned before it expires."""
        if table.status == "over":
            return self.settings.finished_table_ttl_seconds
        idle = self.settings.idle_table_ttl_seconds
        if table.status == "playing":
            return idle + 60 + int(2 * self.settings.due_lease_seconds)
        if not any(seat.kind == "human" for seat in table.seats):
            # Everyone left before a game: nobody can start it but a newcomer with its link
            # (it is not listed), and it still counts for its creator (app.tables.limits).
            return min(idle, self.settings.empty_table_ttl_seconds)
        return idle

    def _lobby_change(self, before: dict[str, Any] | None, after: Table, expires_ms: float) -> Any:
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

    def _schedule(
        self, table: Table, old_state: Any, state: Any, now: float, *, moved: bool = False
    ) -> None:
        """Set the turn deadline and the computer's next action from whose turn it is."""
        if table.pause_until_ms is not None:
            if now < table.pause_until_ms:
                # Between hands nobody acts: the clocks start when the pause is over.
                table.deadline_ms = None
                table.deadline_seats = []
                table.bot_due_ms = None
                return
            table.pause_until_ms = None
            moved = True  # the next hand opens now: fresh deadline and computer delay
        actors = engine.seats_to_act(state)
        humans = [i for i in actors if not table.seats[i].computer_plays]
        computers = [i for i in actors if table.seats[i].computer_plays]
        if humans and table.turn_timer > 0:
            # A deadline runs on while the same group still has to act (passing: several
            # seats at once); any other move starts a fresh one.
            same_turn = (
                table.deadline_ms is not None
                and set(humans) <= set(table.deadline_seats)
                and (
                    not moved
                    or (
                        old_state is not None
                        and old_state.phase == state.phase == "pass"
                        and old_state.hand_no == state.hand_no
                    )
                )
            )
            if not same_turn:
                table.deadline_ms = now + table.turn_timer * 1000
            table.deadline_seats = humans
        else:
            table.deadline_ms = None
            table.deadline_seats = []
        if computers:
            if table.bot_due_ms is None or moved:
                # A natural pause; a searching level spends part of it thinking.
                level = self._level_of(table.seats[computers[0]])
                delay = self.rng.uniform(
                    self.settings.bot_delay_min_ms, self.settings.bot_delay_max_ms
                ) - self.computer.expected_ms(level, state.phase)
                table.bot_due_ms = now + max(0.0, delay)
        else:
            table.bot_due_ms = None

    def _next_due(self, table: Table, now: float) -> float | None:
        if table.status != "playing":
            return self._record_due(table, now)
        times = [
            t for t in (table.deadline_ms, table.bot_due_ms, table.pause_until_ms) if t is not None
        ]
        # An idle game is recorded as abandoned (then expires like a finished one).
        times.append(table.updated_ms + self.settings.idle_table_ttl_seconds * 1000)
        grace_ms = self.settings.disconnect_grace_seconds * 1000
        for seat in table.seats:
            if seat.kind == "human" and not seat.away and seat.gone_since is not None:
                times.append(seat.gone_since + grace_ms)
        return min(times) if times else None

    def _seat_records(self, table: Table, *, game: bool) -> list[dict[str, Any]]:
        """The seats as the results records want them: a seat counts for the person who began
        the game in it (kept when they left or were away), with ``replaced_by_bot`` when the
        computer played it during the hand (``game``: during the game)."""
        seats = []
        for s in table.seats:
            person = s.owner_id or (s.player_id if s.kind == "human" else None)
            replaced = s.replaced_game if game else s.replaced_hand
            seats.append(
                {
                    "player_id": person,
                    "bot_level": None if person else s.level,
                    "replaced_by_bot": bool(person) and (replaced or s.computer_plays),
                    "name": (s.owner_name or s.name) if person else s.name,
                }
            )
        return seats

    def _common(self, table: Table, *, game: bool) -> dict[str, Any]:
        return {
            "table_id": table.id,
            "game_no": table.game_no,
            "preset": table.preset,
            "options": table.options,
            "seed": table.seed,
            "seats": self._seat_records(table, game=game),
            # The stored game is then readable only by its players (and a share link).
            "private": table.private,
        }

    async def _game_moves(
        self, table: Table, start: int, new_moves: list[list[Any]]
    ) -> list[list[Any]]:
        """The game's moves from ``start`` on: what Redis holds plus the moves of this change
        (the compare-and-set makes the read consistent: any other change bumps the version)."""
        stored = await self.store.game_moves(table.id, start) if start < table.move_no else []
        return [orjson.loads(m) for m in stored] + [list(m) for m in new_moves]

    async def _results(
        self, table: Table, old: Any, new: Any, new_moves: list[list[Any]], now: float
    ) -> list[dict[str, Any]]:
        """Hand and game records for the SQL outbox (app.db.events) when either ends."""
        if old is None:
            return []
        finished = new.history[len(old.history) :]
        if not finished and new.phase != "over":
            return []
        records: list[dict[str, Any]] = []
        if finished:
            moves = await self._game_moves(table, table.hand_first_move, new_moves)
            common = self._common(table, game=False)
            for result in finished:
                table.hands_recorded += 1
                records.append(
                    {
                        "kind": "hand",
                        **common,
                        "hand_no": result.hand_no,
                        "points": list(result.points),
                        "totals": list(result.totals),
                        "moons": [result.moon] if result.moon >= 0 else [],
                        "pass_direction": result.direction,
                        "moves": moves,
                        "started_at": _ms(table.hand_started_ms),
                        "ended_at": int(now),
                    }
                )
            table.hand_first_move = table.move_no + len(new_moves)
            table.hand_started_ms = now
            for seat in table.seats:
                seat.replaced_hand = False
        if new.phase == "over":
            records.append(
                {
                    "kind": "game",
                    **self._common(table, game=True),
                    "ended": "finished",
                    "hands": len(new.history),
                    "totals": _scores(new),
                    "winners": [int(w) for w in new.winners],
                    "started_at": _ms(table.game_started_ms),
                    "ended_at": int(now),
                }
            )
        return records

    async def _abandoned(
        self, table: Table, state: Any, new_moves: list[list[Any]], now: float
    ) -> dict[str, Any]:
        """The record of a game that ends unfinished: totals and every move so far."""
        return {
            "kind": "game",
            **self._common(table, game=True),
            "ended": "abandoned",
            "hands": len(state.history),
            "totals": _scores(state),
            "winners": [],
            "moves": await self._game_moves(table, 0, new_moves),
            "started_at": _ms(table.game_started_ms),
            "ended_at": int(now),
        }

    # -- helpers ---------------------------------------------------------------------------

    @staticmethod
    def _seat(table: Table, seat_no: int) -> Seat:
        if not isinstance(seat_no, int) or not 0 <= seat_no < len(table.seats):
            raise TableError("bad_seat", f"seats are numbered 0 to {len(table.seats) - 1}")
        return table.seats[seat_no]

    @staticmethod
    def _my_seat(table: Table, actor: Actor) -> int:
        seat_no = table.seat_of(actor.player_id)
        if seat_no is None:
            raise TableError("not_seated", "you have no seat at this table")
        return seat_no

    @staticmethod
    def _require_host(table: Table, actor: Actor) -> None:
        if table.host != actor.player_id:
            raise TableError("not_host", "only the table's host may do that")


class _TableLock(asyncio.Lock):
    """A table's turn-taking lock, with the number of changes holding or awaiting it."""

    def __init__(self) -> None:
        super().__init__()
        self.users = 0


@dataclass(frozen=True, slots=True)
class _Committed:
    version: int
    result: Any


def _seated(table: Table) -> list[str]:
    """The players who sit at the table (the rest of its sockets are spectators)."""
    return [s.player_id for s in table.seats if s.kind == "human" and s.player_id]


def _check_level(level: object) -> str:
    if not isinstance(level, str) or level not in BOT_LEVELS:
        raise TableError(
            "bad_level", f"computer level {level!r} is not one of {', '.join(BOT_LEVELS)}"
        )
    return level


def _bot_seats(bots: Mapping[str, object] | Mapping[int, object], players: int) -> dict[int, str]:
    """Checked computer seats for a new table: seat number (an int, or its decimal text as
    JSON object keys are) -> level. Seat 0 is the creator's."""
    seats: dict[int, str] = {}
    for key, level in bots.items():
        seat_no = key if isinstance(key, int) and not isinstance(key, bool) else None
        if isinstance(key, str) and key.isascii() and key.isdigit() and str(int(key)) == key:
            seat_no = int(key)
        if seat_no is None or not 0 <= seat_no < players:
            raise TableError("bad_seat", f"computer seat {key!r}: seats are 0 to {players - 1}")
        if seat_no == 0:
            raise TableError("bad_seat", "seat 0 is the creator's; computers go in seats 1 and up")
        if seat_no in seats:
            raise TableError("bad_seat", f"seat {seat_no} is named twice")
        seats[seat_no] = _check_level(level)
    return dict(sorted(seats.items()))


def _parse(loaded: LoadedTable) -> tuple[Table, Any]:
    """A stored table and its engine state. Only this service writes tables, so the state is
    loaded without the engine's checks (``trusted``: several times faster, the same state)."""
    table = Table.from_json(orjson.loads(loaded.blob), loaded.version)
    state = engine.state_from_json(table.game, trusted=True) if table.game is not None else None
    return table, state


def public_move(move: Any) -> dict[str, Any]:
    """A move as every player may see it: a pass shows that cards went, not which."""
    if isinstance(move, engine.PassCards):
        return {"type": "pass", "count": len(move.cards)}
    return dict(engine.move_to_json(move))


def _ms(value: float | None) -> int | None:
    return None if value is None else int(value)


def _scores(state: Any) -> list[int]:
    return [int(s) for s in state.scores]


def _winners(state: Any) -> list[int | str]:
    """Winning scorers: seat numbers, or "dummy" (two-player dummy game)."""
    n = state.players
    return ["dummy" if w >= n else int(w) for w in state.winners]
