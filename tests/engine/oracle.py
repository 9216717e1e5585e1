"""RULES.md restated as small, slow, obvious code, to check the engine against.

Nothing here reads the engine's tables or calls its legality or scoring: cards are text
(``"QS"``, ``"JK1"``, and ``"QS/3H"`` for a Double Hearts card, Light face first), the rules are
the plain option dict of ``Rules.to_json()``, and every rule is written out again from RULES.md
sections 1-4 and 6.  The property tests and the golden transcripts both use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "CDSH"
GRADED = {"A": 5, "K": 4, "Q": 3, "J": 2}

RulesDict = Mapping[str, object]


def number(r: RulesDict, name: str) -> int:
    """A whole-number option of the rules dict."""
    v = r[name]
    assert isinstance(v, int)
    return v


# --- cards -----------------------------------------------------------------------------------


def faces(card: str) -> tuple[str, ...]:
    """The faces of a card: one, or Light and Dark for a Double Hearts card."""
    return tuple(card.split("/"))


def is_joker(face: str) -> bool:
    return face.startswith("JK")


def rank(face: str) -> int:
    return RANKS.index(face[0])


def suit(face: str) -> str:
    return face[1]


def card_suits(card: str) -> set[str]:
    """Every suit a card counts as (both faces in Double Hearts; none for a joker)."""
    return {suit(f) for f in faces(card) if not is_joker(f)}


def deck(r: RulesDict) -> set[str]:
    """The single-faced cards of the deck in play (a Double Hearts deck is its Light faces)."""
    full = {rk + st for st in SUITS for rk in RANKS}
    game = r["game"]
    if game == "twentyeight":
        return {c for c in full if c[0] in "2468TQA"}
    if game != "classic":
        return full
    removed = {
        "remove_2d": {"2D"},
        "remove_2c": {"2C"},
        "remove_2c_2d": {"2C", "2D"},
    }.get(str(r["deck"]), set())
    out = full - removed
    if r["deck"] == "jokers":
        out |= {"JK1", "JK2"} | ({"JK3"} if r["players"] == 5 else set())
    return out


def hand_size(r: RulesDict) -> int:
    """Cards dealt to each player's hand."""
    game, n = r["game"], number(r, "players")
    if game == "classic":
        jokers = r["deck"] == "jokers"
        return {3: 18 if jokers else 17, 4: 13, 5: 11 if jokers else 10}[n]
    if game == "dummy" or (game == "double" and n == 3):
        return 17
    return 13


# --- values ----------------------------------------------------------------------------------


def face_value(r: RulesDict, face: str) -> int:
    """The points of one face under the table's options (negative for a bonus card)."""
    if is_joker(face):
        return 0
    game = r["game"]
    v = 0
    if suit(face) == "H":
        v = GRADED.get(face[0], 1) if (game == "classic" and r["graded_hearts"]) else 1
    if face == "QS":
        v = 13
    if game == "classic":
        if r["hooligan"] and face == "7C":
            v = 7
        penalties = r["spade_penalties"]
        assert isinstance(penalties, Mapping)
        if face in penalties:
            v = int(penalties[face])
        if face == r["omnibus"]:
            v = -10
    if game == "dummy" and face == "TD":
        v = -10
    return v


def card_value(r: RulesDict, card: str) -> int:
    return sum(face_value(r, f) for f in faces(card))


def positive(r: RulesDict, card: str) -> bool:
    """A card that scores positive on some face: the cards the first-trick bar, must-discard,
    the Double Hearts lead bar and the moon are about."""
    return any(face_value(r, f) > 0 for f in faces(card))


# --- legal play ------------------------------------------------------------------------------


@dataclass
class TrickState:
    """What the legality rules need to know about the hand so far."""

    trick_no: int
    trick: Sequence[str]  # cards played to the current trick, in order
    lead_face: int  # 0 light, 1 dark (Double Hearts)
    broken: bool
    in_play: set[str]  # cards dealt to hands (not dead)
    dealer: int = 0


def led_suit(trick: Sequence[str], lead_face: int) -> str | None:
    """The suit to follow: the leading face's suit, or the first real suit after jokers."""
    for i, c in enumerate(trick):
        f = faces(c)
        if i == 0 and len(f) == 2:
            return suit(f[lead_face])
        if not is_joker(f[0]):
            return suit(f[0])
    return None


def lowest_club(cards: set[str]) -> str:
    clubs = [c for c in cards if faces(c)[0][1:] == "C" and not is_joker(c)]
    return min(clubs, key=lambda c: rank(c))


