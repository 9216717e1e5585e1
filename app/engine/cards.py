"""Cards as small integers, and sets of cards as bit masks.

A card is ``suit * 13 + rank`` with suits ``C D S H`` (0..3) and ranks ``2..A`` (0..12); the
jokers are 52, 53 and 54.  A set of cards is an ``int`` whose bit ``c`` is set when card ``c`` is
in the set: following suit, finding the lowest card or testing for points are then one or two
integer operations, which is what keeps the engine and the bots' playouts fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "CDSH"
RANKS = "23456789TJQKA"
SUIT_NAMES = ("clubs", "diamonds", "spades", "hearts")
RANK_NAMES = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
CLUBS, DIAMONDS, SPADES, HEARTS = 0, 1, 2, 3
JOKERS = (52, 53, 54)
N_CARDS = 55

SUIT_MASK = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
JOKER_MASK = (1 << 52) | (1 << 53) | (1 << 54)
FULL_DECK = (1 << 52) - 1


def card(rank: str, suit: str) -> int:
    return SUITS.index(suit) * 13 + RANKS.index(rank)


def suit_of(c: int) -> int:
    """The suit of a card, or -1 for a joker."""
    return c // 13 if c < 52 else -1


def rank_of(c: int) -> int:
    return c % 13 if c < 52 else -1


def card_str(c: int) -> str:
    if 52 <= c < N_CARDS:
        return f"JK{c - 51}"
    if not 0 <= c < 52:
        raise ValueError(f"no card has index {c}")
    return RANKS[c % 13] + SUITS[c // 13]


def card_name(c: int) -> str:
    """Words for a screen reader: ``queen of spades``."""
    if c >= 52:
        return "joker"
    return f"{RANK_NAMES[c % 13]} of {SUIT_NAMES[c // 13]}"


def parse_card(text: str) -> int:
    """``"QS"`` -> the queen of spades; ``"10H"`` is accepted for ``"TH"``; ``"JK1"`` a joker."""
    if not isinstance(text, str):
        raise ValueError(f"a card is written like 'QS', not {text!r}")
    t = text.strip().upper()
    if t.startswith("JK") and t[2:] in ("1", "2", "3"):
        return 51 + int(t[2:])
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(f"{text!r} is not a card (write rank then suit, like 'QS' or 'TD')")
    return card(t[0], t[1])


def bit(c: int) -> int:
    return 1 << c


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest index first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def card_list(mask: int) -> list[int]:
    return list(cards_of(mask))


def mask_str(mask: int) -> list[str]:
    return [card_str(c) for c in cards_of(mask)]


def parse_mask(texts: Iterable[str]) -> int:
    return mask_of(parse_card(t) for t in texts)


def lowest(mask: int) -> int:
    """The lowest card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """The highest card of a non-empty mask."""
    return mask.bit_length() - 1


# --- Double Hearts: the fixed pairing of Light and Dark faces -------------------------------
#
# RULES.md section 4 asks for one pairing in which every ace backs an ace, every card ranked 8 or
# more backs one ranked 7 or less, and no card has one suit on both faces.  Ours: the Dark face of
# a Light card has the mirrored rank (2<->K, 3<->Q, 4<->J, 5<->T, 6<->9, 7<->8, A<->A) and the
# next suit in the order C, D, S, H, C (so Light QS backs Dark 3H, Light 3D backs Dark QS).  A card
# is named by its Light face.


def _dark_of(c: int) -> int:
    s, r = divmod(c, 13)
    dr = 12 if r == 12 else 11 - r
    return ((s + 1) % 4) * 13 + dr


DARK_FACE: tuple[int, ...] = tuple(_dark_of(c) for c in range(52))
LIGHT_OF_DARK: tuple[int, ...] = tuple(DARK_FACE.index(d) for d in range(52))


def dark_face(c: int) -> int:
    return DARK_FACE[c]


def double_card_str(c: int) -> str:
    return f"{card_str(c)}/{card_str(DARK_FACE[c])}"
