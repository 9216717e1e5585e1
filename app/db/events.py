"""The outbox records: parsing finished-hand and finished-game events, tolerantly.

An event is a JSON object. Unknown keys are ignored, a few spellings are accepted for each field
(see docs/persistence.md), and anything that cannot be understood raises `BadEvent`, which sends
the record to the dead-letter stream instead of retrying it forever.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.store.records import EVENT_SCHEMA as EVENT_SCHEMA  # the format written

MAX_SEATS = 8
ENDINGS = ("finished", "abandoned")


class BadEvent(ValueError):
    """A record that can never be written: retrying will not help."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    player_id: str | None = None
    bot_level: str | None = None
    replaced_by_bot: bool = False
    name: str | None = None
    left: bool = False  # the player left the game before its end (a rated table's leaver)


@dataclass(frozen=True, slots=True)
class HandRecord:
    table_id: str
    game_no: int
    hand_no: int
    preset: str | None  # may come only with the game record
    options: dict[str, Any]
    seats: tuple[SeatRecord, ...]
    points: tuple[int, ...]
    moons: tuple[int, ...]
    pass_direction: str | None
    moves: list[list[Any]]
    seed: str | None = None
    started_at: datetime | None = None
    recorded_at: datetime | None = None
    private: bool = False  # played at a private table
    rated: bool = False  # played at a rated table


