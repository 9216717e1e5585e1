"""Jokers, the dummy game, the 28-card game, Double Hearts, purity, JSON and views."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from app.engine import (
    DARK_FACE,
    IllegalMove,
    PassCards,
    apply,
    card_str,
    legal_moves,
    make_rules,
    move_from_json,
    move_to_json,
    new_game,
    parse_card,
    seats_to_act,
    state_from_json,
    state_to_json,
    view,
)
from app.engine.moves import PlayCard

from .helpers import at_last_trick, cards, code_of, game, pc, play

NOPASS = {"passing": "none"}


# --- jokers --------------------------------------------------------------------------------


def test_joker_cannot_be_played_when_able_to_follow() -> None:
    s = game("classic-3-jokers", {0: "2C", 1: "JK1 3C"}, NOPASS)
    s = play(s, "2C")
    assert code_of(s, 1, pc("JK1")) == "must_follow_suit"


def test_joker_led_only_with_nothing_else_and_never_wins() -> None:
    s = at_last_trick("classic-3-jokers", ["JK1 4D", "2D 3D", "AD 5D"], ["", "", ""], [0, 0, 0])
    s = s._clone()
    s.trick_no = 16
    assert code_of(s, 0, pc("JK1")) == "joker_lead"
    only = s._clone()
    only.hands = (cards("JK1 2H"), cards("2D 3D"), cards("AD 5D"))
    only.broken = False
    # jokers and unbroken hearts: the joker must lead (the hand is not "only hearts")
    assert {m.card for m in legal_moves(only, 0)} == {52}  # type: ignore[union-attr]
    assert code_of(only, 0, pc("2H")) == "hearts_not_broken"
    broken = only._clone()
    broken.broken = True
    assert {m.card for m in legal_moves(broken, 0)} == {parse_card("2H")}  # type: ignore[union-attr]
    # a joker led: the next player may play anything, the first real suit sets the suit
    after = play(only, "JK1")
    assert after.led_suit == -1
    assert len(legal_moves(after, 1)) == 2
    after = play(after, "3D")
    assert card_str(after.led_suit * 13) == "2D"
    done = play(after, "5D")
    assert done.tricks[-1].winner == 2  # 5D beats 3D; the joker never wins


def test_three_jokers_for_five_players() -> None:
    s = new_game(make_rules("classic-5-jokers"), 9)
    allc = 0
    for h in s.hands:
        allc |= h
    assert allc >> 52 == 0b111


# --- two players with a dummy --------------------------------------------------------------

DUMMY_NOPASS = {"passing": "none"}


def test_dummy_deal_and_joker_holder() -> None:
    s = new_game(make_rules("two-player-dummy"), 4)
    assert [h.bit_count() for h in s.hands] == [17, 17, 9, 9]
    assert s.phase == "pass"
    v = view(s, 0)
    assert "half_dummy" not in v  # seen once passing is done
    for seat in (0, 1):
        s = apply(s, seat, legal_moves(s, seat)[0])
    assert s.phase == "play"
    v = view(s, 0)
    assert len(v["half_dummy"]) == 9  # type: ignore[arg-type]
    two = parse_card("2C")
    holder = next(i for i, h in enumerate(s.hands) if h >> two & 1)
    assert s.joker == (holder - 2 if holder >= 2 else 1 - s.dealer)


def test_dummy_trick_order_when_a_player_leads() -> None:
    s = game("two-player-dummy", {0: "2C 3C", 1: "4C", 2: "5C", 3: "6C"}, DUMMY_NOPASS)
    # 2C in seat 0's hand: the non-dealer (seat 1) holds the Joker
    assert s.dealer == 0 and s.joker == 1
    assert s.order == (0, 3, 1)  # seat 0, seat 1's half dummy, seat 1's hand
    v = view(s, 1)
    assert v["joker"] == 1
    assert code_of(s, 1, pc("6C")) == "not_your_turn"
    s = play(s, "2C")
    assert view(s, 1)["turn"] == {"seat": 1, "from": "dummy"}
    assert code_of(s, 1, pc("4C")) == "wrong_hand"
    s = play(s, "6C", "4C")
    assert s.tricks[0].winner == 3  # the dummy's 6C wins
    # the dummy won: it leads from the half dummy of the next Joker holder (seat 0)
    assert s.joker == 0 and s.order == (2, 0, 1)


def test_dummy_half_dummy_holds_two_of_clubs() -> None:
    s = game("two-player-dummy", {2: "2C"}, DUMMY_NOPASS)
    assert s.joker == 0 and s.order == (2, 0, 1)
    assert seats_to_act(s) == (0,)


def test_dummy_scoring_card_lead_bar() -> None:
    s = game("two-player-dummy", {0: "2C 3C TD KH", 1: "4C"}, DUMMY_NOPASS)._clone()
    s.trick_no = 1
    s.first_lead_mask = 0
    s.order = (0, 3, 1)
    assert code_of(s, 0, pc("TD")) == "hearts_not_broken"
    assert code_of(s, 0, pc("KH")) == "hearts_not_broken"
    apply(s, 0, pc("3C"))
    # a half dummy holding only scoring cards may lead one
    d = s._clone()
    d.hands = (s.hands[0], s.hands[1], cards("QS TD 2H 3H 4H 5H 6H 7H 8H"), s.hands[3])
    d.order = (2, 0, 1)
    assert len(legal_moves(d, 0)) == 9
    d.broken = True
    assert len(legal_moves(d, 0)) == 9


def test_dummy_full_hand_scores_sum_and_leftover_card() -> None:
    import random

    for seed in range(20):
        s = new_game(make_rules("two-player-dummy"), seed)
        rng = random.Random(seed)
        while s.hand_no == 0 and s.phase != "over":
            seat = seats_to_act(s)[0]
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))
        r = s.history[0]
        assert len(r.points) == 3
        if r.moon >= 0:
            assert r.points[r.moon] in (-26, -36)
        else:
            assert sum(r.points) == 16
        assert sum(r.tricks_won) == 17


def test_dummy_can_win_the_game() -> None:
    s = at_last_trick("two-player-dummy", ["2D", "3D", "", ""], ["QS", "", ""], [0, 0, 0])
    s = s._clone()
    s.hands = (cards("2D"), cards("3D"), cards("4D"), cards("5D"))
    s.joker = 0
    s.order = (0, 2, 1)
    s.trick_no = 16
    s.scores = (95, 60, 40)
    s = play(s, "2D", "4D", "3D")
    assert s.phase == "over"
    assert view(s, None)["winners"] == ["dummy"]


def test_dummy_moon_minus_26_td_still_counts() -> None:
    s = at_last_trick(
        "two-player-dummy",
        ["AH", "3D"],
        ["QS TD " + "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "", ""],
        [16, 0, 0],
    )
    s = s._clone()
    s.hands = (cards("AH"), cards("3D"), cards("4D"), cards("5D"))
    s.joker = 1
    s.order = (0, 3, 1)
    s = play(s, "AH", "5D", "3D")
    assert s.history[-1].points == (-36, 0, 0)


# --- two players, 28 cards -------------------------------------------------------------------


def test_28_deck_dead_cards_and_low_club_lead() -> None:
    s = game("two-player-28", {}, dead="2C 8H")
    assert s.dead == cards("2C 8H")
    assert s.first_lead_mask == cards("4C")
    v0, vs = view(s, 0), view(s, None)
    assert "2C" not in json.dumps(v0) and "8H" not in json.dumps(v0)
    assert vs["dead_count"] == 2
    # the dead cards are revealed in the hand's result
    import random

    rng = random.Random(1)
    while s.hand_no == 0:
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    assert view(s, None)["history"][0]["dead"] == ["2C", "8H"]  # type: ignore[index]
    r = s.history[0]
    assert r.moon >= 0 and sorted(r.points) == [0, 20] or sum(r.points) == 19


def test_28_hearts_trump_and_lead_rule() -> None:
    s = game("two-player-28", {0: "2C AS 4H", 1: "4C"}, dead="8S TS")
    s = play(s, "2C", "4C")
    s2 = s._clone()
    s2.hands = (cards("4H AS 2D"), cards("2S 6S 6D"))
    s2.trick_no = 10
    s2.order = (0, 1)
    assert code_of(s2, 0, pc("4H")) == "hearts_not_broken"
    # only hearts and spades: a heart may be led
    s3 = s2._clone()
    s3.hands = (cards("4H AS"), cards("2S 6S"))
    s3.order = (1, 0)
    only = s3._clone()
    only.hands = (cards("2S 6S"), cards("4H AS"))
    only.order = (1, 0)
    assert {m.card for m in legal_moves(only, 1)} == {parse_card("4H"), parse_card("AS")}  # type: ignore[union-attr]
    # a heart discarded on a spade lead wins the trick
    t = s2._clone()
    t.hands = (cards("AS 2D"), cards("4H 6D"))
    t.order = (0, 1)
    t = play(t, "AS", "4H")
    assert t.tricks[-1].winner == 1


def test_28_moon_gives_opponent_20() -> None:
    s = at_last_trick("two-player-28", ["AH", "2C"], ["QS 2H 4H 6H 8H TH QH", ""], [12, 0])
    s = play(s, "AH", "2C")
    assert s.history[-1].points == (0, 20)


def test_28_equal_totals_play_on() -> None:
    s = at_last_trick("two-player-28", ["AH", "2C"], ["", "QS 2H 4H 6H 8H TH"], [5, 7])
    s = s._clone()
    s.scores = (99, 88)
    s = play(s, "AH", "2C")  # seat 0 takes 1: 100 against 101 ends; check equal case below
    assert s.phase == "over"
    e = at_last_trick("two-player-28", ["AH", "2C"], ["", "QS 2H 4H 6H 8H TH"], [5, 7])
    e = e._clone()
    e.scores = (100, 83)
    e = play(e, "AH", "2C")
    assert e.scores == (101, 101) and e.phase != "over"


# --- Double Hearts ------------------------------------------------------------------------


def test_pairing_rules() -> None:
    for c in range(52):
        d = DARK_FACE[c]
        assert c // 13 != d // 13  # never one suit on both faces
        r, dr = c % 13, d % 13
        if r == 12:
            assert dr == 12
        else:
            assert (r >= 6) != (dr >= 6)  # 8 or higher pairs with 7 or lower
    assert sorted(DARK_FACE) == list(range(52))  # the Dark faces are a full deck


def test_double_first_lead_dark_two_of_clubs() -> None:
    lead = DARK_FACE.index(parse_card("2C"))
    s = game("double-hearts", {0: card_str(lead)}, NOPASS)
    assert legal_moves(s, 0) == [PlayCard(lead, "dark")]
    assert code_of(s, 0, PlayCard(lead, "light")) == "must_lead_card"
    assert code_of(s, 0, PlayCard(lead)) == "face_required"


def test_double_three_players_face_down_card_and_dark_3c() -> None:
    two = card_str(DARK_FACE.index(parse_card("2C")))
    three = card_str(DARK_FACE.index(parse_card("3C")))
    s = game("double-hearts-3", {1: three}, NOPASS, dead=two)
    assert s.turn == 1 and s.first_lead_mask == cards(three)
    v = json.dumps(view(s, 0)) + json.dumps(view(s, None))
    assert f'"{two}/2C"' not in v
    # the first trick's winner takes the face-down card
    import random

    rng = random.Random(3)
    for _ in range(3):
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    w = s.tricks[0].winner
    assert s.taken[w] & cards(two)


def test_double_follow_either_face_and_twins() -> None:
    # Light KC and the card whose Dark face is KC are twins
    dark_kc = DARK_FACE.index(parse_card("KC"))
    s = at_last_trick(
        "double-hearts",
        ["KC", card_str(dark_kc), "2D", "3D"],
        ["", "", "", ""],
        [3, 3, 3, 3],
    )
    s = s._clone()
    s.trick_no = 11  # not the last trick, to keep the hands' size check out of it
    assert code_of(s, 0, pc("KC")) == "face_required"
    a = play(s, "KC:light", card_str(dark_kc))
    assert a.led_suit == 0
    # the twin whose shade matches the leading face wins
    t = play(a, "2D", "3D")
    assert t.prev_tricks[-1].winner == 0
    b = play(s, "KC:dark")
    # the Dark face of Light KC is 2D: diamonds led
    assert b.led_suit == DARK_FACE[parse_card("KC")] // 13


def test_double_points_every_face() -> None:
    s = at_last_trick("double-hearts", ["QS", "2C", "3C", "4C"], ["", "", "", ""], [0, 0, 0, 12])
    s = play(s, "QS:light", "2C", "3C", "4C")
    dark = DARK_FACE[parse_card("QS")]
    expect = 13 + (1 if dark // 13 == 3 else 13 if card_str(dark) == "QS" else 0)
    extra = sum(
        (1 if DARK_FACE[parse_card(c)] // 13 == 3 else 0)
        + (13 if card_str(DARK_FACE[parse_card(c)]) == "QS" else 0)
        + (1 if parse_card(c) // 13 == 3 else 0)
        for c in ("2C", "3C", "4C")
    )
    assert s.history[-1].points[0] == expect + extra


# --- moves, JSON, views, purity ------------------------------------------------------------


def test_move_json_round_trip_and_errors() -> None:
    for m in (pc("QS"), pc("KC", "dark"), PassCards(frozenset({1, 2, 3}))):
        assert move_from_json(move_to_json(m)) == m
    for bad in (
        {"type": "fly"},
        {"type": "play", "card": "ZZ"},
        [],
        {"type": "pass"},
        {"type": "play", "card": "QS", "face": "up"},
    ):
        with pytest.raises(IllegalMove) as e:
            move_from_json(bad)
        assert e.value.code == "bad_move"
    assert move_from_json({"type": "play", "card": "QS/3H"}) == pc("QS")
    with pytest.raises(IllegalMove):
        move_from_json({"type": "play", "card": "QS/4H"})


def test_state_json_round_trip_every_preset() -> None:
    import random

    from app.engine import PRESETS

    for name in PRESETS:
        s = new_game(make_rules(name), 5)
        rng = random.Random(5)
        for _ in range(30):
            seat = seats_to_act(s)[0]
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))
            back = state_from_json(json.loads(json.dumps(state_to_json(s))))
            assert back == s
            assert view(back, 0) == view(s, 0)


def test_state_from_json_rejects_garbage() -> None:
    s = new_game(make_rules("classic"), 1)
    good = state_to_json(s)
    for patch in ({"schema": 9}, {"hands": "x"}, {"phase": "dance"}, {"rules": {"preset": "x"}}):
        with pytest.raises(ValueError):
            state_from_json(good | patch)


def test_spectator_view_has_no_hand() -> None:
    from app.engine import seat_view

    s = new_game(make_rules("classic"), 1)
    v = view(s, None)
    assert "hand" not in v and "legal" not in v
    with pytest.raises(ValueError):
        view(s, 7)
    bad_seats: tuple[object, ...] = (7, -1, None, True)
    for bad in bad_seats:
        with pytest.raises(ValueError):
            seat_view(s, bad, v)  # type: ignore[arg-type]


def test_engine_imports_no_web_database_or_redis_module() -> None:
    code = (
        "import sys, app.engine, app.engine.playout\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('fastapi','starlette','uvicorn','redis','sqlalchemy','sqlmodel','alembic','pydantic',"
        "'orjson','httpx','websockets','fakeredis','psycopg','asyncio')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_all_views_equal_single_views() -> None:
    import random

    from app.engine import PRESETS, all_views, seat_view

    for name in PRESETS:
        s = new_game(make_rules(name), 2)
        rng = random.Random(2)
        for _ in range(25):
            public, seats = all_views(s)
            assert public == view(s, None)
            assert seats == [view(s, i) for i in range(s.players)]
            for sheet in (True, False):
                common = view(s, None, sheet)
                for i in range(s.players):
                    assert seat_view(s, i, common) == view(s, i, sheet)
                assert common == view(s, None, sheet)  # copied, not changed
            seat = seats_to_act(s)[0]
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))


def test_view_without_sheet_leaves_out_only_the_sheet() -> None:
    import random

    from app.engine import all_views

    s = new_game(make_rules("classic"), 4)
    rng = random.Random(4)
    while s.hand_no < 1:
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    full, short = view(s, 2), view(s, 2, sheet=False)
    assert short["hands_played"] == 1 == len(full["history"])  # type: ignore[arg-type]
    assert {k: v for k, v in full.items() if k not in ("history", "previous_tricks")} == short
    assert all_views(s, sheet=False)[1][2] == short
