"""The computer players: legal moves everywhere, the seed's Standard rules, determinism, and the
guarantee that a bot sees only its seat's view."""

from __future__ import annotations

import copy
import json
import random

import pytest

import app.bots as bots
from app.bots import LEVELS, choose_move
from app.bots.knowledge import Knowledge
from app.bots.standard import rollout, standard_pass, standard_tables
from app.engine import (
    PRESETS,
    GameState,
    IllegalMove,
    Layout,
    apply,
    legal_moves,
    make_rules,
    move_from_json,
    new_game,
    parse_card,
    seats_to_act,
    tables_for,
    view,
)
from app.engine.playout import Sim

ALL_PRESETS = sorted(PRESETS)
SMALL_BUDGET = 3  # ms: a few rollouts, enough to exercise the search
NO_CAP = 1e9  # lift the wall-clock safety cap: replays must not depend on a busy machine


def _random_position(preset: str, seed: int, opts: dict[str, object] | None = None) -> GameState:
    """A state part-way through a hand, reached by random legal moves."""
    rng = random.Random(seed)
    s = new_game(make_rules(preset, opts), seed)
    steps = rng.randrange(0, 40)
    for _ in range(steps):
        if s.phase in ("over",):
            break
        seat = seats_to_act(s)[0]
        moves = legal_moves(s, seat) if s.phase != "pass" else None
        if moves is None:
            from app.engine import PassCards, passable_cards

            cards = [c for c in range(55) if passable_cards(s, seat) >> c & 1]
            s = apply(s, seat, PassCards(frozenset(rng.sample(cards, s.pass_count))))
        else:
            s = apply(s, seat, rng.choice(moves))
    return s


def _positions(preset: str, count: int, base: int = 0) -> list[GameState]:
    out = []
    for i in range(count):
        s = _random_position(preset, base + i)
        if s.phase != "over":
            out.append(s)
    return out


@pytest.mark.parametrize("preset", ALL_PRESETS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_makes_a_legal_move(preset: str, level: str) -> None:
    n = 6 if level in ("pro", "expert") else 25
    for s in _positions(preset, n, base=100):
        for seat in seats_to_act(s):
            if level == "expert" and s.phase == "pass":
                continue  # the simulated pass is tested on its own (it is the slow one)
            mv = choose_move(level, view(s, seat), seed=7, budget_ms=SMALL_BUDGET)
            apply(s, seat, move_from_json(mv))  # raises IllegalMove if it is not legal


@pytest.mark.parametrize("preset", ["classic", "double-hearts", "two-player-dummy"])
def test_expert_pass_is_legal(preset: str) -> None:
    s = new_game(make_rules(preset), 3)
    assert s.phase == "pass"
    for seat in seats_to_act(s):
        mv = choose_move("expert", view(s, seat), seed=1)
        s = apply(s, seat, move_from_json(mv))
    assert s.phase == "play"


@pytest.mark.parametrize("preset", ["classic", "two-player-dummy", "double-hearts"])
def test_whole_games_with_mixed_levels(preset: str) -> None:
    rules = make_rules(preset, {"end": "hands", "hands": 2})
    s = new_game(rules, 11)
    levels = ["easy", "standard", "pro", "standard", "easy"]
    k = 0
    while s.phase != "over":
        for seat in seats_to_act(s):
            mv = choose_move(levels[seat], view(s, seat), seed=k, budget_ms=SMALL_BUDGET)
            s = apply(s, seat, move_from_json(mv))
            k += 1
            if s.phase not in ("pass",):
                break
    assert len(s.history) == 2


def test_moon_choice_and_dealers_choice() -> None:
    rules = make_rules("classic", {"passing": "dealer", "moon": "choice"})
    s = new_game(rules, 5)
    assert s.phase == "direction"
    for level in LEVELS:
        mv = choose_move(level, view(s, s.dealer), seed=1)
        apply(s, s.dealer, move_from_json(mv))


@pytest.mark.parametrize("level", LEVELS)
def test_decisions_replay_under_a_seed(level: str) -> None:
    for s in _positions("classic", 6, base=300) + _positions("double-hearts", 4, base=300):
        seat = seats_to_act(s)[0]
        if level == "expert" and s.phase == "pass":
            continue
        v = view(s, seat)
        a = choose_move(level, v, seed=42, budget_ms=SMALL_BUDGET, hard_cap_ms=NO_CAP)
        b = choose_move(
            level, copy.deepcopy(v), seed=42, budget_ms=SMALL_BUDGET, hard_cap_ms=NO_CAP
        )
        assert a == b


def test_easy_depends_on_the_seed() -> None:
    s = _positions("classic", 1, base=5)[0]
    seat = seats_to_act(s)[0]
    v = view(s, seat)
    moves = {json.dumps(choose_move("easy", v, seed=i)) for i in range(40)}
    assert len(moves) > 1 or len(legal_moves(s, seat)) == 1


# --- the view-only guarantee ----------------------------------------------------------------


def test_bots_get_only_a_json_view() -> None:
    """A bot is handed a plain JSON dict; the same dict after a JSON round trip gives the same
    move, so nothing but the seat's view (no GameState, no object reference) reaches it."""
    for preset in ("classic", "two-player-dummy", "two-player-28", "double-hearts-3"):
        for s in _positions(preset, 4, base=500):
            seat = seats_to_act(s)[0]
            v = view(s, seat)
            plain = json.loads(json.dumps(v))
            for level in ("standard", "pro"):
                if s.phase == "pass" and level == "expert":
                    continue
                a = choose_move(level, plain, seed=3, budget_ms=SMALL_BUDGET, hard_cap_ms=NO_CAP)
                b = choose_move(level, v, seed=3, budget_ms=SMALL_BUDGET, hard_cap_ms=NO_CAP)
                assert a == b


def test_bots_ignore_the_hidden_cards() -> None:
    """Two states that differ only in cards the seat cannot see give the seat the same view, and
    every level makes the same decision in both."""
    rules = make_rules("classic", {"passing": "none"})
    t = tables_for(rules)
    rng = random.Random(9)
    for trial in range(8):
        deck = list(t.deck_cards)
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[i * 13 : (i + 1) * 13]) for i in range(4)]
        # swap one non-club card between the two hands seat 0 cannot see
        a = next(c for c in deck[13:26] if c >= 13)
        b = next(c for c in deck[26:39] if c >= 13)
        other = hands[:]
        other[1] = (other[1] & ~(1 << a)) | (1 << b)
        other[2] = (other[2] & ~(1 << b)) | (1 << a)
        s1 = new_game(rules, trial, [Layout(tuple(hands))])
        s2 = new_game(rules, trial, [Layout(tuple(other))])
        # let both games reach seat 0's first turn with the same public plays
        while seats_to_act(s1)[0] != 0:
            seat = seats_to_act(s1)[0]
            mv = choose_move("standard", view(s1, seat), seed=0)
            try:
                s2 = apply(s2, seat, move_from_json(mv))
            except IllegalMove:
                break
            s1 = apply(s1, seat, move_from_json(mv))
        if seats_to_act(s1)[0] != 0 or seats_to_act(s2)[0] != 0:
            continue
        v1, v2 = view(s1, 0), view(s2, 0)
        if v1 != v2:
            continue
        for level in LEVELS:
            m1 = choose_move(level, v1, seed=1, budget_ms=SMALL_BUDGET, hard_cap_ms=NO_CAP)
            m2 = choose_move(level, v2, seed=1, budget_ms=SMALL_BUDGET, hard_cap_ms=NO_CAP)
            assert m1 == m2