@dataclass(frozen=True, slots=True)
class GameRecord:
    table_id: str
    game_no: int
    preset: str
    options: dict[str, Any]
    seats: tuple[SeatRecord, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    ended: str
    seed: str | None
    started_at: datetime | None
    ended_at: datetime | None
    moves: list[list[Any]] = field(default_factory=list)
    hands: int | None = None
    private: bool = False  # played at a private table
    rated: bool = False  # played at a rated table


def _get(event: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if name in event and event[name] is not None:
            return event[name]
    return default


def _text(value: Any, what: str, *, max_len: int = 64, optional: bool = False) -> str | None:
    if value is None:
        if optional:
            return None
        raise BadEvent(f"{what} is missing")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise BadEvent(f"{what} must be text, not {value!r}")
    text = str(value).strip()
    if not text and not optional:
        raise BadEvent(f"{what} is empty")
    if len(text) > max_len:
        raise BadEvent(f"{what} is longer than {max_len} characters")
    return text or None


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise BadEvent(f"{what} must be a whole number, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise BadEvent(f"{what} must be a whole number, not {value!r}")


def _small_int(value: Any, what: str) -> int:
    number = _int(value, what)
    if not -(2**31) <= number < 2**31:
        raise BadEvent(f"{what} is out of range")
    return number


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise BadEvent(f"{what} must be a list of numbers")
    return tuple(_small_int(v, what) for v in value)


def _time(value: Any, what: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value / 1000 if value > 10**11 else value  # epoch seconds or milliseconds
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError) as error:
            raise BadEvent(f"{what} is not a valid time") from error
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as error:
            raise BadEvent(f"{what} is not an ISO 8601 time: {value!r}") from error
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise BadEvent(f"{what} is not a time: {value!r}")


def _seats(value: Any, *, optional: bool = False) -> tuple[SeatRecord, ...]:
    if value is None and optional:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str | bytes) or not value:
        raise BadEvent("seats must be a non-empty list")
    if len(value) > MAX_SEATS:
        raise BadEvent(f"at most {MAX_SEATS} seats")
    seats = []
    for i, seat in enumerate(value):
        if seat is None:
            seats.append(SeatRecord())
            continue
        if isinstance(seat, str):  # a bare player id
            seats.append(SeatRecord(player_id=_text(seat, f"seat {i} player_id", max_len=32)))
            continue
        if not isinstance(seat, Mapping):
            raise BadEvent(f"seat {i} must be an object")
        player_id = _text(
            _get(seat, "player_id", "player"), f"seat {i} player_id", max_len=32, optional=True
        )
        bot = _get(seat, "bot_level", "bot", "level")
        kind = _get(seat, "kind")
        if kind in ("open", "empty"):
            seats.append(SeatRecord())
            continue
        if kind == "human":
            bot = None  # the level of a human seat is that of the computer playing when away
        if bot is True or (kind in ("bot", "computer") and not bot):
            bot = "standard"
        bot_level = _text(bot, f"seat {i} bot_level", max_len=16, optional=True) if bot else None
        name = _get(seat, "name")
        seats.append(
            SeatRecord(
                player_id=player_id,
                bot_level=bot_level,
                replaced_by_bot=bool(_get(seat, "replaced_by_bot", "replaced", "away")),
                name=str(name)[:24] if isinstance(name, str) and name.strip() else None,
                left=_flag(_get(seat, "left"), f"seat {i} left"),
            )
        )
    return tuple(seats)


def _flag(value: Any, what: str) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise BadEvent(f"{what} must be true or false, not {value!r}")


def _moons(value: Any, scorers: int) -> tuple[int, ...]:
    """Scorer indexes who shot the moon: accepts indexes, booleans per scorer, or one index."""
    if value is None or value is False:
        return ()
    if isinstance(value, int) and not isinstance(value, bool):
        return () if value < 0 else (value,)
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise BadEvent("moons must be a list")
    if value and all(isinstance(v, bool) for v in value):
        return tuple(i for i, v in enumerate(value) if v)
    moons = tuple(m for m in _ints(value, "moons") if m >= 0)
    if any(not 0 <= m < max(scorers, 1) for m in moons):
        raise BadEvent("moons names a scorer that does not exist")
    return moons


def _moves(value: Any) -> list[list[Any]]:
    """Moves as [[seat, move], ...]; accepts [seat, move], {"seat", "move"} or {"seat", ...move}."""
    if value is None:
        return []
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise BadEvent("moves must be a list")
    moves: list[list[Any]] = []
    for i, entry in enumerate(value):
        # The tables' own shape, [seat, {"type": ...}], taken without the general checks.
        if type(entry) is list and len(entry) == 2:
            seat, move = entry
            if (
                type(seat) is int
                and type(move) is dict
                and "type" in move
                and -(2**31) <= seat < 2**31
            ):
                moves.append([seat, dict(move)])
                continue
        if isinstance(entry, Sequence) and not isinstance(entry, str | bytes) and len(entry) == 2:
            seat, move = entry
        elif isinstance(entry, Mapping) and "seat" in entry:
            seat = entry["seat"]
            move = entry.get("move")
            if move is None:
                move = {k: v for k, v in entry.items() if k not in ("seat", "at", "id")}
        else:
            raise BadEvent(f"move {i} must be [seat, move]")
        if not isinstance(move, Mapping) or "type" not in move:
            raise BadEvent(f"move {i} must be a move object with a 'type'")
        moves.append([_small_int(seat, f"move {i} seat"), dict(move)])
    return moves


def _winners(value: Any, scorers: int) -> tuple[int, ...]:
    """Winning scorers; "dummy" is the last scorer of the two-player dummy game."""
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise BadEvent("winners must be a list")
    winners = tuple(scorers - 1 if w == "dummy" else _small_int(w, "winners") for w in value)
    if any(not 0 <= w < scorers for w in winners):
        raise BadEvent("winners names a scorer that does not exist")
    return winners


def _common(event: Mapping[str, Any], *, partial: bool = False) -> dict[str, Any]:
    options = _get(event, "options", default={})
    if not isinstance(options, Mapping):
        raise BadEvent("options must be an object")
    seed = _get(event, "seed")
    return {
        "table_id": _text(_get(event, "table_id", "table"), "table_id"),
        "game_no": _small_int(_get(event, "game_no", "game", default=0), "game_no"),
        "preset": _text(_get(event, "preset", "variant"), "preset", max_len=40, optional=partial),
        "options": dict(options),
        "seats": _seats(_get(event, "seats"), optional=partial),
        "seed": None if seed is None else str(_int(seed, "seed")),
        "private": _flag(_get(event, "private"), "private"),
        "rated": _flag(_get(event, "rated"), "rated"),
    }


def parse_event(event: object) -> HandRecord | GameRecord:
    if not isinstance(event, Mapping):
        raise BadEvent("an event is a JSON object")
    kind = event.get("kind")
    if kind == "hand":
        common = _common(event, partial=True)
        points = _ints(_get(event, "points"), "points")
        if not points:
            raise BadEvent("points must list each scorer's points")
        return HandRecord(
            **common,
            hand_no=_small_int(_get(event, "hand_no", "hand"), "hand_no"),
            points=points,
            moons=_moons(_get(event, "moons", "moon"), len(points)),
            pass_direction=_text(
                _get(event, "pass_direction", "direction"), "pass_direction", optional=True
            ),
            moves=_moves(_get(event, "moves")),
            started_at=_time(_get(event, "started_at", "started_ms"), "started_at"),
            recorded_at=_time(_get(event, "ended_at", "finished_ms", "at"), "ended_at"),
        )
    if kind == "game":
        common = _common(event)
        ended = _get(event, "ended", "status", default="finished")
        if ended not in ENDINGS:
            raise BadEvent(f"ended must be one of {', '.join(ENDINGS)}, not {ended!r}")
        totals = _ints(_get(event, "totals", "scores"), "totals")
        if ended == "finished" and not totals:
            raise BadEvent("a finished game needs its totals")
        winners = _winners(_get(event, "winners"), len(totals))
        hands = _get(event, "hands", "hands_played")
        return GameRecord(
            **common,
            totals=totals,
            winners=winners,
            ended=ended,
            started_at=_time(_get(event, "started_at", "started_ms"), "started_at"),
            ended_at=_time(_get(event, "ended_at", "finished_ms"), "ended_at"),
            moves=_moves(_get(event, "moves")),
            hands=None if hands is None or isinstance(hands, list) else _small_int(hands, "hands"),
        )
    raise BadEvent(f"unknown event kind {kind!r}; expected 'hand' or 'game'")
