"""Every variant, played to its end against computers, checked at each state it goes through.

One short game (one hand) per variant: waiting (autostart off: the host presses Start),
passing (where the variant passes), playing, a refused card with its reason shown, the game
over, and the game's replay. At each state ``helpers.check_page`` runs at the variant's
window size (axe-core: no serious or critical violation; no text cut off or spilling out;
on a phone the hand and the action bar on the first screen). The sizes are spread over the
variants so 1280x800, 1440x900, 390x844 and 360x740 each see two (the four-player classic
game goes through all four in test_journeys.py).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOPS,
    PHONES,
    Player,
    act_once,
    check_page,
    create_table,
    new_player,
    view_state,
    wait_for,
)

SHORT_GAME = {"end": "hands", "hands": 1}
W1280, W1440 = DESKTOPS
W390, W360 = PHONES

# preset -> the window size of its game (and replay)
VARIANTS: dict[str, dict[str, int]] = {
    "classic-3": W360,
    "classic-5": W1440,
    "hooligan": W390,
    "omnibus": W1280,
    "spot-hearts": W360,
    "two-player-dummy": W390,
    "two-player-28": W1440,
    "double-hearts": W1280,
}


def _refuse_once(page: Any, done: set[str]) -> None:
    """At the player's turn with a card in hand that may not be played: try it and check
    the page with the reason shown. Once a game."""
    if "refused" in done:
        return
    illegal = [c["card"] for c in view_state(page)["hand"] if not c["legal"]]
    if not illegal:
        return
    # The dummy game on a phone shows the hand or the half dummy in turn: when the half dummy
    # is up (its turn), the hand's cards cannot be tapped; a later turn from the hand will do.
    if page.locator("#hand-block.resting").count():
        return
    done.add("refused")
    page.click(
        f'.hand-cards .card[data-card="{illegal[0]}"]', force=True, position={"x": 8, "y": 24}
    )
    wait_for(lambda: view_state(page)["error"], what="the reason for the refused card")
    check_page(page, "refused")


def _play_checking(page: Any, timeout: float = 90.0, done: set[str] | None = None) -> set[str]:
    """Play first legal cards to the game over, checking the page at the first pass and the
    first turn to play (and a refusal there); returns the states checked (``done``: those
    of an earlier game at this table, not checked again)."""
    done = set() if done is None else done
    deadline = time.monotonic() + timeout
    while "phase-over" not in view_state(page)["classes"]:
        assert time.monotonic() < deadline, view_state(page)
        state = view_state(page)
        mine = [c for c in state["hand"] + state["dummy"] if c["legal"]]
        if mine and "phase-pass" in state["classes"] and "passing" not in done:
            done.add("passing")
            check_page(page, "passing")
        elif mine and "phase-play" in state["classes"]:
            if "playing" not in done:
                done.add("playing")
                check_page(page, "playing")
            _refuse_once(page, done)
        if not act_once(page):
            page.wait_for_timeout(30)
    return done


@pytest.mark.parametrize("preset", sorted(VARIANTS))
def test_each_state_of_a_variant_is_legible_and_accessible(
    browser: Any, server: Any, preset: str
) -> None:
    size = VARIANTS[preset]
    phone = size in PHONES
    p: Player = new_player(browser, server, "Vic", viewport=size, mobile=phone)
    try:
        page = p.page
        create_table(p, preset, autostart=False, options=SHORT_GAME)
        page.wait_for_selector(".table-page.status-waiting")
        check_page(page, "waiting")
        page.click("#start-game")
        done = _play_checking(page)
        # A one-hand game may deal no turn with a card that may not be played (it depends on
        # the deal): then a rematch, a new deal, up to twice.
        for _ in range(2):
            if "refused" in done:
                break
            page.locator(".center-panel.game-over #rematch").click()
            page.wait_for_selector(".table-page:not(.phase-over)")
            done = _play_checking(page, done=done)
        assert {"playing", "refused"} <= done, done
        page.locator(".center-panel.game-over").wait_for()
        check_page(page, "game-over")
        link = page.locator(".center-panel.game-over a#watch-replay")
        link.wait_for(timeout=20_000)
        link.click()
        page.wait_for_selector("#replay-step")
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        check_page(page, "replay")
        assert not page.js_errors, page.js_errors  # type: ignore[attr-defined]
    finally:
        p.close()