def test_the_package_never_reads_a_game_state() -> None:
    """No bot module takes a GameState: the public entry points accept the view only."""
    import importlib
    import inspect

    names = ("knowledge", "players", "standard", "expert", "fast", "policy", "inference", "endgame")
    mods = [bots] + [importlib.import_module(f"app.bots.{n}") for n in names]
    src = "".join(inspect.getsource(m) for m in mods)
    assert "GameState" not in src.replace("``GameState``", "")
    assert "state_from_json" not in src


# --- knowledge from the view ----------------------------------------------------------------


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_knowledge_rebuilds_the_playout_position(preset: str) -> None:
    """With the true hidden hands filled in, the position rebuilt from the view is the engine's
    own playout position, and every inferred void is true."""
    for s in _positions(preset, 30, base=700):
        if s.phase != "play":
            continue
        seat = seats_to_act(s)[0]
        k = Knowledge(view(s, seat), s.rules)
        mine = Sim(s)
        got = k.sim(list(s.hands) + [s.dead])
        for name in Sim.__slots__:
            if name == "first_lead_mask" and s.trick_no > 0:
                continue
            assert getattr(got, name) == getattr(mine, name), name
        for h in k.hidden:
            assert not s.hands[h] & k.void[h]
        # the sampled deals fit what the seat knows
        rng = random.Random(1)
        for _ in range(5):
            deal = k.sample(rng)
            for h in range(k.t.holders):
                assert deal[h].bit_count() == s.hands[h].bit_count()
                assert not deal[h] & k.void[h] or h in k.mine
            for h in k.mine:
                assert deal[h] == s.hands[h]
            sim = k.sim(deal)
            assert len(rollout(sim)) == k.t.scorers


# --- Standard: the seed's rules on hand-made positions --------------------------------------


def _c(text: str) -> int:
    return parse_card(text)


def _mask(*texts: str) -> int:
    return sum(1 << _c(x) for x in texts)


