"""Is a state one the engine reaches?  The checks of a state read from untrusted JSON.

``state_from_json`` (checked, the default) builds a ``GameState`` from fields of the right JSON
types and hands it to ``check_state``, which raises ``ValueError`` unless:

1. every field is in range for its rules: cards in the deck, masks non-negative and inside the
   deck, seats, holders and scorers in range, suits, faces and counts possible, lists of the
   right lengths, the phase one these rules have;
2. every card of the deck is in exactly one place: a hand (passes in flight stay in their
   passer's hand until everyone has passed), the trick on the table, a scorer's pile or the dead
   cards (in 3-player Double Hearts the face-down card joins the first trick's pile);
3. the hand is the one its rules deal and play: the current hand (and the one before, whose
   tricks the state keeps) is dealt from the state's seed or layouts and replayed through
   ``apply`` with the recorded direction, passes and tricks, and must come out as the state
   itself, field for field. Earlier hands are known only by their results, which must add up.

So whatever the load accepts, ``view``, ``legal_moves`` and ``apply`` handle like any state of a
game played through the engine.
"""

from __future__ import annotations

from .cards import card_str, cards_of
from .errors import IllegalMove
from .game import _game_over, _start_hand
from .game import apply_move as apply
from .moves import ChooseDirection, ChooseMoon, PassCards, PlayCard
from .state import PHASES, GameState, HandResult, Trick, check_layout
from .tables import FACES, Tables, direction_name


def check_state(s: GameState) -> None:
    """Raise ``ValueError`` unless ``s`` is a state its rules reach (see the module's text)."""
    _check_fields(s)
    _check_places(s)
    _check_replay(s)


# --- 1. fields in range ------------------------------------------------------------------------


