"""Learned beliefs: for each unseen card, the chance each other seat holds it, from one seat's view.

``Knowledge.sample`` deals the unseen cards uniformly among the deals that respect the hard facts
(hand sizes, shown voids, the cards this seat passed).  The players' choices say more: a player who
ducked under the winning spade with the 9 rarely holds the 10; a passer who gave the AH rarely
kept the AS; a player who led clubs three times still holds clubs.  This module scores those soft
facts with a small model trained on positions of the computers' own self-play (``training/``), with
the true locations as labels, and draws deals from it that still respect every hard fact.

The model (classic 4-player only, ``MODELS``) is a per-card softmax over the seats that can hold the
card: a seat's logit is the log of its free hand size (the uniform deal's share) plus a linear score
of hand-made features of (card, seat) read from the view (``features``): the pass it made or
received, the leads and follows in the card's suit, ducks below and plays over the winning card,
its discards of safer cards, the voids it has shown.  The feature weights depend on the card's
class (QS, AK of spades, low spades, high and low hearts, clubs, diamonds) and there is one weight
per card for the passer and the receiver.  A seat shown void in the card's suit, or without room,
gets exactly zero.  Inference is plain Python (no numpy at run time); the weights are a small JSON
file beside this module, written by ``python -m training.beliefs_train``.

``draw`` is ``Knowledge.sample`` given the model's odds against the uniform share: it deals the
unseen cards one by one (the most constrained first), each to a seat with room that can hold it,
chosen in proportion to its room times those odds; so every deal respects the hard facts exactly,
and a model with zero weights deals as the uniform ``Knowledge.sample`` does.
"""

from __future__ import annotations

import json
import math
import random
from functools import cache
from pathlib import Path

from app.engine import Rules

from .knowledge import Knowledge

MODEL_DIR = Path(__file__).parent / "models"
# the games with a trained model (the weights file beside this module); every other game, and
# classic 4-player with other scoring (Omnibus, Hooligan, penalty spades, graded hearts), deals
# uniformly as before
MODELS: dict[tuple[str, int], str] = {("classic", 4): "beliefs-classic4.json"}

N_FEATURES = 15
N_CLASSES = 9
# the hidden layer's inputs: the features, then the seat's place (left, across, right), the
# card's rank, its class, the free unseen cards of its suit, the seat's room, top of its suit
N_INPUTS = N_FEATURES + 3 + 1 + N_CLASSES + 3
QS = 36
FEATURE_NAMES = (
    "bias",
    "passer",
    "passer_kept_higher",
    "receiver",
    "leads_in_suit",
    "follows_in_suit",
    "ducked_below_it",
    "played_over_it",
    "discarded_safer",
    "discards",
    "led_lower_in_suit",
    "led_higher_in_suit",
    "progress",
    "passer_progress",
    "voids",
)


def card_class(c: int) -> int:
    """The card's class: 0 QS, 1 AK of spades, 2 low spades, 3 high hearts (T-A), 4 low hearts,
    5 high clubs, 6 low clubs, 7 high diamonds, 8 low diamonds."""
    s, r = divmod(c, 13)
    if s == 2:
        return 0 if r == 10 else (1 if r > 10 else 2)
    base = {3: 3, 0: 5, 1: 7}[s]
    return base if r >= 8 else base + 1


# the danger of keeping a card (the Standard pass's order: QS, then high spades, high hearts...)
def _dump(c: int) -> int:
    s, r = divmod(c, 13)
    if c == QS:
        return 1000
    if s == 2 and r > 10:
        return 900 + r
    if s == 3:
        return 200 + 4 * r
    return 4 * r + s


