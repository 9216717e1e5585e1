"""Claims: a player claims every remaining trick (docs/rules.md "Claims"), checked exactly in
the computer players' workers before the commit applies the outcome."""

from __future__ import annotations

from typing import Any

from app import engine
from app.engine import GameState
from app.engine.claim import claim_outcome, claimed_cards, claimed_tricks
from app.store import keys
from app.tables.change import Actor, Change, MoveResult
from app.tables.computer import ChecksBusy
from app.tables.errors import TableError
from app.tables.model import Table
from app.tables.seats import mover
from app.tables.writer import TableWriter

ONE_CHECK = "one claim per hand is checked, and yours was: play the hand out"
BUSY = "too many claims are being checked here; try again in a moment"
# How long a seat's "claim checked in this hand" flag is kept (a turn-based hand can be long).
TRIED_TTL_SECONDS = 7 * 24 * 3600


class ClaimCommands(TableWriter):
    async def _claim(
        self, table_id: str, actor: Actor, move_id: str, expected_version: int | None
    ) -> MoveResult:
        """A claim of every remaining trick (docs/rules.md "Claims"). The exact check runs in
        the claim checks' own worker (up to ``claim.NODE_BUDGET`` positions, about 2.5 s of
        CPU: bench.claim; never in the computer players' pool, and at most
        ``CHECKS_WAITING`` wait, else ``claims_busy``), on the state read first; the commit
        then applies its outcome if the game is still there. Each seat has one check a hand,
        counted before it runs: a second claim in the hand is ``claim_refused_already``,
        even when the first one's check ended ``stale_version`` (a card played meanwhile).
        Accepted: the hand is played out as the claim (event ``claim`` with the claimant's
        cards). Refused: the refusal is recorded and announced (event ``claim_refused``),
        nothing else changes, and the claimant gets ``claim_refused``."""
        seen = await self.applied_version(table_id, actor, move_id)
        if seen is not None:
            return MoveResult(seen, True)
        table, state = await self.read(table_id)
        seat_no, game = mover(table, state, actor, expected_version, self.clock())
        may_claim(table, seat_no, game)
        key = (table_id, seat_no)
        if key in self._claiming:
            raise TableError("claim_pending", "your claim is being checked")
        if self.computer.checks_full():
            raise TableError("claims_busy", BUSY)
        self._claiming.add(key)
        try:
            # Counted before the check, on every instance: a claim whose check ends stale (a
            # card played meanwhile on another socket) still used this hand's one check.
            tried = keys.claim_tried_key(table_id, table.game_no, game.hand_no, seat_no)
            if not await self.store.redis.set(tried, 1, nx=True, ex=TRIED_TTL_SECONDS):
                raise TableError("claim_refused_already", ONE_CHECK)
            checked = table.game
            try:
                outcome = await self.computer.check(claim_outcome, checked, seat_no)
            except ChecksBusy:
                await self.store.redis.delete(tried)  # nothing was checked: not counted
                raise TableError("claims_busy", BUSY) from None
            after_json, code, message, values = outcome
        finally:
            self._claiming.discard(key)
        if after_json is None and code != "claim_refused":
            raise TableError(code, message, values)
        after = None if after_json is None else engine.state_from_json(after_json, trusted=True)

        def fn(table: Table, state: GameState | None, now: float) -> Change:
            if table.game != checked:
                raise TableError("stale_version", "the game moved on while your claim was checked")
            # the version was checked before the check; a chat since then changes no game
            seat_no, game = mover(table, state, actor, None, now)
            may_claim(table, seat_no, game)
            seat = table.seats[seat_no]
            events: list[dict[str, Any]] = []
            if seat.away:
                seat.away = False
                events.append({"kind": "back", "seat": seat_no})
            if after is None:
                table.claims_refused[str(seat_no)] = [table.game_no, game.hand_no]
                events.append({"kind": "claim_refused", "seat": seat_no})
                return Change(events=events, result=TableError("claim_refused", message, values))
            events.append(
                {
                    "kind": "claim",
                    "seat": seat_no,
                    "cards": claimed_cards(game, seat_no),
                    "tricks": claimed_tricks(game, after),
                }
            )
            return Change(
                events=events,
                new_state=after,
                moves=[[seat_no, engine.move_to_json(engine.Claim())]],
            )

        return await self._command(table_id, actor, move_id, fn)


def may_claim(table: Table, seat_no: int, game: GameState) -> None:
    """Refuse a claim of ``seat_no`` (a player who may move now: ``seats.mover``) unless it is
    made while cards are played, at their own turn (from their hand or half dummy), and not
    after a refused claim in this hand."""
    if game.phase != "play":
        raise TableError("wrong_phase", "a claim is made while cards are played")
    if seat_no not in engine.seats_to_act(game):
        raise TableError("not_your_turn", "you may claim at your turn to play")
    if table.claim_refused_hands()[seat_no] == game.hand_no:
        raise TableError("claim_refused_already", ONE_CHECK)
