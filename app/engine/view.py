"""What one seat, or a spectator, may see (RULES.md section 5), as JSON-ready dicts."""

from __future__ import annotations

from .cards import N_CARDS, card_str, double_card_str
from .game import passable_cards, playable_mask, seats_to_act
from .state import GameState, HandResult, Trick
from .tables import FACES, Tables, direction_name

VIEW_SCHEMA = 1

# Card texts by index, worked out once: a view names every card of a hand, trick and pass, and
# the server builds views on every change. Double Hearts names a card by both faces.
_PLAIN_TEXT: tuple[str, ...] = tuple(card_str(c) for c in range(N_CARDS))
_DOUBLE_TEXT: tuple[str, ...] = tuple(
    double_card_str(c) if c < 52 else card_str(c) for c in range(N_CARDS)
)


def _slices(text: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """``[i][byte]``: the texts of the cards 8i..8i+7 whose bits ``byte`` holds, lowest first."""
    return tuple(
        tuple(
            tuple(text[8 * i + b] for b in range(8) if byte >> b & 1 and 8 * i + b < N_CARDS)
            for byte in range(256)
        )
        for i in range((N_CARDS + 7) // 8)
    )


_PLAIN_SLICES = _slices(_PLAIN_TEXT)
_DOUBLE_SLICES = _slices(_DOUBLE_TEXT)


def _text(t: Tables) -> tuple[str, ...]:
    return _DOUBLE_TEXT if t.game == "double" else _PLAIN_TEXT


def _cards(t: Tables, mask: int) -> list[str]:
    """Cards sorted for display: by suit, then rank (Double Hearts: by Light face)."""
    if mask >> N_CARDS or mask < 0:
        raise ValueError(f"not a set of cards: {mask:#x}")
    slices = _DOUBLE_SLICES if t.game == "double" else _PLAIN_SLICES
    out: list[str] = []
    i = 0
    while mask:
        byte = mask & 255
        if byte:
            out += slices[i][byte]
        mask >>= 8
        i += 1
    return out


def _plays(t: Tables, cards: tuple[int, ...], holders: tuple[int, ...]) -> list[dict[str, object]]:
    text = _text(t)
    n = t.n
    owner = t.owner
    return [
        {"seat": owner[h], "from": "dummy" if h >= n else "hand", "card": text[c]}
        for c, h in zip(cards, holders, strict=True)
    ]


def _trick_json(t: Tables, tr: Trick) -> dict[str, object]:
    out: dict[str, object] = {
        "plays": _plays(t, tr.cards, tr.holders),
        "winner": "dummy" if tr.winner >= t.n else tr.winner,
    }
    if t.game == "double":
        out["lead_face"] = FACES[tr.lead_face]
    return out


def _result_json(t: Tables, r: HandResult) -> dict[str, object]:
    return {
        "hand_no": r.hand_no,
        "dealer": r.dealer,
        "direction": r.direction,
        "points": list(r.points),
        "moon": r.moon if r.moon >= 0 else None,
        "totals": list(r.totals),
        "dead": _cards(t, r.dead),
        "tricks_won": list(r.tricks_won),
        # the hand ended before its last trick (the auto_end option): the rest was not played
        "ended_early": sum(r.tricks_won) < t.hand_size,
    }


def public_points(s: GameState) -> list[int]:
    """Points each scorer has taken so far this hand, from played cards only."""
    t = s.t
    pts = [0] * t.scorers
    for tr in s.tricks:
        sc = t.scorer_of[tr.winner]
        for c in tr.cards:
            pts[sc] += t.value[c]
    return pts


def legal_json(s: GameState, seat: int) -> dict[str, object] | None:
    """The moves ``seat`` may make now, compactly (a pass lists the cards it may choose from)."""
    t = s.t
    if s.phase == "play":
        m = playable_mask(s, seat)
        if not m:
            return None
        out: dict[str, object] = {"type": "play", "cards": _cards(t, m)}
        if t.game == "double" and not s.trick_cards:
            forced = s.trick_no == 0 and s.first_lead_mask
            out["faces"] = ["dark"] if forced else ["light", "dark"]
        return out
    if s.phase == "pass":
        m = passable_cards(s, seat)
        if not m:
            return None
        return {"type": "pass", "count": t.pass_count, "cards": _cards(t, m)}
    if s.phase == "direction" and seat == s.dealer:
        dirs = ["left", "right", "across", "hold"] if t.n == 4 else ["left", "right", "hold"]
        return {"type": "direction", "directions": dirs}
    if s.phase == "moon" and seat == s.moon_shooter:
        return {"type": "moon", "choices": ["self", "others"]}
    return None


def _public(s: GameState, sheet: bool = True) -> dict[str, object]:
    """What every player sees in common: the spectator view."""
    t = s.t
    n = t.n
    turn = None
    if s.phase == "play":
        h = s.order[len(s.trick_cards)]
        turn = {"seat": t.owner[h], "from": "dummy" if h >= n else "hand"}
    v: dict[str, object] = {
        "schema": VIEW_SCHEMA,
        "preset": s.rules.preset,
        "options": s.rules.to_options(),
        "game": t.game,
        "players": n,
        "seat": None,
        "phase": s.phase,
        "hand_no": s.hand_no,
        "dealer": s.dealer,
        "pass_direction": direction_name(s.pass_offset, n),
        "pass_count": t.pass_count,
        "passed": [bool(p) for p in s.passes],
        "to_act": list(seats_to_act(s)),
        "turn": turn,
        "trick_no": s.trick_no,
        "trick": _plays(t, s.trick_cards, s.trick_holders),
        "led_suit": "CDSH"[s.led_suit] if s.led_suit >= 0 else None,
        "hearts_broken": s.broken,
        "tricks": [_trick_json(t, tr) for tr in s.tricks],
        "hands_played": len(s.history),
        "hand_sizes": [h.bit_count() for h in s.hands[:n]],
        "points_taken": public_points(s),
        "tricks_won": list(s.won),
        "scores": list(s.scores),
        "winners": ["dummy" if w >= n else w for w in s.winners],
        "moon_pending": s.moon_shooter if s.phase == "moon" else None,
    }
    if sheet:
        v["previous_tricks"] = [_trick_json(t, tr) for tr in s.prev_tricks]
        v["history"] = [_result_json(t, r) for r in s.history]
    if t.game == "double":
        v["lead_face"] = FACES[s.lead_face] if s.trick_cards else None
    if t.game == "dummy":
        v["joker"] = s.joker if s.phase == "play" else None
        v["half_dummy_sizes"] = [h.bit_count() for h in s.hands[2:]]
    if t.game in ("twentyeight", "double"):
        v["dead_count"] = s.dead.bit_count()
    return v


def _add_private(s: GameState, v: dict[str, object], seat: int) -> dict[str, object]:
    t = s.t
    v["seat"] = seat
    v["hand"] = _cards(t, s.hands[seat])
    if t.game == "dummy" and s.phase != "pass":
        v["half_dummy"] = _cards(t, s.hands[2 + seat])  # seen once passing is done
    if s.passes[seat]:
        v["passed_cards"] = _cards(t, s.passes[seat])
        if s.phase not in ("pass", "direction"):
            v["received"] = _cards(t, s.passes[(seat - s.pass_offset) % t.n])
    v["legal"] = legal_json(s, seat)
    return v


def view(s: GameState, seat: int | None, sheet: bool = True) -> dict[str, object]:
    """The state as ``seat`` may see it; ``None`` is a spectator (what every player sees).

    ``sheet=False`` leaves out the score sheet (``history``) and the last hand's tricks
    (``previous_tricks``), which change only when a hand ends (``hands_played`` tells when)."""
    if seat is not None:
        _check_seat(s, seat)
    v = _public(s, sheet)
    return v if seat is None else _add_private(s, v, seat)


def seat_view(s: GameState, seat: int, public: dict[str, object]) -> dict[str, object]:
    """``view(s, seat, sheet)`` built on ``public``, the spectator view ``view(s, None, sheet)``
    of the same state (copied, not changed): a server builds the common part of a change once,
    then the views of just the seats it has sockets for."""
    _check_seat(s, seat)
    return _add_private(s, dict(public), seat)


def private_view(s: GameState, seat: int) -> dict[str, object]:
    """What ``view(s, seat, sheet)`` has beyond the spectator view ``view(s, None, sheet)``:
    ``seat`` and the keys only that seat sees (its hand, cards passed and received, legal
    moves). A server encodes the common part once a change and adds this for each seat."""
    _check_seat(s, seat)
    return _add_private(s, {}, seat)


def _check_seat(s: GameState, seat: int) -> None:
    if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < s.t.n):
        raise ValueError(f"no seat {seat!r}")


def all_views(
    s: GameState, sheet: bool = True
) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The spectator view and every seat's view, sharing the common part (build once per
    change, then send); equal to ``view(s, None, sheet)`` and ``view(s, seat, sheet)``."""
    public = _public(s, sheet)
    return public, [_add_private(s, dict(public), seat) for seat in range(s.t.n)]
