"""The game review (issue 16): marks, exact endgames, every variant, fairness, properties."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app import engine
from app.bots import choose_move
from app.bots.knowledge import card_of
from app.engine.cards import card_str
from app.review import (
    THRESHOLDS,
    Decision,
    ReviewBudget,
    ReviewError,
    decisions_of,
    mark_of,
    review_seat,
    review_views,
)
from app.review.calibration import hand_cost

# a small search: these tests check the review's logic, not its strength
SMALL = ReviewBudget(play_units=150, pass_units=300, seed=3)
ONE_HAND = {"end": "hands", "hands": 1}


def _play_game(
    preset: str,
    seed: int,
    levels: Sequence[str],
    options: Mapping[str, object] | None = None,
    budget_ms: int | None = None,
) -> dict[str, Any]:
    """A finished game played by bots, as the record the review reads."""
    rules = engine.make_rules(preset, dict(options if options is not None else ONE_HAND))
    s = engine.new_game(rules, seed)
    moves: list[list[Any]] = []
    while s.phase != "over":
        seat = engine.seats_to_act(s)[0]
        level = levels[seat % len(levels)]
        mv = choose_move(level, engine.view(s, seat), len(moves), budget_ms=budget_ms)
        moves.append([seat, mv])
        s = engine.apply(s, seat, engine.move_from_json(mv))
    return {"preset": preset, "options": rules.to_options(), "seed": seed, "moves": moves}


@cache
def _easy_record(preset: str, seed: int) -> dict[str, Any]:
    """Seat 0 plays at random (Easy) among Standard players: plenty to mark."""
    return _play_game(preset, seed, ["easy", "standard", "standard", "standard", "standard"])


@cache
def _easy_review(preset: str, seed: int) -> dict[str, Any]:
    return review_seat(_easy_record(preset, seed), 0, budget=SMALL)


def _decisions(review: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [d for h in review["hands"] for d in h["decisions"]]


# --- marks ------------------------------------------------------------------------------------


def test_mark_below_every_threshold_is_none() -> None:
    assert mark_of(0.0) is None
    assert mark_of(THRESHOLDS["inaccuracy"] - 0.01) is None


@pytest.mark.parametrize("name", list(THRESHOLDS))
def test_each_threshold_marks_its_band(name: str) -> None:
    """At its threshold a loss gets the mark, just below it the mark below; and a review of a
    random player's game has decisions in that band, marked so."""
    names = list(THRESHOLDS)
    limit = THRESHOLDS[name]
    below = names[names.index(name) - 1] if names.index(name) else None
    assert mark_of(limit) == name
    assert mark_of(limit - 0.01) == below
    upper = THRESHOLDS[names[names.index(name) + 1]] if name != names[-1] else float("inf")
    found = []
    for seed in range(8):
        for d in _decisions(_easy_review("classic", seed)):
            assert d["mark"] == mark_of(d["loss"])
            if d["mark"] == name:
                assert limit <= d["loss"] < upper
                found.append(d)
        if found:
            break
    assert found, f"no {name} in the random player's games"


def test_marks_and_accuracy_add_up() -> None:
    review = _easy_review("classic", 1)
    decisions = _decisions(review)
    assert review["decisions"] == len(decisions)
    for name in THRESHOLDS:
        assert review["marks"][name] == sum(1 for d in decisions if d["mark"] == name)
    good = sum(1 for d in decisions if d["loss"] < THRESHOLDS["inaccuracy"])
    assert review["accuracy"] == round(100.0 * good / len(decisions), 1)
    assert review["loss"] == pytest.approx(sum(d["loss"] for d in decisions), abs=0.05)
    for hand in review["hands"]:
        assert hand["loss"] == pytest.approx(sum(d["loss"] for d in hand["decisions"]), abs=0.05)


def test_a_random_player_is_less_accurate_than_the_expert() -> None:
    """Pooled over three one-hand games: Easy loses more and is less accurate than Expert."""
    budget = ReviewBudget(play_units=400, pass_units=800, seed=1)
    totals: dict[str, list[float]] = {"easy": [], "expert": []}
    for seed in range(3):
        for level in totals:
            record = _play_game("classic", seed, [level, "standard"], budget_ms=20)
            totals[level] += [d["loss"] for d in _decisions(review_seat(record, 0, budget=budget))]

    def accuracy(losses: list[float]) -> float:
        return sum(1 for x in losses if x < THRESHOLDS["inaccuracy"]) / len(losses)

    assert sum(totals["expert"]) < sum(totals["easy"])
    assert accuracy(totals["expert"]) > accuracy(totals["easy"])


# --- exact endgames -----------------------------------------------------------------------------


