"""The game state to and from plain JSON (stable, versioned schema).

Card sets are stored as integer masks (bit ``c`` = card ``c``, see ``cards``), which keeps the
blob small and fast to encode; views and transcripts use card text instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict, cast

from .rules import Rules, rules_from_json
from .state import GameState, HandResult, Layout, Trick
from .tables import Tables, tables_for
from .validate import check_state

STATE_SCHEMA = 1

_INT_FIELDS = (
    "seed",
    "hand_no",
    "dealer",
    "pass_offset",
    "dead",
    "led_suit",
    "lead_face",
    "first_lead_mask",
    "joker",
    "trick_no",
    "moon_shooter",
)
_TUPLE_FIELDS = (
    "scores",
    "passes",
    "hands",
    "trick_cards",
    "trick_holders",
    "order",
    "taken",
    "won",
    "pending",
    "winners",
)
_KEYS = frozenset(
    ("schema", "rules", "phase", "broken", "layouts", "tricks", "prev_tricks", "history")
    + _INT_FIELDS
    + _TUPLE_FIELDS
)


_TrickJSON = tuple[list[int], list[int], int, int]


class _StateJSON(TypedDict):
    """The shape ``state_to_json`` writes (JSON arrays of mixed items are typed as the tuples
    they are unpacked into)."""

    schema: int
    rules: dict[str, object]
    seed: int
    hand_no: int
    dealer: int
    pass_offset: int
    dead: int
    led_suit: int
    lead_face: int
    first_lead_mask: int
    joker: int
    trick_no: int
    moon_shooter: int
    scores: list[int]
    passes: list[int]
    hands: list[int]
    trick_cards: list[int]
    trick_holders: list[int]
    order: list[int]
    taken: list[int]
    won: list[int]
    pending: list[int]
    winners: list[int]
    phase: str
    broken: bool
    layouts: list[tuple[list[int], int]]
    tricks: list[_TrickJSON]
    prev_tricks: list[_TrickJSON]
    history: list[tuple[int, int, str, list[int], int, list[int], int, list[int]]]


def _tricks_json(tricks: tuple[Trick, ...]) -> list[object]:
    return [[list(tr.cards), list(tr.holders), tr.winner, tr.lead_face] for tr in tricks]


def _history_json(history: tuple[HandResult, ...]) -> list[object]:
    return [
        [
            r.hand_no,
            r.dealer,
            r.direction,
            list(r.points),
            r.moon,
            list(r.totals),
            r.dead,
            list(r.tricks_won),
        ]
        for r in history
    ]


# The parts that change once a hand (the last hand's tricks, the score sheet, the layouts) are
# the same tuples from one state to the next (``apply`` shares what it does not change): their
# JSON is kept per tuple object, so a move's commit encodes only what moved. Each entry holds
# its tuple, so an id is not reused while its entry lives; the JSON lists are shared between
# the dicts returned and must not be changed in place (nothing does: a table's game JSON is
# replaced, never edited). At most _PARTS_KEPT entries (a few per live table; cleared when full).
_PARTS_KEPT = 8192
_parts: dict[int, tuple[object, list[object]]] = {}


def _part(value: tuple[Any, ...], encode: Callable[[Any], list[object]]) -> list[object]:
    hit = _parts.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    out = encode(value)
    if len(_parts) >= _PARTS_KEPT:
        _parts.clear()
    _parts[id(value)] = (value, out)
    return out


def _layouts_json(layouts: tuple[Layout, ...]) -> list[object]:
    return [[list(lay.hands), lay.dead] for lay in layouts]


def state_to_json(s: GameState) -> dict[str, object]:
    out: dict[str, object] = {"schema": STATE_SCHEMA, "rules": s.rules.to_json()}
    for name in _INT_FIELDS:
        out[name] = getattr(s, name)
    for name in _TUPLE_FIELDS:
        out[name] = list(getattr(s, name))
    out["phase"] = s.phase
    out["broken"] = s.broken
    out["layouts"] = _part(s.layouts, _layouts_json)
    out["tricks"] = _tricks_json(s.tricks)
    out["prev_tricks"] = _part(s.prev_tricks, _tricks_json)
    out["history"] = _part(s.history, _history_json)
    return out


def _int(v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"expected an integer, got {v!r}")
    return v


def _ints(v: object) -> tuple[int, ...]:
    if not isinstance(v, list):
        raise ValueError(f"expected a list, got {v!r}")
    return tuple(_int(x) for x in v)


def _list(v: object) -> list[object]:
    if not isinstance(v, list):
        raise ValueError(f"expected a list, got {v!r}")
    return v


def _trick(v: object) -> Trick:
    a = _list(v)
    if len(a) != 4:
        raise ValueError("a trick has 4 fields")
    return Trick(_ints(a[0]), _ints(a[1]), _int(a[2]), _int(a[3]))


def _result(v: object) -> HandResult:
    a = _list(v)
    if len(a) != 8 or not isinstance(a[2], str):
        raise ValueError("a hand result has 8 fields")
    return HandResult(
        _int(a[0]), _int(a[1]), a[2], _ints(a[3]), _int(a[4]), _ints(a[5]), _int(a[6]), _ints(a[7])
    )


_RULES_CACHE: dict[str, tuple[Rules, Tables]] = {}


def _rules(obj: Mapping[str, object]) -> tuple[Rules, Tables]:
    """Parse a state's rules, remembering the few rule sets a server sees (loaded per move).

    The key is the text of the rules object, which fixes its content (the same rules written
    in another key order only take a second entry)."""
    key = repr(obj) if type(obj) is dict else repr(sorted(obj.items()))
    hit = _RULES_CACHE.get(key)
    if hit is None:
        r = rules_from_json(obj)
        hit = (r, tables_for(r))
        if len(_RULES_CACHE) > 1024:
            _RULES_CACHE.clear()
        _RULES_CACHE[key] = hit
    return hit


def state_from_json(obj: Mapping[str, object], *, trusted: bool = False) -> GameState:
    """Rebuild a state; raises ``ValueError`` for anything that is not a state of its game.

    The checked load (the default) accepts only what ``state_to_json`` writes for a state the
    engine reaches: every field of the right type, in range and consistent, every card of the
    deck in exactly one place, and the hand in play replayed from its deal to the very same
    state (``validate.check_state``). What it accepts, ``view``, ``legal_moves`` and ``apply``
    handle like any other state; everything else is a ``ValueError``.

    ``trusted=True`` skips the checks, for a value that ``state_to_json`` itself wrote and that
    came back unchanged (a server reading back what it stored): far faster, and equal to the
    checked result. Anything that may have been written by someone else must be checked: a
    malformed trusted value gives a broken state, or a ``KeyError``/``TypeError``.
    """
    if trusted:
        return _trusted_state(obj)
    schema = obj.get("schema") if isinstance(obj, Mapping) else None
    if type(schema) is not int or schema != STATE_SCHEMA:
        raise ValueError(f"not a game state of schema {STATE_SCHEMA}")
    unknown = set(obj) - _KEYS
    if unknown:
        raise ValueError(f"unknown fields in a game state: {sorted(map(repr, unknown))}")
    rules_obj = obj.get("rules")
    if not isinstance(rules_obj, Mapping) or not all(isinstance(k, str) for k in rules_obj):
        raise ValueError("a state needs its rules")
    rules, t = _rules(dict(rules_obj))
    s = object.__new__(GameState)
    s.rules = rules
    s.t = t
    for name in _INT_FIELDS:
        object.__setattr__(s, name, _int(obj.get(name)))
    for name in _TUPLE_FIELDS:
        object.__setattr__(s, name, _ints(obj.get(name)))
    phase = obj.get("phase")
    if phase not in ("direction", "pass", "play", "moon", "over"):
        raise ValueError(f"bad phase {phase!r}")
    s.phase = str(phase)
    broken = obj.get("broken")
    if not isinstance(broken, bool):
        raise ValueError("broken must be a boolean")
    s.broken = broken
    layouts = []
    for lay in _list(obj.get("layouts")):
        a = _list(lay)
        if len(a) != 2:
            raise ValueError("a layout has 2 fields")
        layouts.append(Layout(_ints(a[0]), _int(a[1])))
    s.layouts = tuple(layouts)
    s.tricks = tuple(_trick(x) for x in _list(obj.get("tricks")))
    s.prev_tricks = tuple(_trick(x) for x in _list(obj.get("prev_tricks")))
    s.history = tuple(_result(x) for x in _list(obj.get("history")))
    check_state(s)
    return s


def _trusted_state(obj: Mapping[str, object]) -> GameState:
    """``state_from_json`` without the checks: every field read and converted directly."""
    o = cast(_StateJSON, obj)
    if o["schema"] != STATE_SCHEMA:
        raise ValueError(f"not a game state of schema {STATE_SCHEMA}")
    s = object.__new__(GameState)
    s.rules, s.t = _rules(o["rules"])
    s.seed = o["seed"]
    s.hand_no = o["hand_no"]
    s.dealer = o["dealer"]
    s.pass_offset = o["pass_offset"]
    s.dead = o["dead"]
    s.led_suit = o["led_suit"]
    s.lead_face = o["lead_face"]
    s.first_lead_mask = o["first_lead_mask"]
    s.joker = o["joker"]
    s.trick_no = o["trick_no"]
    s.moon_shooter = o["moon_shooter"]
    s.scores = tuple(o["scores"])
    s.passes = tuple(o["passes"])
    s.hands = tuple(o["hands"])
    s.trick_cards = tuple(o["trick_cards"])
    s.trick_holders = tuple(o["trick_holders"])
    s.order = tuple(o["order"])
    s.taken = tuple(o["taken"])
    s.won = tuple(o["won"])
    s.pending = tuple(o["pending"])
    s.winners = tuple(o["winners"])
    s.phase = o["phase"]
    s.broken = o["broken"]
    s.layouts = tuple([Layout(tuple(hands), dead) for hands, dead in o["layouts"]])
    s.tricks = tuple([Trick(tuple(c), tuple(h), w, f) for c, h, w, f in o["tricks"]])
    s.prev_tricks = tuple([Trick(tuple(c), tuple(h), w, f) for c, h, w, f in o["prev_tricks"]])
    s.history = tuple(
        [
            HandResult(no, dealer, d, tuple(pts), moon, tuple(tot), dead, tuple(won))
            for no, dealer, d, pts, moon, tot, dead, won in o["history"]
        ]
    )
    return s