def _bar(cands: set[str], bad: set[str]) -> set[str]:
    """``cands`` without ``bad``, unless that leaves nothing."""
    rest = cands - bad
    return rest if rest else cands


def breaks_hearts(r: RulesDict, card: str) -> bool:
    """A card whose play to a trick lets later tricks be led with the barred cards."""
    game = r["game"]
    if is_joker(card):
        return False
    if game == "classic":
        return suit(card) == "H" or (card == "QS" and bool(r["queen_breaks_hearts"]))
    if game == "dummy":
        return suit(card) == "H" or card in ("QS", "TD")
    if game == "twentyeight":
        return suit(card) == "H"
    return positive(r, card)  # Double Hearts: a card with a point face


def legal_plays(r: RulesDict, hand: set[str], ts: TrickState) -> set[tuple[str, int | None]]:
    """Every (card, face) the holder may play now; face is 0/1 only for a Double Hearts lead."""
    game = r["game"]
    if game == "double":
        return _double_legal(r, hand, ts)
    cards = _single_legal(r, hand, ts)
    return {(c, None) for c in cards}


def _single_legal(r: RulesDict, hand: set[str], ts: TrickState) -> set[str]:
    game = r["game"]
    first = ts.trick_no == 0
    bar_first = game == "classic" and bool(r["no_points_first_trick"]) and first
    pos = {c for c in hand if positive(r, c)}
    jokers = {c for c in hand if is_joker(c)}
    if not ts.trick:
        fl = r["first_lead"] if game == "classic" else "low_club"
        if first and fl == "low_club":
            low = lowest_club(ts.in_play)
            assert low in hand, "the leader must hold the lowest club"
            return {low}
        if first and fl == "any_club":
            clubs = {c for c in hand if not is_joker(c) and suit(c) == "C"}
            assert clubs
            return _bar(clubs, pos) if bar_first else clubs
        if game == "classic":
            hearts = {c for c in hand if not is_joker(c) and suit(c) == "H"}
            if ts.broken:
                # a joker is led only from a hand of nothing but jokers
                out = _bar(hand, jokers)
            elif hand - jokers - hearts:
                out = hand - jokers - hearts
            elif jokers:
                # nothing but jokers and hearts: a heart may be led only from a hand of nothing
                # but hearts, and this is exactly the hand that may lead a joker
                out = jokers
            else:
                out = set(hand)  # only hearts
        elif game == "dummy":
            scoring = {c for c in hand if suit(c) == "H" or c in ("QS", "TD")}
            out = set(hand) if ts.broken else _bar(hand, scoring)
        else:  # twentyeight
            hearts = {c for c in hand if suit(c) == "H"}
            spades = {c for c in hand if suit(c) == "S"}
            # a heart is led once broken, or from a hand of only hearts and spades
            out = set(hand) if ts.broken or not hand - hearts - spades else hand - hearts
        return _bar(out, pos) if bar_first else out
    led = led_suit(ts.trick, 0)
    if led is None:
        out = set(hand)
    else:
        follow = {c for c in hand if not is_joker(c) and suit(c) == led}
        if follow:
            out = follow
        else:
            out = set(hand)
            if game == "classic" and r["must_discard"] and pos and not bar_first:
                out = pos
    return _bar(out, pos) if bar_first else out


def _double_legal(r: RulesDict, hand: set[str], ts: TrickState) -> set[tuple[str, int | None]]:
    pos = {c for c in hand if positive(r, c)}
    first = ts.trick_no == 0
    if not ts.trick:
        if first:
            # Dark 2C leads, or Dark 3C when 2C is the face-down card
            want = "2C" if any(faces(c)[1] == "2C" for c in ts.in_play) else "3C"
            forced = [c for c in hand if faces(c)[1] == want]
            assert forced, "the leader must hold the forced card"
            return {(forced[0], 1)}
        cands = set(hand) if ts.broken else _bar(hand, pos)
        return {(c, f) for c in cands for f in (0, 1)}
    led = led_suit(ts.trick, ts.lead_face)
    follow = {c for c in hand if led in card_suits(c)}
    out = follow if follow else set(hand)
    if first and r["no_points_first_trick"]:
        out = _bar(out, pos)
    return {(c, None) for c in out}


# --- tricks ----------------------------------------------------------------------------------