def _std(
    hand: tuple[str, ...],
    trick: tuple[str, ...],
    n_in_trick: int = 4,
    preset: str = "classic",
) -> str:
    from app.bots.standard import standard_play
    from app.engine import card_str

    t = tables_for(make_rules(preset))
    st = standard_tables(t)
    cards = [_c(x) for x in trick]
    led = cards[0] // 13 if cards else -1
    h = _mask(*hand)
    follow = h & t.follow[led] if cards else h
    legal = follow or h
    return card_str(standard_play(st, legal, cards, led, 0, n_in_trick) & 63)


def test_standard_leads_its_lowest_card() -> None:
    assert _std(("5S", "3D", "KH", "AC"), ()) == "3D"
    assert _std(("3S", "3D", "3H"), ()) == "3D"  # equal ranks: clubs, diamonds, hearts, spades


def test_standard_second_or_third_plays_under() -> None:
    assert _std(("2D", "8D", "JD", "AD"), ("9D",)) == "8D"  # highest that does not take it
    assert _std(("JD", "AD"), ("9D",)) == "JD"  # must take: the lowest of the suit
    assert _std(("2D", "8D", "JD"), ("9D", "TD")) == "8D"


def test_standard_last_with_points_ducks_or_takes_high() -> None:
    assert _std(("2H", "8H", "KH"), ("9H", "TH", "3H")) == "8H"
    assert _std(("QH", "KH"), ("9H", "TH", "3H")) == "KH"  # must take: the highest
    # must take a spade trick with points: the highest, avoiding the QS
    assert _std(("QS", "KS"), ("2S", "3S", "QH"), 4) == "KS"


def test_standard_last_without_points_plays_highest() -> None:
    assert _std(("2D", "8D", "KD"), ("9D", "TD", "3D")) == "KD"
    # the highest, but not the QS when it would take the trick
    assert _std(("5S", "QS"), ("2S", "3S", "4S")) == "5S"


def test_standard_void_sheds_in_the_seed_order() -> None:
    assert _std(("QS", "AS", "AH", "2C"), ("5D",)) == "QS"
    assert _std(("AS", "AH", "AC", "KS"), ("5D",)) == "AS"
    assert _std(("AH", "AC", "KS"), ("5D",)) == "AH"
    assert _std(("KD", "KC", "QH"), ("5S",)) == "KD"


def test_standard_passes_the_three_highest_valued() -> None:
    t = tables_for(make_rules("classic"))
    hand = _mask("QS", "AS", "AH", "AD", "AC", "KS", "2C", "3C")
    assert standard_pass(t, hand, 3) == _mask("QS", "AS", "AH")
    hand = _mask("AD", "AC", "KS", "KH", "2C")
    assert standard_pass(t, hand, 3) == _mask("AD", "AC", "KS")


def test_standard_adaptations() -> None:
    # Omnibus: the JD is never shed, and a trick holding it is taken when possible
    t = tables_for(make_rules("omnibus"))
    assert standard_pass(t, _mask("JD", "AD", "KD", "QD"), 3) == _mask("AD", "KD", "QD")
    assert _std(("2D", "KD"), ("9D", "JD", "3D"), 4, "omnibus") == "KD"
    # Hooligan: the 7C is shed right after the QS
    t = tables_for(make_rules("hooligan"))
    assert standard_pass(t, _mask("7C", "AS", "AH", "QS"), 2) == _mask("QS", "7C")
    # 28-card game: void, a discard that does not take the trick (a heart would trump it)
    assert _std(("AH", "QS", "4C"), ("8D",), 2, "two-player-28") == "QS"
    assert _std(("AH", "2H"), ("8D",), 2, "two-player-28") == "AH"  # only trumps: it takes it


def test_standard_is_fast_enough_to_roll_out() -> None:
    s = _positions("classic", 1, base=1)[0]
    while s.phase != "play":
        seat = seats_to_act(s)[0]
        s = apply(s, seat, move_from_json(choose_move("standard", view(s, seat), seed=0)))
    pts = rollout(Sim(s))
    assert sum(pts) in (26, 78)


def test_bot_pool_runs_off_the_event_loop() -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    s = _positions("classic", 1, base=9)[0]
    seat = seats_to_act(s)[0]
    v = view(s, seat)
    pool = bots.BotPool(executor=ThreadPoolExecutor(max_workers=1))

    async def go() -> dict[str, object]:
        return await pool.choose("pro", v, seed=5, budget_ms=SMALL_BUDGET, hard_cap_ms=1e9)

    try:
        mv = asyncio.run(go())
    finally:
        pool.close()
    assert mv["type"] == "play" or mv["type"] == "pass"
    # the same decision as a direct call (the cap is passed through and never cuts this search)
    assert mv == bots.choose_move("pro", v, seed=5, budget_ms=SMALL_BUDGET, hard_cap_ms=1e9)
