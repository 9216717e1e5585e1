"""A turn-based table in a real browser: Ann (desktop) creates a private turn-based table
with two computers, Bob (a phone) joins by its invite; the head says the pace, Ann (the host)
gives the passing players a day more; each moves in turn from the My games page (its badge and
strip on every page), both sizes checked (axe-core, clipped text, overlaps) and screenshots
taken."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    ServerInfo,
    act_once,
    check_page,
    new_player,
    snap,
    view_state,
    wait_for,
)

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


checked: set[str] = set()


def my_turn_from_my_games(page: Any) -> bool:
    """Open My games; when a game waits for this player, tap it and move once."""
    page.goto("/?games=1")
    page.wait_for_selector(".games-list:not(.loading) li")
    mine = page.locator(".games-list li.mine .game-link")
    if mine.count() == 0:
        return False
    mine.first.click()
    page.wait_for_selector(".table-page:not(.loading)")
    size = page.viewport_size or {}
    # the table page with a turn-based clock ("23 h 59 min left"), once at each size
    check_page(page, f"turn-based-table-{size.get('width')}", checked, SHOTS)
    return wait_for(lambda: act_once(page), timeout=15, what="a move from My games") is not None


def test_turn_based_game_moved_from_my_games(browser: Any, server: ServerInfo) -> None:
    SHOTS.mkdir(exist_ok=True)
    ann = new_player(browser, server, "Ann", viewport=DESKTOP)
    bob = new_player(browser, server, "Bob", viewport=PHONE, mobile=True)
    done: set[str] = set()
    try:
        page = ann.page
        page.wait_for_selector("#create-preset option", state="attached")
        page.select_option("#create-preset", "classic")
        for select in page.locator("select[data-seat]").all():
            seat = int(select.get_attribute("data-seat") or 0)
            select.select_option("open" if seat == 1 else "standard")
        page.check('input[name="visibility"][value="private"]')
        page.select_option("#create-timer", "turn:86400")
        page.set_checked("#create-autostart", True)
        page.click("#create-go")
        page.wait_for_url("**/?table=*")
        page.wait_for_selector(".table-page:not(.loading)")
        link = page.url
        assert "invite=" in link
        bob.page.goto(link + "&sit=1")
        bob.page.wait_for_selector(".table-page:not(.loading)")
        # The game starts when the seats are full (autostart, from Ann's page).
        wait_for(lambda: "phase-pass" in view_state(page)["classes"], what="the start")
        for player in (ann, bob):
            badges = player.page.locator(".table-head .badges").inner_text()
            assert "Turn-based, 1 day a move" in badges
        # Only the host has the button; everyone still passing shares the clock and gets it.
        assert bob.page.locator("#more-time").is_hidden()
        page.click("#more-time")
        page.wait_for_selector("#more-time-dialog[open]")
        assert page.locator("#more-time-seat option").count() == 2  # Ann and Bob pass
        check_page(page, "more-time-dialog", done, SHOTS)
        page.select_option("#more-time-amount", "86400")
        page.click("#more-time-go")
        # Ann's clock: the day of the move plus the day given ("1d 23h": Intl's narrow units).
        wait_for(
            lambda: re.match(r"1\s?d\b", page.locator(".my-clock").inner_text()) is not None,
            what="a day more on Ann's clock",
        )
        moves = 0
        for _ in range(12):
            for player in (ann, bob):
                if my_turn_from_my_games(player.page):
                    moves += 1
            if moves >= 4:
                break
        assert moves >= 4, "no moves made from My games"
        for player, kind in ((ann, "desktop"), (bob, "phone")):
            player.page.goto("/?games=1")
            player.page.wait_for_selector(".games-list:not(.loading) li")
            text = player.page.locator(".games-list").inner_text()
            assert "turn-based, 1 day a move" in text
            check_page(player.page, f"my-games-{kind}", done, SHOTS)
            player.page.goto("/")
            player.page.wait_for_selector("#games-strip:not([hidden]) .game-chip")
            # the badge: in the top bar on a desktop, the strip's title on a phone
            badge = "#games-link" if kind == "desktop" else "#games-strip .strip-title"
            assert player.page.locator(badge).is_visible()
            check_page(player.page, f"games-strip-{kind}", done, SHOTS)
        snap(bob.page, SHOTS, "my-games-strip-phone")
        errors = ann.page.js_errors + bob.page.js_errors
        assert not errors, errors
    finally:
        ann.context.close()
        bob.context.close()
