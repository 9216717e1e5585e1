"""The one writer of live tables.

Every change goes the same way: load the table from Redis, change a fresh copy (running the
engine for game moves), then one compare-and-set EVALSHA that stores it, appends the public
events to the table's log, updates the due-time index and lobby, and publishes "version n
changed" on the table's channel. A lost race reloads and tries again (or answers
``stale_version`` when the client named the version it saw). Nothing here sends to sockets:
each instance's realtime hub turns the published notice into per-seat views.
"""

from __future__ import annotations

import html
import logging
import random
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from app import engine
from app.bots.simple import SeatChoice, SimpleBot
from app.settings import Settings
from app.store import TableStore
from app.tables.errors import TableError
from app.tables.model import Seat, Table

log = logging.getLogger(__name__)

# Computer levels a seat may ask for. Until the bots issue lands every level is played by
# the simple valid-move player; the level is kept so the real bots pick it up.
BOT_LEVELS = ("easy", "standard", "pro")
DEFAULT_BOT_LEVEL = "standard"
MOVE_IDS_KEPT = 32  # per player, for resent-move detection
MAX_ATTEMPTS = 20  # compare-and-set retries before answering "busy"

Outbox = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks for a change: a signed-in player (guest or account)."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class MoveResult:
    version: int  # the table version that holds the move
    duplicate: bool = False  # the move id was seen before; nothing was applied now


@dataclass(slots=True)
class Change:
    """What one mutation did; the writer turns it into a commit."""

    events: list[dict[str, Any]] = field(default_factory=list)
    new_state: Any = None  # an engine GameState when the game moved
    state_changed: bool = True  # False for chat: only the log and the version move
    commit: bool = True
    result: Any = None


