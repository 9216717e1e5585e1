"""The top bar, signed in as an account with a long name and a game going (so the "My games"
badge shows where there is room): at 360, 390 and 1280 px nothing in it overlaps or sticks
out of the window (layout_check.js's "top bar" lines), "Sign out" and "Settings" are both on
the screen, and each of its links and buttons is a tap target at least 44 px high and wide.
The lobby and a table page, each through axe and the clipped-text check too."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.helpers import DESKTOP, PHONE, ServerInfo, check_page, snap
from tests.e2e.test_newcomer import new_table, open_page

SMALL_PHONE = {"width": 360, "height": 740}
SIZES = pytest.mark.parametrize(
    "viewport", [DESKTOP, PHONE, SMALL_PHONE], ids=["1280x800", "390x844", "360x740"]
)
SHOTS = Path(os.environ["HEARTS_TEST_SHOTS"]) if os.environ.get("HEARTS_TEST_SHOTS") else None

TARGETS_JS = """() => [...document.querySelectorAll('.topbar a, .topbar button')]
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
  .map((el) => { const r = el.getBoundingClientRect();
    return { text: el.textContent.trim(), w: r.width, h: r.height }; })"""


def new_account(server: ServerInfo, name: str) -> dict[str, Any]:
    """A registered account: its token and the player the page keeps in localStorage."""
    with httpx.Client(base_url=server.url, timeout=10) as client:
        reply = client.post(
            "/api/account/register", json={"name": name, "password": "a long enough secret"}
        )
        assert reply.status_code == 201, reply.text
        return dict(reply.json())


def top_bar_checked(page: Any, state: str) -> None:
    page.wait_for_selector(".topbar .who-name")
    if SHOTS is not None:
        snap(page, SHOTS, f"topbar-{state}")
    check_page(page, f"topbar-{state}")
    targets = page.evaluate(TARGETS_JS)
    texts = [t["text"] for t in targets]
    assert "Sign out" in texts and "Settings" in texts, texts
    small = [t for t in targets if t["h"] < 44 or t["w"] < 44]
    assert not small, f"{state}: top bar targets under 44 px: {small}"
    assert not page.js_errors, page.js_errors


@SIZES
def test_the_top_bar_fits_signed_in_with_a_game(
    browser: Any, server: ServerInfo, viewport: dict[str, int]
) -> None:
    name = f"Maximiliana_Long{viewport['width']}"
    account = new_account(server, name)
    token = str(account["token"])
    table = new_table(server, token, "classic", bots={"1": "easy", "2": "easy", "3": "easy"})
    page = open_page(browser, server, viewport, token)
    page.context.add_init_script(
        f"localStorage.setItem('hearts.player', {json.dumps(json.dumps(account['player']))})"
    )
    try:
        page.goto("/")
        page.wait_for_selector("#create-preset option", state="attached")
        top_bar_checked(page, f"lobby-{viewport['width']}")
        # Settings: the keyboard's keys are told on a desktop, not on a touch phone.
        page.click("#prefs-button")
        page.locator("#prefs-dialog[open]").wait_for()
        keys = page.locator("#prefs-dialog .keys-hint").is_visible()
        assert keys == (viewport == DESKTOP), f"the keyboard's keys shown: {keys}"
        page.click("#prefs-dialog button[value=close]")
        page.goto(f"/?table={table['id']}")
        page.wait_for_selector(".table-page:not(.loading)")
        top_bar_checked(page, f"table-{viewport['width']}")
        # The head's Rules button stands right after the shown badges (no hidden badge's room
        # before it), unless it starts a line of its own.
        gap = page.evaluate(
            """() => { const rules = document.getElementById('rules-button');
                const shown = [...document.querySelectorAll('.badges .badge')]
                    .filter((b) => getComputedStyle(b).visibility !== 'hidden'
                        && b.compareDocumentPosition(rules) & Node.DOCUMENT_POSITION_FOLLOWING);
                const b = rules.getBoundingClientRect();
                if (!shown.length) return b.left - rules.parentElement.getBoundingClientRect().left;
                const a = shown[shown.length - 1].getBoundingClientRect();
                return b.top >= a.bottom ? 0 : b.left - a.right; }"""
        )
        assert gap <= 8, f"{gap} px between the last badge and Rules"
    finally:
        page.context.close()
