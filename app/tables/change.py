"""What a command asks and what it did: the values every part of the table writer passes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from app import engine
from app.engine import GameState
from app.tables.errors import TableError
from app.tables.model import Table


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks for a change: a signed-in player (guest or account)."""

    player_id: str
    name: str
    # The client's address group (app.api.client), when known: compared, never shown
    # (app.tables.rated).
    address: str | None = None


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What a command (a move, sit, chat, start, ...) did."""

    version: int  # the table version that holds the command
    duplicate: bool = False  # the command id was seen before; nothing was applied now


@dataclass(slots=True)
class Change:
    """What one mutation did; the writer turns it into a commit."""

    events: list[dict[str, Any]] = field(default_factory=list)
    new_state: GameState | None = None  # set when the game moved
    moves: list[list[Any]] = field(default_factory=list)  # [seat, move JSON] applied now
    new_game: bool = False  # a game starts: the move list begins afresh
    abandon: str | None = None  # end the game unfinished ("idle": nothing happened too long)
    state_changed: bool = True  # False for chat: only the log and the version move
    save_table: bool = False  # store the table even so (it remembers a command id)
    commit: bool = True
    # Notices to send once the commit is stored: (player id, kind of app.notify.KINDS).
    notices: list[tuple[str, str]] = field(default_factory=list)
    # The command's answer: its result, or a refusal that is committed all the same (a claim).
    result: MoveResult | TableError | None = None


# A change to one table: the private copy to change, its game (None before the first), now (ms).
Mutation = Callable[[Table, GameState | None, float], Change]
# The stored id of a table's game (table id, game number), or None while it is not written.
FindGameId = Callable[[str, int], Awaitable[int | None]]


def public_move(move: engine.Move) -> dict[str, Any]:
    """A move as every player may see it: a pass shows that cards went, not which."""
    if isinstance(move, engine.PassCards):
        return {"type": "pass", "count": len(move.cards)}
    return dict(engine.move_to_json(move))