def _need(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _range(name: str, v: int, lo: int, hi: int) -> None:
    _need(lo <= v <= hi, f"{name} must be within {lo}..{hi}, not {v}")


def _mask(name: str, m: int, t: Tables) -> None:
    _need(m >= 0, f"{name} is not a set of cards: {m}")
    extra = m & ~t.deck
    if extra:
        what = ", ".join(card_str(c) if c < 55 else f"card {c}" for c in _first(extra))
        raise ValueError(f"{name} has cards outside this game's deck: {what}")


def _first(m: int, k: int = 3) -> list[int]:
    out: list[int] = []
    while m and len(out) < k:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def _card(name: str, c: int, t: Tables) -> None:
    _need(0 <= c < 55 and bool(t.deck >> c & 1), f"{name}: {c} is not a card of this game's deck")


def _trick_size(t: Tables) -> int:
    return 3 if t.game == "dummy" else t.n


def _start_sizes(t: Tables) -> list[int]:
    return [t.hand_size] * t.n + ([9, 9] if t.game == "dummy" else [])


def _dead_count(t: Tables) -> int:
    return len(t.deck_cards) - sum(_start_sizes(t))


def _check_trick(name: str, tr: Trick, t: Tables) -> None:
    size = _trick_size(t)
    _need(len(tr.cards) == size, f"{name} must have {size} cards, not {len(tr.cards)}")
    _need(len(tr.holders) == size, f"{name} must have {size} holders, not {len(tr.holders)}")
    for c in tr.cards:
        _card(name, c, t)
    _need(len(set(tr.cards)) == size, f"{name} has a card twice")
    for h in tr.holders:
        _range(f"{name}: a holder", h, 0, t.holders - 1)
    _need(len(set(tr.holders)) == size, f"{name} has a holder twice")
    _need(tr.winner in tr.holders, f"{name}: the winner {tr.winner} did not play in it")
    _range(f"{name}: lead face", tr.lead_face, 0, 1 if t.game == "double" else 0)


def _allowed_directions(t: Tables, hand_no: int) -> set[str]:
    if t.pass_cycle is None:
        return {direction_name(o, t.n) for o in t.dealer_choices}
    return {direction_name(t.pass_cycle[hand_no % len(t.pass_cycle)], t.n)}


def _check_result(i: int, r: HandResult, before: tuple[int, ...], t: Tables) -> None:
    name = f"history[{i}]"
    k = t.scorers
    _need(r.hand_no == i, f"{name} is hand {r.hand_no}, not hand {i}")
    _need(r.dealer == i % t.n, f"{name}: hand {i} is dealt by seat {i % t.n}")
    _need(
        r.direction in _allowed_directions(t, i),
        f"{name}: {r.direction!r} is not a pass direction of this hand",
    )
    _need(len(r.points) == k and len(r.totals) == k, f"{name} needs {k} points and totals")
    _need(
        all(a + p == b for a, p, b in zip(before, r.points, r.totals, strict=True)),
        f"{name}: the totals are not the previous totals plus the points",
    )
    _range(f"{name}: moon", r.moon, -1, t.n - 1)
    _mask(f"{name}: dead", r.dead, t)
    _need(r.dead.bit_count() == _dead_count(t), f"{name}: {_dead_count(t)} cards are dead")
    _need(len(r.tricks_won) == k, f"{name} needs {k} trick counts")
    played = sum(r.tricks_won)
    _need(
        all(w >= 0 for w in r.tricks_won)
        and (1 <= played <= t.hand_size if t.rules.auto_end else played == t.hand_size),
        f"{name}: a hand has {t.hand_size} tricks"
        + (" or fewer (it may end by itself)" if t.rules.auto_end else ""),
    )


def _check_fields(s: GameState) -> None:
    t = s.t
    n, holders, scorers = t.n, t.holders, t.scorers
    phase = s.phase
    _need(phase in PHASES, f"bad phase {phase!r}")
    _need(
        phase != "direction" or t.pass_cycle is None,
        "only a dealer's choice game has a direction phase",
    )
    _need(
        phase != "moon" or (t.game == "classic" and s.rules.moon == "choice"),
        "only a game where the shooter chooses has a moon phase",
    )
    over = phase == "over"
    _need(s.hand_no >= 0, f"hand_no must be 0 or more, not {s.hand_no}")
    _range("dealer", s.dealer, 0, n - 1)
    _range("pass_offset", s.pass_offset, 0, n - 1)
    _need(phase != "pass" or s.pass_offset != 0, "a hand that holds has no passing")
    _range("led_suit", s.led_suit, -1, 3)
    _range("lead_face", s.lead_face, 0, 1 if t.game == "double" else 0)
    _range("joker", s.joker, -1, 1 if t.game == "dummy" else -1)
    _range("trick_no", s.trick_no, 0, t.hand_size)
    _range("moon_shooter", s.moon_shooter, -1, n - 1)
    _mask("dead", s.dead, t)
    _mask("first_lead_mask", s.first_lead_mask, t)
    for name, v, want in (
        ("scores", s.scores, scorers),
        ("passes", s.passes, n),
        ("hands", s.hands, holders),
        ("taken", s.taken, scorers),
        ("won", s.won, scorers),
        ("pending", s.pending, 2 * scorers if phase == "moon" else 0),
    ):
        _need(len(v) == want, f"{name} must have {want} entries, not {len(v)}")
    for name, masks in (("hands", s.hands), ("passes", s.passes), ("taken", s.taken)):
        for i, m in enumerate(masks):
            _mask(f"{name}[{i}]", m, t)
    for i, w in enumerate(s.won):
        _range(f"won[{i}]", w, 0, t.hand_size)
    # the trick on the table and the playing order
    size = _trick_size(t)
    k = len(s.trick_cards)
    _need(len(s.trick_holders) == k, "trick_cards and trick_holders differ in length")
    for c in s.trick_cards:
        _card("trick_cards", c, t)
    _need(len(set(s.trick_cards)) == k, "a card is in the trick twice")
    want_order = size if phase in ("play", "moon") else 0
    _need(len(s.order) == want_order, f"order must have {want_order} holders, not {len(s.order)}")
    for h in s.order:
        _range("order: a holder", h, 0, holders - 1)
    _need(len(set(s.order)) == len(s.order), "order has a holder twice")
    if phase == "play":
        _need(k < size, "the trick does not fit its playing order")
        _need(s.trick_holders == s.order[:k], "the trick was not played in its playing order")
    else:
        _need(k == 0, f"no trick is on the table in the {phase} phase")
    if k == 0:
        _need(s.led_suit == -1, "no suit is led before the trick starts")
    # this hand's tricks, the last hand's, the results of every hand
    _need(len(s.tricks) == s.trick_no, f"{s.trick_no} tricks are played, not {len(s.tricks)}")
    for i, tr in enumerate(s.tricks):
        _check_trick(f"tricks[{i}]", tr, t)
    want_prev = t.hand_size if (s.hand_no > 0 or over) else 0
    if want_prev and t.rules.auto_end:  # a hand that ended by itself kept fewer tricks
        _need(
            1 <= len(s.prev_tricks) <= want_prev,
            f"prev_tricks must have 1 to {want_prev} tricks",
        )
    else:
        _need(len(s.prev_tricks) == want_prev, f"prev_tricks must have {want_prev} tricks")
    for i, tr in enumerate(s.prev_tricks):
        _check_trick(f"prev_tricks[{i}]", tr, t)
    played = s.hand_no + 1 if over else s.hand_no
    _need(len(s.history) == played, f"hand {s.hand_no} needs {played} results in the history")
    totals = (0,) * scorers
    for i, r in enumerate(s.history):
        _check_result(i, r, totals, t)
        totals = r.totals
        if i < played - 1 or not over:
            _need(not _ends(s, i + 1, totals), f"the game was over after hand {i}")
    _need(s.scores == totals, "the scores are not the totals of the last hand played")
    if over:
        low = min(s.scores)
        best = tuple(i for i, v in enumerate(s.scores) if v == low)
        _need(s.winners == best, f"the winners are {list(best)}, not {list(s.winners)}")
    else:
        _need(s.winners == (), "nobody has won a game that is not over")
    for i, lay in enumerate(s.layouts):
        try:
            check_layout(lay, t)
        except ValueError as e:
            raise ValueError(f"layouts[{i}]: {e}") from None


def _ends(s: GameState, hands_played: int, totals: tuple[int, ...]) -> bool:
    """Would the game be over with these totals after this many hands?"""
    probe = object.__new__(GameState)
    probe.rules = s.rules
    probe.t = s.t
    probe.history = s.history[:hands_played]
    probe.scores = totals
    return _game_over(probe)


# --- 2. every card in one place ----------------------------------------------------------------


def _check_places(s: GameState) -> None:
    t = s.t
    dead_in_pile = t.game == "double" and (s.trick_no > 0 or s.phase in ("moon", "over"))
    places = [(f"hands[{i}]", m) for i, m in enumerate(s.hands)]
    trick = 0
    for c in s.trick_cards:
        trick |= 1 << c
    places.append(("the trick", trick))
    places += [(f"taken[{i}]", m) for i, m in enumerate(s.taken)]
    if not dead_in_pile:  # the 3-player Double Hearts face-down card goes with the first trick
        places.append(("dead", s.dead))
    seen = 0
    for name, m in places:
        both = seen & m
        if both:
            c = _first(both, 1)[0]
            other = next(o for o, om in places if om >> c & 1)
            raise ValueError(f"{card_str(c)} is in two places: {other} and {name}")
        seen |= m
    missing = t.deck & ~seen
    if missing:
        what = ", ".join(card_str(c) for c in _first(missing))
        raise ValueError(f"cards of the deck are nowhere: {what}")
    _need(s.dead.bit_count() == _dead_count(t), f"{_dead_count(t)} cards are dead in this game")
    if s.phase in ("moon", "over"):
        _need(not any(s.hands), "every card is played when the hand is over")
    else:
        # a holder has the cards it was dealt, less those it has played
        sizes = _start_sizes(t)
        for tr in (*s.tricks, Trick(s.trick_cards, s.trick_holders, -1, 0)):
            for h in tr.holders:
                sizes[h] -= 1
        got = [m.bit_count() for m in s.hands]
        _need(got == sizes, f"the hands hold {got} cards, not {sizes}")
    if s.phase == "pass":
        for i, p in enumerate(s.passes):
            _need(not p & ~s.hands[i], f"passes[{i}]: passed cards stay in the hand until all pass")
    if s.phase == "direction":
        _need(not any(s.passes), "nobody passes before the direction is chosen")


# --- 3. the hand replayed ----------------------------------------------------------------------


def _check_replay(s: GameState) -> None:
    t = s.t
    over = s.phase == "over"
    last = s.hand_no
    # the hand in play (the last one when over), and the one before it, whose tricks are kept
    first = last if over or last == 0 else last - 1
    r = object.__new__(GameState)
    r.rules = s.rules
    r.t = t
    r.seed = s.seed
    r.layouts = s.layouts
    r.hand_no = first - 1
    r.dealer = (first - 1) % t.n
    r.history = s.history[:first]
    r.scores = s.history[first - 1].totals if first else (0,) * t.scorers
    r.prev_tricks = ()
    r.winners = ()
    try:
        _start_hand(r)
        if first < last:
            r = _play_hand(r, s.history[first], s.prev_tricks, None)
        if over:
            r = _play_hand(r, s.history[last], s.prev_tricks, s.passes)
        else:
            r = _play_current(r, s)
    except IllegalMove as e:
        raise ValueError(f"not a game these rules play: {e.message}") from None
    if r != s:
        field = next(f for f in GameState.__slots__ if f != "t" and getattr(r, f) != getattr(s, f))
        raise ValueError(
            f"not a game these rules play: {field} does not follow from the deal and the play"
        )


def _direction(r: GameState, name: str) -> GameState:
    """The dealer's choice of direction, if this hand asks for one."""
    if r.phase == "direction":
        return apply(r, r.dealer, ChooseDirection(name))
    return r


def _passes(r: GameState, passes: tuple[int, ...]) -> GameState:
    if r.phase == "pass":
        for seat, p in enumerate(passes):
            if p:
                r = apply(r, seat, PassCards(frozenset(cards_of(p))))
    return r


def _plays(r: GameState, tricks: tuple[Trick, ...]) -> GameState:
    double = r.t.game == "double"
    owner = r.t.owner
    for tr in tricks:
        for i, (c, h) in enumerate(zip(tr.cards, tr.holders, strict=True)):
            face = FACES[tr.lead_face] if double and i == 0 else None
            r = apply(r, owner[h], PlayCard(c, face))
    return r


def _play_hand(
    r: GameState, result: HandResult, tricks: tuple[Trick, ...], passes: tuple[int, ...] | None
) -> GameState:
    """Play a whole hand from its deal: ``result`` gives the direction (and the moon choice),
    ``tricks`` the cards; ``passes`` are worked out from the deal and the tricks if not given
    (whatever a seat was dealt and did not play, it passed)."""
    t = r.t
    r = _direction(r, result.direction)
    if r.phase == "pass" and passes is None:
        played = [0] * t.holders
        for tr in tricks:
            for c, h in zip(tr.cards, tr.holders, strict=True):
                played[h] |= 1 << c
        passes = tuple(r.hands[i] & ~played[i] for i in range(t.n))
    r = _passes(r, passes or ())
    r = _plays(r, tricks)
    if r.phase == "moon":
        moon = r
        for choice in ("others", "self"):
            r = apply(moon, moon.moon_shooter, ChooseMoon(choice))
            if r.history[result.hand_no] == result:
                break
    return r


def _play_current(r: GameState, s: GameState) -> GameState:
    if s.phase == "direction":
        return r
    r = _direction(r, direction_name(s.pass_offset, s.t.n))
    r = _passes(r, s.passes)
    return _plays(r, (*s.tricks, Trick(s.trick_cards, s.trick_holders, -1, s.lead_face)))


__all__ = ["check_state"]
