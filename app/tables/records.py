"""Results records: what the SQL side stores when a hand or a game ends (app.db.events reads
them from the outbox), and the finished game's stored id coming back for the replay link."""

from __future__ import annotations

import logging
from typing import Any

import orjson

from app.engine import GameState, HandResult
from app.store import TableStore
from app.tables.change import Change, FindGameId
from app.tables.model import Table

log = logging.getLogger(__name__)

# Looking up a finished game's stored id (the results writer stores it a moment after the
# game ends): first after this long, then after as long again as has passed (at most
# RECORD_STEP_MS between looks), until RECORD_WAIT_MS after the end.
RECORD_FIRST_MS = 500.0
RECORD_STEP_MS = 30_000.0
RECORD_WAIT_MS = 300_000.0


def seat_records(table: Table, *, game: bool) -> list[dict[str, Any]]:
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
                "left": bool(person) and s.left,
            }
        )
    return seats


def _common(table: Table, *, game: bool) -> dict[str, Any]:
    return {
        "table_id": table.id,
        "game_no": table.game_no,
        "preset": table.preset,
        "options": table.options,
        "seed": table.seed,
        "seats": seat_records(table, game=game),
        # The stored game is then readable only by its players (and a share link).
        "private": table.private,
        # Only a rated table's games are rated (app.db.ratings).
        "rated": table.rated,
    }


def hand_record(
    common: dict[str, Any],
    result: HandResult,
    moves: list[list[Any]],
    started_at: int | None,
    ended_at: int,
) -> dict[str, Any]:
    """A finished hand's record: the table's common fields, its result and its moves."""
    return {
        "kind": "hand",
        **common,
        "hand_no": result.hand_no,
        "points": list(result.points),
        "totals": list(result.totals),
        "moons": [result.moon] if result.moon >= 0 else [],
        "pass_direction": result.direction,
        "moves": moves,
        "started_at": started_at,
        "ended_at": ended_at,
    }


async def game_moves(
    store: TableStore, table: Table, start: int, new_moves: list[list[Any]]
) -> list[list[Any]]:
    """The game's moves from ``start`` on: what Redis holds plus the moves of this change
    (the compare-and-set makes the read consistent: any other change bumps the version)."""
    stored = await store.game_moves(table.id, start) if start < table.move_no else []
    return [orjson.loads(m) for m in stored] + [list(m) for m in new_moves]


async def results(
    store: TableStore,
    table: Table,
    old: GameState | None,
    new: GameState,
    new_moves: list[list[Any]],
    now: float,
) -> list[dict[str, Any]]:
    """Hand and game records for the SQL outbox (app.db.events) when either ends."""
    if old is None:
        return []
    finished = new.history[len(old.history) :]
    if not finished and new.phase != "over":
        return []
    records: list[dict[str, Any]] = []
    if finished:
        moves = await game_moves(store, table, table.hand_first_move, new_moves)
        common = _common(table, game=False)
        for result in finished:
            table.hands_recorded += 1
            records.append(hand_record(common, result, moves, _ms(table.hand_started_ms), int(now)))
        table.hand_first_move = table.move_no + len(new_moves)
        table.hand_started_ms = now
        for seat in table.seats:
            seat.replaced_hand = False
    if new.phase == "over":
        records.append(
            {
                "kind": "game",
                **_common(table, game=True),
                "ended": "finished",
                "hands": len(new.history),
                "totals": scores(new),
                "winners": [int(w) for w in new.winners],
                "started_at": _ms(table.game_started_ms),
                "ended_at": int(now),
            }
        )
    return records


async def abandoned(
    store: TableStore, table: Table, state: GameState, new_moves: list[list[Any]], now: float
) -> dict[str, Any]:
    """The record of a game that ends unfinished: totals and every move so far."""
    return {
        "kind": "game",
        **_common(table, game=True),
        "ended": "abandoned",
        "hands": len(state.history),
        "totals": scores(state),
        "winners": [],
        "moves": await game_moves(store, table, 0, new_moves),
        "started_at": _ms(table.game_started_ms),
        "ended_at": int(now),
    }


def record_due(table: Table, now: float, find_game_id: FindGameId | None) -> float | None:
    """When to look for the last game's stored id next, or None (found, or given up)."""
    if (
        find_game_id is None
        or table.status != "over"
        or table.game_id is not None
        or table.game_ended_ms is None
    ):
        return None
    waited = now - table.game_ended_ms
    if waited > RECORD_WAIT_MS:
        return None
    return now + min(max(waited, RECORD_FIRST_MS), RECORD_STEP_MS)


async def recorded_change(table: Table, now: float, find_game_id: FindGameId | None) -> Change:
    """A finished game's stored id, once the results writer has stored it (else no change:
    ``timers.next_due`` looks again later)."""
    if find_game_id is None or record_due(table, now, find_game_id) is None:
        return Change(commit=False)
    try:
        game_id = await find_game_id(table.id, table.game_no)
    except Exception:
        log.exception("could not look up the stored game of table %s", table.id)
        return Change(commit=False)
    if game_id is None:
        return Change(commit=False)
    table.game_id = game_id
    event = {"kind": "recorded", "game_no": table.game_no, "game_id": game_id}
    return Change(events=[event])


def scores(state: GameState) -> list[int]:
    return [int(s) for s in state.scores]


def winners(state: GameState) -> list[int | str]:
    """Winning scorers: seat numbers, or "dummy" (two-player dummy game)."""
    n = state.players
    return ["dummy" if w >= n else int(w) for w in state.winners]


def _ms(value: float | None) -> int | None:
    return None if value is None else int(value)
