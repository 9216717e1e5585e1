"""The invitations banner (static/js/alerts.js) in Chromium at 1280x800 and 390x844: a friend
request and an invitation show at the top of the page the player is on (the lobby, or a table
of their own), with the table named in words and the sender, and are answered in one tap
(44 px targets): Accept from the banner makes two friends; Decline in the lobby removes the
banner; Join from another table seats the friend. The banner never carries the private
table's code; it comes over the page, so nothing shifts (layout-shift observer); axe, clipped
text and overlaps checked with the banner shown (helpers.check_page)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    Player,
    ServerInfo,
    axe_problems,
    create_table,
    layout_problems,
    motion_done,
    new_player,
    snap,
    text_problems,
)
from tests.e2e.test_lobby import CLS_OBSERVER

# HEARTS_TEST_SHOTS=DIR keeps a screenshot of each checked state.
SHOTS = Path(os.environ["HEARTS_TEST_SHOTS"]) if os.environ.get("HEARTS_TEST_SHOTS") else None


def _tap(player: Player, selector: str, phone: bool) -> None:
    button = player.page.locator(selector)
    box = button.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
    if phone:
        button.tap()
    else:
        button.click()


def _banner_on_top(player: Player, text: str) -> Any:
    """The banner's item with ``text``: visible in the first screen, near the top."""
    item = player.page.locator(f".friend-alerts .alert-item:has-text('{text}')")
    item.wait_for(state="visible", timeout=10_000)
    # Read where it is in the page itself: a friends message that redraws the banner between
    # a visibility wait and a separate bounding_box() made the latter find nothing (None).
    top = item.evaluate("el => el.getBoundingClientRect().top")
    assert top < 160, top
    assert item.get_attribute("role") == "alert"
    return item


def _checked(player: Player, state: str) -> None:
    """helpers.check_page's checks (axe, clipped text, overlaps, the top bar's items) with the
    banner shown."""
    page = player.page
    size = page.viewport_size or {}
    key = f"{state}-{size.get('width')}x{size.get('height')}"
    motion_done(page)
    if SHOTS is not None:
        snap(page, SHOTS, key)
    problems = text_problems(page) + layout_problems(page) + axe_problems(page)
    assert not problems, f"{key}:\n" + "\n".join(problems)


def _invitation_shown(host: Player, friend: Player, code: str, state: str) -> None:
    """The host invites the friend from the table page: the friend's banner names the table
    and the host, without the private code, and nothing on the friend's page moved."""
    friend.page.evaluate("window.__shifts = []")
    host.page.click("#invite-friend")
    host.page.click("text=Invite Bo")
    host.page.wait_for_selector(".invite-dialog", state="detached")
    item = _banner_on_top(friend, "Al invites you")
    assert "Hearts, 4 players, private, 1 seat free" in item.inner_text()
    assert code not in friend.page.locator("#friend-alerts").evaluate("el => el.outerHTML")
    _checked(friend, state)
    assert _shifts(friend) < 0.05, friend.page.evaluate("window.__shifts")


def _shifts(player: Player) -> float:
    return float(sum(s["value"] for s in player.page.evaluate("window.__shifts || []")))


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_request_and_invitations_show_at_the_top_and_answer_in_one_tap(
    browser: Any, server: ServerInfo, size: dict[str, int]
) -> None:
    phone = size == PHONE
    ann = new_player(browser, server, "Al", viewport=size, mobile=phone)
    bob = new_player(browser, server, "Bo", viewport=size, mobile=phone)
    for who in (ann, bob):
        who.context.add_init_script(CLS_OBSERVER)
    try:
        # Bo opens Al's friend link and sends a request: Al sees it at the top of her lobby.
        ann.page.click("text=Share my friend link")
        link = ann.page.locator(".friend-link input").input_value()
        bob.page.goto(link)
        bob.page.click("text=Send a friend request")
        ann.page.reload()
        _banner_on_top(ann, "Bo wants to be your friend")
        _checked(ann, "alert-request")
        _tap(ann, ".alert-item button:has-text('Accept')", phone)
        ann.page.wait_for_selector(".friend-alerts .alert-item", state="detached")
        ann.page.wait_for_selector(".friend:has-text('Bo')")

        # Al hosts a private table (seat 1 open) and invites Bo, in his lobby: he declines.
        table_id = create_table(ann, "classic", seats={1: "open"}, private=True)
        code = ann.page.url.split("invite=")[1].split("&")[0]
        bob.page.goto("/")
        bob.page.wait_for_selector(".me-name")
        _invitation_shown(ann, bob, code, "alert-invite-lobby")
        _tap(bob, ".alert-item button:has-text('Decline')", phone)
        bob.page.wait_for_selector(".friend-alerts .alert-item", state="detached")

        # Bo hosts a table of his own (waiting, one seat open); Al invites him again: the
        # banner shows over his table page, and Join seats him at Al's table.
        create_table(bob, "classic", seats={3: "open"}, autostart=False)
        _invitation_shown(ann, bob, code, "alert-invite-table")
        _tap(bob, ".alert-item button:has-text('Join')", phone)
        bob.page.wait_for_url(f"**/?table={table_id}*")
        bob.page.wait_for_selector(".hand-cards .card", timeout=20_000)
        assert not ann.page.js_errors and not bob.page.js_errors, (
            ann.page.js_errors + bob.page.js_errors
        )
    finally:
        ann.close()
        bob.close()
