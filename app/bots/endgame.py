"""Exact play of the last tricks of a sampled deal (Expert).

When few cards are left, Expert does not roll the hand out with a policy: on each sampled deal it
finds the outcome of best play by every hand (max-n: each player, with every card in view, plays
to lower its own score; ties go to the play that gives the others the most), by a memoised search
over bit masks.  The moon is exact (the search carries each player's points).  Cards that are
interchangeable (same suit and value, no card left between them in another hand or the trick) are
searched once.

Serves the games played round the table with one face per card and no dummy (classic, 3 to 5
players with every option, and the 28-card game).
"""

from __future__ import annotations

from app.engine import Tables
from app.engine.game import legal_mask, settle_moon
from app.engine.playout import Sim

SUIT = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))


def endgame_ok(t: Tables) -> bool:
    return t.game in ("classic", "twentyeight")


class Solver:
    """Max-n values of positions of one sampled deal (one memo per deal)."""

    def __init__(self, t: Tables, dead: int, moon_choice: str) -> None:
        self.t = t
        self.n = t.n
        self.pos = t.pos_value
        self.neg = t.neg_value
        self.key = t.key[0]
        self.need = sum(t.pos_value[c] for c in t.deck_cards if not dead >> c & 1)
        self.moon_choice = moon_choice
        self.memo: dict[tuple[object, ...], tuple[int, ...]] = {}
        self.nodes = 0
        self.no_trick = t.rules.no_trick_bonus and t.game == "classic"

    def value(self, sim: Sim) -> tuple[int, ...]:
        """The final points per player of ``sim`` (any point of a hand) under best play."""
        n = self.n
        got = [0] * n
        neg = [0] * n
        for i in range(n):
            m = sim.taken[i]
            while m:
                low = m & -m
                c = low.bit_length() - 1
                got[i] += self.pos[c]
                neg[i] += self.neg[c]
                m ^= low
        won = tuple(w > 0 for w in sim.won[:n])
        return self._trick(
            tuple(sim.hands[:n]),
            sim.order,
            list(sim.cards),
            sim.led_suit,
            sim.broken,
            sim.trick_no,
            tuple(got),
            tuple(neg),
            won,
            sim.first_lead_mask,
        )

    def _final(
        self, got: tuple[int, ...], neg: tuple[int, ...], won: tuple[bool, ...]
    ) -> tuple[int, ...]:
        bonus = list(neg)
        if self.no_trick:
            for i in range(self.n):
                if not won[i]:
                    bonus[i] -= 5
        shooter = -1
        if self.need:
            for i in range(self.n):
                if got[i] == self.need:
                    shooter = i
        return tuple(settle_moon(self.t, list(got), bonus, shooter, self.moon_choice))

    def _trick(
        self,
        hands: tuple[int, ...],
        order: tuple[int, ...],
        cards: list[int],
        led: int,
        broken: bool,
        trick_no: int,
        got: tuple[int, ...],
        neg: tuple[int, ...],
        won: tuple[bool, ...],
        flm: int,
    ) -> tuple[int, ...]:
        """The value of a position inside (or at the start of) a trick."""
        if not cards:
            if not hands[order[0]]:
                return self._final(got, neg, won)
            k = (hands, order[0], broken, got, neg, won if self.no_trick else None)
            v = self.memo.get(k)
            if v is not None:
                return v
        else:
            k = None
        self.nodes += 1
        t = self.t
        i = len(cards)
        h = order[i]
        hand = hands[h]
        legal = legal_mask(t, hand, trick_no, i, led, broken, flm if trick_no == 0 else 0)
        best: tuple[int, ...] | None = None
        rest = 0
        for x in hands:
            rest |= x
        rest &= ~hand
        for c in self._distinct(legal, rest, cards):
            b = 1 << c
            nh = hands[:h] + (hand ^ b,) + hands[h + 1 :]
            nl = led
            if nl < 0 and c < 52:
                nl = c // 13
            nc = cards + [c]
            if len(nc) < len(order):
                v = self._trick(nh, order, nc, nl, broken, trick_no, got, neg, won, flm)
            else:
                v = self._close(nh, order, nc, nl, broken, trick_no, got, neg, won, flm)
            if best is None:
                best = v
                continue
            if v[h] < best[h] or (v[h] == best[h] and sum(v) - v[h] > sum(best) - best[h]):
                best = v
        assert best is not None
        if k is not None:
            self.memo[k] = best
        return best

    def _close(
        self,
        hands: tuple[int, ...],
        order: tuple[int, ...],
        cards: list[int],
        led: int,
        broken: bool,
        trick_no: int,
        got: tuple[int, ...],
        neg: tuple[int, ...],
        won: tuple[bool, ...],
        flm: int,
    ) -> tuple[int, ...]:
        key = self.key[led] if led >= 0 else self.key[0]
        bk = -1
        wi = 0
        p = 0
        q = 0
        m = 0
        for j, c in enumerate(cards):
            m |= 1 << c
            p += self.pos[c]
            q += self.neg[c]
            kv = key[c]
            if kv > bk:
                bk = kv
                wi = j
        w = order[wi]
        if p:
            got = got[:w] + (got[w] + p,) + got[w + 1 :]
        if q:
            neg = neg[:w] + (neg[w] + q,) + neg[w + 1 :]
        if not won[w]:
            won = won[:w] + (True,) + won[w + 1 :]
        if m & self.t.breakers:
            broken = True
        return self._trick(
            hands, self.t.orders[w], [], -1, broken, trick_no + 1, got, neg, won, flm
        )

    def _distinct(self, legal: int, rest: int, cards: list[int]) -> list[int]:
        """One card of each group of interchangeable legal cards."""
        out: list[int] = []
        pos = self.pos
        neg = self.neg
        block = rest
        for c in cards:
            block |= 1 << c
        m = legal
        prev = -1
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            if (
                prev >= 0
                and c < 52
                and prev // 13 == c // 13
                and pos[c] == pos[prev]
                and neg[c] == neg[prev]
                and not block & (((1 << c) - 1) & ~((2 << prev) - 1))
            ):
                prev = c
                continue
            out.append(c)
            prev = c
        return out


def solve_candidates(sim: Sim, seat: int, cands: list[int], dead: int) -> tuple[list[float], int]:
    """The exact final points of ``seat`` after each candidate card on the deal of ``sim``,
    and the number of positions searched."""
    solver = Solver(sim.t, dead, sim.moon_choice)
    out: list[float] = []
    for c in cands:
        sm = sim.copy()
        if sm.play(c):
            out.append(float(sm.score()[seat]))
            continue
        out.append(float(solver.value(sm)[seat]))
    return out, solver.nodes
