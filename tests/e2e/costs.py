"""What the browser tests' common steps cost: the figures of docs/testing.md "Where the suite's
time goes".

    python -m tests.e2e.costs               # 3 runs of each step
    python -m tests.e2e.costs --runs 5

Each step is timed as the tests do it (the fixtures and helpers of tests/e2e, the system's
Chromium): importing ``app.main`` in a new interpreter (its CPU time), starting the e2e server
(``start_server``: wall time to the first 200 from /healthz, and the server's CPU time by
then), starting Playwright and Chromium (the ``browser`` fixture), and a new player
(``new_player``: a browser context and its page, loading the lobby, signing in through the
form), then ``create_table`` from the lobby that player is on, and the second load of the
lobby that ``create_table`` used to make first. Prints the median and every run's figure, with
the load average before and after (the machine is shared: a figure without it means little).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, start_server, stop_server
from tests.e2e.helpers import DESKTOP, Player, ServerInfo, create_table, watch_page


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _process_cpu(pid: int) -> float:
    """User and system CPU seconds of a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def import_cpu() -> float:
    before = _children_cpu()
    subprocess.run([sys.executable, "-c", "import app.main"], cwd=ROOT, check=True)
    return _children_cpu() - before


def server_start() -> tuple[float, float]:
    """(wall seconds to /healthz, the server's CPU seconds by then)."""
    started = time.monotonic()
    proc, _, data_dir = start_server()
    wall = time.monotonic() - started
    cpu = _process_cpu(proc.pid)
    stop_server(proc, data_dir)
    return wall, cpu


def browser_start() -> float:
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    wall = time.monotonic() - started
    browser.close()
    pw.stop()
    return wall


def player_steps(browser: Any, server: ServerInfo, n: int) -> dict[str, float]:
    """One new player's steps as ``new_player`` takes them, then a table from its lobby."""
    times: dict[str, float] = {}
    clock = time.monotonic()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        times[name] = now - clock
        clock = now

    context = browser.new_context(viewport=DESKTOP, base_url=server.url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    watch_page(page)
    lap("new_player: context and page")
    page.goto("/")
    lap("new_player: the lobby loaded")
    page.fill("#guest-name", f"Cost {n}")
    page.click("#guest-go")
    page.wait_for_selector(".me-name")
    lap("new_player: signed in through the form")
    page.goto("/")
    page.wait_for_selector("#create-preset option", state="attached")
    lap("the lobby loaded again (create_table's first step before)")
    create_table(Player(context, page, f"Cost {n}"), "classic", seats={1: "open"})
    lap("create_table from the lobby shown")
    context.close()
    return times


def _report(name: str, values: list[float], unit: str = "s") -> None:
    runs = ", ".join(f"{v:.2f}" for v in values)
    print(f"{name:58s} median {statistics.median(values):6.2f} {unit}  ({runs})", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each step (3)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    print(f"load average before: {_load()}", flush=True)
    measure: list[tuple[str, Callable[[], Any]]] = [
        ("import app.main (CPU)", import_cpu),
        ("the e2e server started (wall, CPU)", server_start),
        ("Playwright and Chromium started (wall)", browser_start),
    ]
    for name, step in measure:
        results = [step() for _ in range(args.runs)]
        if isinstance(results[0], tuple):
            _report(f"{name}: wall", [r[0] for r in results])
            _report(f"{name}: CPU", [r[1] for r in results])
        else:
            _report(name, results)
    from playwright.sync_api import sync_playwright

    proc, server, data_dir = start_server()
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        rows = [player_steps(browser, server, n) for n in range(args.runs)]
    finally:
        browser.close()
        pw.stop()
        stop_server(proc, data_dir)
    for name in rows[0]:
        _report(name, [row[name] for row in rows])
    print(f"load average after: {_load()}", flush=True)


if __name__ == "__main__":
    main()
