"""The game's commands: a move (a claim goes to app.tables.claims), chat, the host's start and
a rematch. Each is a mutation the writer applies once per command id (app.tables.writer)."""

from __future__ import annotations

from typing import Any

from app import engine
from app.engine import GameState
from app.tables.change import Actor, Change, MoveResult, public_move
from app.tables.claims import ClaimCommands
from app.tables.errors import TableError
from app.tables.model import Table
from app.tables.seats import mover, my_seat, no_compete, require_host
from app.text import TextRuleError, clean_chat


class GameCommands(ClaimCommands):
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
            raise TableError(exc.code, exc.message, exc.values) from None
        if isinstance(move, engine.Claim):
            return await self._claim(table_id, actor, move_id, expected_version)

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            seat_no, game = mover(table, state, actor, expected_version, now)
            try:
                new_state = engine.apply(game, seat_no, move)
            except engine.IllegalMove as exc:
                raise TableError(exc.code, exc.message, exc.values) from None
            seat = table.seats[seat_no]
            events: list[dict[str, Any]] = []
            seat.forced = False  # in time after all (the computer had not played yet)
            seat.timeouts = 0
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

    async def chat(
        self, table_id: str, actor: Actor, text: str, *, command_id: str | None = None
    ) -> MoveResult:
        try:
            clean = clean_chat(text)  # names' character rules (app/text.py)
        except TextRuleError as exc:
            raise TableError("bad_chat", exc.message) from None
        if len(clean) > self.settings.chat_max_chars:
            raise TableError(
                "bad_chat",
                f"messages are limited to {self.settings.chat_max_chars} characters",
                {"reason": "length", "limit": self.settings.chat_max_chars},
            )

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            no_compete(table, "chat")
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

    # Each command is one form: its rule as fn(table, state, now) -> Change, run by _command
    # (load, apply, commit once); the rules differ, the form is shared.
    async def start(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: GameState | None, now: float) -> Change:
            require_host(table, actor)
            if table.status == "playing":
                raise TableError("wrong_status", "the game has already started")
            return self._begin_game(table)

        return await self._command(table_id, actor, command_id, fn)

    async def rematch(
        self, table_id: str, actor: Actor, *, command_id: str | None = None
    ) -> MoveResult:
        def fn(table: Table, state: GameState | None, now: float) -> Change:
            my_seat(table, actor)
            no_compete(table, "rematch")
            if table.status != "over":
                raise TableError("wrong_status", "a rematch starts after the game is over")
            return self._begin_game(table)

        return await self._command(table_id, actor, command_id, fn)

    def _begin_game(self, table: Table) -> Change:
        if any(s.kind == "open" for s in table.seats):
            raise TableError("seats_open", "every seat needs a player or a computer to start")
        rules = engine.make_rules(table.preset, table.options)
        # A competition's deals come from its own seed (app.compete.deals), never the rng.
        table.seed = int(table.compete["seed"]) if table.compete else self.rng.randrange(1, 2**62)
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
            seat.left = False
        state = engine.new_game(rules, table.seed)
        return Change(
            events=[{"kind": "started", "game_no": table.game_no}], new_state=state, new_game=True
        )
