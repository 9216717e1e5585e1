"""Which rating predicts held-out Hearts results best: Weng-Lin (openskill, what
app/db/ratings.py uses), the pairwise Elo it replaced, or pairwise Glicko-2.

    python -m bench.ratings [--players 48] [--games 6000] [--seeds 3] [--results FILE]

The games: a population of players, each of one computer level (easy, standard, pro, expert:
a known strength order), meets four at a time in classic games to 100. A hand's points are a
kept all-Standard self-play hand (``base_points`` of bench/results, as bench.anchors reads
them), each seat moved by its level's measured points per hand against Standard (docs/bots.md:
Standard vs Easy -4.52, Pro vs Standard -2.27, Expert vs Pro -1.67), the hand's total kept.
So the strengths and the game-to-game noise are the measured ones; the games are drawn, not
played (playing thousands of games with the Expert would take days on this machine).

Each system rates the first 80% of the games in order, then predicts the held-out 20% with
the ratings frozen: for every pair of seats with different totals, the probability that the
lower total is the one it rates higher (its own model of a pairwise result). Printed per
system: pairwise log loss (lower is better), pairwise accuracy, how often the game's winner
was the seat rated highest, Spearman's correlation of the final ratings with the true levels,
and games played before a Weng-Lin deviation is small (PROVISIONAL_DEVIATION).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.db import ratings as wl
from bench.anchors import DEFAULT_RESULTS, hands_of

# Points per hand against a field of Standard players (docs/bots.md, chained).
LEVEL_SHIFT = {"easy": 4.52, "standard": 0.0, "pro": -2.27, "expert": -3.94}
LEVELS = tuple(LEVEL_SHIFT)
TARGET = 100
TRAIN_SHARE = 0.8


def play_game(levels: Sequence[str], hands: list[list[int]], rng: random.Random) -> list[int]:
    """Final totals of one classic game to TARGET between seats of these levels."""
    shifts = [LEVEL_SHIFT[level] for level in levels]
    mean = statistics.fmean(shifts)
    totals = [0.0] * len(levels)
    while max(totals) < TARGET:
        hand = rng.choice(hands)
        order = rng.sample(range(4), 4)  # the kept hand's seats, dealt to these players
        for seat in range(len(levels)):
            totals[seat] += hand[order[seat]] + shifts[seat] - mean
    return [round(t) for t in totals]


@dataclass(frozen=True, slots=True)
class Game:
    players: tuple[int, ...]
    totals: tuple[int, ...]


def make_games(
    n_players: int, n_games: int, hands: list[list[int]], seed: int
) -> tuple[list[str], list[Game]]:
    rng = random.Random(seed)
    levels = [LEVELS[i % len(LEVELS)] for i in range(n_players)]
    games = []
    for _ in range(n_games):
        seats = tuple(rng.sample(range(n_players), 4))
        totals = play_game([levels[p] for p in seats], hands, rng)
        games.append(Game(seats, tuple(totals)))
    return levels, games


# -- the systems: rate(game), then p(i beats j) -----------------------------------------------


class System:
    name = ""

    def rate(self, game: Game) -> None:
        raise NotImplementedError

    def p_beats(self, i: int, j: int) -> float:
        raise NotImplementedError

    def score(self, i: int) -> float:
        raise NotImplementedError


class WengLin(System):
    name = "Weng-Lin (openskill PL)"

    def __init__(self) -> None:
        self.skills: dict[int, wl.Skill] = {}
        self.games: dict[int, int] = {}
        self.established_after: dict[int, int] = {}

    def rate(self, game: Game) -> None:
        contestants = [
            wl.Contestant(self.skills.get(p, wl.NEW_PLAYER), t)
            for p, t in zip(game.players, game.totals, strict=True)
        ]
        for p, new in zip(game.players, wl.rate_game(contestants), strict=True):
            self.skills[p] = new
            self.games[p] = self.games.get(p, 0) + 1
            if p not in self.established_after and not wl.is_provisional(new.deviation):
                self.established_after[p] = self.games[p]

    def p_beats(self, i: int, j: int) -> float:
        a, b = self.skills.get(i, wl.NEW_PLAYER), self.skills.get(j, wl.NEW_PLAYER)
        c = math.sqrt(a.deviation**2 + b.deviation**2 + 2 * wl.BETA**2)
        return 1.0 / (1.0 + math.exp((b.rating - a.rating) / c))

    def score(self, i: int) -> float:
        return self.skills.get(i, wl.NEW_PLAYER).rating


class PairwiseElo(System):
    """The rating this project used before: K 40 for 10 games then 20, divided by n - 1."""

    name = "pairwise Elo (before)"

    def __init__(self) -> None:
        self.r: dict[int, float] = {}
        self.n: dict[int, int] = {}

    def rate(self, game: Game) -> None:
        k = len(game.players) - 1
        deltas = []
        for i, (p, t) in enumerate(zip(game.players, game.totals, strict=True)):
            kf = (40.0 if self.n.get(p, 0) < 10 else 20.0) / k
            d = 0.0
            for j, (q, u) in enumerate(zip(game.players, game.totals, strict=True)):
                if i != j:
                    s = 1.0 if t < u else 0.5 if t == u else 0.0
                    d += kf * (s - self.p_beats(p, q))
            deltas.append(d)
        for p, d in zip(game.players, deltas, strict=True):
            self.r[p] = self.r.get(p, 1500.0) + d
            self.n[p] = self.n.get(p, 0) + 1

    def p_beats(self, i: int, j: int) -> float:
        return 1.0 / (1.0 + 10 ** ((self.r.get(j, 1500.0) - self.r.get(i, 1500.0)) / 400.0))

    def score(self, i: int) -> float:
        return self.r.get(i, 1500.0)


class PairwiseGlicko2(System):
    """Glicko-2 (Glickman 2013), each game one rating period of pairwise results."""

    name = "pairwise Glicko-2"
    TAU = 0.5
    SCALE = 173.7178

    def __init__(self) -> None:
        self.s: dict[int, tuple[float, float, float]] = {}  # mu, phi, sigma (Glicko-2 scale)

    def get(self, p: int) -> tuple[float, float, float]:
        return self.s.get(p, (0.0, 350 / self.SCALE, 0.06))

    @staticmethod
    def g(phi: float) -> float:
        return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)

    def rate(self, game: Game) -> None:
        new = {}
        for i, (p, t) in enumerate(zip(game.players, game.totals, strict=True)):
            mu, phi, sigma = self.get(p)
            v_inv = 0.0
            delta_sum = 0.0
            for j, (q, u) in enumerate(zip(game.players, game.totals, strict=True)):
                if i == j:
                    continue
                mu_j, phi_j, _ = self.get(q)
                gj = self.g(phi_j)
                e = 1.0 / (1.0 + math.exp(-gj * (mu - mu_j)))
                s = 1.0 if t < u else 0.5 if t == u else 0.0
                v_inv += gj * gj * e * (1 - e)
                delta_sum += gj * (s - e)
            v = 1.0 / v_inv
            delta = v * delta_sum
            sigma = self._volatility(phi, sigma, v, delta)
            phi_star = math.sqrt(phi * phi + sigma * sigma)
            phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
            mu = mu + phi * phi * delta_sum
            new[p] = (mu, phi, sigma)
        self.s.update(new)

    def _volatility(self, phi: float, sigma: float, v: float, delta: float) -> float:
        a = math.log(sigma * sigma)
        tau = self.TAU

        def f(x: float) -> float:
            ex = math.exp(x)
            num = ex * (delta * delta - phi * phi - v - ex)
            return num / (2 * (phi * phi + v + ex) ** 2) - (x - a) / tau**2

        lo = a
        if delta * delta > phi * phi + v:
            hi = math.log(delta * delta - phi * phi - v)
        else:
            k = 1
            while f(a - k * tau) < 0:
                k += 1
            hi = a - k * tau
        lo, hi = hi, lo
        f_lo, f_hi = f(lo), f(hi)
        for _ in range(100):
            if abs(hi - lo) < 1e-6:
                break
            c = lo + (lo - hi) * f_lo / (f_hi - f_lo)
            f_c = f(c)
            if f_c * f_hi <= 0:
                lo, f_lo = hi, f_hi
            else:
                f_lo /= 2
            hi, f_hi = c, f_c
        return math.exp(lo / 2)

    def p_beats(self, i: int, j: int) -> float:
        mi, pi, _ = self.get(i)
        mj, pj, _ = self.get(j)
        return 1.0 / (1.0 + math.exp(-self.g(math.sqrt(pi * pi + pj * pj)) * (mi - mj)))

    def score(self, i: int) -> float:
        return 1500 + self.SCALE * self.get(i)[0]


SYSTEMS: list[Callable[[], System]] = [WengLin, PairwiseElo, PairwiseGlicko2]


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    def ranks(v: Sequence[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        out = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    return cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


@dataclass
class Scores:
    log_loss: float
    accuracy: float
    winner: float
    spearman: float


def evaluate(system: System, levels: list[str], games: list[Game]) -> Scores:
    cut = int(len(games) * TRAIN_SHARE)
    for game in games[:cut]:
        system.rate(game)
    losses, right, winners = [], 0, 0
    for game in games[cut:]:
        for i, (p, t) in enumerate(zip(game.players, game.totals, strict=True)):
            for q, u in zip(game.players[i + 1 :], game.totals[i + 1 :], strict=True):
                if t == u:
                    continue
                better, worse = (p, q) if t < u else (q, p)
                prob = min(max(system.p_beats(better, worse), 1e-9), 1 - 1e-9)
                losses.append(-math.log(prob))
                right += prob > 0.5
        top = max(game.players, key=system.score)
        low = min(game.totals)
        winners += game.totals[game.players.index(top)] == low
    strength = [-LEVEL_SHIFT[level] for level in levels]
    return Scores(
        log_loss=statistics.fmean(losses),
        accuracy=right / len(losses),
        winner=winners / (len(games) - cut),
        spearman=spearman([system.score(p) for p in range(len(levels))], strength),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=48)
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    args = parser.parse_args()
    hands = hands_of(args.results)
    print(
        f"{len(hands)} kept all-Standard hands; {args.players} players "
        f"({args.players // len(LEVELS)} per level), {args.games} games per seed, "
        f"{args.seeds} seeds; rated on the first {TRAIN_SHARE:.0%}, predicted on the rest"
    )
    table: dict[str, list[Scores]] = {}
    established: list[int] = []
    for seed in range(args.seeds):
        levels, games = make_games(args.players, args.games, hands, seed)
        for make in SYSTEMS:
            system = make()
            table.setdefault(system.name, []).append(evaluate(system, levels, games))
            if isinstance(system, WengLin):
                established += list(system.established_after.values())
    print(f"{'system':26} {'log loss':>16} {'pair acc.':>16} {'winner':>16} {'Spearman':>16}")
    for name, runs in table.items():
        cells = []
        for field in ("log_loss", "accuracy", "winner", "spearman"):
            values = [getattr(r, field) for r in runs]
            spread = statistics.pstdev(values) if len(values) > 1 else 0.0
            cells.append(f"{statistics.fmean(values):.4f} +- {spread:.4f}")
        print(f"{name:26} " + " ".join(f"{c:>16}" for c in cells))
    if established:
        q = statistics.quantiles(established, n=4)
        print(
            f"Weng-Lin: deviation <= {wl.PROVISIONAL_DEVIATION:.0f} after "
            f"{q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f} games (quartiles, {len(established)} players)"
        )


if __name__ == "__main__":
    main()
