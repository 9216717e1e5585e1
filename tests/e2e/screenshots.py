"""Take the screenshots in docs/screenshots/ (every table type, at 1280x800 and 390x844).

    .venv/bin/python -m tests.e2e.screenshots [--out docs/screenshots] [--only NAME ...]

Starts its own server (embedded defaults) and drives Debian's Chromium. Every shot is also
checked for layout problems (overlaps, things outside the window, hidden card corners); the
script lists them and exits non-zero if there are any. The browsers ask for reduced motion,
so each shot shows a settled table (a complete trick stays instead of sliding away).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server
from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    ServerInfo,
    act_once,
    click_card,
    create_table,
    hands_finished,
    layout_problems,
    new_player,
    resize,
    view_state,
    wait_for,
)

SIZES = {"desktop": DESKTOP, "phone": PHONE}
SERVER_LOG: list[str] = []


class Shooter:
    def __init__(self, browser: Any, server: ServerInfo, out: Path) -> None:
        self.browser = browser
        self.server = server
        self.out = out
        self.problems: list[str] = []
        self.taken: list[str] = []

    def shot(self, page: Any, name: str, *, full_page: bool = False) -> None:
        time.sleep(0.35)  # let the short animations finish
        size = page.viewport_size
        label = "desktop" if size["width"] > 700 else "phone"
        path = self.out / f"{name}-{label}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.taken.append(path.name)
        for problem in layout_problems(page):
            self.problems.append(f"{path.name}: {problem}")

    def both(self, page: Any, name: str) -> None:
        """The same moment at both sizes."""
        for size in (DESKTOP, PHONE):
            resize(page, size, 200)
            self.shot(page, name)
        resize(page, DESKTOP)


def until_my_turn(page: Any, want: Callable[[dict[str, Any]], bool], timeout: float = 60) -> None:
    """Play the first legal card until the page is at a turn where ``want(state)`` holds."""
    deadline = time.monotonic() + timeout
    while True:
        state = view_state(page)
        mine = any(c["legal"] for c in state["hand"] + state["dummy"])
        if mine and want(state):
            return
        if time.monotonic() > deadline:
            log = Path(SERVER_LOG[0]).read_text()[-2000:] if SERVER_LOG else ""
            raise AssertionError(f"never reached the wanted turn; last {state}\n{log}")
        if not act_once(page):
            time.sleep(0.05)


def scene_lobby(s: Shooter) -> None:
    host = new_player(s.browser, s.server, "Robin", reduced_motion=True)
    create_table(host, "classic", seats={1: "open", 2: "easy", 3: "open"})
    create_table(host, "double-hearts", seats={1: "open"})
    viewer = new_player(s.browser, s.server, "Sam", reduced_motion=True)
    viewer.page.wait_for_selector(".table-row")
    s.both(viewer.page, "lobby")
    viewer.page.click(".more-options summary")
    viewer.page.select_option("#create-preset", "classic")
    s.shot(viewer.page, "lobby-options", full_page=True)
    host.close()
    viewer.close()


def scene_waiting(s: Shooter) -> None:
    host = new_player(s.browser, s.server, "Robin", reduced_motion=True)
    create_table(
        host, "classic", seats={1: "open", 2: "pro", 3: "open"}, private=True, autostart=False
    )
    host.page.wait_for_selector(".seat.bot")
    s.both(host.page, "table-waiting")
    host.close()


def scene_classic(s: Shooter) -> None:
    p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
    create_table(p, "classic")
    p.page.wait_for_selector("#pass-button")
    legal = [c["card"] for c in view_state(p.page)["hand"] if c["legal"]]
    for card in legal[-2:]:
        click_card(p.page, card)
    s.both(p.page, "classic-passing")
    for card in legal[-2:]:
        click_card(p.page, card)
    last_enabled = "() => !document.querySelector('button[aria-keyshortcuts=\"L\"]').disabled"
    until_my_turn(
        p.page,
        lambda st: (
            len(st["trick"]) >= 2
            and "phase-play" in st["classes"]
            and p.page.evaluate(last_enabled)
        ),
    )
    s.both(p.page, "classic-trick")
    p.page.keyboard.press("l")
    p.page.wait_for_selector(".center-panel.last-trick")
    s.shot(p.page, "classic-last-trick")
    p.page.keyboard.press("l")
    p.close()


def _mid_trick(s: Shooter, presets: tuple[tuple[str, str], ...]) -> None:
    """Each preset at the player's turn with two cards in the trick, at both sizes."""
    for preset, name in presets:
        p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
        create_table(p, preset)
        until_my_turn(p.page, lambda st: len(st["trick"]) >= 2 and "phase-play" in st["classes"])
        s.both(p.page, name)
        p.close()


def scene_small_and_large(s: Shooter) -> None:
    _mid_trick(s, (("classic-3", "classic-3"), ("classic-5-jokers", "classic-5")))


def scene_scoring_presets(s: Shooter) -> None:
    _mid_trick(
        s, (("hooligan", "hooligan"), ("omnibus", "omnibus"), ("spot-hearts", "spot-hearts"))
    )


