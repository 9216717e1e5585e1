"""Training samples for the beliefs model, rebuilt from recorded self-play hands.

Run: ``python -m training.beliefs_data --hands training/data/selfplay.jsonl
--out training/data/beliefs.npz``.

Every recorded hand (``selfplay``) is replayed on its seeded deal; at every position of the play
(before each card), every seat's view is read exactly as a bot reads it (``Knowledge``), and each
unseen card it could not know gives one sample: the feature vectors of the seats that can hold it
(``app.bots.beliefs.features``: the view only) and, as the label, the seat that really holds it.
Hands whose index ends in 0 are the held-out set (``held``), never trained on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from app.bots.beliefs import N_INPUTS, Rows, card_class, features
from app.bots.knowledge import Knowledge
from app.engine import ChooseDirection, GameState, apply, make_rules, move_from_json, new_game, view

from .selfplay import OPTIONS, SEED_BASE


def positions(
    rec: dict[str, Any], every_seat: bool = True
) -> Iterator[tuple[GameState, Knowledge]]:
    """Every (state, seat's knowledge) of a recorded hand's play, before each card (with
    ``every_seat`` false, one seat's per card, the seats in turn: a quarter of the samples, less
    alike)."""
    rules = make_rules("classic", OPTIONS)
    s = new_game(rules, SEED_BASE + int(rec["hand"]))
    if s.phase == "direction":
        s = apply(s, s.dealer, ChooseDirection(rec["direction"]))
    for i, (seat, mv) in enumerate(rec["moves"]):
        if s.phase == "play":
            for viewer in range(rules.players):
                if every_seat or viewer == i % rules.players:
                    yield s, Knowledge(view(s, viewer, sheet=False), rules)
        s = apply(s, seat, move_from_json(mv))


def samples(
    s: GameState, rows: Rows
) -> list[tuple[int, list[int], list[list[float]], list[float], int]]:
    """The model's rows with their labels (the index, among the row's holders, of the true one)."""
    out = []
    for c, hs, fs, offs in rows:
        holder = next(h for h in range(len(s.hands)) if s.hands[h] >> c & 1)
        if len(hs) < 2:
            continue  # nothing to learn: only one seat can hold it
        out.append((c, hs, fs, offs, hs.index(holder)))
    return out


def build(lines: list[str], every_seat: bool = False) -> dict[str, np.ndarray]:
    """Arrays of every sample: features ``x`` (samples x 3 x features), the log free room
    ``off`` (-inf where a seat cannot hold the card), ``card``, ``cls``, ``y`` and ``held``."""
    xs: list[list[list[float]]] = []
    offs: list[list[float]] = []
    cards: list[int] = []
    ys: list[int] = []
    held: list[bool] = []
    for line in lines:
        rec = json.loads(line)
        out = int(rec["hand"]) % 10 == 0
        for s, k in positions(rec, every_seat):
            for c, hs, fs, o, y in samples(s, features(k)):
                slots = [(h - k.seat) % 4 - 1 for h in hs]
                x = [[0.0] * N_INPUTS for _ in range(3)]
                oo = [-np.inf] * 3
                for i, sl in enumerate(slots):
                    x[sl] = fs[i]
                    oo[sl] = o[i]
                xs.append(x)
                offs.append(oo)
                cards.append(c)
                ys.append(slots[y])
                held.append(out)
    card = np.array(cards, dtype=np.int64)
    return {
        "x": np.array(xs, dtype=np.float32).reshape(-1, 3, N_INPUTS),
        "off": np.array(offs, dtype=np.float64).reshape(-1, 3),
        "card": card,
        "cls": np.array([card_class(int(c)) for c in card], dtype=np.int64),
        "y": np.array(ys, dtype=np.int64),
        "held": np.array(held, dtype=bool),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", required=True, help="self-play file (training.selfplay)")
    ap.add_argument("--out", required=True, help=".npz file written")
    ap.add_argument("--limit", type=int, default=None, help="first N hands only")
    ap.add_argument("--every-seat", action="store_true", help="every seat's view of each card")
    args = ap.parse_args()
    with open(args.hands) as f:
        lines = [ln for ln in f if ln.strip()][: args.limit]
    c0 = time.process_time()
    arrays = build(lines, args.every_seat)
    np.savez_compressed(args.out, **arrays)  # type: ignore[arg-type]
    cpu = time.process_time() - c0
    n = len(arrays["y"])
    print(
        f"{len(lines)} hands -> {n} samples ({int(arrays['held'].sum())} held out) "
        f"in {cpu:.1f} s CPU ({n / max(cpu, 1e-9):.0f} samples/s)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
