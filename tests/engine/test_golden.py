"""Golden transcripts: one complete game per preset, kept as readable text in ``golden/``.

Two checks per file:
- the engine replays the file's moves and takes every trick, hand score, total and winner the
  file records (and deals the hands it records);
- an independent reading: from the card text alone, with ``oracle``'s rules code (not the
  engine's tables), every pass goes the right way, every card is one its player held and was
  allowed to play, every trick goes to the card the file says, and every hand's points, totals
  and the winners are what RULES.md gives.

``python -m tests.engine.make_golden`` writes the files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from app.engine import (
    PRESETS,
    ChooseDirection,
    ChooseMoon,
    GameState,
    PassCards,
    PlayCard,
    apply,
    card_str,
    cards_of,
    double_card_str,
    make_rules,
    new_game,
    parse_card,
)

from . import oracle
from .make_golden import GOLDEN, golden_text

OFFSET = {"left": 1, "right": -1, "across": 2, "other": 1, "hold": 0}


# --- reading a transcript --------------------------------------------------------------------


@dataclass
class Play:
    holder: str  # S0.. or D0/D1
    card: str  # card text, "QS" or "QS/3H"
    face: int | None  # lead face in Double Hearts (0 light, 1 dark)

    @property
    def seat(self) -> int:
        return int(self.holder[1:])


@dataclass
class Trick:
    plays: list[Play]
    winner: str


@dataclass
class Hand:
    number: int
    dealer: int
    direction: str
    deal: dict[str, set[str]] = field(default_factory=dict)
    face_down: set[str] = field(default_factory=set)
    chosen: tuple[int, str] | None = None
    passes: list[tuple[int, int, set[str]]] = field(default_factory=list)
    after_pass: dict[str, set[str]] = field(default_factory=dict)
    joker: int | None = None
    tricks: list[Trick] = field(default_factory=list)
    face_down_to: str | None = None
    left_in_dummy: tuple[str, str] | None = None
    shown_dead: set[str] = field(default_factory=set)
    moon_choice: tuple[int, str] | None = None
    tricks_won: list[int] = field(default_factory=list)
    moon: str = "none"
    points: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)


@dataclass
class Golden:
    preset: str
    options: dict[str, object]
    seed: int
    rules: dict[str, object]
    hands: list[Hand] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)


def _values(text: str) -> list[int]:
    """``S0 3, S1 -2, dummy 15`` -> [3, -2, 15]."""
    return [int(part.split()[1]) for part in text.split(", ")]


def parse(text: str) -> Golden:
    head: dict[str, str] = {}
    g: Golden | None = None
    hand: Hand | None = None
    over = False
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, rest = line.partition(": ")
        if line.startswith("== hand"):
            # == hand 1: dealer S0, pass left ==
            words = line.strip("= ").replace(",", "").replace(":", "").split()
            hand = Hand(int(words[1]), int(words[3][1:]), words[5])
            assert g is not None
            g.hands.append(hand)
            continue
        if line == "== game over ==":
            over = True
            continue
        if g is None:
            head[key] = rest
            if key == "rules":
                g = Golden(
                    head["preset"], json.loads(head["options"]), int(head["seed"]), json.loads(rest)
                )
            continue
        if over:
            if key == "totals":
                g.totals = _values(rest)
            elif key == "winners":
                g.winners = rest.split()
            continue
        assert hand is not None, line
        if key.startswith("deal "):
            hand.deal[key[5:]] = set(rest.split())
        elif key == "face down":
            hand.face_down = set(rest.split())
        elif key == "direction":
            seat, _, d = rest.split()
            hand.chosen = (int(seat[1:]), d)
        elif key.startswith("pass "):
            _, src, _, dst = key.split()
            hand.passes.append((int(src[1:]), int(dst[1:]), set(rest.split())))
        elif key.startswith("hand "):
            hand.after_pass[key[5:]] = set(rest.split())
        elif key == "joker":
            hand.joker = int(rest.split()[0][1:])
        elif key.startswith("trick "):
            plays_text, _, winner = rest.partition(" -> ")
            plays = []
            for p in plays_text.split(", "):
                words = p.split()
                face = ("light", "dark").index(words[2]) if len(words) > 2 else None
                plays.append(Play(words[0], words[1], face))
            assert int(key.split()[1]) == len(hand.tricks) + 1
            hand.tricks.append(Trick(plays, winner))
        elif line.startswith("face-down card "):
            hand.face_down_to = line.split()[-1]
        elif key == "left in half dummy":
            holder, card, _, _ = rest.split()
            hand.left_in_dummy = (holder, card)
        elif key == "face down, shown now":
            hand.shown_dead = set(rest.split())
        elif key == "moon choice":
            seat, _, choice = rest.split()
            hand.moon_choice = (int(seat[1:]), choice)
        elif key == "tricks won":
            hand.tricks_won = _values(rest)
        elif key == "moon":
            hand.moon = rest
        elif key == "points":
            hand.points = _values(rest)
        elif key == "totals":
            hand.totals = _values(rest)
        else:
            raise AssertionError(f"unknown line {line!r}")
    assert g is not None and over
    return g


def load(preset: str) -> Golden:
    return parse((GOLDEN / f"{preset}.txt").read_text())


GOLDEN_PRESETS = sorted(p.stem for p in GOLDEN.glob("*.txt"))


def test_every_preset_has_a_golden_game() -> None:
    assert set(PRESETS) <= set(GOLDEN_PRESETS)


@pytest.mark.parametrize("preset", GOLDEN_PRESETS)
def test_file_is_what_make_golden_writes(preset: str) -> None:
    assert (GOLDEN / f"{preset}.txt").read_text() == golden_text(preset)


# --- 1. the engine replays the file ----------------------------------------------------------


def _txt(s: GameState, c: int) -> str:
    return double_card_str(c) if s.rules.game == "double" else card_str(c)


def _set(s: GameState, mask: int) -> set[str]:
    return {_txt(s, c) for c in cards_of(mask)}


def _holder(s: GameState, h: int) -> str:
    return f"D{h - 2}" if s.rules.game == "dummy" and h >= 2 else f"S{h}"


def _card(text: str) -> int:
    return parse_card(text.split("/")[0])


@pytest.mark.parametrize("preset", GOLDEN_PRESETS)
def test_engine_replays_the_golden_game(preset: str) -> None:
    g = load(preset)
    rules = make_rules(g.preset, g.options)
    assert rules.to_json() == g.rules
    s = new_game(rules, g.seed)
    for hand in g.hands:
        assert s.hand_no + 1 == hand.number and s.dealer == hand.dealer
        holders = 4 if rules.game == "dummy" else rules.players
        assert {_holder(s, h): _set(s, s.hands[h]) for h in range(holders)} == hand.deal
        assert _set(s, s.dead) == hand.face_down
        if hand.chosen:
            s = apply(s, hand.chosen[0], ChooseDirection(hand.chosen[1]))
        assert s.pass_direction == hand.direction
        for src, _, cards in hand.passes:
            s = apply(s, src, PassCards(frozenset(_card(c) for c in cards)))
        for name, cards in hand.after_pass.items():
            assert _set(s, s.hands[int(name[1:])]) == cards
        if hand.joker is not None:
            assert s.joker == hand.joker
        for i, trick in enumerate(hand.tricks):
            for p in trick.plays:
                assert _holder(s, s.turn) == p.holder
                face = None if p.face is None else ("light", "dark")[p.face]
                s = apply(s, p.seat, PlayCard(_card(p.card), face))
            same_hand = s.hand_no == hand.number - 1
            tr = (s.tricks if same_hand else s.prev_tricks)[i]
            assert [_txt(s, c) for c in tr.cards] == [p.card for p in trick.plays]
            assert _holder(s, tr.winner) == trick.winner, f"hand {hand.number} trick {i + 1}"
        if hand.moon_choice:
            s = apply(s, hand.moon_choice[0], ChooseMoon(hand.moon_choice[1]))
        res = s.history[hand.number - 1]
        assert list(res.points) == hand.points
        assert list(res.totals) == hand.totals
        assert list(res.tricks_won) == hand.tricks_won
        names = [f"S{i}" for i in range(rules.players)] + ["dummy"]
        assert (names[res.moon] if res.moon >= 0 else "none") == hand.moon
        assert _set(s, res.dead) == hand.face_down
    assert s.phase == "over"
    assert list(s.scores) == g.totals
    names = [f"S{i}" for i in range(rules.players)] + ["dummy"]
    assert [names[w] for w in s.winners] == g.winners


# --- 2. the file checked by hand: RULES.md from the card text alone -------------------------


def scorer_of(game: str, holder: str) -> int:
    """Whose pile a trick taken by ``holder`` goes to: a seat, or the dummy (2)."""
    return 2 if holder.startswith("D") else int(holder[1:])


def owner_of(holder: str) -> int:
    return int(holder[1:])


def check_by_hand(g: Golden) -> None:
    r = g.rules
    game, n = str(r["game"]), oracle.number(r, "players")
    dummy = game == "dummy"
    scorers = 3 if dummy else n
    totals = [0] * scorers
    deck = oracle.deck(r)
    for k, hand in enumerate(g.hands):
        # the deal: the whole deck once, the dealer and the pass direction in turn
        assert hand.dealer == k % n
        dealt = set().union(*hand.deal.values()) | hand.face_down
        assert sum(len(h) for h in hand.deal.values()) + len(hand.face_down) == len(dealt)
        assert {c.split("/")[0] for c in dealt} == deck
        hands = {name: set(cards) for name, cards in hand.deal.items()}
        # passing: to the next seat for left, the previous for right, two on for across
        direction = hand.chosen[1] if hand.chosen else hand.direction
        assert hand.direction == direction
        if direction != "hold":
            assert len(hand.passes) == n
            for src, dst, cards in hand.passes:
                assert dst == (src + OFFSET[direction]) % n
                assert cards <= hands[f"S{src}"] and len(cards) == r["pass_count"]
            for src, _, cards in hand.passes:
                hands[f"S{src}"] -= cards
            for _, dst, cards in hand.passes:
                hands[f"S{dst}"] |= cards
            for name, cards in hand.after_pass.items():
                assert hands[name] == cards
        in_play = dealt - hand.face_down
        # who leads trick 1, and the Joker in the dummy game
        if game == "double":
            want = "2C" if any(c.split("/")[1] == "2C" for c in in_play) else "3C"
            forced = next(c for c in in_play if c.split("/")[1] == want)
            leader = next(h for h, cs in hands.items() if forced in cs)
        elif game == "classic" and r["first_lead"] == "left_of_dealer":
            leader = f"S{(hand.dealer + 1) % n}"
        else:
            low = oracle.lowest_club(in_play)
            leader = next(h for h, cs in hands.items() if low in cs)
        joker = -1
        if dummy:
            joker = owner_of(leader) if leader.startswith("D") else 1 - hand.dealer
            assert hand.joker == joker
        piles: list[set[str]] = [set() for _ in range(scorers)]
        won = [0] * scorers
        broken = False
        for i, trick in enumerate(hand.tricks):
            # playing order: round the table from the leader; in the dummy game a player leads,
            # then the Joker holder's half dummy, then the other player, or a half dummy leads,
            # then its owner (the Joker holder), then the other player
            holders = [p.holder for p in trick.plays]
            if dummy:
                if leader.startswith("S"):
                    want_order = [leader, f"D{joker}", f"S{1 - owner_of(leader)}"]
                else:
                    want_order = [f"D{joker}", f"S{joker}", f"S{1 - joker}"]
            else:
                first = owner_of(leader)
                want_order = [f"S{(first + j) % n}" for j in range(n)]
            assert holders == want_order, f"hand {hand.number} trick {i + 1}: order"
            lead_face = trick.plays[0].face or 0
            played: list[str] = []
            for p in trick.plays:
                assert p.card in hands[p.holder], f"{p.holder} does not hold {p.card}"
                state = oracle.TrickState(i, played, lead_face, broken, in_play)
                allowed = oracle.legal_plays(r, hands[p.holder], state)
                assert (p.card, p.face) in allowed, f"hand {hand.number} trick {i + 1}: {p}"
                hands[p.holder].discard(p.card)
                played.append(p.card)
            winner = trick.plays[oracle.trick_winner(r, played, lead_face)].holder
            assert winner == trick.winner, f"hand {hand.number} trick {i + 1}: winner"
            sc = scorer_of(game, winner)
            piles[sc] |= set(played)
            won[sc] += 1
            if i == 0 and game == "double" and hand.face_down:
                assert hand.face_down_to == winner
                piles[sc] |= hand.face_down
            broken = broken or any(oracle.breaks_hearts(r, c) for c in played)
            leader = winner
            if dummy:
                joker = 1 - joker
                if winner.startswith("D"):
                    leader = f"D{joker}"
        # the hand's end
        assert len(hand.tricks) == oracle.hand_size(r)
        if dummy:
            left = hands["D0"] | hands["D1"]
            assert hand.left_in_dummy is not None and {hand.left_in_dummy[1]} == left
            piles[2] |= left
        else:
            assert not any(hands.values())
        if game == "twentyeight":
            assert hand.shown_dead == hand.face_down
        scoring = in_play | hand.face_down if game == "double" else in_play
        choice = hand.moon_choice[1] if hand.moon_choice else None
        out = oracle.hand_points(r, piles, won, scoring, choice)
        new = oracle.new_totals(r, totals, out.points)
        assert won == hand.tricks_won
        names = [f"S{i}" for i in range(n)] + ["dummy"]
        assert hand.moon == (names[out.shooter] if out.shooter >= 0 else "none")
        assert hand.points == [t - o for t, o in zip(new, totals, strict=True)]
        assert hand.totals == new
        totals = new
        assert oracle.game_over(r, totals, k + 1) == (k == len(g.hands) - 1)
    assert g.totals == totals
    names = [f"S{i}" for i in range(n)] + ["dummy"]
    assert g.winners == [names[w] for w in oracle.winners(totals)]


@pytest.mark.parametrize("preset", GOLDEN_PRESETS)
def test_golden_game_checked_by_hand(preset: str) -> None:
    check_by_hand(load(preset))


def test_the_checker_catches_a_wrong_winner() -> None:
    """The hand check is not vacuous: a transcript with one trick's winner changed fails."""
    g = load("classic")
    trick = g.hands[0].tricks[0]
    others = [p.holder for p in trick.plays if p.holder != trick.winner]
    trick.winner = others[0]
    with pytest.raises(AssertionError, match="winner"):
        check_by_hand(g)


def test_the_checker_catches_wrong_points() -> None:
    g = load("double-hearts")
    g.hands[0].points[0] += 1
    with pytest.raises(AssertionError):
        check_by_hand(g)
