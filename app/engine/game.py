"""The rules of play: the deal, passing, legal cards, tricks, the end of a hand (totals, the
moon, dealer rotation) and the end of the game.

``GameState`` (``state``) is immutable by contract: ``apply_move`` returns a new state and
leaves the old one as it was.  Card sets are bit masks (see ``cards``); the rules are read
from ``Tables``; a hand's points are ``scoring``'s.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from .cards import (
    DARK_FACE,
    LIGHT_OF_DARK,
    bit,
    card,
    card_str,
    lowest,
    mask_str,
)
from .errors import IllegalMove
from .moves import ChooseDirection, ChooseMoon, Move, PassCards, PlayCard
from .refusals import why_illegal
from .rules import Rules
from .scoring import auto_end_due, hand_points, settle_moon
from .state import (
    _DIRECTION_OFFSET,
    GameState,
    HandResult,
    Layout,
    Trick,
    check_layout,
)
from .tables import DARK, LIGHT, Tables, direction_name, tables_for

# --- dealing -------------------------------------------------------------------------------


def _deal(t: Tables, seed: int, hand_no: int) -> Layout:
    rng = random.Random(f"hearts:{seed}:{hand_no}")
    deck = list(t.deck_cards)
    rng.shuffle(deck)
    n = t.n
    if t.game == "dummy":
        hands = [deck[0:17], deck[17:34], deck[34:43], deck[43:52]]
        return Layout(tuple(_m(h) for h in hands), 0)
    if t.game == "twentyeight":
        return Layout((_m(deck[1:14]), _m(deck[14:27])), _m([deck[0], deck[27]]))
    size = t.hand_size
    hands = [deck[i * size : (i + 1) * size] for i in range(n)]
    return Layout(tuple(_m(h) for h in hands), _m(deck[n * size :]))


def _m(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def new_game(rules: Rules, seed: int, layouts: Sequence[Layout] = ()) -> GameState:
    """A new game; hand ``k`` is dealt from ``layouts[k]`` if given, else from the seed."""
    t = tables_for(rules)
    for lay in layouts:
        check_layout(lay, t)
    s = object.__new__(GameState)
    s.rules = rules
    s.t = t
    s.seed = seed
    s.layouts = tuple(layouts)
    s.hand_no = -1
    s.dealer = t.n - 1  # so the first hand's dealer is seat 0
    s.scores = (0,) * t.scorers
    s.history = ()
    s.prev_tricks = ()
    s.winners = ()
    _start_hand(s)
    return s


def _start_hand(s: GameState) -> None:
    """Deal the next hand into ``s`` (a fresh clone) and open passing or play."""
    t = s.t
    s.hand_no += 1
    s.dealer = (s.dealer + 1) % t.n
    lay = s.layouts[s.hand_no] if s.hand_no < len(s.layouts) else _deal(t, s.seed, s.hand_no)
    s.hands = lay.hands
    s.dead = lay.dead
    s.passes = (0,) * t.n
    s.trick_cards = ()
    s.trick_holders = ()
    s.order = ()
    s.led_suit = -1
    s.lead_face = LIGHT
    s.first_lead_mask = 0
    s.joker = -1
    s.broken = False
    s.trick_no = 0
    s.tricks = ()
    s.taken = (0,) * t.scorers
    s.won = (0,) * t.scorers
    s.moon_shooter = -1
    s.pending = ()
    cycle = t.pass_cycle
    if cycle is None:
        s.phase = "direction"
        s.pass_offset = 0
        return
    s.pass_offset = cycle[s.hand_no % len(cycle)]
    if s.pass_offset:
        s.phase = "pass"
    else:
        _start_play(s)


def _start_play(s: GameState) -> None:
    t = s.t
    s.phase = "play"
    hands = s.hands
    if t.game == "double":
        # the card whose Dark face is 2C leads, Dark face up (3C if 2C is face down)
        lead = LIGHT_OF_DARK[card("2", "C")]
        if s.dead >> lead & 1:
            lead = LIGHT_OF_DARK[card("3", "C")]
        leader = _holder_of(hands, lead)
        s.first_lead_mask = bit(lead)
        s.lead_face = DARK
        s.order = t.orders[leader]
        return
    in_play = t.deck & ~s.dead
    low_club = lowest(in_play & t.clubs)
    if t.game == "dummy":
        holder = _holder_of(hands, low_club)
        # the Joker: a half dummy's owner if it holds 2C, else the non-dealer
        s.joker = holder - 2 if holder >= 2 else 1 - s.dealer
        s.first_lead_mask = bit(low_club)
        s.order = _dummy_order(holder, s.joker)
        return
    fl = s.rules.first_lead if t.game == "classic" else "low_club"
    if fl == "left_of_dealer":
        leader = (s.dealer + 1) % t.n
        s.first_lead_mask = 0
    else:
        leader = _holder_of(hands, low_club)
        s.first_lead_mask = bit(low_club) if fl == "low_club" else t.clubs
    s.order = t.orders[leader]


def _holder_of(hands: tuple[int, ...], c: int) -> int:
    b = 1 << c
    for i, h in enumerate(hands):
        if h & b:
            return i
    raise AssertionError(f"{card_str(c)} is in no hand")


def _dummy_order(leader: int, joker: int) -> tuple[int, ...]:
    """Three cards a trick: a player leads, then the Joker holder's half dummy, then the other
    player; a half dummy leads, then the Joker holder's hand, then the other player."""
    if leader < 2:
        return (leader, 2 + joker, 1 - leader)
    return (2 + joker, joker, 1 - joker)