def test_exact_endgame_is_flagged_in_the_28_card_game() -> None:
    """The 28-card game's last 10 cards are solved exactly on each deal (as the Expert plays
    them): those decisions say ``exact``; earlier ones and other games do not."""
    record = _play_game("two-player-28", 4, ["easy", "standard"])
    rules = engine.make_rules("two-player-28", record["options"])
    decisions, _ = decisions_of(engine.new_game(rules, 4), record["moves"], 0)
    cards_left = {d.index: len(d.view["hand"]) for d in decisions}
    review = review_seat(record, 0, budget=SMALL)
    plays = _decisions(review)
    assert any(d["exact"] for d in plays) and not all(d["exact"] for d in plays)
    for d in plays:
        assert d["exact"] == (cards_left[d["index"]] <= 10)
    assert not any(d["exact"] for d in _decisions(_easy_review("classic", 0)))


# --- every variant ----------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(engine.PRESETS))
def test_every_variant_is_reviewed(preset: str) -> None:
    record = _play_game(preset, 11, ["easy", "standard", "standard", "standard", "standard"])
    rules = engine.make_rules(preset, record["options"])
    seat = 0
    progress: list[float] = []
    review = review_seat(record, seat, budget=SMALL, progress=progress.append)
    assert review["seat"] == seat and review["variant"] == preset
    assert review["players"] == rules.players
    assert len(review["hands"]) == 1
    assert progress[0] == 0.0 and progress[-1] == 1.0 and progress == sorted(progress)
    decisions, _ = decisions_of(engine.new_game(rules, 11), record["moves"], seat)
    views = {d.index: d for d in decisions}
    reviewed = _decisions(review)
    assert reviewed, "no decision reviewed"
    kinds = {d["kind"] for d in reviewed}
    if rules.passing != "none" and rules.game != "twentyeight":
        assert kinds == {"pass", "play"}
    else:
        assert kinds == {"play"}
    for d in reviewed:
        dec = views[d["index"]]
        assert d["made"] == dec.made
        legal = dec.view["legal"]
        if d["kind"] == "play":
            assert len(legal["cards"]) * max(1, len(legal.get("faces") or ())) > 1
    # every play with a choice is reviewed (forced ones are not)
    chosen = [
        d.index
        for d in decisions
        if d.made["type"] == "play"
        and len(d.view["legal"]["cards"]) * max(1, len(d.view["legal"].get("faces") or ())) > 1
    ]
    assert [d["index"] for d in reviewed if d["kind"] == "play"] == chosen


def test_a_whole_game_to_the_target_score_is_reviewed_hand_by_hand() -> None:
    record = _play_game("classic-5", 5, ["standard"], options={"target_score": 30})
    review = review_seat(record, 2, budget=ReviewBudget(play_units=40, pass_units=80))
    rules = engine.make_rules("classic-5", record["options"])
    state = engine.new_game(rules, 5)
    for seat, mv in record["moves"]:
        state = engine.apply(state, seat, engine.move_from_json(mv))
    assert len(review["hands"]) == len(state.history) > 1
    assert [h["hand"] for h in review["hands"]] == list(range(len(state.history)))


def test_a_record_that_does_not_replay_is_an_error() -> None:
    record = _play_game("classic", 1, ["standard"])
    bad = dict(record, moves=[record["moves"][1], *record["moves"]])
    with pytest.raises(ReviewError):
        review_seat(bad, 0, budget=SMALL)
    with pytest.raises(ReviewError):
        review_seat(dict(record, seed=None), 0, budget=SMALL)
    with pytest.raises(ReviewError):
        review_seat(dict(record, preset="no-such-game"), 0, budget=SMALL)
    with pytest.raises(ReviewError):
        review_seat(record, 4, budget=SMALL)


# --- properties -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "seed"), [("classic", 6), ("double-hearts", 7), ("two-player-dummy", 8)]
)
def test_losses_are_differences_to_the_best(preset: str, seed: int) -> None:
    """loss >= 0; the best move's loss is 0; the best is listed first with the lowest expected
    points; the loss is expected(made) - expected(best); the made move is listed."""
    for d in _decisions(_easy_review(preset, seed)):
        options = d["options"]
        assert options[0]["move"] == d["best"]
        assert options[0]["expected"] == d["expected_best"]
        assert all(o["expected"] >= d["expected_best"] for o in options)
        assert d["loss"] >= 0
        assert d["loss"] == pytest.approx(d["expected_made"] - d["expected_best"], abs=0.011)
        made = [o for o in options if o["move"] == d["made"]]
        assert len(made) == 1 and made[0]["expected"] == d["expected_made"]
        if d["made"] == d["best"]:
            assert d["loss"] == 0 and d["mark"] is None
        assert d["deals"] >= 16
        if d["kind"] == "play":
            assert len(options) == len({str(o["move"]) for o in options}) >= 2
        else:
            assert 2 <= len(options) <= 6


