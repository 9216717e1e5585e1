"""Building exact positions for rule tests."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from app.engine import (
    GameState,
    IllegalMove,
    Layout,
    Rules,
    apply,
    make_rules,
    parse_card,
    state_to_json,
    tables_for,
)
from app.engine.moves import PlayCard


def code_of(s: GameState, seat: int, move: object) -> str:
    """The reason code ``apply`` refuses ``move`` with; the state must be left unchanged."""
    before = state_to_json(s)
    with pytest.raises(IllegalMove) as e:
        apply(s, seat, move)  # type: ignore[arg-type]
    assert state_to_json(s) == before
    return e.value.code


def pc(text: str, face: str | None = None) -> PlayCard:
    return PlayCard(parse_card(text), face)


def cards(text: str) -> int:
    m = 0
    for t in text.split():
        m |= 1 << parse_card(t)
    return m


def layout(
    rules: Rules, fixed: Mapping[int, str], dead: str | None = None, seed: int = 0
) -> Layout:
    """A legal deal with the given cards in the given holders; the rest dealt at random."""
    t = tables_for(rules)
    hands = [cards(fixed.get(h, "")) for h in range(t.holders)]
    want = [t.hand_size] * t.n + ([9, 9] if t.game == "dummy" else [])
    used = 0
    for h in hands:
        used |= h
    dead_mask = cards(dead) if dead is not None else 0
    used |= dead_mask
    rest = [c for c in t.deck_cards if not used >> c & 1]
    random.Random(seed).shuffle(rest)
    n_dead = {"twentyeight": 2}.get(t.game, 0)
    if t.game == "double" and t.n == 3:
        n_dead = 1
    while dead is None and dead_mask.bit_count() < n_dead:
        dead_mask |= 1 << rest.pop()
    for i in range(t.holders):
        while hands[i].bit_count() < want[i]:
            hands[i] |= 1 << rest.pop()
    assert not rest, "the fixed cards over-fill the hands"
    return Layout(tuple(hands), dead_mask)


def game(
    preset: str,
    fixed: Mapping[int, str],
    options: Mapping[str, object] | None = None,
    dead: str | None = None,
) -> GameState:
    from app.engine import new_game

    r = make_rules(preset, options)
    return new_game(r, 7, [layout(r, fixed, dead)])


def play(s: GameState, *moves: str) -> GameState:
    """Play cards in turn order: ``play(s, "2C", "3C", ...)``; ``"KC:dark"`` names a face."""
    for m in moves:
        seat = s.t.owner[s.turn]
        name, _, face = m.partition(":")
        s = apply(s, seat, PlayCard(parse_card(name), face or None))
    return s


def at_last_trick(
    preset: str,
    last: Sequence[str],
    taken: Sequence[str],
    won: Sequence[int],
    options: Mapping[str, object] | None = None,
    leader: int = 0,
) -> GameState:
    """A position at the last trick: each seat holds one card (``last``), the scorers have taken
    ``taken`` and won ``won`` tricks; hearts are broken."""
    r = make_rules(preset, options)
    from app.engine import new_game

    s = new_game(r, 1)._clone()
    t = s.t
    s.phase = "play"
    s.hands = tuple(cards(x) for x in last)
    s.taken = tuple(cards(x) for x in taken)
    s.won = tuple(won)
    s.trick_no = t.hand_size - 1
    s.broken = True
    s.first_lead_mask = 0
    s.order = t.orders[leader]
    s.trick_cards = ()
    s.trick_holders = ()
    s.led_suit = -1
    s.dead = 0
    return s