# --- legal play ----------------------------------------------------------------------------


def legal_mask(
    t: Tables,
    hand: int,
    trick_no: int,
    n_played: int,
    led_suit: int,
    broken: bool,
    first_lead_mask: int,
) -> int:
    """The cards of ``hand`` that may be played now; one step per rule."""
    if n_played == 0:
        if trick_no == 0 and first_lead_mask:
            m = hand & first_lead_mask
            if m:
                if not first_lead_mask & (first_lead_mask - 1):
                    return m  # one forced card (2C): it stands even if a face of it scores
                p = m & ~t.pos_mask  # any club: no points on the first trick still holds
                return p if p and t.first_trick_bar else m
        bar = t.jokers
        exempt = t.jokers
        if not broken:
            bar |= t.lead_bar
            exempt |= t.lead_exempt
        if hand & ~exempt:
            m = hand & ~bar
        else:
            # nothing ordinary to lead: jokers first (so a joker spares unbroken hearts),
            # else the barred cards themselves
            m = hand & t.jokers or hand
    elif led_suit < 0:
        m = hand  # only jokers so far: any card, the first real suit sets the suit
    else:
        m = hand & t.follow[led_suit]
        if not m:
            m = hand
            if t.must_discard and not (trick_no == 0 and t.first_trick_bar):
                p = m & t.pos_mask
                if p:
                    m = p
    if trick_no == 0 and t.first_trick_bar:
        p = m & ~t.pos_mask
        if p:
            m = p
    return m


# --- applying moves ------------------------------------------------------------------------


def seats_to_act(s: GameState) -> tuple[int, ...]:
    """Seats that may move now (several while passing)."""
    if s.phase == "play":
        return (s.t.owner[s.order[len(s.trick_cards)]],)
    if s.phase == "pass":
        return tuple(i for i in range(s.t.n) if not s.passes[i])
    if s.phase == "direction":
        return (s.dealer,)
    if s.phase == "moon":
        return (s.moon_shooter,)
    return ()


def _check_seat(s: GameState, seat: int) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s.t.n:
        raise IllegalMove("bad_seat", f"there is no seat {seat!r} at this table")
    if s.phase == "over":
        raise IllegalMove("game_over", "the game is over")


