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
from app.engine.game import legal_mask
from app.engine.playout import Sim
from app.engine.scoring import settle_moon

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

    # _trick and _close take a position as separate arguments, one parameter list twice: the
    # exact search visits many positions, and no object is built or unpacked at each.
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

    # _trick's parameter list again (see there), as the claim search's node and child.
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
        block = rest
        for c in cards:
            block |= 1 << c
        return _distinct(self.pos, self.neg, legal, block)


class Duel:
    """Exact play of a two-player hand (the 28-card game) for one seat: alpha-beta search.

    With two players the hand is strictly competitive: whatever lowers one player's final points
    raises the other's (the points in play are shared out, and a moon gives 0 and 20), so the
    opponent's best play is the one that leaves ``me`` the most points, and the search needs only
    ``me``'s final points, with alpha-beta cuts and a table of bounds per position at the start of
    a trick.  Gives the same value for ``me`` as :class:`Solver` (tested), on far fewer
    positions."""

    def __init__(self, t: Tables, dead: int, me: int) -> None:
        self.t = t
        self.me = me
        self.pos = t.pos_value
        self.neg = t.neg_value
        self.key = t.key[0]
        self.breakers = t.breakers
        self.need = sum(t.pos_value[c] for c in t.deck_cards if not dead >> c & 1)
        got = [0, 0]
        got[1 - me] = self.need
        self.swept = settle_moon(t, got, [0, 0], 1 - me, "others")[me]  # the other shot
        got = [0, 0]
        got[me] = self.need
        self.shot = settle_moon(t, got, [0, 0], me, "others")[me]
        self.table: dict[tuple[int, int, int, bool, int], tuple[int, int]] = {}
        self.nodes = 0
        self.flm = 0

    def value(self, sim: Sim) -> int:
        """``me``'s final points from ``sim`` (the start of a trick or its first card played)."""
        m = sim.taken[self.me] & self.t.pos_mask
        r = 0
        while m:
            low = m & -m
            r += self.pos[low.bit_length() - 1]
            m ^= low
        hands = (sim.hands[0], sim.hands[1])
        self.flm = sim.first_lead_mask
        if not sim.cards:
            return self._lead(hands, sim.order[0], sim.broken, sim.trick_no, r, -1, 1000)
        return self._follow(
            hands, sim.order[0], sim.cards[0], sim.broken, sim.trick_no, r, -1, 1000
        )

    def _final(self, r: int) -> int:
        if r == 0 and self.need:
            return self.swept
        if r == self.need and self.need:
            return self.shot
        return r

    def _lead(
        self,
        hands: tuple[int, int],
        leader: int,
        broken: bool,
        trick_no: int,
        r: int,
        alpha: int,
        beta: int,
    ) -> int:
        if not hands[leader]:
            return self._final(r)
        k = (hands[0], hands[1], leader, broken, r)
        lo, hi = self.table.get(k, (-1, 1000))
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        a0 = alpha = max(alpha, lo)
        b0 = beta = min(beta, hi)
        self.nodes += 1
        t = self.t
        flm = self.flm if trick_no == 0 else 0
        legal = legal_mask(t, hands[leader], trick_no, 0, -1, broken, flm)
        rest = hands[1 - leader]
        mine = leader == self.me
        best = 1000 if mine else -1
        for c in _distinct(self.pos, self.neg, legal, rest):
            v = self._follow(hands, leader, c, broken, trick_no, r, alpha, beta)
            if mine:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
            elif v > best:
                best = v
                if v > alpha:
                    alpha = v
            if alpha >= beta:
                break
        if best <= a0:
            self.table[k] = (lo, best)
        elif best >= b0:
            self.table[k] = (best, hi)
        else:
            self.table[k] = (best, best)
        return best

    def _follow(
        self,
        hands: tuple[int, int],
        leader: int,
        lead: int,
        broken: bool,
        trick_no: int,
        r: int,
        alpha: int,
        beta: int,
    ) -> int:
        t = self.t
        f = 1 - leader
        hl = hands[leader] & ~(1 << lead)
        led = lead // 13
        legal = legal_mask(t, hands[f], trick_no, 1, led, broken, 0)
        mine = f == self.me
        best = 1000 if mine else -1
        key = self.key[led]
        kl = key[lead]
        pl = self.pos[lead]
        for c in _distinct(self.pos, self.neg, legal, hl | 1 << lead):
            w = leader if kl > key[c] else f
            p = pl + self.pos[c]
            nr = r + p if w == self.me else r
            nb = broken or bool(((1 << lead) | (1 << c)) & self.breakers)
            hf = hands[f] & ~(1 << c)
            nh = (hl, hf) if leader == 0 else (hf, hl)
            v = self._lead(nh, w, nb, trick_no + 1, nr, alpha, beta)
            if mine:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
            elif v > best:
                best = v
                if v > alpha:
                    alpha = v
            if alpha >= beta:
                break
        return best


def _distinct(pos: tuple[int, ...], neg: tuple[int, ...], legal: int, block: int) -> list[int]:
    """One card of each run of interchangeable legal cards (same suit and points, no card of
    ``block`` between them; jokers each on their own)."""
    out: list[int] = []
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


def duel_ok(t: Tables) -> bool:
    """The two-player games :class:`Duel` serves: no dummy, one face, no bonus cards."""
    return t.game == "twentyeight" and t.n == 2 and not t.neg_mask


def solve_candidates(sim: Sim, seat: int, cands: list[int], dead: int) -> tuple[list[float], int]:
    """The exact final points of ``seat`` after each candidate card on the deal of ``sim``,
    and the number of positions searched."""
    if duel_ok(sim.t):
        duel = Duel(sim.t, dead, seat)
        vals: list[float] = []
        for c in cands:
            sm = sim.copy()
            if sm.play(c):
                vals.append(float(sm.score()[seat]))
            else:
                vals.append(float(duel.value(sm)))
        return vals, duel.nodes
    solver = Solver(sim.t, dead, sim.moon_choice)
    out: list[float] = []
    for c in cands:
        sm = sim.copy()
        if sm.play(c):
            out.append(float(sm.score()[seat]))
            continue
        out.append(float(solver.value(sm)[seat]))
    return out, solver.nodes
