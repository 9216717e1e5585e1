"""Hints at the table: how long a hint takes, and whether hints being asked slow the table's
computers.

Run: ``python -m bench.hint [--preset P ...] [--deals N] [--level L ...] [--decisions N]``.

1. A hint's CPU time on one core, per preset (``bench.review.hints``: every pass and play of
   seat 0 on N tournament deals; p50, p99, most).
2. The computers' decision times (wall ms of ``choose_move`` at seats 1-3 of a classic game
   played by Standard, in this process, as the computer players' worker runs them) with
   nothing else running, then while a second process (the claim checks' worker, where the
   table's hints run: ``ComputerPlayers.check``) works out hints for seat 0 without a pause,
   side by side. On a machine with a free core the two should match; on one core they share it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from typing import Any

from app import engine
from app.bots import choose_move
from app.review.hint import seat_hint


def _positions(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Views of seats 1-3 (the computers) and of seat 0 (who asks) in classic games."""
    bots: list[dict[str, Any]] = []
    mine: list[dict[str, Any]] = []
    deal = 0
    while len(bots) < n:
        s = engine.new_game(engine.make_rules("classic"), 7919 * deal + 3)
        k = 0
        while s.phase != "over" and len(bots) < n:
            who = engine.seats_to_act(s)[0]
            v = engine.view(s, who)
            (mine if who == 0 else bots).append(v)
            s = engine.apply(s, who, engine.move_from_json(choose_move("standard", v, k)))
            k += 1
        deal += 1
    return bots, mine


def _hints_forever(views: list[dict[str, Any]], stop: Any, done: Any) -> None:
    i = 0
    while not stop.is_set():
        v = views[i % len(views)]
        if v.get("legal"):
            seat_hint(v, "classic", {}, i)
            with done.get_lock():
                done.value += 1
        i += 1


def _decisions(level: str, views: list[dict[str, Any]]) -> list[float]:
    out = []
    for i, v in enumerate(views):
        if not v.get("legal"):
            continue
        t0 = time.perf_counter()
        choose_move(level, v, i)
        out.append(1000 * (time.perf_counter() - t0))
    return out


def _p(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def computers(levels: list[str], n: int) -> None:
    bots, mine = _positions(n)
    print(
        "| level | decisions | alone p50 / p99 ms | hints asked p50 / p99 ms"
        " | hints meanwhile | load |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    ctx = multiprocessing.get_context("spawn")
    for level in levels:
        alone = _decisions(level, bots)
        stop, done = ctx.Event(), ctx.Value("i", 0)
        worker = ctx.Process(target=_hints_forever, args=(mine, stop, done), daemon=True)
        worker.start()
        time.sleep(2.0)  # the worker has imported and is working out hints
        before = done.value
        busy = _decisions(level, bots)
        hinted = done.value - before
        stop.set()
        worker.join(10)
        print(
            f"| {level} | {len(alone)} | {statistics.median(alone):.1f} / {_p(alone, 0.99):.1f}"
            f" | {statistics.median(busy):.1f} / {_p(busy, 0.99):.1f} | {hinted}"
            f" | {os.getloadavg()[0]:.1f} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--preset", action="append")
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--first-deal", type=int, default=0)
    ap.add_argument("--level", action="append")
    ap.add_argument("--decisions", type=int, default=120)
    ap.add_argument("--skip-latency", action="store_true")
    args = ap.parse_args()
    if not args.skip_latency:
        from bench.review import hints

        hints(args)
        print()
    computers(args.level or ["standard", "pro"], args.decisions)


if __name__ == "__main__":
    main()