def _wrong_phase(s: GameState, what: str) -> IllegalMove:
    now = {
        "direction": "the dealer is choosing the pass direction",
        "pass": "players are passing cards",
        "play": "cards are being played",
        "moon": "the moon shooter is choosing how to score",
        "over": "the game is over",
    }[s.phase]
    return IllegalMove("wrong_phase", f"you cannot {what} now: {now}")


def _apply_play(s: GameState, seat: int, move: PlayCard) -> GameState:
    if s.phase != "play":
        raise _wrong_phase(s, "play a card")
    t = s.t
    holder = s.order[len(s.trick_cards)]
    if t.owner[holder] != seat:
        raise IllegalMove("not_your_turn", "it is not your turn")
    c = move.card
    if not isinstance(c, int) or not 0 <= c < 55:
        raise IllegalMove("bad_move", "no such card")
    hand = s.hands[holder]
    b = 1 << c
    if not hand & b:
        if t.game == "dummy":
            other = holder + 2 if holder < 2 else holder - 2
            if s.hands[other] & b and holder >= 2:
                raise IllegalMove(
                    "wrong_hand",
                    "this card must come from your half dummy",
                    {"reason": "half_dummy"},
                )
            if s.hands[other] & b:
                raise IllegalMove("wrong_hand", "this card must come from your hand")
        raise IllegalMove(
            "card_not_in_hand", f"{card_str(c)} is not in your hand", {"card": card_str(c)}
        )
    lead = not s.trick_cards
    face = move.face
    if t.game == "double" and lead:
        if face is None:
            raise IllegalMove("face_required", "name the face that leads: light or dark")
        if s.trick_no == 0 and s.first_lead_mask and face != "dark":
            raise IllegalMove(
                "must_lead_card",
                "the first lead is the Dark face of this card",
                {"reason": "dark", "card": card_str(DARK_FACE[c])},
            )
    elif face is not None:
        raise IllegalMove("bad_move", "only the leader in Double Hearts names a face")
    m = legal_mask(t, hand, s.trick_no, len(s.trick_cards), s.led_suit, s.broken, s.first_lead_mask)
    if not m & b:
        raise why_illegal(s, hand, c)
    n = s._clone()
    _play(n, holder, c, DARK if face == "dark" else LIGHT)
    return n


def _play(s: GameState, holder: int, c: int, face: int) -> None:
    """Play a legal card into the clone ``s``."""
    t = s.t
    hands = list(s.hands)
    hands[holder] &= ~(1 << c)
    s.hands = tuple(hands)
    if not s.trick_cards:
        s.lead_face = face
    s.led_suit = next_led_suit(t, s.led_suit, len(s.trick_cards), c, face)
    s.trick_cards = s.trick_cards + (c,)
    s.trick_holders = s.trick_holders + (holder,)
    if len(s.trick_cards) == len(s.order):
        _finish_trick(s)


def next_led_suit(t: Tables, led_suit: int, n_played: int, c: int, face: int) -> int:
    """The suit to follow once ``c`` is played as card number ``n_played`` of the trick; in
    Double Hearts ``face`` names the leading face.  A joker sets no suit (-1)."""
    if n_played == 0:
        if t.game == "double":
            return (DARK_FACE[c] if face == DARK else c) // 13
        return c // 13 if c < 52 else -1
    if led_suit < 0 and c < 52:
        return c // 13
    return led_suit


def trick_winner(t: Tables, cards: Sequence[int], led_suit: int, lead_face: int) -> int:
    """Index in ``cards`` of the card that takes the trick."""
    key = t.key[lead_face][led_suit]
    best = 0
    best_key = -1
    for i, c in enumerate(cards):
        k = key[c]
        if k > best_key:
            best, best_key = i, k
    return best