def test_the_review_is_deterministic_under_its_seed() -> None:
    record = _play_game("classic", 9, ["easy", "standard", "standard", "standard"])
    a = review_seat(record, 0, budget=SMALL)
    b = review_seat(record, 0, budget=SMALL)
    assert a == b
    assert not a["cut"]


# --- fairness ---------------------------------------------------------------------------------


def _swap_hidden(
    state: engine.GameState, seat: int, moves: list[list[Any]]
) -> tuple[int, int, int, int]:
    """Two cards of one suit held by two holders the seat cannot see (dead cards included),
    the pair that game ``moves`` shows (passes or plays) last: (holder a, card a, holder b,
    card b)."""
    t = state.t
    holders = [h for h in range(t.holders) if t.owner[h] != seat]
    masks = {h: state.hands[h] for h in holders}
    if state.dead:
        masks[-1] = state.dead
    shown: dict[int, int] = {}
    for number, (_who, mv) in enumerate(moves):
        for text in mv.get("cards", [mv.get("card")]) if mv["type"] in ("pass", "play") else []:
            shown.setdefault(card_of(text), number)
    best: tuple[int, tuple[int, int, int, int]] | None = None
    keys = sorted(masks)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            for ca in engine.cards_of(masks[a]):
                for cb in engine.cards_of(masks[b]):
                    if ca // 13 == cb // 13 and ca < 52 and cb < 52:
                        when = min(shown.get(ca, 10**6), shown.get(cb, 10**6))
                        if best is None or when > best[0]:
                            best = (when, (a, ca, b, cb))
    assert best is not None
    return best[1]


def _twin_games(
    preset: str, seed: int, seat: int
) -> tuple[list[Decision], list[Decision], engine.Rules]:
    """Game A as bots play it, and game B whose deal swaps two hidden cards of one suit; B
    repeats A's moves while they are legal there (then its bots play on).  The seat's views
    agree until a swapped card shows."""
    rules = engine.make_rules(preset, ONE_HAND)
    levels = ["easy", "standard", "standard", "standard", "standard"]

    def play(state: engine.GameState, script: list[list[Any]] | None) -> list[list[Any]]:
        moves: list[list[Any]] = []
        while state.phase != "over":
            who = engine.seats_to_act(state)[0]
            mv = None
            if script is not None and len(moves) < len(script) and script[len(moves)][0] == who:
                try:
                    nxt = engine.apply(state, who, engine.move_from_json(script[len(moves)][1]))
                    mv = script[len(moves)][1]
                except engine.EngineError:
                    script = None
            if mv is None:
                lv = levels[who % len(levels)]
                mv = choose_move(lv, engine.view(state, who), len(moves))
                nxt = engine.apply(state, who, engine.move_from_json(mv))
            moves.append([who, mv])
            state = nxt
        return moves

    a0 = engine.new_game(rules, seed)
    moves_a = play(a0, None)
    ha, ca, hb, cb = _swap_hidden(a0, seat, moves_a)
    hands = list(a0.hands)
    dead = a0.dead

    def move(mask: int, out: int, into: int) -> int:
        return mask & ~(1 << out) | (1 << into)

    if ha == -1:
        dead = move(dead, ca, cb)
    else:
        hands[ha] = move(hands[ha], ca, cb)
    if hb == -1:
        dead = move(dead, cb, ca)
    else:
        hands[hb] = move(hands[hb], cb, ca)
    b0 = engine.new_game(rules, seed, [engine.Layout(tuple(hands), dead)])
    assert b0.hands != a0.hands
    moves_b = play(b0, moves_a)
    dec_a, _ = decisions_of(a0, moves_a, seat)
    dec_b, _ = decisions_of(b0, moves_b, seat)
    return dec_a, dec_b, rules


@pytest.mark.parametrize(
    ("preset", "seed"),
    [("classic", 21), ("two-player-28", 22), ("classic-3", 23), ("double-hearts", 24)],
)
def test_the_review_reads_only_the_seats_views(preset: str, seed: int) -> None:
    """Two deals that differ only in cards the seat cannot see: every decision whose view (and
    move) is the same in both games gets the same review, though the hidden hands differ."""
    seat = 0
    dec_a, dec_b, rules = _twin_games(preset, seed, seat)
    same = {
        a.index
        for a, b in zip(dec_a, dec_b, strict=False)
        if a.index == b.index and a.view == b.view and a.made == b.made
    }
    plays_same = [a for a in dec_a if a.index in same and a.made["type"] == "play"]
    assert len(plays_same) >= 3, "the twin games part too early to test anything"
    ra = review_views(rules, seat, dec_a, 1, budget=SMALL)
    rb = review_views(rules, seat, dec_b, 1, budget=SMALL)
    da = {d["index"]: d for d in _decisions(ra)}
    db = {d["index"]: d for d in _decisions(rb)}
    compared = 0
    for index in same:
        if index in da:
            assert da[index] == db[index]
            compared += 1
    assert compared >= 2


