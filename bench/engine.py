"""Engine speed: complete random hands through the public API, and the bots' playout rate.

Run: ``python -m bench.engine [--seconds S] [--preset NAME ...]``.  For each preset it prints a
readable line and one JSON line ``{"preset", "hands_per_s", "playouts_per_s"}``.

- hands/s: deal, pass, every trick and the scoring, each move chosen at random among the legal
  ones and validated by ``apply`` (a new immutable state per move), as the server drives it.
- playouts/s: from the first trick of a dealt hand (after passing), and from mid-hand (after 6
  tricks), ``random_playout`` plays the hand to its end in place, as the bots' look-ahead does.
- rollouts per CPU second (the games with one face per card: classic, dummy, 28 cards): the
  bots' flat rollouts from the first trick, every holder by the Standard rule (Pro's search) and
  every holder by Expert's policy (Expert's search), counted in CPU time (``process_time``) so a
  loaded machine skews them less.  ``--rollouts-only`` measures only these.
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
from app.engine.play import legal_moves
from app.engine.playout import Sim, random_playout
from app.engine.tables import tables_for


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


def rollouts_per_cpu_second(preset: str, seconds: float, model: str) -> float | None:
    """Flat rollouts per CPU second from the first trick: ``model`` "standard" (every holder
    by the Standard rule) or "policy" (every holder by Expert's policy); None where the flat
    rollouts do not serve the game (Double Hearts)."""
    from app.bots.fast import standard_rollout
    from app.bots.flat import flat_ok
    from app.bots.policy import policy_rollout

    if not flat_ok(tables_for(make_rules(preset))):
        return None
    sims = [Sim(p) for p in _positions(preset, 50, 0)]
    n = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for sim in sims:
            if model == "standard":
                standard_rollout(sim.copy())
            else:
                policy_rollout(sim.copy())
        n += len(sims)
    return n / (time.process_time() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--preset", action="append", help="preset(s) to measure (default: all)")
    ap.add_argument(
        "--rollouts-only", action="store_true", help="only the bots' rollouts per CPU second"
    )
    args = ap.parse_args()
    presets = args.preset or list(PRESETS)
    for p in presets:
        std = rollouts_per_cpu_second(p, args.seconds, "standard")
        pol = rollouts_per_cpu_second(p, args.seconds, "policy")
        if std is not None and pol is not None:
            print(
                f"{p:18s} {std:9.0f} Standard rollouts per CPU s   {pol:9.0f} policy rollouts"
                " per CPU s",
                flush=True,
            )
            rl = {"preset": p, "standard_rollouts_per_cpu_s": round(std)}
            rl["policy_rollouts_per_cpu_s"] = round(pol)
            print(json.dumps(rl))
        if args.rollouts_only:
            continue
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