def _finish_trick(s: GameState) -> None:
    t = s.t
    cards = s.trick_cards
    wi = trick_winner(t, cards, s.led_suit, s.lead_face)
    winner = s.trick_holders[wi]
    m = _m(cards)
    scorer = t.scorer_of[winner]
    if s.trick_no == 0 and t.game == "double" and s.dead:
        m |= s.dead  # the face-down card of the 3-player game goes with the first trick
    taken = list(s.taken)
    taken[scorer] |= m
    s.taken = tuple(taken)
    won = list(s.won)
    won[scorer] += 1
    s.won = tuple(won)
    if _m(cards) & t.breakers:
        s.broken = True
    s.tricks = s.tricks + (Trick(cards, s.trick_holders, winner, s.lead_face),)
    s.trick_no += 1
    s.trick_cards = ()
    s.trick_holders = ()
    s.led_suit = -1
    s.lead_face = LIGHT
    if not any(s.hands[: t.n]):
        _end_hand(s)
        return
    if t.rules.auto_end and auto_end_due(t, s.hands, s.won):
        # nothing left can change a score: the cards are not played; each holder's go unplayed
        # to its scorer's pile (they score nothing), no trick is counted for them
        taken = list(s.taken)
        for h, m in enumerate(s.hands):
            taken[t.scorer_of[h]] |= m
        s.taken = tuple(taken)
        s.hands = (0,) * len(s.hands)
        _end_hand(s)
        return
    if t.game == "dummy":
        s.joker = 1 - s.joker
        s.order = _dummy_order(winner if winner < 2 else 2, s.joker)
    else:
        s.order = t.orders[winner]


def _end_hand(s: GameState) -> None:
    t = s.t
    if t.game == "dummy":
        # the card left in a half dummy goes to the dummy's tricks
        rest = s.hands[2] | s.hands[3]
        taken = list(s.taken)
        taken[2] |= rest
        s.taken = tuple(taken)
        s.hands = (0, 0, 0, 0)
    # the 3-player Double Hearts face-down card is in play (it joins the first trick)
    in_play = t.deck if t.game == "double" else t.deck & ~s.dead
    points, bonus, shooter = hand_points(t, s.taken, s.won, in_play)
    s.moon_shooter = shooter
    if shooter >= 0 and t.game == "classic" and s.rules.moon == "choice":
        s.phase = "moon"
        s.pending = tuple(points) + tuple(bonus)
        return
    _close_hand(s, settle_moon(t, points, bonus, shooter, s.rules.moon))


def _close_hand(s: GameState, points: Sequence[int]) -> None:
    t = s.t
    old = s.scores
    totals = [a + b for a, b in zip(old, points, strict=True)]
    if s.rules.exact_reset and t.game == "classic":
        totals = [
            v - 50 if v in (50, 100) and v != o else v for v, o in zip(totals, old, strict=True)
        ]
    s.scores = tuple(totals)
    s.history = s.history + (
        HandResult(
            s.hand_no,
            s.dealer,
            direction_name(s.pass_offset, t.n),
            tuple(v - o for v, o in zip(totals, old, strict=True)),
            s.moon_shooter,
            s.scores,
            s.dead,
            s.won,
        ),
    )
    s.prev_tricks = s.tricks
    if _game_over(s):
        low = min(s.scores)
        s.winners = tuple(i for i, v in enumerate(s.scores) if v == low)
        s.phase = "over"
        s.order = ()
        s.pending = ()
        return
    _start_hand(s)


def _game_over(s: GameState) -> bool:
    r = s.rules
    if r.end == "hands":
        return len(s.history) >= r.hands
    if max(s.scores) < r.target_score:
        return False
    if s.t.game == "twentyeight":
        return s.scores[0] != s.scores[1]  # equal totals play on
    return True