class Model:
    """The weights: the linear part ``w[class][feature]``, ``passer[card]``, ``receiver[card]``,
    and a small hidden layer (``w1``, ``b1``: tanh units over the ``N_INPUTS`` inputs; ``w2``:
    their weights in the logit), empty for a linear model."""

    def __init__(
        self,
        w: list[list[float]],
        passer: list[float],
        receiver: list[float],
        w1: list[list[float]] | None = None,
        b1: list[float] | None = None,
        w2: list[float] | None = None,
    ) -> None:
        if len(w) != N_CLASSES or any(len(row) != N_FEATURES for row in w):
            raise ValueError(f"beliefs weights must be {N_CLASSES} x {N_FEATURES}")
        if len(passer) != 52 or len(receiver) != 52:
            raise ValueError("beliefs weights need one passer and one receiver weight per card")
        w1, b1, w2 = w1 or [], b1 or [], w2 or []
        if len(b1) != len(w1) or len(w2) != len(w1) or any(len(r) != N_INPUTS for r in w1):
            raise ValueError(f"the hidden layer must be H x {N_INPUTS}, H and H weights")
        self.w = w
        self.passer = passer
        self.receiver = receiver
        self.w1 = w1
        self.b1 = b1
        self.w2 = w2

    @classmethod
    def zero(cls) -> Model:
        """The model that says nothing beyond the hard facts (the uniform deal's shares)."""
        return cls([[0.0] * N_FEATURES for _ in range(N_CLASSES)], [0.0] * 52, [0.0] * 52)

    @classmethod
    def load(cls, path: Path) -> Model:
        d = json.loads(path.read_text())
        return cls(d["w"], d["passer"], d["receiver"], d.get("w1"), d.get("b1"), d.get("w2"))

    def logit(self, c: int, f: list[float], offset: float) -> float:
        """A seat's logit for holding card ``c``, from its inputs ``f`` and log room."""
        z = offset + sum(a * b for a, b in zip(self.w[card_class(c)], f, strict=False))
        z += self.passer[c] * f[1] + self.receiver[c] * f[3]
        for row, b, v in zip(self.w1, self.b1, self.w2, strict=True):
            z += v * math.tanh(b + sum(a * x for a, x in zip(row, f, strict=True)))
        return z


@cache
def load_model(name: str) -> Model | None:
    path = MODEL_DIR / name
    return Model.load(path) if path.exists() else None


def model_for(rules: Rules) -> Model | None:
    """The trained model of a table's rules, or None (the game falls back to uniform deals)."""
    name = MODELS.get((rules.game, rules.players))
    scoring_as_trained = (
        rules.omnibus == "none"
        and not rules.hooligan
        and not rules.spade_penalties
        and not rules.graded_hearts
    )
    if name is None or not scoring_as_trained:
        return None
    return load_model(name)


Rows = list[tuple[int, list[int], list[list[float]], list[float]]]
_ONE_HOT_CLASS = [[1.0 if i == j else 0.0 for i in range(N_CLASSES)] for j in range(N_CLASSES)]


