"""Hints at a casual table: a seated player asks what the Expert would play or pass now.

A table chosen with ``hints`` (never a rated one: app.tables.rated.refuse_hints) answers its
players' ``hint`` command. The suggestion (app.review.hint) is worked out from the asking
seat's view alone, in the claim checks' worker (``ComputerPlayers.check``: never the
computer players' pool, so the table's computers are not slowed; at most a few wait, else
``hints_busy``), and goes only to the player who asked. Each player has
``hints_per_minute`` hints (counted in Redis, across instances; ``too_many_hints``). The
first hint of a seat in a game is committed to the table (event ``hint_used``;
``Table.hints_used``), so the table shows everyone that hints were used in this game.

Refusals (``TableError`` codes): ``hints_off``, ``not_seated``, ``wrong_status``,
``game_over``, ``between_hands``, ``not_your_turn``, ``too_many_hints``, ``hints_busy``.
"""

from __future__ import annotations

from typing import Any

from app import engine
from app.engine import GameState
from app.review.hint import seat_hint
from app.store import keys
from app.tables.change import Actor, Change
from app.tables.computer import ChecksBusy
from app.tables.errors import TableError
from app.tables.model import Table
from app.tables.seats import mover
from app.tables.writer import TableWriter

BUSY = "too many hints and claims are being worked out here; try again in a moment"


def may_hint(table: Table, seat_no: int, game: GameState) -> None:
    """Refuse a hint for ``seat_no`` (a player seated at a started game) unless the table has
    hints and the seat has a pass or a card to choose now."""
    if not table.hints:
        raise TableError("hints_off", "this table has no hints")
    if seat_no not in engine.seats_to_act(game):
        raise TableError("not_your_turn", "a hint is given at your turn")


class HintCommands(TableWriter):
    async def hint(self, table_id: str, actor: Actor) -> dict[str, Any]:
        """The suggestion for the actor's seat now (app.review.hint's JSON), for them only;
        see the module docstring for the checks, the limit and the mark it leaves."""
        table, state = await self.read(table_id)
        if not table.hints:
            raise TableError("hints_off", "this table has no hints")
        seat_no, game = mover(table, state, actor, None, self.clock())
        may_hint(table, seat_no, game)
        if self.computer.checks_full():
            raise TableError("hints_busy", BUSY)
        minute = int(self.clock() // 60_000)
        key = keys.hints_count_key(self.store.namespace, actor.player_id, minute)
        count = int(await self.store.redis.incr(key))
        if count == 1:
            await self.store.redis.expire(key, 120)
        if count > self.settings.hints_per_minute:
            raise TableError(
                "too_many_hints",
                f"at most {self.settings.hints_per_minute} hints a minute; try again shortly",
                {"limit": self.settings.hints_per_minute},
            )
        view = engine.view(game, seat_no, sheet=False)
        try:
            answer = await self.computer.check(
                seat_hint, view, table.preset, table.options, 0, self.settings.review_units
            )
        except ChecksBusy:
            await self.store.redis.decr(key)  # nothing worked out: not counted
            raise TableError("hints_busy", BUSY) from None
        if table.hints_used.get(str(seat_no)) != table.game_no:
            await self._mark_used(table_id, actor, table.game_no)
        return answer

    async def _mark_used(self, table_id: str, actor: Actor, game_no: int) -> None:
        """Commit that the actor's seat used a hint in game ``game_no`` (once a game)."""

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            seat_no = table.seat_of(actor.player_id)
            if seat_no is None or table.game_no != game_no:
                return Change(commit=False)
            if table.hints_used.get(str(seat_no)) == game_no:
                return Change(commit=False)
            table.hints_used[str(seat_no)] = game_no
            event = {"kind": "hint_used", "seat": seat_no}
            return Change(events=[event], state_changed=False, save_table=True)

        await self._mutate(table_id, fn)
