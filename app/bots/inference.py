"""How plausible a sampled deal is, given how the other players played and passed.

``Knowledge.sample`` deals the unseen cards uniformly among the deals that respect the hard facts
(hand sizes, shown voids, the cards this seat passed).  Expert also weighs the soft facts: a deal
in which the other players' past plays are the plays a sensible player would have made from the
hands the deal gives them is more likely than one in which they are not.

The model of the other players is the Standard policy (the seed's heuristic, which Standard and
Pro players use for passing and close to it for play; people play much the same way: shed the QS
when void, play the highest card that ducks, pass the highest cards):

- **Plays**: for every earlier card a hidden hand played with a choice of more than one legal
  card, its hand at that moment is rebuilt from the deal (the cards it holds now plus the cards
  it played since); a play that is not the model's costs a factor ``PLAY_EPS``.
- **Pass**: the cards this seat received were the passer's highest valued (Standard's pass), so
  the passer's hand held no higher valued passable card, except the ones it received itself.
  Every such card beyond that allowance costs a factor ``PASS_EPS``.

The deals the search plays are drawn by sampling-importance-resampling: ``proposals`` deals are
sampled and one is kept with probability proportional to its weight.  Where the game has a trained
beliefs model (``beliefs.py``: classic 4-player) and ``BELIEFS`` is on, the proposals are drawn
from the model (every hard fact still exact) instead of uniformly; the weights then judge them as
before.  With soft factors a deal is
never ruled out, so a player who plays differently (a person, Expert itself) only dilutes the
inference.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from app.engine.game import legal_mask

from .beliefs import Beliefs, model_for
from .fast import standard_card
from .flat import fast_tables, flat_ok
from .knowledge import Knowledge, mask_of_texts
from .policy import policy_card, policy_ok, policy_tables
from .standard import CARD_BITS, standard_play, standard_tables

_Context = tuple[int, int, int, int, bool]
_Event = tuple[int, int, int, int, list[int], int, int, bool, int, _Context]

PLAY_EPS = 0.3
# the model of the other players' plays: "standard", "policy" (Expert's rollout policy), or
# "either" (a play either of them would make is explained)
MODEL = "standard"
PASS_EPS = 0.2
# draw the proposals from the learned beliefs where the game has a model (else uniformly)
BELIEFS = True


class Plausibility:
    """Weights deals for one decision (built once; ``weight(deal)`` per deal)."""

    def __init__(
        self, k: Knowledge, play_eps: float | None = None, pass_eps: float | None = None
    ) -> None:
        self.k = k
        self.play_eps = PLAY_EPS if play_eps is None else play_eps
        self.pass_eps = PASS_EPS if pass_eps is None else pass_eps
        t = k.t
        self.t = t
        self.st = standard_tables(t)
        n_in_trick = len(k.order)
        self.n_in_trick = n_in_trick
        hidden = set(k.hidden)
        # observed choices of hidden hands: (holder, card, trick_no, position, cards before,
        # led suit before, lead face, broken, index into the later-cards table, context for the
        # flat Standard card: winning card, its key, points, net points, last)
        events: list[
            tuple[
                int, int, int, int, list[int], int, int, bool, int, tuple[int, int, int, int, bool]
            ]
        ] = []
        flat = flat_ok(t)
        # cards each hidden holder played at or after each event (their hand then = now | these)
        plays: list[tuple[int, int]] = []  # (holder, card) in playing order
        history = getattr(k, "history", [])
        gone = 0
        self.gone: list[int] = []  # per event: the cards played before it
        for trick_no, (cards, holders, face, broken) in enumerate(history):
            led = -1
            for pos, (c, h) in enumerate(zip(cards, holders, strict=True)):
                if h in hidden and not (trick_no == 0 and pos == 0):
                    ctx = self._context(cards[:pos], led) if flat else (-1, 0, 0, 0, False)
                    events.append(
                        (h, c, trick_no, pos, cards[:pos], led, face, broken, len(plays), ctx)
                    )
                    self.gone.append(gone)
                plays.append((h, c))
                gone |= 1 << c
                led = self._next_led(led, pos, c, face)
        # later[i][h]: the cards holder h played from play i on
        later: list[dict[int, int]] = [dict.fromkeys(hidden, 0) for _ in range(len(plays) + 1)]
        for i in range(len(plays) - 1, -1, -1):
            row = dict(later[i + 1])
            h, c = plays[i]
            if h in row:
                row[h] |= 1 << c
            later[i] = row
        self.events = events
        self.later = later
        self._pass_setup()
        model = model_for(k.rules) if BELIEFS and k.phase == "play" else None
        self.beliefs = Beliefs(k, model) if model is not None else None

    def _context(self, before: list[int], led: int) -> _Context:
        t = self.t
        wc = -1
        best = 0
        points = 0
        net = 0
        for c in before:
            points += t.pos_value[c]
            net += t.value[c]
            if led >= 0 and t.key[0][led][c] > best:
                best = t.key[0][led][c]
                wc = c
        return wc, best, points, net, len(before) == self.n_in_trick - 1

    def _next_led(self, led: int, pos: int, c: int, face: int) -> int:
        from app.engine.game import next_led_suit

        return next_led_suit(self.t, led, pos, c, face)

    def _pass_setup(self) -> None:
        k = self.k
        view = k.view
        self.passer = -1
        received = mask_of_texts(view.get("received", []) or [])
        if not received or not k.pass_offset:
            return
        n = k.n
        passer = (k.seat - k.pass_offset) % n
        receiver = (k.seat + k.pass_offset) % n
        dump = self.st.dump
        thr = min(dump[c] for c in range(55) if received >> c & 1)
        above = 0
        for c in self.t.deck_cards:
            if dump[c] > thr:
                above |= 1 << c
        above &= ~self.t.pass_forbidden
        self.passer = passer
        self.above = above
        # the passer received this seat's cards (known) or up to pass_count unknown ones
        self.allow = 0 if passer == receiver else received.bit_count()
        self.exclude = k.passed if passer == receiver else 0
        # cards the passer played from its own hand
        mine = 0
        for cards, holders, _face, _broken in getattr(k, "history", []):
            for c, h in zip(cards, holders, strict=True):
                if h == passer:
                    mine |= 1 << c
        self.passer_played = mine

    def weight(self, deal: Sequence[int]) -> float:
        # Fields read into locals once, as the rollouts do (a local is read faster than an
        # attribute, and this loop runs for every event of every deal weighed): alike on purpose.
        w = 1.0
        t = self.t
        st = self.st
        eps = self.play_eps
        later = self.later
        n_in_trick = self.n_in_trick
        double = t.game == "double"
        ft = fast_tables(t) if flat_ok(t) else None
        pt = policy_tables(t) if MODEL != "standard" and policy_ok(t) else None
        gone = self.gone
        for e, (h, c, trick_no, pos, before, led, face, broken, idx, ctx) in enumerate(self.events):
            hand = deal[h] | later[idx][h]
            legal = legal_mask(t, hand, trick_no, pos, led, broken, 0)
            if not legal & (legal - 1):
                continue
            if pt is not None:
                wc, _best, points, net, last = ctx
                pc = policy_card(pt, hand, legal, last, led, wc, points, net, gone[e], False)
                if pc == c:
                    continue
                if MODEL == "policy":
                    w *= eps
                    continue
            if ft is not None:
                d = standard_card(ft, legal, led, *ctx)
            else:
                d = standard_play(
                    st, legal, before, led, face, n_in_trick, double and trick_no == 0
                )
            if d & CARD_BITS != c:
                w *= eps
        if self.passer >= 0:
            held = (deal[self.passer] | self.passer_played) & ~self.exclude
            extra = (held & self.above).bit_count() - self.allow
            if extra > 0:
                w *= self.pass_eps**extra
        return w

    def draw(self, rng: random.Random, proposals: int) -> list[int]:
        """A deal drawn by sampling-importance-resampling from ``proposals`` samples."""
        sample = self.beliefs.draw if self.beliefs is not None else self.k.sample
        if proposals <= 1 or (not self.events and self.passer < 0):
            return sample(rng)
        deals = [sample(rng) for _ in range(proposals)]
        ws = [self.weight(d) for d in deals]
        r = rng.random() * sum(ws)
        for d, w in zip(deals, ws, strict=True):
            r -= w
            if r < 0:
                return d
        return deals[-1]
