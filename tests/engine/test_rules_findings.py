"""Rule cases found while writing the property tests and golden games (RULES.md section 1).

Each test here failed against the engine when it was written; see the report of the engine
issue's proof for the discussion.
"""

from __future__ import annotations

from app.engine import (
    IllegalMove,
    Layout,
    PlayCard,
    apply,
    card_str,
    legal_moves,
    make_rules,
    mask_of,
    new_game,
    parse_card,
    state_to_json,
)


def cards(text: str) -> int:
    return mask_of(parse_card(c) for c in text.split())


HEARTS = " ".join(rank + "H" for rank in "23456789TJQKA")


def test_a_hand_of_jokers_and_hearts_leads_a_joker_before_hearts_are_broken() -> None:
    """RULES.md section 1: hearts may not be led before they are broken "unless the leader holds
    only hearts", and a joker "may be led only by a hand that holds nothing but jokers (and
    hearts, before hearts are broken)".  A leader holding two jokers and hearts, hearts not
    broken, does not hold only hearts: it must lead a joker, not a heart."""
    r = make_rules("classic-3-jokers", {"passing": "none"})
    s0 = "AC KC QC JK1 JK2 " + HEARTS
    s1 = "2C 4C 6C 8C TC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"
    s2 = "3C 5C 7C 9C JC 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    s = new_game(r, 1, [Layout((cards(s0), cards(s1), cards(s2)), 0)])
    plays = [(1, "2C"), (2, "3C"), (0, "AC"), (0, "KC"), (1, "4C"), (2, "5C")]
    plays += [(0, "QC"), (1, "6C"), (2, "7C")]
    for seat, c in plays:
        s = apply(s, seat, PlayCard(parse_card(c)))
    # seat 0 took the three club tricks and leads, holding JK1 JK2 and the 13 hearts
    assert s.turn == 0 and not s.broken
    legal = sorted(card_str(m.card) for m in legal_moves(s, 0) if isinstance(m, PlayCard))
    assert legal == ["JK1", "JK2"]
    before = state_to_json(s)
    try:
        apply(s, 0, PlayCard(parse_card("2H")))
    except IllegalMove as e:
        assert e.code == "hearts_not_broken"
    else:
        raise AssertionError("a heart was led from jokers and hearts before hearts were broken")
    assert state_to_json(s) == before