def scene_refused(s: Shooter) -> None:
    """A card that may not be played, tried: the reason in the action bar."""
    p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
    create_table(p, "classic")
    until_my_turn(
        p.page,
        lambda st: "phase-play" in st["classes"] and any(not c["legal"] for c in st["hand"]),
    )
    illegal = [c["card"] for c in view_state(p.page)["hand"] if not c["legal"]]
    p.page.click(
        f'.hand-cards .card[data-card="{illegal[0]}"]', force=True, position={"x": 8, "y": 24}
    )
    wait_for(lambda: view_state(p.page)["error"], what="the reason for the refused card")
    s.both(p.page, "classic-refused")
    p.close()


def scene_dummy(s: Shooter) -> None:
    p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
    create_table(p, "two-player-dummy")
    until_my_turn(p.page, lambda st: bool(st["trick"]) and any(c["legal"] for c in st["dummy"]))
    s.both(p.page, "dummy-from-half-dummy")
    until_my_turn(p.page, lambda st: bool(st["trick"]) and any(c["legal"] for c in st["hand"]))
    s.both(p.page, "dummy")
    p.close()


def scene_twentyeight(s: Shooter) -> None:
    p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
    create_table(p, "two-player-28")
    until_my_turn(p.page, lambda st: bool(st["trick"]))
    s.both(p.page, "twentyeight")
    deadline = time.monotonic() + 60
    while hands_finished(p.page) < 1 and time.monotonic() < deadline:
        if not act_once(p.page):
            time.sleep(0.03)
    p.page.locator(".center-panel.hand-result .dead-cards, .trick-info .dead-line").locator(
        "visible=true"
    ).first.wait_for()
    s.both(p.page, "twentyeight-hand-over")
    p.close()


def scene_double(s: Shooter) -> None:
    p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
    create_table(p, "double-hearts")
    until_my_turn(p.page, lambda st: len(st["trick"]) >= 2)
    s.both(p.page, "double-hearts")

    def my_free_lead(st: dict[str, Any]) -> bool:
        return not st["trick"] and bool(st["last_trick"]) and "phase-play" in st["classes"]

    until_my_turn(p.page, my_free_lead, timeout=90)
    legal = [c["card"] for c in view_state(p.page)["hand"] if c["legal"]]
    click_card(p.page, legal[0], keyboard=True)
    p.page.wait_for_selector(".face-choice")
    s.both(p.page, "double-hearts-choose-face")
    p.close()


def scene_spectator(s: Shooter) -> None:
    host = new_player(s.browser, s.server, "Robin", reduced_motion=True)
    table = create_table(host, "classic", seats={1: "easy", 2: "pro", 3: "standard"})
    watcher = new_player(s.browser, s.server, None, reduced_motion=True)
    watcher.page.goto(f"/?table={table}")
    until_my_turn(host.page, lambda st: len(st["trick"]) >= 2 and "phase-play" in st["classes"])
    watcher.page.wait_for_selector(".trick .slot")
    s.both(watcher.page, "spectator")
    host.close()
    watcher.close()


def scene_game_over_and_replay(s: Shooter) -> None:
    p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
    create_table(p, "classic", options={"end": "hands", "hands": 1})
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and "phase-over" not in view_state(p.page)["classes"]:
        if not act_once(p.page):
            time.sleep(0.03)
    p.page.fill("#chat-input", "Good game, everyone! <b>not bold</b>")
    p.page.press("#chat-input", "Enter")
    p.page.wait_for_selector(".chat-line")
    p.page.wait_for_selector(".center-panel.game-over a[href*='replay']", timeout=20_000)
    s.both(p.page, "game-over")
    p.page.click(".center-panel.game-over a[href*='replay']")
    p.page.wait_for_selector("#next-trick")
    for _ in range(4):
        p.page.keyboard.press("ArrowRight")
    s.both(p.page, "replay")
    p.close()


def scene_four_colour(s: Shooter) -> None:
    p = new_player(s.browser, s.server, "Alex", reduced_motion=True)
    p.page.click("#prefs-button")
    p.page.check("#pref-four")
    p.page.click("#prefs-dialog button[value=close]")
    create_table(p, "double-hearts")
    wait_for(lambda: view_state(p.page)["hand"], what="a hand")
    s.shot(p.page, "four-colour")
    p.close()


SCENES: dict[str, Callable[[Shooter], None]] = {
    "lobby": scene_lobby,
    "waiting": scene_waiting,
    "classic": scene_classic,
    "sizes": scene_small_and_large,
    "presets": scene_scoring_presets,
    "refused": scene_refused,
    "dummy": scene_dummy,
    "twentyeight": scene_twentyeight,
    "double": scene_double,
    "spectator": scene_spectator,
    "over": scene_game_over_and_replay,
    "colours": scene_four_colour,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--only", nargs="*", choices=sorted(SCENES))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    proc, server, data_dir = start_server()
    SERVER_LOG.append(server.log_path)
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    shooter = Shooter(browser, server, out)
    failed = False
    try:
        for name in args.only or SCENES:
            try:
                SCENES[name](shooter)
            except Exception as exc:  # keep going: report every scene
                failed = True
                print(f"scene {name} failed: {exc}", file=sys.stderr)
    finally:
        browser.close()
        pw.stop()
        stop_server(proc, data_dir)
    print(f"{len(shooter.taken)} screenshots in {out}")
    for problem in shooter.problems:
        print("layout:", problem)
    return 1 if failed or shooter.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
