"""Engine speed: complete random hands through the public API, and the bots' playout rate.

Run: ``python -m bench.engine [--seconds S] [--preset NAME ...]``.  For each preset it prints a
readable line and one JSON line ``{"preset", "hands_per_s", "playouts_per_s"}``.

- hands/s: deal, pass, every trick and the scoring, each move chosen at random among the legal
  ones and validated by ``apply`` (a new immutable state per move), as the server drives it.
- playouts/s: from the first trick of a dealt hand (after passing), and from mid-hand (after 6
  tricks), ``random_playout`` plays the hand to its end in place, as the bots' look-ahead does.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from app.engine import (
    PRESETS,
    GameState,
    PassCards,
    PlayCard,
    apply,
    cards_of,
    make_rules,
    new_game,
    passable_cards,
    playable_mask,
    seats_to_act,
)
from app.engine.game import legal_moves
from app.engine.playout import Sim, random_playout


def _random_move(s: GameState, seat: int, rng: random.Random) -> object:
    if s.phase == "play":
        cards = list(cards_of(playable_mask(s, seat)))
        c = cards[int(rng.random() * len(cards))]
        if s.t.game == "double" and not s.trick_cards:
            forced = s.trick_no == 0 and s.first_lead_mask
            return PlayCard(c, "dark" if forced or rng.random() < 0.5 else "light")
        return PlayCard(c)
    if s.phase == "pass":
        return PassCards(
            frozenset(rng.sample(list(cards_of(passable_cards(s, seat))), s.pass_count))
        )
    return rng.choice(legal_moves(s, seat))


def hands_per_second(preset: str, seconds: float) -> float:
    rules = make_rules(preset)
    rng = random.Random(1)
    hands = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = new_game(rules, seed)
        seed += 1
        while s.phase != "over":
            for seat in seats_to_act(s):
                s = apply(s, seat, _random_move(s, seat, rng))  # type: ignore[arg-type]
                if s.phase == "over":
                    break
        hands += len(s.history)
    return hands / (time.perf_counter() - start)


def _positions(preset: str, count: int, tricks: int) -> list[GameState]:
    """Dealt and passed hands, after ``tricks`` random tricks (0: the first trick)."""
    rules = make_rules(preset)
    rng = random.Random(2)
    out = []
    for seed in range(count):
        s = new_game(rules, seed)
        while s.phase != "play" or s.trick_no < tricks:
            seat = seats_to_act(s)[0]
            s = apply(s, seat, _random_move(s, seat, rng))  # type: ignore[arg-type]
        out.append(s)
    return out


def playouts_per_second(preset: str, seconds: float, tricks: int = 0) -> float:
    positions = _positions(preset, 50, tricks)
    sims = [Sim(p) for p in positions]
    rnd = random.Random(3).random
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for sim in sims:
            random_playout(sim.copy(), rnd)
        n += len(sims)
    return n / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--preset", action="append", help="preset(s) to measure (default: all)")
    args = ap.parse_args()
    presets = args.preset or list(PRESETS)
    for p in presets:
        hps = hands_per_second(p, args.seconds)
        pps = playouts_per_second(p, args.seconds)
        mid = playouts_per_second(p, args.seconds, tricks=6)
        print(
            f"{p:18s} {hps:9.0f} hands/s   {pps:9.0f} playouts/s from the first trick"
            f"   {mid:9.0f} from mid-hand (after 6 tricks)",
            flush=True,
        )
        line = {
            "preset": p,
            "hands_per_s": round(hps),
            "playouts_per_s": round(pps),
            "playouts_mid_hand_per_s": round(mid),
        }
        print(json.dumps(line))


if __name__ == "__main__":
    main()