def test_the_review_names_only_the_seats_own_cards() -> None:
    """A leak scan: every card a reviewed decision names (made, best, options) was in the
    seat's own hand (or its half dummy) at that moment."""
    for preset, seed in [("classic", 6), ("two-player-dummy", 8), ("double-hearts", 7)]:
        record = _easy_record(preset, seed)
        rules = engine.make_rules(preset, record["options"])
        decisions, _ = decisions_of(engine.new_game(rules, seed), record["moves"], 0)
        views = {d.index: d.view for d in decisions}
        for d in _decisions(_easy_review(preset, seed)):
            v = views[d["index"]]
            own = {card_of(c) for c in [*v["hand"], *v.get("half_dummy", [])]}
            named: list[str] = []
            for mv in [d["made"], d["best"], *(o["move"] for o in d["options"])]:
                named += mv["cards"] if mv["type"] == "pass" else [mv["card"]]
            assert {card_of(c) for c in named} <= own


# --- the moon ---------------------------------------------------------------------------------


def _moon_record() -> dict[str, Any]:
    """A one-hand classic game in which seat 0 (the Expert at a small budget, among Standard
    players, seed 26) shot the moon: its moves, kept so that no change to the bots moves it."""
    path = Path(__file__).with_name("moon_game.json")
    record: dict[str, Any] = json.loads(path.read_text())
    return record


def test_the_moon_game_is_a_moon_of_seat_0() -> None:
    record = _moon_record()
    s = engine.new_game(engine.make_rules("classic", record["options"]), record["seed"])
    for seat, move in record["moves"]:
        s = engine.apply(s, seat, engine.move_from_json(move))
    assert s.history[-1].moon == 0 and s.history[-1].points == (0, 26, 26, 26)


def test_plays_that_took_points_on_the_way_to_the_moon_are_flagged() -> None:
    record = _moon_record()
    rules = engine.make_rules("classic", record["options"])
    decisions, _ = decisions_of(engine.new_game(rules, record["seed"]), record["moves"], 0)
    flagged = [d for d in decisions if d.moon]
    assert flagged and all(d.made["type"] == "play" for d in flagged)
    # the flagged plays are exactly seat 0's plays into a trick with a heart or the QS
    s = engine.new_game(rules, record["seed"])
    trick_of: dict[int, int] = {}
    for index, (seat, move) in enumerate(record["moves"]):
        if seat == 0 and move["type"] == "play":
            trick_of[index] = s.trick_no
        s = engine.apply(s, seat, engine.move_from_json(move))
    scoring = {
        i
        for i, c in enumerate(s.prev_tricks)
        if any(card_str(x) == "QS" or card_str(x).endswith("H") for x in c.cards)
    }
    assert {d.index for d in flagged} == {i for i, t in trick_of.items() if t in scoring}
    assert len(scoring) < len(s.prev_tricks)  # not every trick carried points
    # the same game seen by another seat flags nothing: seat 1 did not shoot
    others, _ = decisions_of(engine.new_game(rules, record["seed"]), record["moves"], 1)
    assert not any(d.moon for d in others)


def test_a_moon_hand_costs_no_more_than_the_hand_and_its_points_are_no_mistake() -> None:
    """A hand the seat shot the moon in: the summed loss is at most what one hand can cost (26
    in classic), and no play that took points on the way is marked."""
    review = review_seat(_moon_record(), 0, budget=ReviewBudget(seed=1))
    (hand,) = review["hands"]
    assert hand["loss"] <= hand_cost(engine.make_rules("classic")) == 26
    moon = [d for d in hand["decisions"] if d["moon"]]
    assert moon
    for d in moon:
        assert d["loss"] == 0 and d["mark"] is None
        assert d["expected_made"] == d["expected_best"]


@pytest.mark.parametrize("preset", ["classic", "two-player-dummy"])
def test_a_hand_never_sums_to_more_than_it_could_cost(preset: str) -> None:
    """Seat 0 plays at random (large losses to sum): every hand's loss is at most its cost."""
    review = _easy_review(preset, 12)
    cost = hand_cost(engine.make_rules(preset))
    for hand in review["hands"]:
        assert hand["loss"] <= cost
        assert hand["loss"] == pytest.approx(sum(d["loss"] for d in hand["decisions"]), abs=0.02)