def trick_winner(r: RulesDict, cards: Sequence[str], lead_face: int = 0) -> int:
    """Index of the card that takes the trick."""
    game = r["game"]
    if game == "twentyeight":
        hearts = [i for i, c in enumerate(cards) if suit(c) == "H"]
        if hearts:
            return max(hearts, key=lambda i: rank(cards[i]))
    led = led_suit(cards, lead_face)
    assert led is not None
    best = -1
    best_key: tuple[int, int] = (-1, -1)
    for i, c in enumerate(cards):
        f = faces(c)
        for shade, face in enumerate(f):
            if is_joker(face) or suit(face) != led:
                continue
            # twins: the face whose shade matches the leading face is higher
            key = (rank(face), 1 if (len(f) == 1 or shade == lead_face) else 0)
            if key > best_key:
                best, best_key = i, key
    assert best >= 0
    return best


# --- hands -----------------------------------------------------------------------------------


@dataclass
class HandOutcome:
    points: list[int]  # per scorer
    shooter: int  # scorer index, or -1


def hand_points(
    r: RulesDict,
    piles: Sequence[set[str]],
    tricks_won: Sequence[int],
    in_play: set[str],
    moon_choice: str | None = None,
) -> HandOutcome:
    """Each scorer's points for a finished hand from the cards each took (before exact reset).

    ``piles`` and ``tricks_won`` are per scorer (the dummy game's third scorer is the dummy);
    ``in_play`` is every card that was dealt to a hand, ``moon_choice`` the shooter's pick when
    the table lets the shooter choose."""
    game = r["game"]
    players = number(r, "players")
    plus = [sum(max(face_value(r, f), 0) for c in p for f in faces(c)) for p in piles]
    bonus = [sum(min(face_value(r, f), 0) for c in p for f in faces(c)) for p in piles]
    if game == "classic" and r["no_trick_bonus"]:
        bonus = [b - 5 if tricks_won[i] == 0 else b for i, b in enumerate(bonus)]
    need = {c for c in in_play if positive(r, c)}
    shooter = -1
    for i in range(players):  # never the dummy
        if need <= piles[i]:
            shooter = i
    if shooter < 0:
        return HandOutcome([p + b for p, b in zip(plus, bonus, strict=True)], -1)
    total = plus[shooter]
    if game == "twentyeight":
        pts = [0 if i == shooter else 20 for i in range(len(piles))]
    elif game == "dummy":
        pts = [-26 if i == shooter else p for i, p in enumerate(plus)]
        assert total == 26
    elif game == "double":
        pts = [0 if i == shooter else 52 for i in range(len(piles))]
        assert total == 52
    else:
        how = r["moon"] if r["moon"] != "choice" else moon_choice
        assert how in ("others", "self"), f"the shooter's choice is missing ({how!r})"
        if how == "self":
            pts = [-total if i == shooter else p for i, p in enumerate(plus)]
        else:
            pts = [0 if i == shooter else p + total for i, p in enumerate(plus)]
    return HandOutcome([p + b for p, b in zip(pts, bonus, strict=True)], shooter)


def auto_end_due(r: RulesDict, hands: Sequence[set[str]], tricks_won: Sequence[int]) -> bool:
    """With the ``auto_end`` option, after a trick: the hand ends by itself when no card left in
    any hand (or half dummy) scores on any face, and, with the no-trick bonus, every player has
    taken a trick (``tricks_won`` per scorer).  The unplayed cards then go to the pile of each
    holder's scorer (they score nothing)."""
    if not r["auto_end"]:
        return False
    if any(face_value(r, f) != 0 for h in hands for c in h for f in faces(c)):
        return False
    players = number(r, "players")
    return not (r["game"] == "classic" and r["no_trick_bonus"] and 0 in tricks_won[:players])


def new_totals(r: RulesDict, old: Sequence[int], points: Sequence[int]) -> list[int]:
    """Totals after a hand: exact reset drops a player who reaches exactly 50 or 100 by 50."""
    out = [o + p for o, p in zip(old, points, strict=True)]
    if r["game"] == "classic" and r["exact_reset"]:
        out = [v - 50 if v in (50, 100) and v != o else v for v, o in zip(out, old, strict=True)]
    return out


def game_over(r: RulesDict, totals: Sequence[int], hands_played: int) -> bool:
    if r["end"] == "hands":
        return hands_played >= number(r, "hands")
    if max(totals) < number(r, "target_score"):
        return False
    if r["game"] == "twentyeight":
        return totals[0] != totals[1]  # equal totals play on
    return True


def winners(totals: Sequence[int]) -> list[int]:
    low = min(totals)
    return [i for i, v in enumerate(totals) if v == low]
