"""The game state to and from plain JSON (stable, versioned schema).

Card sets are stored as integer masks (bit ``c`` = card ``c``, see ``cards``), which keeps the
blob small and fast to encode; views and transcripts use card text instead.
"""

from __future__ import annotations

from collections.abc import Mapping

from .game import GameState, HandResult, Layout, Trick, check_layout
from .rules import Rules, rules_from_json
from .tables import tables_for

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


def state_to_json(s: GameState) -> dict[str, object]:
    out: dict[str, object] = {"schema": STATE_SCHEMA, "rules": s.rules.to_json()}
    for name in _INT_FIELDS:
        out[name] = getattr(s, name)
    for name in _TUPLE_FIELDS:
        out[name] = list(getattr(s, name))
    out["phase"] = s.phase
    out["broken"] = s.broken
    out["layouts"] = [[list(lay.hands), lay.dead] for lay in s.layouts]
    out["tricks"] = [[list(tr.cards), list(tr.holders), tr.winner, tr.lead_face] for tr in s.tricks]
    out["prev_tricks"] = [
        [list(tr.cards), list(tr.holders), tr.winner, tr.lead_face] for tr in s.prev_tricks
    ]
    out["history"] = [
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
        for r in s.history
    ]
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


_RULES_CACHE: dict[str, Rules] = {}


def _rules(obj: Mapping[str, object]) -> Rules:
    """Parse a state's rules, remembering the few rule sets a server sees (loaded per move)."""
    key = repr(sorted(obj.items()))
    r = _RULES_CACHE.get(key)
    if r is None:
        r = rules_from_json(obj)
        if len(_RULES_CACHE) > 1024:
            _RULES_CACHE.clear()
        _RULES_CACHE[key] = r
    return r


def state_from_json(obj: Mapping[str, object]) -> GameState:
    """Rebuild a state; raises ``ValueError`` for anything malformed."""
    if not isinstance(obj, Mapping) or obj.get("schema") != STATE_SCHEMA:
        raise ValueError(f"not a game state of schema {STATE_SCHEMA}")
    rules_obj = obj.get("rules")
    if not isinstance(rules_obj, Mapping):
        raise ValueError("a state needs its rules")
    rules = _rules(rules_obj)
    t = tables_for(rules)
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
        layout = Layout(_ints(a[0]), _int(a[1]))
        check_layout(layout, t)
        layouts.append(layout)
    s.layouts = tuple(layouts)
    s.tricks = tuple(_trick(x) for x in _list(obj.get("tricks")))
    s.prev_tricks = tuple(_trick(x) for x in _list(obj.get("prev_tricks")))
    s.history = tuple(_result(x) for x in _list(obj.get("history")))
    if len(s.hands) != t.holders or len(s.scores) != t.scorers or len(s.passes) != t.n:
        raise ValueError("the state does not fit its rules")
    if s.phase == "play" and len(s.trick_cards) >= len(s.order):
        raise ValueError("the trick does not fit its playing order")
    return s
