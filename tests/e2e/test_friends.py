"""Friends in a real browser (issue 14): two guests become friends through a friend link, see
each other online in the lobby, one hosts a private table and invites the other from the table
page, the other joins with one click from the lobby (the page title says there is an
invitation), and the game starts. At each state the page is checked (axe-core, clipped text,
overlaps: helpers.check_page)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    ServerInfo,
    check_page,
    create_table,
    new_player,
    play_until,
    view_state,
    wait_for,
)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_guests_become_friends_invite_and_play(
    browser: Any, server: ServerInfo, size: dict[str, int]
) -> None:
    phone = size == PHONE
    ann = new_player(browser, server, "Ann", viewport=size, mobile=phone)
    bob = new_player(browser, server, "Bob", viewport=size, mobile=phone)
    try:
        # Ann shares her friend link; Bob opens it and sends a request; Ann accepts.
        ann.page.click("text=Share my friend link")
        link = ann.page.locator(".friend-link input").input_value()
        assert "/?friend=" in link
        bob.page.goto(link)
        bob.page.click("text=Send a friend request")
        ann.page.click(".friends button:has-text('Accept')")
        # Both see each other, in the lobby, within a second or so.
        ann.page.wait_for_selector(".friend.state-lobby:has-text('Bob')", timeout=5000)
        bob.page.wait_for_selector(".friend.state-lobby:has-text('Ann')", timeout=5000)
        check_page(ann.page, "friends-lobby")

        # Ann hosts a private table (seat 1 open, computers on 2 and 3): Bob sees her playing.
        table_id = create_table(ann, "classic", seats={1: "open"}, private=True)
        bob.page.wait_for_selector(".friend.state-playing:has-text('Ann')", timeout=5000)
        ann.page.wait_for_selector("#invite-friend", state="visible")
        check_page(ann.page, "host-waiting")
        ann.page.click("#invite-friend")
        ann.page.wait_for_selector(".invite-dialog li:has-text('Bob')")
        check_page(ann.page, "invite-dialog")
        ann.page.click("text=Invite Bob")
        ann.page.wait_for_selector(".invite-dialog", state="detached")

        # Bob's lobby shows the invitation at once, and the title says so; one click joins.
        bob.page.wait_for_selector(".invite-item:has-text('Ann')", timeout=5000)
        wait_for(lambda: bob.page.title().startswith("(1) Invitation"), what="title")
        check_page(bob.page, "invited")
        bob.page.click(".invite-item button:has-text('Join')")
        bob.page.wait_for_url(f"**/?table={table_id}*")
        bob.page.wait_for_selector(".table-page:not(.loading)")

        # The table is full: the game starts (the host's page starts it) and Bob holds cards.
        bob.page.wait_for_selector(".hand-cards .card", timeout=20_000)
        ann.page.wait_for_selector(".hand-cards .card", timeout=20_000)
        assert not ann.page.js_errors and not bob.page.js_errors, (
            ann.page.js_errors + bob.page.js_errors
        )
    finally:
        ann.close()
        bob.close()


def in_first_screen(page: Any, selector: str) -> dict[str, Any]:
    """Whether the element shows on its panel's first screen (the panel not scrolled), and
    its size. (The page itself may be scrolled: the test's clicks on cards scroll it.)"""
    return dict(
        page.locator(selector).evaluate(
            """(el) => {
            const panel = el.closest('.center-panel'); const r = el.getBoundingClientRect();
            const p = panel.getBoundingClientRect();
            return { shown: panel.scrollTop === 0 && r.top >= p.top && r.bottom <= p.bottom,
                     height: r.height, width: r.width, bottom: r.bottom, panel: p.bottom }; }"""
        )
    )


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_game_over_offers_add_friend_for_the_others_seated(
    browser: Any, server: ServerInfo, size: dict[str, int]
) -> None:
    """Ann and Bob (guests, not friends) play a one-hand game; each game-over panel offers
    "Add <the other> as a friend" on its first screen (no scrolling, 44 px buttons). Ann's
    click sends a request ("request sent") and Bob, at the table, is told; Bob's click accepts
    it (they are friends: the offer goes from both panels at once, no reload), and neither is
    offered the computers."""
    phone = size == PHONE
    ann = new_player(browser, server, "Ann", viewport=size, mobile=phone)
    bob = new_player(browser, server, "Bob", viewport=size, mobile=phone)
    try:
        table_id = create_table(
            ann, "classic", seats={1: "open"}, options={"end": "hands", "hands": 1}
        )
        bob.page.goto(f"/?table={table_id}")
        bob.page.wait_for_selector(".table-page:not(.loading)")
        bob.page.locator(".seat button", has_text="Sit here").first.click()
        pages = [ann.page, bob.page]
        play_until(pages, lambda: all("phase-over" in view_state(p)["classes"] for p in pages))
        offer = ".center-panel.game-over .befriend"
        ann.page.wait_for_selector(f"{offer} button:has-text('Add Bob as a friend')")
        bob.page.wait_for_selector(f"{offer} button:has-text('Add Ann as a friend')")
        assert ann.page.locator(f"{offer} li").count() == 1  # Bob only, no computer
        for page, other in ((ann.page, "Bob"), (bob.page, "Ann")):
            button = f"{offer} button:has-text('Add {other} as a friend')"
            # The panel settles first (the replay link comes a moment after the game ends).
            wait_for(lambda p=page, b=button: in_first_screen(p, b)["shown"], what="offer in sight")
            place = in_first_screen(page, button)
            assert place["height"] >= 44 and place["width"] >= 44, place
        check_page(ann.page, "game-over-befriend")
        ann.page.click(f"{offer} button:has-text('Add Bob as a friend')")
        ann.page.wait_for_selector(f"{offer} li:has-text('request sent')")
        # Bob, still at the table, is told there (the page's banner, static/js/alerts.js).
        bob.page.wait_for_selector(".alert-item:has-text('Ann')", timeout=10_000)
        bob.page.click(f"{offer} button:has-text('Add Ann as a friend')")
        bob.page.wait_for_selector(offer, state="detached")  # friends now: nothing to offer
        # Ann's panel follows at once, no reload: no "request sent" left, nothing to offer.
        ann.page.wait_for_selector(offer, state="detached", timeout=10_000)
        bob.page.goto("/")
        bob.page.wait_for_selector(".friend:has-text('Ann')", timeout=5000)
        assert not ann.page.js_errors and not bob.page.js_errors, (
            ann.page.js_errors + bob.page.js_errors
        )
    finally:
        ann.close()
        bob.close()