def _apply_pass(s: GameState, seat: int, move: PassCards) -> GameState:
    if s.phase != "pass":
        raise _wrong_phase(s, "pass cards")
    t = s.t
    if s.passes[seat]:
        raise IllegalMove("already_passed", "you have already passed")
    cards = move.cards
    if len(cards) != t.pass_count:
        raise IllegalMove(
            "wrong_pass_count", f"pass exactly {t.pass_count} cards", {"count": t.pass_count}
        )
    m = 0
    for c in cards:
        if not isinstance(c, int) or not 0 <= c < 55:
            raise IllegalMove("bad_move", "no such card")
        m |= 1 << c
    hand = s.hands[seat]
    if m & ~hand:
        missing = ", ".join(mask_str(m & ~hand))
        raise IllegalMove("card_not_in_hand", f"not in your hand: {missing}")
    if m & t.pass_forbidden:
        bad = ", ".join(mask_str(m & t.pass_forbidden))
        raise IllegalMove("pass_forbidden_card", f"these cards may not be passed: {bad}")
    n = s._clone()
    passes = list(s.passes)
    passes[seat] = m
    n.passes = tuple(passes)
    if all(passes):
        k = t.n
        d = s.pass_offset
        hands = list(s.hands)
        for i in range(k):
            hands[i] = (hands[i] & ~passes[i]) | passes[(i - d) % k]
        n.hands = tuple(hands)
        _start_play(n)
    return n


def _apply_direction(s: GameState, seat: int, move: ChooseDirection) -> GameState:
    if s.phase != "direction":
        raise _wrong_phase(s, "choose the pass direction")
    if seat != s.dealer:
        raise IllegalMove("not_your_turn", "the dealer chooses the pass direction")
    t = s.t
    off = _DIRECTION_OFFSET.get(move.direction)
    if off is None or (move.direction == "across" and t.n != 4):
        raise IllegalMove("bad_direction", f"{move.direction!r} is not a direction at this table")
    n = s._clone()
    n.pass_offset = off % t.n
    if n.pass_offset:
        n.phase = "pass"
    else:
        _start_play(n)
    return n


# Each _apply_ opens with its phase and its seat checks, one per rule (the cascade form):
# alike in form, each its own rule.
def _apply_moon(s: GameState, seat: int, move: ChooseMoon) -> GameState:
    if s.phase != "moon":
        raise _wrong_phase(s, "choose how to score the moon")
    if seat != s.moon_shooter:
        raise IllegalMove("not_your_turn", "only the player who shot the moon chooses")
    if move.choice not in ("self", "others"):
        raise IllegalMove("bad_move", "choice is 'self' or 'others'")
    k = s.t.scorers
    points = settle_moon(s.t, s.pending[:k], s.pending[k:], seat, move.choice)
    n = s._clone()
    _close_hand(n, points)
    return n


def passable_cards(s: GameState, seat: int) -> int:
    """Mask of the cards ``seat`` may pass now (0 when it has nothing to pass)."""
    if s.phase != "pass" or not 0 <= seat < s.t.n or s.passes[seat]:
        return 0
    return s.hands[seat] & ~s.t.pass_forbidden


def playable_mask(s: GameState, seat: int) -> int:
    """Mask of the cards ``seat`` may play now (0 when it is not their turn)."""
    if s.phase != "play":
        return 0
    holder = s.order[len(s.trick_cards)]
    if s.t.owner[holder] != seat:
        return 0
    return legal_mask(
        s.t,
        s.hands[holder],
        s.trick_no,
        len(s.trick_cards),
        s.led_suit,
        s.broken,
        s.first_lead_mask,
    )


def apply_move(s: GameState, seat: int, move: Move) -> GameState:
    """Validate ``move`` (a pass, a card, a direction or a moon choice) by ``seat`` and return
    the new state; ``s`` is never changed. Claims go through ``play.apply``."""
    _check_seat(s, seat)
    if type(move) is PlayCard:
        return _apply_play(s, seat, move)
    if type(move) is PassCards:
        return _apply_pass(s, seat, move)
    if type(move) is ChooseDirection:
        return _apply_direction(s, seat, move)
    if type(move) is ChooseMoon:
        return _apply_moon(s, seat, move)
    raise IllegalMove("bad_move", f"not a move: {move!r}")
