"""Property tests over every preset and random option sets (the engine issue's proof).

Each example plays a game to its end with uniformly random legal moves and checks, at every step:
the game always ends; every card is in exactly one place; the legal cards and every trick, hand
score, total and winner agree with ``oracle`` (RULES.md restated independently of the engine);
no view shows a card its seat may not see; the state round-trips through JSON; replay reproduces
the game; and ``legal_moves`` lists exactly the moves ``apply`` accepts.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, reject, settings
from hypothesis import strategies as st

from app.engine import (
    PRESETS,
    ChooseDirection,
    ChooseMoon,
    GameState,
    IllegalMove,
    Layout,
    Move,
    PassCards,
    PlayCard,
    Rules,
    RulesError,
    apply,
    card_str,
    cards_of,
    describe_options,
    double_card_str,
    legal_moves,
    make_rules,
    new_game,
    parse_card,
    passable_cards,
    replay,
    seats_to_act,
    state_from_json,
    state_to_json,
    view,
)

from . import oracle

SHORT = {"end": "hands", "hands": 2}
MAX_HANDS = 200  # a game that has not ended by then never will
FACE_NAMES = ("light", "dark")
DIRECTION_OFFSET = {"left": 1, "right": -1, "across": 2, "hold": 0, "other": 1}
# The same examples on every run, so the file's time (about 15 s of CPU) and its verdict are
# stable; HEARTS_EXPLORE=N runs N times the examples from a fresh random start each time.
EXPLORE = int(os.environ.get("HEARTS_EXPLORE", "0") or 0)
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=not EXPLORE,
    database=None,
)


def examples(n: int) -> settings:
    return settings(SETTINGS, max_examples=n * max(EXPLORE, 1))


# --- rules to test -------------------------------------------------------------------------


def short_preset(name: str) -> Rules:
    return make_rules(name, SHORT)


def _option_values(opt: dict[str, object]) -> st.SearchStrategy[object]:
    kind = opt["kind"]
    choices = opt.get("choices", [])
    assert isinstance(choices, list)
    if kind == "choice":
        return st.sampled_from(choices)
    if kind == "bool":
        return st.booleans()
    if kind == "set":
        return st.lists(st.sampled_from(choices), unique=True)
    if kind == "card_values":
        return st.dictionaries(st.sampled_from(choices), st.integers(1, 50))
    assert opt["name"] == "pass_count", f"no values for {opt['name']}"
    return st.integers(1, 5)


def draw_options(draw: st.DrawFn, preset: str) -> dict[str, object]:
    """Random values for some of the options ``describe_options()`` lists for this game."""
    game = PRESETS[preset].game
    opts: dict[str, object] = {}
    for opt in describe_options():
        name = str(opt["name"])
        games = opt["games"]
        assert isinstance(games, list)
        if game not in games or name in ("end", "target_score", "hands"):
            continue
        if draw(st.integers(0, 2)) == 0:
            opts[name] = draw(_option_values(opt))
    return opts


@st.composite
def custom_rules(draw: st.DrawFn) -> Rules:
    """A preset with random options (impossible sets rejected), ending soon."""
    preset = draw(st.sampled_from(sorted(PRESETS)))
    opts = draw_options(draw, preset)
    if draw(st.integers(0, 3)) == 0:
        opts["end"] = "score"
        opts["target_score"] = draw(st.integers(10, 40))
    else:
        opts["end"] = "hands"
        opts["hands"] = draw(st.integers(1, 2))
    try:
        return make_rules(preset, opts)
    except RulesError:
        reject()


any_rules = st.one_of(st.sampled_from(sorted(PRESETS)).map(short_preset), custom_rules())


# --- card text -----------------------------------------------------------------------------


def txt(r: Rules, c: int) -> str:
    return double_card_str(c) if r.game == "double" else card_str(c)


def txts(r: Rules, mask: int) -> set[str]:
    return {txt(r, c) for c in cards_of(mask)}


# --- playing -------------------------------------------------------------------------------


Policy = Callable[[GameState, int, random.Random], Move]


def choose(s: GameState, rng: random.Random, policy: Policy | None = None) -> tuple[int, Move]:
    """A seat that may act, and a uniformly random legal move for it (or the policy's)."""
    seat = rng.choice(seats_to_act(s))
    if policy is not None:
        return seat, policy(s, seat, rng)
    if s.phase == "pass":
        # uniform over legal_moves (every pass set), without listing them all
        can = list(cards_of(passable_cards(s, seat)))
        return seat, PassCards(frozenset(rng.sample(can, s.pass_count)))
    return seat, rng.choice(legal_moves(s, seat))


def play_game(
    rules: Rules,
    seed: int,
    rng_seed: int,
    layouts: Sequence[Layout] = (),
    policy: Policy | None = None,
) -> Iterator[tuple[GameState, int, Move]]:
    """Random legal play: yields (state, seat, move) for each move; fails if it never ends."""
    rng = random.Random(rng_seed)
    s = new_game(rules, seed, layouts)
    max_moves = MAX_HANDS * (2 * 55 + 10)
    for _ in range(max_moves):
        if s.phase == "over":
            return
        seat, mv = choose(s, rng, policy)
        yield s, seat, mv
        s = apply(s, seat, mv)
    pytest.fail(f"{rules.preset} {rules.to_options()} seed {seed}: no end after {max_moves}")


# --- an independent account of the hand ----------------------------------------------------


def expected_direction(r: Rules, hand_no: int) -> str | None:
    """The pass direction of hand ``hand_no`` by RULES.md (None: the dealer chooses)."""
    if r.game == "twentyeight" or r.passing == "none":
        return "hold"
    if r.game == "dummy":
        return "other"
    if r.passing == "dealer":
        return None
    cycle = {
        "left": ["left"],
        "right": ["right"],
        "lr": ["left", "right"],
        "lra": ["left", "right", "across"],
        "lrah": ["left", "right", "across", "hold"],
    }[r.passing]
    if r.players != 4:
        cycle = [d for d in cycle if d != "across"]
    return cycle[hand_no % len(cycle)]


@dataclass
class Record:
    """One played trick as the tracker saw it."""

    cards: list[str] = field(default_factory=list)
    holders: list[int] = field(default_factory=list)
    lead_face: int = 0
    winner: int = -1


class Tracker:
    """Follows a game move by move with its own bookkeeping and checks the engine against it."""

    def __init__(self, s: GameState) -> None:
        self.r = s.rules
        self.rd = s.rules.to_json()
        self.n = s.rules.players
        self.dummy = s.rules.game == "dummy"
        self.holders = 4 if self.dummy else self.n
        self.scorers = 3 if self.dummy else self.n
        self.trick_size = 3 if self.dummy else self.n
        self.deck = oracle.deck(self.rd)
        self.totals = [0] * self.scorers
        self.hand_no = -1
        self.dealt_dead: list[set[str]] = []  # per hand, revealed when it ends
        self.finished_plays: list[list[str]] = []  # per finished hand, cards in play order
        self.moon_choice: str | None = None
        self.events: set[str] = set()  # notable things seen, for hypothesis' statistics
        self.start_hand(s)

    # the hand's own bookkeeping
    def start_hand(self, s: GameState) -> None:
        assert s.hand_no == self.hand_no + 1
        self.hand_no = s.hand_no
        r = self.r
        self.hands = [txts(r, h) for h in s.hands]
        self.dead = txts(r, s.dead)
        self.dealt_dead.append(set(self.dead))
        # the deal: the whole deck, once, in hands of the right sizes
        seen: set[str] = set(self.dead)
        for h in self.hands:
            assert not seen & h, "a card is dealt twice"
            seen |= h
        assert {c.split("/")[0] for c in seen} == self.deck
        size = oracle.hand_size(self.rd)
        sizes = [len(h) for h in self.hands]
        assert sizes == [size] * self.n + ([9, 9] if self.dummy else [])
        dead_n = {"twentyeight": 2, "double": 1 if self.n == 3 else 0}.get(r.game, 0)
        assert len(self.dead) == dead_n
        assert s.dealer == self.hand_no % self.n, "the deal goes round the table"
        self.in_play = set(seen - self.dead)
        self.passes: list[set[str]] = [set() for _ in range(self.n)]
        self.piles: list[set[str]] = [set() for _ in range(self.scorers)]
        self.won = [0] * self.scorers
        self.tricks: list[Record] = []
        self.current = Record()
        self.broken = False
        self.plays: list[str] = []
        self.moon_choice = None
        self.joker = -1
        self.next_order: list[int] = []
        want = expected_direction(r, self.hand_no)
        if want is not None:
            assert s.pass_direction == want
            self.direction = want
            if want == "hold":
                self.begin_play(s)
        else:
            assert s.phase == "direction"
            self.direction = ""

    def begin_play(self, s: GameState) -> None:
        """Passing is over: work out who leads and the first trick's playing order."""
        r = self.r
        assert s.phase == "play"
        if r.game == "double":
            want = "2C" if any(c.split("/")[1] == "2C" for c in self.in_play) else "3C"
            leader = next(
                i for i, h in enumerate(self.hands) if any(c.endswith("/" + want) for c in h)
            )
        elif r.game == "classic" and r.first_lead == "left_of_dealer":
            leader = (s.dealer + 1) % self.n
        else:
            low = oracle.lowest_club(self.in_play)
            leader = next(i for i, h in enumerate(self.hands) if low in h)
        if self.dummy:
            # the Joker: the owner of the half dummy holding 2C, else the non-dealer
            self.joker = leader - 2 if leader >= 2 else 1 - s.dealer
            self.next_order = self.dummy_order(leader)
        else:
            self.next_order = [(leader + i) % self.n for i in range(self.n)]

    def dummy_order(self, leader: int) -> list[int]:
        j = self.joker
        if leader < 2:  # a player leads, the Joker holder's half dummy, the other player
            return [leader, 2 + j, 1 - leader]
        return [2 + j, j, 1 - j]  # the Joker holder's half dummy, their hand, the other player

    def owner(self, holder: int) -> int:
        """The seat that plays a holder's cards (a half dummy's owner)."""
        return holder - 2 if self.dummy and holder >= 2 else holder

    def scorer(self, holder: int) -> int:
        """Whose pile a trick won by ``holder`` goes to (the dummy's, for a half dummy)."""
        return 2 if self.dummy and holder >= 2 else holder

    # checks at every state
    def check_state(self, s: GameState) -> None:
        r = self.r
        if s.phase != "over" and s.hand_no != self.hand_no:
            self.start_hand(s)
        # every card is in exactly one place
        places: list[tuple[str, int]] = [(f"hand {i}", h) for i, h in enumerate(s.hands)]
        places.append(("trick", sum(1 << c for c in s.trick_cards)))
        places += [(f"taken {i}", m) for i, m in enumerate(s.taken)]
        dead_joined = r.game == "double" and (s.trick_no > 0 or s.phase in ("moon", "over"))
        if not dead_joined:  # the face-down card joins the first trick's winner's pile
            places.append(("dead", s.dead))
        seen = 0
        for name, m in places:
            assert not seen & m, f"{txts(r, seen & m)} also in {name}"
            seen |= m
        assert {c.split("/")[0] for c in txts(r, seen)} == self.deck
        assert len(s.trick_cards) == len(set(s.trick_cards))
        # ... and in the place this tracker put it
        if s.phase == "over":
            assert not any(s.hands)
            return
        assert [txts(r, h) for h in s.hands] == self.hands
        assert [txts(r, m) for m in s.taken] == self.piles
        assert [txt(r, c) for c in s.trick_cards] == self.current.cards
        assert list(s.won) == self.won
        if s.phase == "pass":
            for i in range(self.n):
                p = txts(r, s.passes[i])
                assert p == self.passes[i]
                assert p <= self.hands[i], "passed cards stay in the passer's hand"
            assert set(seats_to_act(s)) == {i for i in range(self.n) if not self.passes[i]}
        if s.phase == "direction":
            assert seats_to_act(s) == (s.dealer,)
        if s.phase == "play":
            holder = self.next_order[len(self.current.cards)]
            assert s.turn == holder
            assert seats_to_act(s) == (self.owner(holder),)
            got = set()
            for mv in legal_moves(s, self.owner(holder)):
                assert isinstance(mv, PlayCard)
                face = None if mv.face is None else FACE_NAMES.index(mv.face)
                got.add((txt(r, mv.card), face))
            ts = oracle.TrickState(
                trick_no=len(self.tricks),
                trick=self.current.cards,
                lead_face=self.current.lead_face,
                broken=self.broken,
                in_play=self.in_play,
            )
            want = oracle.legal_plays(self.rd, self.hands[holder], ts)
            assert got == want, f"legal cards {sorted(got)} != RULES.md {sorted(want)}"
        if s.phase == "moon":
            assert self.r.moon == "choice" and self.r.game == "classic"
            assert seats_to_act(s) == (s.moon_shooter,)

    # checks at every move
    def check_move(self, before: GameState, seat: int, mv: Move, after: GameState) -> None:
        r = self.r
        if isinstance(mv, ChooseDirection):
            self.direction = mv.direction
            assert after.pass_direction == mv.direction
            if mv.direction == "hold":
                self.begin_play(after)
            return
        if isinstance(mv, PassCards):
            self.passes[seat] = txts(r, mask_of_ints(mv.cards))
            if all(self.passes):
                d = DIRECTION_OFFSET[self.direction]
                old = [set(h) for h in self.hands]
                for i in range(self.n):
                    self.hands[i] = (old[i] - self.passes[i]) | self.passes[(i - d) % self.n]
                self.begin_play(after)
            return
        if isinstance(mv, ChooseMoon):
            self.moon_choice = mv.choice
            self.finish_hand(after)
            return
        assert isinstance(mv, PlayCard)
        holder = self.next_order[len(self.current.cards)]
        assert self.owner(holder) == seat
        c = txt(r, mv.card)
        assert c in self.hands[holder]
        self.hands[holder].discard(c)
        if not self.current.cards and mv.face is not None:
            self.current.lead_face = FACE_NAMES.index(mv.face)
        self.current.cards.append(c)
        self.current.holders.append(holder)
        self.plays.append(c)
        if len(self.current.cards) < self.trick_size:
            return
        # the trick is complete
        tr = self.current
        tr.winner = tr.holders[oracle.trick_winner(self.rd, tr.cards, tr.lead_face)]
        if oracle.is_joker(tr.cards[0]):
            self.events.add("joker led")
        if self.dummy and tr.holders[0] >= 2:
            self.events.add("half dummy led")
        if r.game == "double":
            led = oracle.led_suit(tr.cards, tr.lead_face)
            ranks = [f[0] for c in tr.cards for f in oracle.faces(c) if f[1] == led]
            if len(set(ranks)) < len(ranks):
                self.events.add("double: twins in a trick")
        sc = self.scorer(tr.winner)
        self.piles[sc] |= set(tr.cards)
        if not self.tricks and r.game == "double":
            self.piles[sc] |= self.dead  # the face-down card goes with the first trick
        self.won[sc] += 1
        self.tricks.append(tr)
        if any(oracle.breaks_hearts(self.rd, x) for x in tr.cards):
            self.broken = True
        self.current = Record()
        if any(self.hands[: self.n]) and oracle.auto_end_due(self.rd, self.hands, self.won):
            # the hand ends by itself: each holder's unplayed cards go to its scorer's pile
            self.events.add(f"auto end in {r.game}")
            for h, left in enumerate(self.hands):
                self.piles[self.scorer(h)] |= left
                self.hands[h] = set()
        if any(self.hands[: self.n]):
            if self.dummy:
                self.joker = 1 - self.joker
                self.next_order = self.dummy_order(tr.winner)
            else:
                self.next_order = [(tr.winner + i) % self.n for i in range(self.n)]
            return
        # the hand is over
        if self.dummy and len(self.tricks) == oracle.hand_size(self.rd):
            # the card left in a half dummy goes to the dummy's tricks
            left = self.hands[2] | self.hands[3]
            assert len(left) == 1
            self.piles[2] |= left
            self.hands[2] = self.hands[3] = set()
        assert not any(self.hands)
        if after.phase == "moon":
            return
        self.finish_hand(after)

    def finish_hand(self, after: GameState) -> None:
        r = self.r
        # the 3-player Double Hearts face-down card scores with the first trick
        scoring = self.in_play | self.dead if r.game == "double" else self.in_play
        out = oracle.hand_points(self.rd, self.piles, self.won, scoring, self.moon_choice)
        totals = oracle.new_totals(self.rd, self.totals, out.points)
        res = after.history[-1]
        assert len(after.history) == self.hand_no + 1
        got = (
            list(res.points),
            list(res.totals),
            res.moon,
            txts(r, res.dead),
            list(res.tricks_won),
        )
        want_points = [t - o for t, o in zip(totals, self.totals, strict=True)]
        want = (want_points, totals, out.shooter, self.dead, self.won)
        assert got == want, f"hand {self.hand_no}: engine {got} != RULES.md {want}"
        assert res.dealer == self.hand_no % self.n
        assert res.direction == self.direction
        # the sum of the hand's points, as the engine issue states it
        assert sum(res.points) == self.expected_sum(out.shooter, out.points)
        # every trick: cards, holders, lead face and winner
        tricks = after.prev_tricks
        assert len(tricks) == len(self.tricks)
        if len(tricks) < oracle.hand_size(self.rd):
            assert r.auto_end, "only the auto_end option ends a hand before its last trick"
        else:
            assert len(tricks) == oracle.hand_size(self.rd)
        for tr, mine in zip(tricks, self.tricks, strict=True):
            assert [txt(r, c) for c in tr.cards] == mine.cards
            assert list(tr.holders) == mine.holders
            assert tr.winner == mine.winner
            assert tr.lead_face == mine.lead_face
        if out.shooter >= 0:
            self.events.add(f"moon in {r.game}")
        if any(t != o + p for t, o, p in zip(totals, self.totals, out.points, strict=True)):
            self.events.add("exact reset")
        if r.game == "classic" and r.no_trick_bonus and 0 in self.won:
            self.events.add("no-trick bonus")
        self.totals = totals
        self.finished_plays.append(self.plays)
        over = oracle.game_over(self.rd, totals, self.hand_no + 1)
        assert (after.phase == "over") == over
        assert list(after.scores) == totals
        if over:
            assert list(after.winners) == oracle.winners(totals)
        else:
            assert after.winners == ()

    def expected_sum(self, shooter: int, raw: list[int]) -> int:
        """The hand's total points: the positive total, the moon, bonuses and resets."""
        r = self.r
        plus = sum(
            max(oracle.face_value(self.rd, f), 0)
            for c in self.in_play | self.dead
            for f in oracle.faces(c)
            if r.game == "double" or c not in self.dead
        )
        taken = set().union(*self.piles)
        bonus = sum(min(oracle.face_value(self.rd, f), 0) for c in taken for f in oracle.faces(c))
        if r.game == "classic" and r.no_trick_bonus:
            bonus -= 5 * sum(1 for w in self.won if w == 0)
        # exact reset: reaching exactly 50 or 100 drops by 50
        resets = 50 * sum(
            1
            for o, p in zip(self.totals, raw, strict=True)
            if r.exact_reset and p and o + p in (50, 100)
        )
        if shooter < 0:
            base = plus
        elif r.game == "twentyeight":
            base = 20
        elif r.game == "dummy":
            base = -26
        elif r.game == "double":
            base = 52 * (self.n - 1)
        else:
            how = r.moon if r.moon != "choice" else self.moon_choice
            base = -plus if how == "self" else plus * (self.n - 1)
        return base + bonus - resets


def mask_of_ints(cards: frozenset[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def run_tracked(
    rules: Rules,
    seed: int,
    rng_seed: int,
    layouts: Sequence[Layout] = (),
    policy: Policy | None = None,
) -> tuple[GameState, Tracker]:
    tracker: Tracker | None = None
    last: GameState | None = None
    for s, seat, mv in play_game(rules, seed, rng_seed, layouts, policy):
        if tracker is None:
            tracker = Tracker(s)
        tracker.check_state(s)
        after = apply(s, seat, mv)
        tracker.check_move(s, seat, mv, after)
        last = after
    assert tracker is not None and last is not None
    assert last.phase == "over"
    tracker.check_state(last)
    return last, tracker


# --- 1. random play ends, cards stay in one place, and the score is RULES.md's ---------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
@examples(10)
@given(seed=st.integers(0, 2**32), rng_seed=st.integers(0, 2**32))
def test_random_play_follows_the_rules(preset: str, seed: int, rng_seed: int) -> None:
    _, tracker = run_tracked(short_preset(preset), seed, rng_seed)
    for e in sorted(tracker.events):
        event(e)


@examples(200)
@given(rules=custom_rules(), seed=st.integers(0, 2**32), rng_seed=st.integers(0, 2**32))
def test_random_play_with_custom_options(rules: Rules, seed: int, rng_seed: int) -> None:
    _, tracker = run_tracked(rules, seed, rng_seed)
    event(f"game {rules.game}")
    for e in sorted(tracker.events):
        event(e)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_full_games_end(preset: str) -> None:
    """Whole games to the target score (100, or 250 for Double Hearts), every preset."""
    final, _ = run_tracked(PRESETS[preset], 2024, 7)
    assert len(final.history) >= 2
    assert max(final.scores) >= PRESETS[preset].target_score


# --- the moon: deals where one seat takes every trick ----------------------------------------

# The shooter's cards: with them, and playing its highest face of the suit led (or leading its
# highest face), the shooter takes every trick whatever the others play.
MOON_CARDS = {
    "dummy": "AC KC QC JC AD KD QD JD AS KS QS JS AH KH QH JH TH",
    "twentyeight": "2H 4H 6H 8H TH QH AH AS QS AC QC AD QD",
    # Light faces; the card with Dark 2C (KH) and Dark 3C (QH) stays with the others
    "double-4": "AC AD AS AH KC KD KS 2C 2D 2S 2H QC QD",
    "double-3": "AC AD AS AH KC KD KS 2C 2D 2S 2H QC QD 3C 3D QS 3H",
}


def moon_layout(r: Rules, shooter: int, rng: random.Random) -> Layout:
    deck = [parse_card(c) for c in sorted(oracle.deck(r.to_json()))]
    if r.game == "classic":
        real = sorted((c for c in deck if c < 52), key=lambda c: (-(c % 13), c // 13))
        mine = real[: oracle.hand_size(r.to_json())]
    else:
        key = r.game if r.game != "double" else f"double-{r.players}"
        mine = [parse_card(c) for c in MOON_CARDS[key].split()]
    rest = [c for c in deck if c not in mine]
    rng.shuffle(rest)
    holders: list[list[int]] = [[] for _ in range(4 if r.game == "dummy" else r.players)]
    holders[shooter] = mine
    if r.game == "dummy":
        # the other player takes the remaining hearts, so no heart is left in a half dummy
        other = 1 - shooter
        hearts = [c for c in rest if c // 13 == 3]
        holders[other] = hearts
        rest = [c for c in rest if c not in hearts]
        sizes = {other: 17, 2: 9, 3: 9}
    else:
        sizes = {i: oracle.hand_size(r.to_json()) for i in range(r.players) if i != shooter}
    for h, size in sizes.items():
        while len(holders[h]) < size:
            holders[h].append(rest.pop())
    return Layout(tuple(mask_of_ints(frozenset(h)) for h in holders), mask_of_ints(frozenset(rest)))


def shooter_policy(shooter: int) -> Policy:
    """The shooter plays its highest face of the suit led (or leads its highest face); the
    others play at random."""

    def policy(s: GameState, seat: int, rng: random.Random) -> Move:
        legal = legal_moves(s, seat)
        if seat != shooter or s.phase != "play":
            return rng.choice(legal)
        r = s.rules
        trick = [txt(r, c) for c in s.trick_cards]

        def strength(mv: Move) -> int:
            assert isinstance(mv, PlayCard)
            fs = oracle.faces(txt(r, mv.card))
            if not trick:
                face = fs[FACE_NAMES.index(mv.face)] if mv.face else fs[0]
                return -1 if oracle.is_joker(face) else oracle.rank(face)
            led = oracle.led_suit(trick, s.lead_face)
            ranks = [oracle.rank(f) for f in fs if not oracle.is_joker(f) and f[1] == led]
            return max(ranks, default=-1)

        return max(legal, key=strength)

    return policy


@st.composite
def moon_rules(draw: st.DrawFn) -> Rules:
    """Any preset, often with random options, every moon rule, one hand with no passing (it
    would spoil the deal); sometimes penalty spades that make the moon worth exactly 50 with
    exact reset on, so that the others reach 50 and drop back to 0."""
    preset = draw(st.sampled_from(sorted(PRESETS)))
    opts = draw_options(draw, preset) if draw(st.booleans()) else {}
    opts.update(end="hands", hands=1)
    if PRESETS[preset].game == "twentyeight":
        return make_rules(preset, opts)
    opts["passing"] = "none"
    if PRESETS[preset].game == "classic":
        opts["moon"] = draw(st.sampled_from(["others", "self", "choice"]))
        if draw(st.integers(0, 2)) == 0:
            opts.update(exact_reset=True, spade_penalties={})
            try:
                base = make_rules(preset, opts).to_json()
            except RulesError:
                reject()
            total = sum(
                oracle.face_value(base, c) for c in oracle.deck(base) if oracle.positive(base, c)
            )
            opts["spade_penalties"] = {"AS": 50 - total}
    try:
        return make_rules(preset, opts)
    except RulesError:
        reject()


@examples(80)
@given(rules=moon_rules(), shooter=st.integers(0, 4), seed=st.integers(0, 2**32))
def test_moon_is_scored_as_rules_md_says(rules: Rules, shooter: int, seed: int) -> None:
    shooter %= rules.players
    lay = moon_layout(rules, shooter, random.Random(seed))
    final, tracker = run_tracked(rules, seed, seed, [lay], shooter_policy(shooter))
    assert f"moon in {rules.game}" in tracker.events
    assert final.history[0].moon == shooter
    event(f"game {rules.game}, moon {rules.moon}")
    for e in sorted(tracker.events):
        event(e)


# --- 2. a view never holds a card its seat may not see ---------------------------------------


CARD_TEXT = re.compile(r'"((?:[2-9TJQKA][CDSH](?:/[2-9TJQKA][CDSH])?)|JK[123])"')


def card_texts(obj: object) -> set[str]:
    """Every string in a JSON value that names a card."""
    return set(CARD_TEXT.findall(json.dumps(obj)))


def check_view(s: GameState, seat: int | None, tr: Tracker, seed: int) -> None:
    v: dict[str, Any] = view(s, seat)
    assert str(seed) not in json.dumps(v), "the view shows the seed"
    played = set(tr.plays) if s.phase == "over" else {c for t in tr.tricks for c in t.cards}
    if s.phase != "over":
        played |= set(tr.current.cards)
    own: set[str] = set()
    if seat is not None:
        own = set(tr.hands[seat]) if s.phase != "over" else set()
        if tr.dummy and s.phase != "over":
            own |= tr.hands[2 + seat]
        assert set(v["hand"]) == (tr.hands[seat] if s.phase != "over" else set())
        if "half_dummy" in v:
            assert tr.dummy and set(v["half_dummy"]) == tr.hands[2 + seat]
        if "passed_cards" in v:
            assert set(v["passed_cards"]) == tr.passes[seat]
        if "received" in v:
            assert s.phase in ("play", "moon", "over") and all(tr.passes)
            d = DIRECTION_OFFSET[tr.direction]
            assert set(v["received"]) == tr.passes[(seat - d) % tr.n]
    else:
        for key in ("hand", "half_dummy", "passed_cards", "received"):
            assert key not in v, f"the spectator view has {key}"
        assert v.get("legal") is None
    for key, value in v.items():
        shown = card_texts(value)
        if key == "options":
            # the table's rule options name cards (pass limits, penalty spades), not holdings
            assert value == s.rules.to_options()
        elif key == "previous_tricks":
            # the last finished hand's tricks, which every player saw played
            want = tr.finished_plays[-1] if tr.finished_plays else []
            plays = [p["card"] for t in value for p in t["plays"]]
            assert plays == want
        elif key == "history":
            assert len(value) == len(tr.finished_plays)
            for i, h in enumerate(value):
                assert set(h["dead"]) == tr.dealt_dead[i], "dead cards shown once the hand ends"
                rest = {k: x for k, x in h.items() if k != "dead"}
                assert not card_texts(rest)
        elif key in ("hand", "half_dummy", "passed_cards", "received", "legal"):
            assert seat is not None
            # what it holds, passed and received (received cards stay in view once played)
            allowed = own | played | tr.passes[seat]
            if all(tr.passes) and s.phase in ("play", "moon", "over"):
                allowed |= tr.passes[(seat - DIRECTION_OFFSET[tr.direction]) % tr.n]
            assert shown <= allowed, f"{key}: {shown - allowed}"
        else:
            assert shown <= played, f"{key} shows unplayed cards {shown - played}"


@examples(40)
@given(rules=any_rules, seed=st.integers(10**12, 10**13), rng_seed=st.integers(0, 2**32))
def test_views_hold_only_what_the_seat_may_see(rules: Rules, seed: int, rng_seed: int) -> None:
    tracker: Tracker | None = None
    last: GameState | None = None
    for s, seat, mv in play_game(rules, seed, rng_seed):
        if tracker is None:
            tracker = Tracker(s)
        tracker.check_state(s)
        for who in [None, *range(rules.players)]:
            check_view(s, who, tracker, seed)
        after = apply(s, seat, mv)
        tracker.check_move(s, seat, mv, after)
        last = after
    assert tracker is not None and last is not None
    for who in [None, *range(rules.players)]:
        check_view(last, who, tracker, seed)


# --- 3. JSON round-trips and replay reproduces the game --------------------------------------


@examples(60)
@given(rules=any_rules, seed=st.integers(0, 2**63), rng_seed=st.integers(0, 2**32))
def test_json_round_trip_and_replay(rules: Rules, seed: int, rng_seed: int) -> None:
    moves: list[tuple[int, Move]] = []
    last: GameState | None = None
    for s, seat, mv in play_game(rules, seed, rng_seed):
        blob = state_to_json(s)
        back = state_from_json(json.loads(json.dumps(blob)))
        assert back == s
        assert state_to_json(back) == blob
        after = apply(s, seat, mv)
        # the restored state plays on exactly as the original
        assert apply(back, seat, mv) == after
        moves.append((seat, mv))
        last = after
    assert last is not None
    blob = state_to_json(last)
    assert state_from_json(json.loads(json.dumps(blob))) == last
    assert replay(rules, seed, moves) == last
    assert state_to_json(replay(rules, seed, moves)) == blob
    # half way through as well
    half = len(moves) // 2
    mid = replay(rules, seed, moves[:half])
    for seat, mv in moves[half:]:
        mid = apply(mid, seat, mv)
    assert mid == last


# --- 4. legal_moves lists exactly what apply accepts -----------------------------------------


def accepts(s: GameState, seat: int, mv: Move, snapshot: GameState) -> bool:
    """Whether ``apply`` takes the move; a refusal must leave the state as it was.

    ``snapshot`` is ``s`` rebuilt from its JSON: comparing with it compares every field that
    ``state_to_json`` writes (the full JSON comparison runs once per position)."""
    try:
        apply(s, seat, mv)
    except IllegalMove as e:
        assert e.code and e.message
        assert s == snapshot
        return False
    assert s == snapshot  # apply never mutates
    return True


def refuses(s: GameState, seat: int, mv: Move) -> str:
    """The reason code of a refused move."""
    try:
        apply(s, seat, mv)
    except IllegalMove as e:
        return e.code
    raise AssertionError(f"seat {seat} {mv} was accepted")


def check_legal_matches_apply(s: GameState, rng: random.Random) -> None:
    before = state_to_json(s)
    snap = state_from_json(before)
    assert snap == s
    check_each_seat(s, rng, snap)
    assert state_to_json(s) == before


def check_each_seat(s: GameState, rng: random.Random, snap: GameState) -> None:
    n = s.rules.players
    acting = seats_to_act(s)
    for seat in range(n):
        legal = legal_moves(s, seat)
        if seat not in acting:
            assert legal == []
        if s.phase == "play":
            faces: tuple[str | None, ...] = (None,)
            if s.rules.game == "double":
                faces = (None, "light", "dark")
            tried = [PlayCard(c, f) for c in range(55) for f in faces]
            if s.rules.game == "double":
                tried = [pc for pc in tried if pc.card < 52 or pc.face is None]
            in_hand = 0
            for h in s.hands:
                in_hand |= h
            for pc in tried:
                if seat in acting and in_hand >> pc.card & 1:
                    assert accepts(s, seat, pc, snap) == (pc in legal), f"seat {seat} {pc}"
                else:
                    assert pc not in legal
                    refuses(s, seat, pc)
            assert len(set(legal)) == len(legal)
        elif s.phase == "pass":
            k = s.pass_count
            if seat not in acting:
                hand = list(cards_of(s.hands[seat]))
                assert not accepts(s, seat, PassCards(frozenset(hand[:k])), snap)
                continue
            can = passable_cards(s, seat)
            assert len(legal) == comb(can.bit_count(), k) == len(set(legal))
            for mv in legal:
                assert isinstance(mv, PassCards) and len(mv.cards) == k
                assert mask_of_ints(mv.cards) & ~can == 0
            hand = list(cards_of(s.hands[seat]))
            legal_set = set(legal)
            for mv in rng.sample(legal, min(3, len(legal))):
                assert accepts(s, seat, mv, snap)
            for _ in range(5):
                size = rng.choice([k - 1, k, k, k + 1])
                pool = hand + rng.sample(range(55), 2)
                mv = PassCards(frozenset(rng.sample(pool, min(size, len(pool)))))
                assert accepts(s, seat, mv, snap) == (mv in legal_set), f"seat {seat} {mv}"
            barred = s.hands[seat] & ~can
            if barred:  # a forbidden card in an otherwise fine pass
                bad = next(cards_of(barred))
                others = [c for c in hand if c != bad][: k - 1]
                assert (
                    refuses(s, seat, PassCards(frozenset([bad, *others]))) == "pass_forbidden_card"
                )
        elif s.phase == "direction":
            for d in ("left", "right", "across", "hold"):
                mv = ChooseDirection(d)
                assert accepts(s, seat, mv, snap) == (mv in legal)
        elif s.phase == "moon":
            for c in ("self", "others"):
                mv = ChooseMoon(c)
                assert accepts(s, seat, mv, snap) == (mv in legal)
        # a move of another phase is refused
        if s.phase != "pass":
            hand = list(cards_of(s.hands[seat]))
            if len(hand) >= s.pass_count:
                assert refuses(s, seat, PassCards(frozenset(hand[: s.pass_count])))
        if s.phase != "play" and s.hands[seat]:
            assert refuses(s, seat, PlayCard(next(cards_of(s.hands[seat]))))


@examples(40)
@given(rules=any_rules, seed=st.integers(0, 2**32), rng_seed=st.integers(0, 2**32))
def test_legal_moves_are_what_apply_accepts(rules: Rules, seed: int, rng_seed: int) -> None:
    rng = random.Random(rng_seed ^ 0x5EED)
    last: GameState | None = None
    for s, seat, mv in play_game(rules, seed, rng_seed):
        check_legal_matches_apply(s, rng)
        last = apply(s, seat, mv)
    assert last is not None and last.phase == "over"
    for seat in range(rules.players):
        assert legal_moves(last, seat) == []
        with pytest.raises(IllegalMove) as e:
            apply(last, seat, PlayCard(0))
        assert e.value.code == "game_over"


def test_double_hearts_pairing_is_as_rules_md_asks() -> None:
    """Section 4: aces back aces, 8+ backs 7-, never the same suit on both faces, a bijection."""
    from app.engine import dark_face

    darks = {dark_face(c) for c in range(52)}
    assert darks == set(range(52))
    for c in range(52):
        light, dark = card_str(c), card_str(dark_face(c))
        assert light[1] != dark[1]
        if light[0] == "A":
            assert dark[0] == "A"
        elif oracle.rank(light) >= oracle.rank("8C"):
            assert oracle.rank(dark) <= oracle.rank("7C")
        else:
            assert oracle.rank(dark) >= oracle.rank("8C")
