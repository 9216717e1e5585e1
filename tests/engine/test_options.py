"""One test (or a few) per rule option of RULES.md section 1, with the edge cases."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine import (
    ChooseDirection,
    ChooseMoon,
    GameState,
    PassCards,
    RulesError,
    apply,
    describe_options,
    legal_moves,
    make_rules,
    new_game,
    parse_card,
    seats_to_act,
    view,
)

from .helpers import at_last_trick, cards, code_of, game, pc, play

NOPASS = {"passing": "none"}
VOID_CLUBS = "QS AH 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"


# --- players and decks -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "size", "removed", "leader_card"),
    [
        ("classic", 13, "", "2C"),
        ("classic-3", 17, "2D", "2C"),
        ("classic-3-jokers", 18, "", "2C"),
        ("classic-5", 10, "2C 2D", "3C"),
        ("classic-5-jokers", 11, "", "2C"),
    ],
)
def test_decks_by_player_count(preset: str, size: int, removed: str, leader_card: str) -> None:
    s = new_game(make_rules(preset, NOPASS), 3)
    assert all(h.bit_count() == size for h in s.hands)
    everything = 0
    for h in s.hands:
        everything |= h
    assert everything & cards(removed) == 0 if removed else True
    assert s.first_lead_mask == cards(leader_card)
    assert s.hands[s.turn] & cards(leader_card)


def test_three_players_remove_2c_lead_3c() -> None:
    s = new_game(make_rules("classic", {"players": 3, "deck": "remove_2c"} | NOPASS), 1)
    assert s.first_lead_mask == cards("3C")
    assert all(h.bit_count() == 17 for h in s.hands)


def test_bad_deck_for_player_count() -> None:
    with pytest.raises(RulesError) as e:
        make_rules("classic", {"players": 5, "deck": "remove_2d"})
    assert "deck" in e.value.message


# --- passing -----------------------------------------------------------------------------


def _directions(preset: str, options: dict[str, object], hands: int) -> list[str]:
    s = new_game(make_rules(preset, options), 5)
    out = []
    for _ in range(hands):
        out.append(s.pass_direction)
        s = s._clone()
        from app.engine.game import _start_hand

        _start_hand(s)
    return out


def test_pass_cycle_four_players() -> None:
    assert _directions("classic", {}, 5) == ["left", "right", "across", "hold", "left"]


def test_pass_cycle_three_and_five_players_skip_across() -> None:
    assert _directions("classic-3", {}, 4) == ["left", "right", "hold", "left"]
    assert _directions("classic-5", {}, 4) == ["left", "right", "hold", "left"]


@pytest.mark.parametrize(
    ("passing", "want"),
    [
        ("left", ["left", "left"]),
        ("right", ["right", "right"]),
        ("lr", ["left", "right", "left"]),
        ("lra", ["left", "right", "across", "left"]),
        ("none", ["hold", "hold"]),
    ],
)
def test_pass_cycles(passing: str, want: list[str]) -> None:
    assert _directions("classic", {"passing": passing}, len(want)) == want


def test_across_impossible_with_three_players() -> None:
    with pytest.raises(RulesError):
        make_rules("classic-3", {"passing": "lra"})


def test_passing_is_hidden_until_everyone_has_passed() -> None:
    s = new_game(make_rules("classic"), 11)
    given = frozenset([c for c in range(52) if s.hands[0] >> c & 1][:3])
    s = apply(s, 0, PassCards(given))
    v1 = view(s, 1)
    assert "received" not in v1 and v1["passed"] == [True, False, False, False]
    assert view(s, 0)["passed_cards"]
    for seat in (1, 2, 3):
        mv = legal_moves(s, seat)[0]
        s = apply(s, seat, mv)
    assert s.phase == "play"
    got = view(s, 1)["received"]
    assert sorted(parse_card(c) for c in got) == sorted(given)  # type: ignore[union-attr]


def test_pass_count_and_validation() -> None:
    s = new_game(make_rules("classic-5"), 2)
    assert s.pass_count == 2
    hand = [c for c in range(52) if s.hands[0] >> c & 1]
    assert code_of(s, 0, PassCards(frozenset(hand[:3]))) == "wrong_pass_count"
    other = [c for c in range(52) if s.hands[1] >> c & 1]
    assert code_of(s, 0, PassCards(frozenset(other[:2]))) == "card_not_in_hand"
    s = apply(s, 0, PassCards(frozenset(hand[:2])))
    assert code_of(s, 0, PassCards(frozenset(hand[2:4]))) == "already_passed"
    assert code_of(s, 1, pc("2C")) == "wrong_phase"


def test_pass_limit_forbids_spades() -> None:
    s = game("classic", {0: "QS AS 2H 3H"}, {"pass_forbidden": ["QS", "AS"]})
    trio = frozenset(parse_card(c) for c in ("QS", "2H", "3H"))
    assert code_of(s, 0, PassCards(trio)) == "pass_forbidden_card"
    assert all(
        not m.cards & {parse_card("QS"), parse_card("AS")}  # type: ignore[union-attr]
        for m in legal_moves(s, 0)
    )
    apply(s, 0, PassCards(frozenset(parse_card(c) for c in ("2H", "3H")) | _third(s)))


def _third(s: object) -> frozenset[int]:
    h = s.hands[0] & ~cards("QS AS 2H 3H")  # type: ignore[attr-defined]
    return frozenset([(h & -h).bit_length() - 1])


def test_dealers_choice() -> None:
    s = new_game(make_rules("classic", {"passing": "dealer"}), 4)
    assert s.phase == "direction" and seats_to_act(s) == (s.dealer,)
    assert code_of(s, (s.dealer + 1) % 4, ChooseDirection("left")) == "not_your_turn"
    s2 = apply(s, s.dealer, ChooseDirection("across"))
    assert s2.phase == "pass" and s2.pass_direction == "across"
    s3 = apply(s, s.dealer, ChooseDirection("hold"))
    assert s3.phase == "play"
    three = new_game(make_rules("classic-3", {"passing": "dealer"}), 4)
    assert code_of(three, three.dealer, ChooseDirection("across")) == "bad_direction"


# --- first lead, first trick, breaking ---------------------------------------------------


def test_two_of_clubs_leads() -> None:
    s = game("classic", {0: "2C 3C KH"}, NOPASS)
    assert s.turn == 0
    assert code_of(s, 0, pc("3C")) == "must_lead_card"
    assert code_of(s, 1, pc("4C") if s.hands[1] & cards("4C") else pc("AS")) in ("not_your_turn",)
    assert legal_moves(s, 0) == [pc("2C")]


def test_any_club_first_lead() -> None:
    s = game("classic", {0: "2C 9C KH"}, {"first_lead": "any_club"} | NOPASS)
    assert s.turn == 0
    assert {m.card for m in legal_moves(s, 0)} == {  # type: ignore[union-attr]
        c for c in range(13) if s.hands[0] >> c & 1
    }
    assert code_of(s, 0, pc("KH")) == "must_lead_club"


def test_any_club_first_lead_with_hooligan_refuses_7c_for_its_points() -> None:
    """Issue 20: 7C is a club, so the reason it may not lead the first trick is its 7 points,
    not the club rule."""
    s = game("hooligan", {0: "2C 7C 9C KH"}, {"first_lead": "any_club"} | NOPASS)
    assert s.turn == 0
    assert code_of(s, 0, pc("7C")) == "no_points_on_first_trick"
    assert code_of(s, 0, pc("KH")) == "must_lead_club"
    apply(s, 0, pc("9C"))


def test_left_of_dealer_leads_any_card_but_not_hearts_or_points() -> None:
    s = game("classic", {1: "2C QS KH 3D"}, {"first_lead": "left_of_dealer"} | NOPASS)
    assert s.dealer == 0 and s.turn == 1
    assert code_of(s, 1, pc("KH")) == "hearts_not_broken"
    assert code_of(s, 1, pc("QS")) == "no_points_on_first_trick"
    apply(s, 1, pc("3D"))


def test_no_points_on_first_trick() -> None:
    s = game("classic", {0: "2C", 1: VOID_CLUBS}, NOPASS)
    s = play(s, "2C")
    assert code_of(s, 1, pc("QS")) == "no_points_on_first_trick"
    assert code_of(s, 1, pc("AH")) == "no_points_on_first_trick"
    apply(s, 1, pc("3D"))


def test_first_trick_hand_holding_only_points_may_play_them() -> None:
    s = game(
        "classic",
        {0: "2C", 1: "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"},
        NOPASS,
    )
    s = play(s, "2C")
    assert len(legal_moves(s, 1)) == 13
    s = play(s, "QS")
    assert s.trick_cards[-1] == parse_card("QS")


def test_first_trick_points_allowed_when_option_off() -> None:
    s = game("classic", {0: "2C", 1: VOID_CLUBS}, {"no_points_first_trick": False} | NOPASS)
    s = play(s, "2C")
    play(s, "QS")


def test_hearts_not_broken_and_leader_with_only_hearts() -> None:
    s = game("classic", {0: "2C 3H", 1: "3C"}, NOPASS)
    s = s._clone()
    # after the first trick: seat 0 to lead, hearts unbroken
    s.trick_no = 1
    s.first_lead_mask = 0
    assert code_of(s, 0, pc("3H")) == "hearts_not_broken"
    only = s._clone()
    only.hands = (cards("2H 3H 4H"),) + s.hands[1:]
    assert {m.card for m in legal_moves(only, 0)} == set(  # type: ignore[union-attr]
        parse_card(x) for x in ("2H", "3H", "4H")
    )


@pytest.mark.parametrize("queen_breaks", [True, False])
def test_queen_of_spades_breaking(queen_breaks: bool) -> None:
    r_opts = {"queen_breaks_hearts": queen_breaks}
    # seat 3 leads a diamond at the last-but-one trick; seat 0 is void and discards QS
    s = at_last_trick(
        "classic",
        ["QS 2H", "2D 3C", "3D 4C", "4D 5C"],
        ["", "", "", ""],
        [0, 0, 0, 0],
        r_opts,
        leader=3,
    )
    s = s._clone()
    s.trick_no = 11
    s.broken = False
    s = play(s, "4D", "QS", "2D", "3D")
    assert s.broken is queen_breaks


# --- penalties and bonuses -----------------------------------------------------------------


def test_must_discard_penalty() -> None:
    s = at_last_trick(
        "classic",
        ["2D 3D", "QS 4C", "4D 5D", "6D 7D"],
        ["", "", "", ""],
        [0, 0, 0, 0],
        {"must_discard": True},
    )
    s = s._clone()
    s.trick_no = 11
    s = play(s, "2D")
    assert code_of(s, 1, pc("4C")) == "must_discard_penalty"
    play(s, "QS")


def test_must_discard_yields_to_first_trick_bar() -> None:
    s = game("classic", {0: "2C", 1: VOID_CLUBS}, {"must_discard": True} | NOPASS)
    s = play(s, "2C")
    assert code_of(s, 1, pc("QS")) == "no_points_on_first_trick"
    play(s, "3D")


def _last_trick_points(
    preset: str,
    last: list[str],
    taken: list[str],
    won: list[int],
    options: dict[str, object],
    order: list[str],
) -> tuple[int, ...]:
    s = at_last_trick(preset, last, taken, won, options)
    s = play(s, *order)
    return s.history[-1].points


ALL_HEARTS_BUT = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"


def test_omnibus_jack_or_ten_of_diamonds() -> None:
    for card in ("JD", "TD"):
        pts = _last_trick_points(
            "classic",
            ["AD", "2C", "3C", "4C"],
            ["QS " + ALL_HEARTS_BUT, "AH", "", ""],
            [10, 1, 1, 0],
            {"omnibus": card},
            ["AD", "2C", "3C", "4C"],
        )
        assert pts == (25, 1, 0, 0)  # nobody took the bonus card
        pts = _last_trick_points(
            "classic",
            [card, "2C", "3C", "4C"],
            ["QS", ALL_HEARTS_BUT + " AH", "", ""],
            [10, 1, 1, 0],
            {"omnibus": card},
            [card, "2C", "3C", "4C"],
        )
        assert pts == (13 - 10, 13, 0, 0)


def test_hooligan_seven_of_clubs() -> None:
    pts = _last_trick_points(
        "classic",
        ["7C", "2C", "3C", "4C"],
        ["", "QS", ALL_HEARTS_BUT, "AH"],
        [1, 4, 4, 3],
        {"hooligan": True},
        ["7C", "2C", "3C", "4C"],
    )
    assert pts == (7, 13, 12, 1)


def test_hooligan_seven_is_barred_on_first_trick() -> None:
    s = game("hooligan", {0: "2C", 1: "7C 8C"}, NOPASS)
    s = play(s, "2C")
    assert code_of(s, 1, pc("7C")) == "no_points_on_first_trick"


def test_spade_penalties() -> None:
    pts = _last_trick_points(
        "classic",
        ["AS", "KS", "TS", "2S"],
        ["", "QS", "", ""],
        [0, 1, 0, 11],
        {"spade_penalties": {"AS": 7, "KS": 5, "TS": 3}},
        ["AS", "KS", "TS", "2S"],
    )
    # seat 0 takes AS KS TS (15); hearts are all untaken in this made-up position
    assert pts[0] == 15 and pts[1] == 13


def test_graded_hearts() -> None:
    pts = _last_trick_points(
        "classic",
        ["AH", "KH", "QH", "JH"],
        ["QS", "", "", ""],
        [1, 0, 0, 11],
        {"graded_hearts": True},
        ["AH", "KH", "QH", "JH"],
    )
    assert pts[0] == 13 + 5 + 4 + 3 + 2


def test_no_trick_bonus() -> None:
    pts = _last_trick_points(
        "classic",
        ["2D", "3D", "4D", "5D"],
        ["QS", ALL_HEARTS_BUT, "AH", ""],
        [4, 4, 5, 0],
        {"no_trick_bonus": True},
        ["2D", "3D", "4D", "5D"],
    )
    # seat 3 takes the last trick (5D), so nobody is trickless... except none: check seat 3 won
    assert pts == (13, 12, 1, 0)
    pts = _last_trick_points(
        "classic",
        ["5D", "3D", "4D", "2D"],
        ["QS", ALL_HEARTS_BUT, "AH", ""],
        [4, 4, 4, 0],
        {"no_trick_bonus": True},
        ["5D", "3D", "4D", "2D"],
    )
    assert pts == (13, 12, 1, -5)


def _two_tricks_left(hands: list[str], won: list[int], options: dict[str, object]) -> GameState:
    """Classic at trick 12 of 13: each seat holds two cards, seat 0 leads, hearts broken."""
    s = at_last_trick("classic", hands, ["", "", "", ""], won, options)._clone()
    s.trick_no = s.t.hand_size - 2
    return s


@pytest.mark.parametrize("auto_end", [False, True])
def test_auto_end_when_no_scoring_card_is_left(auto_end: bool) -> None:
    hands = ["2D 3C", "3D 4C", "4D 5C", "QS 6C"]
    s = _two_tricks_left(hands, [3, 3, 3, 2], {"auto_end": auto_end})
    s = play(s, "2D", "3D", "4D", "QS")  # seat 2 takes the queen: only clubs are left
    if not auto_end:
        assert s.phase == "play" and s.hand_no == 0
        s = play(s, "5C", "6C", "3C", "4C")
    assert s.hand_no == 1
    r = s.history[-1]
    assert r.points == (0, 0, 13, 0)
    # ended early: 12 tricks, the clubs never played; each went to its holder's pile
    assert sum(r.tricks_won) == (13 if not auto_end else 12)
    assert view(s, None)["history"][-1]["ended_early"] is auto_end  # type: ignore[index]
    assert len(s.prev_tricks) == (0 if auto_end else 1) + 1  # this position's tricks only


def test_auto_end_waits_for_a_trickless_player_with_the_no_trick_bonus() -> None:
    """With no_trick_bonus a trick still changes a score while someone has none: play on."""
    hands = ["2D 3C", "3D 4C", "4D 5C", "QS 6C"]
    s = _two_tricks_left(hands, [4, 4, 3, 0], {"auto_end": True, "no_trick_bonus": True})
    s = play(s, "2D", "3D", "4D", "QS")
    assert s.phase == "play" and s.hand_no == 0
    s = play(s, "5C", "6C", "3C", "4C")  # seat 3 takes the last trick: no -5
    assert s.history[-1].points == (0, 0, 13, 0)


def test_auto_end_is_an_option_of_every_game() -> None:
    for preset in ("classic", "two-player-dummy", "two-player-28", "double-hearts"):
        assert make_rules(preset, {"auto_end": True}).auto_end
    assert make_rules("classic", {"auto_end": True}).to_options() == {"auto_end": True}
    (opt,) = [o for o in describe_options() if o["name"] == "auto_end"]
    assert opt["kind"] == "bool" and opt["default"] is False
    assert opt["games"] == ["classic", "dummy", "twentyeight", "double"]
    with pytest.raises(RulesError) as e:
        make_rules("classic", {"auto_end": "yes"})
    assert e.value.code == "bad_option"


def test_exact_reset() -> None:
    s = at_last_trick(
        "classic", ["2D", "3D", "4D", "5D"], ["QS", "", "", ""], [1, 1, 1, 9], {"exact_reset": True}
    )
    s = s._clone()
    s.scores = (37, 0, 0, 0)
    s = play(s, "2D", "3D", "4D", "5D")
    assert s.scores[0] == 0  # 37 + 13 = 50 exactly: drops by 50
    assert s.history[-1].points[0] == -37


@pytest.mark.parametrize(
    ("moon", "want"),
    [("others", (0, 26, 26, 26)), ("self", (-26, 0, 0, 0))],
)
def test_moon_rules(moon: str, want: tuple[int, ...]) -> None:
    pts = _last_trick_points(
        "classic",
        ["AH", "2C", "3C", "4C"],
        ["QS " + ALL_HEARTS_BUT, "", "", ""],
        [12, 0, 0, 0],
        {"moon": moon},
        ["AH", "2C", "3C", "4C"],
    )
    assert pts == want


def test_moon_shooter_chooses() -> None:
    s = at_last_trick(
        "classic",
        ["AH", "2C", "3C", "4C"],
        ["QS " + ALL_HEARTS_BUT, "", "", ""],
        [12, 0, 0, 0],
        {"moon": "choice"},
    )
    s = play(s, "AH", "2C", "3C", "4C")
    assert s.phase == "moon" and seats_to_act(s) == (0,)
    assert code_of(s, 1, ChooseMoon("self")) == "not_your_turn"
    a = apply(s, 0, ChooseMoon("self"))
    b = apply(s, 0, ChooseMoon("others"))
    assert a.history[-1].points == (-26, 0, 0, 0)
    assert b.history[-1].points == (0, 26, 26, 26)


def test_moon_needs_every_positive_card_and_keeps_bonuses() -> None:
    pts = _last_trick_points(
        "classic",
        ["AH", "2C", "3C", "JD"],
        ["QS " + ALL_HEARTS_BUT, "", "", ""],
        [12, 0, 0, 0],
        {"omnibus": "JD"},
        ["AH", "2C", "3C", "JD"],
    )
    assert pts == (-10, 26, 26, 26)  # the shooter took JD too: moon plus the bonus
    pts = _last_trick_points(
        "classic",
        ["AH", "2C", "3C", "7C"],
        ["QS " + ALL_HEARTS_BUT, "", "", ""],
        [12, 0, 0, 0],
        {"hooligan": True},
        ["AH", "2C", "3C", "7C"],
    )
    assert pts == (0, 33, 33, 33)  # hooligan: the moon total is 33


# --- the end ----------------------------------------------------------------------------


def test_target_score_ends_game_and_ties_share() -> None:
    s = at_last_trick("classic", ["2D", "3D", "4D", "5D"], ["QS", "", "", ""], [1, 1, 1, 9])
    s = s._clone()
    s.scores = (90, 40, 40, 60)
    s = play(s, "2D", "3D", "4D", "5D")
    assert s.phase == "over" and s.scores == (103, 40, 40, 60)
    assert s.winners == (1, 2)
    assert code_of(s, 0, pc("2D")) == "game_over"


def test_fixed_number_of_hands() -> None:
    r = make_rules("classic", {"end": "hands", "hands": 2})
    s = new_game(r, 3)
    import random

    rng = random.Random(0)
    while s.phase != "over":
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    assert len(s.history) == 2


def test_options_are_validated() -> None:
    for bad, code in [
        ({"omnibus": "QD"}, "bad_option"),
        ({"nonsense": 1}, "unknown_option"),
        ({"target_score": -5}, "bad_option"),
        ({"players": 6}, "bad_option"),
        ({"pass_count": "3"}, "bad_option"),
        ({"spade_penalties": {"QS": 3}}, "bad_option"),
        ({"end": "hands"}, "bad_option"),
    ]:
        with pytest.raises(RulesError) as e:
            make_rules("classic", bad)
        assert e.value.code == code, bad
    with pytest.raises(RulesError) as e:
        make_rules("two-player-28", {"omnibus": "JD"})
    assert e.value.code == "option_not_available"
    with pytest.raises(RulesError):
        make_rules("nope")


def test_describe_options_gives_ranges_and_decks() -> None:
    from app.engine import describe_options

    opts = {o["name"]: o for o in describe_options()}
    assert opts["target_score"]["min"] == 10 and opts["target_score"]["max"] == 1000
    assert opts["deck"]["choices_by_players"] == {  # type: ignore[comparison-overlap]
        "3": ["remove_2d", "remove_2c", "jokers"],
        "4": ["standard"],
        "5": ["remove_2c_2d", "jokers"],
    }
    assert "classic" in opts["moon"]["games"]  # type: ignore[operator]
    with pytest.raises(RulesError):
        make_rules("classic", {"pass_count": opts["pass_count"]["max"] + 1})  # type: ignore[operator]


# --- option values are checked by type, and what the host gives is what the table plays ----


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("players", 3.0),
        ("players", True),
        ("pass_count", 3.0),
        ("hands", 2.0),
        ("target_score", 100.0),
        ("hooligan", 1),
        ("graded_hearts", "yes"),
        ("passing", ["lr"]),
        ("first_lead", None),
    ],
)
def test_option_values_of_the_wrong_type_are_refused(name: str, value: object) -> None:
    """Issue 20: 3.0 == 3 and True == 1 in Python, so a float or bool player count used to be
    taken (and, being equal to the cached rules of 3, could reach other tables as 3.0)."""
    with pytest.raises(RulesError) as e:
        make_rules("classic", {name: value})
    assert e.value.code == "bad_option"


def test_a_float_player_count_never_reaches_the_cached_options() -> None:
    with pytest.raises(RulesError):
        make_rules("classic", {"players": 3.0})
    options = make_rules("classic", {"players": 3}).to_options()
    assert type(options["players"]) is int


def test_an_explicit_option_equal_to_the_preset_survives_a_player_count_change() -> None:
    """Issue 20: classic + players 5 + pass_count 3 used to pass 2 cards (3 is classic's own
    value, so it was dropped and the 5-player default took its place)."""
    r = make_rules("classic", {"players": 5, "pass_count": 3})
    assert r.players == 5 and r.pass_count == 3
    assert make_rules("classic", {"players": 5}).pass_count == 2


def test_an_explicit_deck_that_does_not_fit_the_player_count_is_refused_not_changed() -> None:
    with pytest.raises(RulesError) as e:
        make_rules("classic", {"players": 5, "deck": "standard"})
    assert e.value.code == "bad_option" and "deck" in e.value.message


def test_spade_penalties_refuse_a_card_given_twice_in_two_cases() -> None:
    with pytest.raises(RulesError) as e:
        make_rules("classic", {"spade_penalties": {"as": 7, "AS": 5}})
    assert e.value.code == "bad_option"
    r = make_rules("classic", {"spade_penalties": {"as": 7, "Ks": 5}})
    again = make_rules("classic", r.to_options())
    assert again == r and again.to_options() == r.to_options()


def test_the_advertised_range_of_every_int_option_is_what_the_engine_accepts() -> None:
    """Issue 19: the server advertised a minimum of 0 for `hands`, which a game of fixed hands
    refuses."""
    from app.engine import describe_options

    for entry in describe_options():
        if entry["kind"] != "int":
            continue
        name, lo, hi = str(entry["name"]), entry["min"], entry["max"]
        assert isinstance(lo, int) and isinstance(hi, int)
        extra = dict(entry.get("only_with") or {})  # type: ignore[call-overload]
        preset = "classic" if "classic" in entry["games"] else "double-hearts"  # type: ignore[operator]
        for value in (lo, hi):
            make_rules(preset, {**extra, name: value})
        for value in (lo - 1, hi + 1):
            with pytest.raises(RulesError):
                make_rules(preset, {**extra, name: value})


def test_the_advertised_choices_by_game_and_player_count_are_what_the_engine_accepts() -> None:
    """Issue 19: the create form takes every choice from describe_options (no copy of the
    engine's rules in the page): the player counts, each game's passing cycles by player
    count, and the deck and pass count a player count brings."""
    from app.engine import PRESETS, describe_options

    options = {str(entry["name"]): entry for entry in describe_options()}
    players: list[int] = options["players"]["choices"]  # type: ignore[assignment]
    for n in players:
        make_rules("classic", {"players": n})
    with pytest.raises(RulesError):
        make_rules("classic", {"players": 2})
    passing = options["passing"]
    by_game: dict[str, list[str]] = passing["choices_by_game"]  # type: ignore[assignment]
    by_players: dict[str, list[str]] = passing["choices_by_players"]  # type: ignore[assignment]
    assert set(by_game) == set(passing["games"])  # type: ignore[arg-type]
    checked = 0
    for preset, rules in PRESETS.items():
        if rules.game not in by_game:
            continue
        counts = players if rules.game == "classic" else [rules.players]
        for n in counts:
            extra: dict[str, object] = {} if n == rules.players else {"players": n}
            allowed = set(by_game[rules.game]) & set(by_players[str(n)])
            for cycle in passing["choices"]:  # type: ignore[attr-defined]
                if cycle in allowed:
                    make_rules(preset, {**extra, "passing": cycle})
                else:
                    with pytest.raises(RulesError):
                        make_rules(preset, {**extra, "passing": cycle})
                checked += 1
    assert checked > 50
    deck_defaults: dict[str, str] = options["deck"]["default_by_players"]  # type: ignore[assignment]
    count_defaults: dict[str, int] = options["pass_count"]["default_by_players"]  # type: ignore[assignment]
    for n in players:
        rules = make_rules("classic", {"players": n})
        assert rules.deck == deck_defaults[str(n)]
        assert rules.pass_count == count_defaults[str(n)]
        assert rules.deck in options["deck"]["choices_by_players"][str(n)]  # type: ignore[index]


@given(
    players=st.sampled_from([3, 4, 5]),
    pass_count=st.none() | st.integers(1, 4),
    deck=st.none() | st.sampled_from(["standard", "remove_2d", "remove_2c_2d", "jokers"]),
)
def test_the_stored_options_build_the_same_rules(
    players: int, pass_count: int | None, deck: str | None
) -> None:
    """A table keeps ``to_options()`` and builds its game from it with make_rules: every
    choice survives that round trip, even one equal to the preset's value."""
    options: dict[str, object] = {"players": players}
    if pass_count is not None:
        options["pass_count"] = pass_count
    if deck is not None:
        options["deck"] = deck
    try:
        rules = make_rules("classic", options)
    except RulesError:
        return
    assert make_rules("classic", rules.to_options()) == rules
