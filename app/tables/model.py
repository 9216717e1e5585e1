"""The record of one live table as stored in Redis (the engine state rides inside)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal

SeatKind = Literal["open", "human", "bot"]
TableStatus = Literal["waiting", "playing", "over"]


_SEAT_FIELDS = (
    "player_id",
    "name",
    "level",
    "away",
    "vacated",
    "gone_since",
    "owner_id",
    "owner_name",
    "replaced_hand",
    "replaced_game",
    "address",
    "left",
    "forced",
    "timeouts",
)


@dataclass(slots=True)
class Seat:
    kind: SeatKind = "open"
    player_id: str | None = None
    name: str | None = None
    # Computer level of a bot seat, and of the computer playing an away seat.
    level: str | None = None
    # A human seat the computer plays for now (timer ran out, or disconnected too long).
    away: bool = False
    # A bot seat left by a human during a game: a newcomer may take it over.
    vacated: bool = False
    # When the seated player's last socket closed (ms), for the disconnect grace period; None
    # while they have one open (their sockets are counted outside the table:
    # app/store/sockets.py).
    gone_since: float | None = None
    # The person this seat counts for in the current game's records (set at the start; kept
    # when they leave, go away or a newcomer takes the vacated seat), and their name then.
    owner_id: str | None = None
    owner_name: str | None = None
    # The computer played this person's seat during the current hand / game.
    replaced_hand: bool = False
    replaced_game: bool = False
    # Rated tables (app.tables.rated): a keyed digest of the player's address group (never the
    # address; compared within the table only), and whether the person this seat counts for
    # left the current game before its end.
    address: str | None = None
    left: bool = False
    # Turn-based tables (app.tables.pace): the player's time ran out, so the computer plays
    # this seat's next move; and how many moves in a row it played so (a move of the player's
    # own sets it back to 0; at TIMEOUTS_TO_AWAY the seat goes away).
    forced: bool = False
    timeouts: int = 0

    @property
    def computer_plays(self) -> bool:
        return self.kind == "bot" or (self.kind == "human" and (self.away or self.forced))

    def to_json(self) -> dict[str, Any]:
        """Only what differs from the defaults: the table is stored on every move."""
        out: dict[str, Any] = {"kind": self.kind}
        for name in _SEAT_FIELDS:
            value = getattr(self, name)
            if value is not None and value is not False and not (name == "timeouts" and value == 0):
                out[name] = value
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Seat:
        return cls(
            kind=obj["kind"],
            player_id=obj.get("player_id"),
            name=obj.get("name"),
            level=obj.get("level"),
            away=bool(obj.get("away", False)),
            vacated=bool(obj.get("vacated", False)),
            gone_since=obj.get("gone_since"),
            owner_id=obj.get("owner_id"),
            owner_name=obj.get("owner_name"),
            replaced_hand=bool(obj.get("replaced_hand", False)),
            replaced_game=bool(obj.get("replaced_game", False)),
            address=obj.get("address"),
            left=bool(obj.get("left", False)),
            forced=bool(obj.get("forced", False)),
            timeouts=int(obj.get("timeouts", 0)),
        )


# The fields both Table.to_json (stored) and Table.public_json (sent) carry as they are.
_HEAD_FIELDS = ("id", "preset", "options", "players", "private", "invite", "host")
_PACE_FIELDS = ("pace", "move_seconds", "hours", "time_zone")


@dataclass(slots=True)
class Table:
    id: str
    preset: str
    options: dict[str, Any]
    players: int
    private: bool
    invite: str | None
    host: str | None
    seats: list[Seat]
    turn_timer: int
    created_ms: float
    status: TableStatus = "waiting"
    game_no: int = 0
    seed: int = 0
    game: dict[str, Any] | None = None  # engine.state_to_json of the current game
    # The version Redis holds (set on load; every commit, chat included, bumps it).
    version: int = 0
    updated_ms: float = 0.0
    # Turn deadline for the humans to act (ms), and the seats it was set for.
    deadline_ms: float | None = None
    deadline_seats: list[int] = field(default_factory=list)
    # When the computer acts next for a bot or away seat (ms).
    bot_due_ms: float | None = None
    # Recent client move ids per player: [[move_id, version], ...], newest last.
    recent_moves: dict[str, list[list[Any]]] = field(default_factory=dict)
    # Hands already sent to the results outbox in this game.
    hands_recorded: int = 0
    # Moves applied in this game (the length of the table's move list in Redis), and the index
    # of the first move of the hand being played; a computer's seed is derived from move_no.
    move_no: int = 0
    hand_first_move: int = 0
    # How the last game ended: "finished", "abandoned" (no person left, or idle too long), or
    # None while it runs.
    ended: str | None = None
    # When the current game and hand began, and when the last game ended (ms).
    game_started_ms: float | None = None
    hand_started_ms: float | None = None
    game_ended_ms: float | None = None
    # After a hand ends, nobody acts until this time (ms): a pause to read the result.
    pause_until_ms: float | None = None
    # The last game's id in SQL (app.db, the replay API), once the results writer stored it.
    game_id: int | None = None
    # A competition's table (app.compete): {"kind": "daily", "day", "preset", "seed", ...}.
    # Its games are dealt from "seed" (never shown: not in public_json), and it has extra rules:
    # no chat, no spectators, nobody else sits, no rematch.
    compete: dict[str, Any] | None = None
    # Refused claims: seat (as text) -> [game_no, hand_no] of its last refused claim (a seat
    # may make one refused claim per hand: checking a claim tells something of hidden cards).
    claims_refused: dict[str, list[int]] = field(default_factory=dict)
    # A rated table (app.tables.rated): chosen at creation, never changed.
    rated: bool = False
    # Hints (app.tables.hints): chosen at creation (never at a rated table); and the seats
    # (as text) that asked for one -> the game_no of their last hint.
    hints: bool = False
    hints_used: dict[str, int] = field(default_factory=dict)
    # The pace (app.tables.pace): "live", or "turn" with seconds per move, playing hours
    # [start, end) in the time zone (None: the clocks always run, UTC).
    pace: str = "live"
    move_seconds: int = 0
    hours: list[int] | None = None
    time_zone: str | None = None
    # Turn-based: when the players to act are told their time is almost up (ms), until then.
    warn_ms: float | None = None
    # Turn-based: when the turn of the players to act began (ms).
    turn_began_ms: float | None = None

    @property
    def turn_based(self) -> bool:
        return self.pace == "turn"

    def hours_window(self) -> tuple[int, int] | None:
        return (self.hours[0], self.hours[1]) if self.hours else None

    def clone(self) -> Table:
        """A copy to change: the seats and every list or dict a change edits in place are
        copied; the rest (text, numbers, the options, the game JSON, which is replaced and never
        changed in place) is shared."""
        new: Table = _copy_table(self)
        new.seats = [_copy_seat(s) for s in self.seats]
        new.deadline_seats = list(self.deadline_seats)
        new.recent_moves = {k: list(v) for k, v in self.recent_moves.items()}
        new.claims_refused = dict(self.claims_refused)
        new.hints_used = dict(self.hints_used)
        return new

    def seat_of(self, player_id: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.kind == "human" and seat.player_id == player_id:
                return i
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            **self._head_json(),
            "seats": [s.to_json() for s in self.seats],
            "turn_timer": self.turn_timer,
            "created_ms": self.created_ms,
            "status": self.status,
            "game_no": self.game_no,
            "seed": self.seed,
            "game": self.game,
            "updated_ms": self.updated_ms,
            "deadline_ms": self.deadline_ms,
            "deadline_seats": self.deadline_seats,
            "bot_due_ms": self.bot_due_ms,
            "recent_moves": self.recent_moves,
            "hands_recorded": self.hands_recorded,
            "move_no": self.move_no,
            "hand_first_move": self.hand_first_move,
            "ended": self.ended,
            "game_started_ms": self.game_started_ms,
            "hand_started_ms": self.hand_started_ms,
            "game_ended_ms": self.game_ended_ms,
            "pause_until_ms": self.pause_until_ms,
            "game_id": self.game_id,
            **({"compete": self.compete} if self.compete else {}),
            "claims_refused": self.claims_refused,
            **({"rated": True} if self.rated else {}),
            **({"hints": True, "hints_used": self.hints_used} if self.hints else {}),
            # A live table stores none of its pace (the defaults): it is stored on every move.
            **(
                self._pace_json() | {"warn_ms": self.warn_ms, "turn_began_ms": self.turn_began_ms}
                if self.turn_based
                else {}
            ),
        }

    def _head_json(self) -> dict[str, Any]:
        """The fields that both the stored table and its public view begin with."""
        return {name: getattr(self, name) for name in _HEAD_FIELDS}

    def _pace_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _PACE_FIELDS}

    @classmethod
    def from_json(cls, obj: dict[str, Any], version: int) -> Table:
        return cls(
            id=obj["id"],
            preset=obj["preset"],
            options=dict(obj.get("options") or {}),
            players=int(obj["players"]),
            private=bool(obj["private"]),
            invite=obj.get("invite"),
            host=obj.get("host"),
            seats=[Seat.from_json(s) for s in obj["seats"]],
            turn_timer=int(obj.get("turn_timer", 0)),
            created_ms=float(obj["created_ms"]),
            status=obj.get("status", "waiting"),
            game_no=int(obj.get("game_no", 0)),
            seed=int(obj.get("seed", 0)),
            game=obj.get("game"),
            version=version,
            updated_ms=float(obj.get("updated_ms", 0.0)),
            deadline_ms=obj.get("deadline_ms"),
            deadline_seats=list(obj.get("deadline_seats") or []),
            bot_due_ms=obj.get("bot_due_ms"),
            recent_moves={str(k): list(v) for k, v in (obj.get("recent_moves") or {}).items()},
            hands_recorded=int(obj.get("hands_recorded", 0)),
            move_no=int(obj.get("move_no", 0)),
            hand_first_move=int(obj.get("hand_first_move", 0)),
            ended=obj.get("ended"),
            game_started_ms=obj.get("game_started_ms"),
            hand_started_ms=obj.get("hand_started_ms"),
            game_ended_ms=obj.get("game_ended_ms"),
            pause_until_ms=obj.get("pause_until_ms"),
            game_id=obj.get("game_id"),
            compete=obj.get("compete"),
            claims_refused={
                str(k): [int(x) for x in v] for k, v in (obj.get("claims_refused") or {}).items()
            },
            rated=bool(obj.get("rated", False)),
            hints=bool(obj.get("hints", False)),
            hints_used={str(k): int(v) for k, v in (obj.get("hints_used") or {}).items()},
            pace=obj.get("pace", "live"),
            move_seconds=int(obj.get("move_seconds", 0)),
            hours=obj.get("hours"),
            time_zone=obj.get("time_zone"),
            warn_ms=obj.get("warn_ms"),
            turn_began_ms=obj.get("turn_began_ms"),
        )

    def public_json(self) -> dict[str, Any]:
        """What every client of the table may see about it (no hidden card, no seed). A
        competition's table shows no host: its creator is only the first player seated, and
        its rules are the competition's (nobody starts, seats, invites or gives time there)."""
        out = {
            **self._head_json(),
            "host_seat": self.seat_of(self.host) if self.host else None,
            "status": self.status,
            "ended": self.ended,
            "game_no": self.game_no,
            "turn_timer": self.turn_timer,
            "deadline_ms": self.deadline_ms,
            "deadline_seats": self.deadline_seats,
            "pause_until_ms": self.pause_until_ms,
            "game_id": self.game_id,
            "compete": public_compete(self.compete),
            "claim_refused_hands": self.claim_refused_hands(),
            "rated": self.rated,
            "hints": self.hints,
            "hints_used": self.hint_seats(),
            # Seats whose players share an address (BGA's notice; the address is not shown).
            "shared_address": self.shared_address(),
            **self._pace_json(),
            "seats": [
                {
                    "seat": i,
                    "kind": s.kind,
                    "player_id": s.player_id,
                    "name": s.name,
                    "level": s.level,
                    "away": s.away,
                    "vacated": s.vacated,
                    "connected": s.gone_since is None if s.kind == "human" else None,
                    "timeouts": s.timeouts,
                }
                for i, s in enumerate(self.seats)
            ],
        }
        if self.compete:
            out["host"] = out["host_seat"] = None
        return out

    def shared_address(self) -> list[list[int]]:
        """The seats whose players came from one address (groups of two or more)."""
        groups: dict[str, list[int]] = {}
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.address:
                groups.setdefault(s.address, []).append(i)
        return [seats for seats in groups.values() if len(seats) > 1]

    def hint_seats(self) -> list[int]:
        """The seats that asked for a hint in this game (app.tables.hints)."""
        return sorted(int(s) for s, g in self.hints_used.items() if g == self.game_no)

    def claim_refused_hands(self) -> list[int | None]:
        """Per seat, the hand of this game in which it made its one refused claim, or None."""
        out: list[int | None] = []
        for i in range(len(self.seats)):
            got = self.claims_refused.get(str(i))
            out.append(got[1] if got and got[0] == self.game_no else None)
        return out

    def lobby_json(self, expires_ms: float) -> dict[str, Any]:
        """The public lobby's line for this table."""
        return {
            "id": self.id,
            "preset": self.preset,
            "options": self.options,
            "players": self.players,
            "status": self.status,
            "game_no": self.game_no,
            "turn_timer": self.turn_timer,
            "pace": self.pace,
            "move_seconds": self.move_seconds,
            "seats": [
                {
                    "seat": i,
                    "kind": s.kind,
                    "name": s.name,
                    "level": s.level,
                    "away": s.away,
                    # public anyway (the table's own JSON has it); the lobby index keys the
                    # "tables of these players first" hook on it (app.realtime.lobby)
                    "player_id": s.player_id if s.kind == "human" else None,
                }
                for i, s in enumerate(self.seats)
            ],
            "rated": self.rated,
            "open_seats": sum(1 for s in self.seats if s.kind == "open" or s.vacated),
            "created_ms": self.created_ms,
            "expires_ms": expires_ms,
        }


def public_compete(compete: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a competition table's clients may know of its competition: never the seed."""
    if compete is None:
        return None
    return {k: v for k, v in compete.items() if k != "seed"}


def lobby_listed(line: dict[str, Any]) -> bool:
    """Whether a lobby line belongs in the public list: a finished table, or one no person
    sits at any more (the computers play on), is left out; it stays reachable by its link."""
    if line.get("status") == "over":
        return False
    return any(seat.get("kind") == "human" for seat in line.get("seats") or ())


def _shallow_copier(cls: type[Any]) -> Callable[[Any], Any]:
    """A function that copies every field of a slots dataclass (compiled once: plain attribute
    reads and writes, about ten times faster than a getattr/setattr loop)."""
    lines = [f"    new.{f.name} = old.{f.name}" for f in fields(cls)]
    source = "def copy(old):\n    new = new_object(cls)\n" + "\n".join(lines) + "\n    return new\n"
    namespace: dict[str, Any] = {"new_object": object.__new__, "cls": cls}
    exec(source, namespace)
    copier: Callable[[Any], Any] = namespace["copy"]
    return copier


_copy_seat = _shallow_copier(Seat)
_copy_table = _shallow_copier(Table)
