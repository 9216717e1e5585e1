"""Clubs in a real browser: Ann makes a closed club from the lobby, hands its link to Bob (on a
phone), who joins by it; Cat asks to join and Ann accepts; Ann posts an announcement that Bob
reads; Bob sees the members and the standings. Both sizes are checked (axe-core, clipped text,
overlaps) and screenshots taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.helpers import DESKTOP, PHONE, ServerInfo, check_page, new_player, snap

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def test_a_closed_club_in_the_browser(browser: Any, server: ServerInfo) -> None:
    SHOTS.mkdir(exist_ok=True)
    ann = new_player(browser, server, "Ann", viewport=DESKTOP)
    bob = new_player(browser, server, "Bob", viewport=PHONE, mobile=True)
    cat = new_player(browser, server, "Cat", viewport=DESKTOP)
    done: set[str] = set()
    try:
        page = ann.page
        page.click("#clubs-link")
        page.wait_for_selector("#club-create")
        check_page(page, "clubs-mine", done)
        page.fill("#club-name", "Friday Hearts")
        page.check("#club-closed")
        page.click("#club-create")
        page.wait_for_selector("#club-link")
        link = page.locator("#club-link").input_value()
        assert "link=" in link
        # Bob opens the link on his phone and joins at once
        bob.page.goto(link)
        bob.page.click("#club-join")
        bob.page.wait_for_selector("#club-leave")
        # Cat finds the club without the link: she asks, Ann accepts
        club_url = link.split("&link=")[0]
        cat.page.goto(club_url)
        cat.page.wait_for_selector("#club-join")
        assert cat.page.locator(".club-members").count() == 0  # a closed club's members are hidden
        cat.page.click("#club-join")
        cat.page.wait_for_selector("#club-join[disabled]")
        page.reload()
        page.click("text=Accept Cat")
        page.wait_for_selector(".club-members li >> nth=2")
        page.fill("#club-text", "Event on Friday at 8")
        page.check("#club-announce")
        page.click("#club-send")
        page.wait_for_selector(".club-post.announcement")
        check_page(page, "club-admin", done, SHOTS)
        bob.page.reload()
        bob.page.wait_for_selector(".club-post.announcement")
        assert "Event on Friday at 8" in bob.page.locator(".club-posts").inner_text()
        members = bob.page.locator(".club-members").inner_text()
        assert "Ann" in members and "Bob" in members and "Cat" in members
        assert bob.page.locator("#club-announce").count() == 0  # members do not announce
        check_page(bob.page, "club-member", done, SHOTS)
        snap(bob.page, SHOTS, "club-phone")
        errors = ann.page.js_errors + bob.page.js_errors + cat.page.js_errors
        assert not errors, errors
    finally:
        for player in (ann, bob, cat):
            player.close()
