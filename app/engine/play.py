"""The engine's way in for a move, claims included, and what a seat may do now.

``apply`` dispatches a claim to ``claim`` (its exact search uses the rules of ``game``) and
every other move to ``game.apply_move``; ``replay`` rebuilds a game from its moves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from .cards import cards_of
from .claim import apply_claim
from .game import _check_seat, apply_move, new_game, passable_cards, playable_mask
from .moves import PLAY, PLAY_FACE, ChooseDirection, ChooseMoon, Claim, Move, PassCards
from .rules import Rules
from .state import GameState, Layout
from .tables import DARK


def apply(s: GameState, seat: int, move: Move) -> GameState:
    """Validate ``move`` by ``seat`` and return the new state; ``s`` is never changed."""
    if type(move) is Claim:
        _check_seat(s, seat)
        return apply_claim(s, seat)
    return apply_move(s, seat, move)


# --- listing legal moves -------------------------------------------------------------------


def legal_moves(s: GameState, seat: int) -> list[Move]:
    """Exactly the moves ``apply`` accepts from ``seat`` now."""
    if not 0 <= seat < s.t.n:
        return []
    if s.phase == "play":
        m = playable_mask(s, seat)
        if s.t.game == "double" and not s.trick_cards:
            if s.trick_no == 0 and s.first_lead_mask:
                return [PLAY_FACE[c][DARK] for c in cards_of(m)]
            return [mv for c in cards_of(m) for mv in PLAY_FACE[c]]
        out: list[Move] = []
        while m:
            low = m & -m
            out.append(PLAY[low.bit_length() - 1])
            m ^= low
        return out
    if s.phase == "pass":
        can = passable_cards(s, seat)
        return [PassCards(frozenset(c)) for c in combinations(cards_of(can), s.t.pass_count)]
    if s.phase == "direction":
        if seat != s.dealer:
            return []
        names = ["left", "right", "across", "hold"] if s.t.n == 4 else ["left", "right", "hold"]
        return [ChooseDirection(d) for d in names]
    if s.phase == "moon":
        return [ChooseMoon("self"), ChooseMoon("others")] if seat == s.moon_shooter else []
    return []


def replay(
    rules: Rules, seed: int, moves: Iterable[tuple[int, Move]], layouts: Sequence[Layout] = ()
) -> GameState:
    """The state reached by playing ``moves`` from a new game: replays are exact."""
    s = new_game(rules, seed, layouts)
    for seat, mv in moves:
        s = apply(s, seat, mv)
    return s