def features(k: Knowledge) -> Rows:
    """Per free unseen card (not one this seat passed): the card, the hidden holders that can hold
    it, each one's inputs (``N_INPUTS``: the linear part reads the first ``N_FEATURES``) and log
    free room.  Classic 4-player positions only."""
    seat = k.seat
    n = k.n
    off = k.pass_offset
    passer = (seat - off) % n if off and k.received else -1
    receiver = (seat + off) % n if off and k.passed else -1
    thr = min((_dump(c) for c in range(52) if k.received >> c & 1), default=10**6)
    known = 0
    room = dict(k.capacity)
    for h, m in k.known.items():
        known |= m
        room[h] -= m.bit_count()
    free = k.unseen & ~known
    cards = [c for c in range(52) if free >> c & 1]
    hidden = [h for h in k.hidden if h < n]
    # per (holder, suit) counters and per (holder, card) evidence
    leads = {h: [0, 0, 0, 0] for h in hidden}
    follows = {h: [0, 0, 0, 0] for h in hidden}
    discards = dict.fromkeys(hidden, 0)
    ev: dict[tuple[int, int], list[float]] = {}

    def add(h: int, c: int, f: int) -> None:
        row = ev.get((h, c))
        if row is None:
            row = ev[(h, c)] = [0.0] * N_FEATURES
        row[f] += 1.0

    for trick_no, (tcards, holders, _face, _broken) in enumerate(k.history):
        led = tcards[0] // 13
        win = tcards[0]
        for pos, (x, h) in enumerate(zip(tcards, holders, strict=True)):
            if h in leads:
                s, r = divmod(x, 13)
                if pos == 0:
                    if trick_no > 0:
                        leads[h][s] += 1
                        for c in cards:
                            if c // 13 == s:
                                add(h, c, 10 if r < c % 13 else 11)
                elif s == led:
                    follows[h][s] += 1
                    if x < win:
                        for c in cards:
                            if x < c < win:
                                add(h, c, 6)
                    elif pos < n - 1:
                        for c in cards:
                            if led * 13 <= c < win:
                                add(h, c, 7)
                else:
                    discards[h] += 1
                    dx = _dump(x)
                    for c in cards:
                        if _dump(c) > dx:
                            add(h, c, 8)
            if x // 13 == led and x > win:
                win = x
    progress = k.played.bit_count() / 52
    voids = {h: sum(1 for s in range(4) if k.void[h] >> (13 * s) & 1) / 3 for h in hidden}
    in_suit = [0, 0, 0, 0]
    top = [-1, -1, -1, -1]
    for c in cards:
        in_suit[c // 13] += 1
        top[c // 13] = c
    rows: Rows = []
    for c in cards:
        s = c // 13
        extra = [c % 13 / 12, *_ONE_HOT_CLASS[card_class(c)], in_suit[s] / 13]
        hs: list[int] = []
        fs: list[list[float]] = []
        offs: list[float] = []
        for h in hidden:
            if k.void[h] >> c & 1 or room[h] <= 0:
                continue
            f = ev.get((h, c)) or [0.0] * N_FEATURES
            f = [min(v, 2.0) / 2 for v in f]
            f[0] = 1.0
            f[1] = 1.0 if h == passer else 0.0
            f[2] = 1.0 if h == passer and _dump(c) > thr else 0.0
            f[3] = 1.0 if h == receiver else 0.0
            f[4] = min(leads[h][s], 3) / 3
            f[5] = min(follows[h][s], 4) / 4
            f[9] = min(discards[h], 3) / 3
            f[12] = progress
            f[13] = progress * f[1]
            f[14] = voids[h]
            rel = (h - seat) % n
            f += [float(rel == 1), float(rel == 2), float(rel == 3), *extra]
            f += [room[h] / 13, float(top[s] == c)]
            hs.append(h)
            fs.append(f)
            offs.append(math.log(room[h]))
        rows.append((c, hs, fs, offs))
    return rows


def probabilities(model: Model, rows: Rows) -> dict[int, dict[int, float]]:
    """Per card, the chance each holder that can hold it does (summing to one)."""
    out: dict[int, dict[int, float]] = {}
    for c, hs, fs, offs in rows:
        logits = [model.logit(c, f, o) for f, o in zip(fs, offs, strict=True)]
        if not logits:
            out[c] = {}
            continue
        m = max(logits)
        es = [math.exp(z - m) for z in logits]
        tot = sum(es)
        out[c] = {h: e / tot for h, e in zip(hs, es, strict=True)}
    return out


class Beliefs:
    """The model's view of one decision (built once), and deals drawn from it.

    ``probs[card][holder]``: the chance, for every unseen card, that each hidden holder holds it
    (a holder that cannot is absent: a shown void, no room, a card this seat passed to another)."""

    def __init__(self, k: Knowledge, model: Model) -> None:
        self.k = k
        rows = features(k)
        self.probs = probabilities(model, rows)
        for h, m in k.known.items():  # the cards this seat passed: certain until played
            for c in range(52):
                if m >> c & 1:
                    self.probs[c] = {h: 1.0}
        # odds against the uniform share (room over all room), the weights of the draw
        room = {h: o for _c, hs, _fs, offs in rows for h, o in zip(hs, offs, strict=True)}
        total = sum(math.exp(o) for o in room.values()) or 1.0
        self.odds: dict[int, dict[int, float]] = {
            c: {h: p * total / math.exp(room[h]) for h, p in ps.items()}
            for c, ps in self.probs.items()
            if not any(m >> c & 1 for m in k.known.values())
        }

    def draw(self, rng: random.Random) -> list[int]:
        """A deal of the unseen cards respecting every hard fact, drawn by the model's odds
        (``Knowledge.sample`` with them): the most constrained cards first (in random order
        among equals), each to a holder with room in proportion to its room times the model's
        odds."""
        return self.k.sample(rng, self.odds)