Mutation = Callable[[Table, Any, float], Change]


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
        outbox: Outbox | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.instance_id = instance_id
        self.clock = clock
        self.outbox = outbox
        self.rng = rng or random.SystemRandom()
        self.bot = SimpleBot()
        # Read cache for views: table id -> (version, table, state).
        self._read_cache: dict[str, tuple[int, Table, Any]] = {}

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
        loaded = await self.store.load(table_id)
        if loaded is None:
            self._read_cache.pop(table_id, None)
            raise TableError("unknown_table", f"no table {table_id!r} (it may have expired)")
        cached = self._read_cache.get(table_id)
        if cached is not None and cached[0] == loaded.version:
            return cached[1], cached[2]
        table = Table.from_json(orjson.loads(loaded.blob), loaded.version)
        state = engine.state_from_json(table.game) if table.game is not None else None
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
    ) -> Table:
        try:
            rules = engine.make_rules(preset, options)
        except engine.RulesError as exc:
            raise TableError(getattr(exc, "code", "bad_options"), str(exc)) from None
        if turn_timer is None:
            turn_timer = 0 if private else self.settings.turn_timer_seconds
        if not 0 <= turn_timer <= 3600:
            raise TableError("bad_timer", "turn_timer must be between 0 and 3600 seconds")
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
        event = {"kind": "created", "by": actor.name}
        result = await self._commit(table, None, None, Change(events=[event]), expected=0)
        if not result:
            raise TableError("busy", "table id collision; try again")
        table.version = 1
        return table

    # -- seats and host --------------------------------------------------------------------

    async def sit(self, table_id: str, actor: Actor, seat_no: int) -> int:
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
                gone_since=None if table.is_present(actor.player_id) else now,
            )
            if table.host is None:
                table.host = actor.player_id
            return Change(events=[{"kind": "sat", "seat": seat_no, "name": actor.name}])

        return int((await self._mutate(table_id, fn)).version)

    async def leave(self, table_id: str, actor: Actor) -> int:
        def fn(table: Table, state: Any, now: float) -> Change:
            seat_no = self._my_seat(table, actor)
            old = table.seats[seat_no]
            if table.status == "playing":
                # The computer finishes the game; a newcomer may take the seat over.
                table.seats[seat_no] = Seat(
                    kind="bot", level=old.level or DEFAULT_BOT_LEVEL, vacated=True, name=None
                )
            else:
                table.seats[seat_no] = Seat()
            if table.host == actor.player_id:
                table.host = next(
                    (s.player_id for s in table.seats if s.kind == "human" and s.player_id), None
                )
            return Change(events=[{"kind": "left", "seat": seat_no, "name": actor.name}])

        return int((await self._mutate(table_id, fn)).version)

    async def add_bot(
        self, table_id: str, actor: Actor, seat_no: int, level: str = DEFAULT_BOT_LEVEL
    ) -> int:
        if level not in BOT_LEVELS:
            raise TableError("bad_level", f"computer level must be one of {', '.join(BOT_LEVELS)}")

        def fn(table: Table, state: Any, now: float) -> Change:
            self._require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "computer players are set before the start")
            seat = self._seat(table, seat_no)
            if seat.kind != "open":
                raise TableError("seat_taken", f"seat {seat_no} is not free")
            table.seats[seat_no] = Seat(kind="bot", level=level)
            return Change(events=[{"kind": "bot_added", "seat": seat_no, "level": level}])

        return int((await self._mutate(table_id, fn)).version)

    async def remove_bot(self, table_id: str, actor: Actor, seat_no: int) -> int:
        def fn(table: Table, state: Any, now: float) -> Change:
            self._require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "computer players are set before the start")
            if self._seat(table, seat_no).kind != "bot":
                raise TableError("bad_seat", f"seat {seat_no} has no computer player")
            table.seats[seat_no] = Seat()
            return Change(events=[{"kind": "bot_removed", "seat": seat_no}])

        return int((await self._mutate(table_id, fn)).version)

    async def start(self, table_id: str, actor: Actor) -> int:
        def fn(table: Table, state: Any, now: float) -> Change:
            self._require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "the game has already started")
            return self._begin_game(table)

        return int((await self._mutate(table_id, fn)).version)

    async def rematch(self, table_id: str, actor: Actor) -> int:
        def fn(table: Table, state: Any, now: float) -> Change:
            self._my_seat(table, actor)
            if table.status != "over":
                raise TableError("wrong_status", "a rematch starts after the game is over")
            return self._begin_game(table)

        return int((await self._mutate(table_id, fn)).version)

    def _begin_game(self, table: Table) -> Change:
        if any(s.kind == "open" for s in table.seats):
            raise TableError("seats_open", "every seat needs a player or a computer to start")
        rules = engine.make_rules(table.preset, table.options)
        table.seed = self.rng.randrange(1, 2**62)
        table.game_no += 1
        table.status = "playing"
        table.hands_recorded = 0
        table.hand_moves = []
        table.game_started_ms = table.hand_started_ms = self.clock()
        table.bot_due_ms = None
        table.deadline_ms = None
        for seat in table.seats:
            seat.vacated = False if seat.kind == "human" else seat.vacated
        state = engine.new_game(rules, table.seed)
        return Change(events=[{"kind": "started", "game_no": table.game_no}], new_state=state)

    async def back(self, table_id: str, actor: Actor) -> int:
        """The player takes their away seat back from the computer."""

        def fn(table: Table, state: Any, now: float) -> Change:
            seat_no = self._my_seat(table, actor)
            seat = table.seats[seat_no]
            if not seat.away:
                return Change(commit=False)
            seat.away = False
            return Change(events=[{"kind": "back", "seat": seat_no}])

        return int((await self._mutate(table_id, fn)).version)

    # -- presence --------------------------------------------------------------------------

    async def attach(self, table_id: str, player_key: str) -> int:
        """A socket of ``player_key`` opened on this instance (a seated player is back)."""

        def fn(table: Table, state: Any, now: float) -> Change:
            counts = table.presence.setdefault(player_key, {})
            counts[self.instance_id] = counts.get(self.instance_id, 0) + 1
            events: list[dict[str, Any]] = []
            seat_no = table.seat_of(player_key)
            if seat_no is not None:
                seat = table.seats[seat_no]
                seat.gone_since = None
                if seat.away:
                    seat.away = False
                    events.append({"kind": "back", "seat": seat_no})
            return Change(events=events)

        return int((await self._mutate(table_id, fn)).version)

    async def detach(self, table_id: str, player_key: str) -> int | None:
        def fn(table: Table, state: Any, now: float) -> Change:
            counts = table.presence.get(player_key, {})
            left = counts.get(self.instance_id, 0) - 1
            if left > 0:
                counts[self.instance_id] = left
            else:
                counts.pop(self.instance_id, None)
            if not counts:
                table.presence.pop(player_key, None)
            seat_no = table.seat_of(player_key)
            if seat_no is not None and not table.is_present(player_key):
                table.seats[seat_no].gone_since = now
            return Change()

        try:
            return int((await self._mutate(table_id, fn)).version)
        except TableError as exc:
            if exc.code == "unknown_table":
                return None
            raise

    # -- chat ------------------------------------------------------------------------------

    async def chat(self, table_id: str, actor: Actor, text: str) -> int:
        clean = "".join(
            ch for ch in text if ch in " \t" or unicodedata.category(ch)[0] != "C"
        ).strip()
        if not clean:
            raise TableError("bad_chat", "empty message")
        if len(clean) > self.settings.chat_max_chars:
            raise TableError(
                "bad_chat", f"messages are limited to {self.settings.chat_max_chars} characters"
            )

        def fn(table: Table, state: Any, now: float) -> Change:
            event = {
                "kind": "chat",
                "player_id": actor.player_id,
                "name": html.escape(actor.name),
                "seat": table.seat_of(actor.player_id),
                "text": html.escape(clean),
                "ts": int(now),
            }
            return Change(events=[event], state_changed=False)

        return int((await self._mutate(table_id, fn)).version)

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

        def fn(table: Table, state: Any, now: float) -> Change:
            for seen_id, seen_version in table.recent_moves.get(actor.player_id, ()):
                if seen_id == move_id:
                    return Change(commit=False, result=MoveResult(int(seen_version), True))
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
            table.hand_moves.append([seat_no, engine.move_to_json(move)])
            new_version = table.version + 1
            ids = table.recent_moves.setdefault(actor.player_id, [])
            ids.append([move_id, new_version])
            del ids[:-MOVE_IDS_KEPT]
            return Change(events=events, new_state=new_state, result=MoveResult(new_version))

        result: MoveResult = (await self._mutate(table_id, fn)).result
        return result

    # -- due times: bot turns, turn timers, disconnect grace --------------------------------

    async def run_due(self, table_id: str) -> None:
        """Act on whatever is due at this table (called by the instance that claimed it)."""

        def fn(table: Table, state: Any, now: float) -> Change:
            if table.status != "playing" or state is None:
                return Change(commit=False)
            events: list[dict[str, Any]] = []
            actors = engine.seats_to_act(state)
            grace_ms = self.settings.disconnect_grace_seconds * 1000
            for i, seat in enumerate(table.seats):
                if (
                    seat.kind == "human"
                    and not seat.away
                    and seat.gone_since is not None
                    and seat.gone_since + grace_ms <= now
                    and not table.is_present(seat.player_id or "")
                ):
                    seat.away = True
                    events.append({"kind": "away", "seat": i, "reason": "disconnected"})
            if table.deadline_ms is not None and table.deadline_ms <= now:
                for i in table.deadline_seats:
                    if i in actors and not table.seats[i].computer_plays:
                        table.seats[i].away = True
                        events.append({"kind": "away", "seat": i, "reason": "timeout"})
                table.deadline_ms = None
                table.deadline_seats = []
            if events and any(table.seats[i].computer_plays for i in actors):
                table.bot_due_ms = min(table.bot_due_ms or now, now)
            new_state = None
            if table.bot_due_ms is not None and table.bot_due_ms <= now:
                seat_no = next((i for i in actors if table.seats[i].computer_plays), None)
                if seat_no is not None:
                    move = self._computer_move(table, state, seat_no)
                    new_state = engine.apply(state, seat_no, move)
                    table.hand_moves.append([seat_no, engine.move_to_json(move)])
                    events.append(
                        {
                            "kind": "move",
                            "seat": seat_no,
                            "move": public_move(move),
                            "computer": True,
                        }
                    )
                table.bot_due_ms = None
            if not events and new_state is None:
                return Change(commit=False)
            return Change(events=events, new_state=new_state)

        try:
            await self._mutate(table_id, fn)
        except TableError as exc:
            if exc.code == "unknown_table":
                await self.store.drop_due(table_id)
                return
            raise

    def _computer_move(self, table: Table, state: Any, seat_no: int) -> Any:
        """Ask the computer player for a move, giving it only this seat's view."""
        seat_view = engine.view(state, seat_no)
        if state.phase == "pass":
            choice = SeatChoice(
                phase="pass",
                legal=(),
                passable=list(engine.cards_of(engine.passable_cards(state, seat_no))),
                pass_count=state.pass_count,
            )
        else:
            choice = SeatChoice(phase=state.phase, legal=engine.legal_moves(state, seat_no))
        rng = random.Random(f"{table.seed}:{table.version}:{seat_no}")
        return self.bot.choose(seat_view, choice, rng)

    # -- the writer ------------------------------------------------------------------------

    async def _mutate(self, table_id: str, fn: Mutation) -> _Committed:
        for _attempt in range(MAX_ATTEMPTS):
            loaded = await self.store.load(table_id)
            if loaded is None:
                raise TableError("unknown_table", f"no table {table_id!r} (it may have expired)")
            table = Table.from_json(orjson.loads(loaded.blob), loaded.version)
            state = engine.state_from_json(table.game) if table.game is not None else None
            before = table.lobby_json(0)
            now = self.clock()
            change = fn(table, state, now)
            if not change.commit:
                await self._fix_due(table, state, now)
                return _Committed(table.version, change.result)
            if await self._commit(table, before, state, change, expected=loaded.version):
                return _Committed(loaded.version + 1, change.result)
        raise TableError("busy", "the table is very busy; try again")

    async def _fix_due(self, table: Table, state: Any, now: float) -> None:
        """After a no-op visit (e.g. a claimed due item that was not due after all)."""
        if table.status == "playing" and state is not None:
            self._schedule(table, state, state, now)
        await self.store.set_due_if_version(table.id, table.version, self._next_due(table))

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
            records = self._results(table, old_state, state, now)
            if state.phase == "over":
                table.status = "over"
                change.events.append(
                    {"kind": "game_over", "winners": _winners(state), "scores": _scores(state)}
                )
        if table.status == "playing" and state is not None:
            self._schedule(table, old_state, state, now, moved=change.new_state is not None)
        else:
            table.deadline_ms = None
            table.deadline_seats = []
            table.bot_due_ms = None
        table.updated_ms = now
        ttl = (
            self.settings.finished_table_ttl_seconds
            if table.status == "over"
            else self.settings.idle_table_ttl_seconds
        )
        for event in change.events:
            event["v"] = new_version
        message = orjson.dumps(
            {"v": new_version, "s": 1 if change.state_changed else 0, "events": change.events}
        )
        blob = orjson.dumps(table.to_json()) if change.state_changed else None
        due = self._next_due(table)
        result = await self.store.commit(
            table.id,
            expected_version=expected,
            blob=blob,
            message=message,
            ttl_seconds=ttl,
            due="remove" if due is None else due,
            lobby_summary=self._lobby_change(before, table, now + ttl * 1000),
        )
        if not result.ok:
            return False
        if change.state_changed:
            # What was just stored is what the hubs will read: keep it for them.
            table.version = new_version
            self._read_cache[table.id] = (new_version, table, state)
        if self.outbox is not None:
            for record in records:
                try:
                    await self.outbox(record)
                except Exception:
                    log.exception("could not queue a result for table %s", table.id)
        return True

    def _lobby_change(self, before: dict[str, Any] | None, after: Table, expires_ms: float) -> Any:
        if after.private:
            return "keep"
        if before is not None and after.lobby_json(0) == before:
            return "keep"
        return orjson.dumps(after.lobby_json(expires_ms))

    def _schedule(
        self, table: Table, old_state: Any, state: Any, now: float, *, moved: bool = False
    ) -> None:
        """Set the turn deadline and the computer's next action from whose turn it is."""
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
                delay = self.rng.uniform(
                    self.settings.bot_delay_min_ms, self.settings.bot_delay_max_ms
                )
                table.bot_due_ms = now + delay
        else:
            table.bot_due_ms = None

    def _next_due(self, table: Table) -> float | None:
        if table.status != "playing":
            return None
        times = [t for t in (table.deadline_ms, table.bot_due_ms) if t is not None]
        grace_ms = self.settings.disconnect_grace_seconds * 1000
        for seat in table.seats:
            if seat.kind == "human" and not seat.away and seat.gone_since is not None:
                times.append(seat.gone_since + grace_ms)
        return min(times) if times else None

    def _results(self, table: Table, old: Any, new: Any, now: float) -> list[dict[str, Any]]:
        """Hand and game records for the SQL outbox (app.db.events) when either ends."""
        if old is None:
            return []
        records: list[dict[str, Any]] = []
        common = {
            "table_id": table.id,
            "game_no": table.game_no,
            "preset": table.preset,
            "options": table.options,
            "seed": table.seed,
            "seats": [
                {
                    "player_id": s.player_id if s.kind == "human" else None,
                    "bot_level": s.level if s.kind == "bot" else None,
                    "replaced_by_bot": s.away or s.vacated,
                    "name": s.name,
                }
                for s in table.seats
            ],
        }
        finished = new.history[len(old.history) :]
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
                    "moves": table.hand_moves,
                    "started_at": _ms(table.hand_started_ms),
                    "ended_at": int(now),
                }
            )
        if finished:
            table.hand_moves = []
            table.hand_started_ms = now
        if new.phase == "over":
            records.append(
                {
                    "kind": "game",
                    **common,
                    "ended": "finished",
                    "hands": len(new.history),
                    "totals": _scores(new),
                    "winners": [int(w) for w in new.winners],
                    "started_at": _ms(table.game_started_ms),
                    "ended_at": int(now),
                }
            )
        return records

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


@dataclass(frozen=True, slots=True)
class _Committed:
    version: int
    result: Any


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
