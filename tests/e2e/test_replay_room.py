"""Watching a replay together (issue 31): a player finishes a one-hand game, opens its replay,
starts a shared room and sends its link; a friend opens it and follows while the first steps;
control is handed over and the friend steps for both; a line in the room's chat reaches the
other. At a desktop's size and a phone's, with axe, cut-text and layout checks."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    check_page,
    create_table,
    new_player,
    play_until,
    view_state,
)


def _step(page: Any) -> str:
    return str(page.inner_text("#replay-step"))


def _until_step(page: Any, words: str) -> None:
    page.wait_for_function(
        "(w) => (document.querySelector('#replay-step') || {innerText: ''}).innerText.includes(w)",
        arg=words,
    )


def _until_status(page: Any, words: str) -> None:
    page.wait_for_function(
        "(w) => (document.querySelector('#room-status') || {innerText: ''}).innerText.includes(w)",
        arg=words,
    )


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_players_step_through_a_replay_together(
    browser: Any, server: Any, size: dict[str, int]
) -> None:
    ada = new_player(browser, server, "Ada", viewport=size)
    bo = new_player(browser, server, "Bo", viewport=size)
    try:
        page = ada.page
        create_table(ada, "classic", options={"end": "hands", "hands": 1, "passing": "none"})
        play_until([page], lambda: "phase-over" in view_state(page)["classes"])
        link = page.locator(".center-panel.game-over a#watch-replay")
        link.wait_for(timeout=20_000)
        link.click()
        page.wait_for_selector("#replay-step")
        # Ada opens a room: she drives, and the page's address and the copy field hold its
        # link, at the hand and trick shown.
        page.click("#watch-together")
        _until_status(page, "You drive")
        page.click("#next-trick")
        _until_step(page, "trick 1 of 13")
        room_link = page.input_value("#room-link")
        assert "room=" in room_link and "hand=1" in room_link and "trick=1" in room_link
        assert "room=" in page.url
        check_page(page, "room-driver")
        # Bo opens the link: he is in the room, at Ada's trick, and follows her steps.
        other = bo.page
        other.goto(room_link)
        _until_status(other, "Ada drives")
        _until_step(other, "trick 1 of 13")
        page.wait_for_function("() => document.querySelectorAll('#room-members li').length === 2")
        page.click("#next-trick")
        _until_step(page, "trick 2 of 13")
        page.click("#next-trick")
        _until_step(page, "trick 3 of 13")
        _until_step(other, "trick 3 of 13")
        # A follower's own step buttons are off, and his keys do not move the room.
        assert other.locator("#next-trick").is_disabled()
        other.keyboard.press("ArrowRight")
        other.wait_for_timeout(300)
        assert "trick 3 of 13" in _step(other) and "trick 3 of 13" in _step(page)
        check_page(other, "room-follower")
        # Bo cannot take control while Ada is there.
        other.click("#room-take")
        other.wait_for_selector("#toast.show")
        assert "Ada still drives" in other.inner_text("#toast")
        errors = other.js_errors  # type: ignore[attr-defined]
        errors[:] = [e for e in errors if "status of 409" not in e]  # that refusal, expected
        # Ada hands control to Bo; now he steps for both.
        page.select_option("#room-hand-to", label="Bo")
        page.click("#room-hand-over")
        _until_status(page, "Bo drives")
        _until_status(other, "You drive")
        other.click("#next-trick")
        _until_step(other, "trick 4 of 13")
        _until_step(page, "trick 4 of 13")
        assert page.locator("#next-trick").is_disabled()
        # The room's chat.
        other.fill("#room-chat-input", "Look at this")
        other.click("#room-chat-send")
        page.wait_for_function(
            "() => document.querySelector('#room-chat-log').innerText.includes('Look at this')"
        )
        check_page(page, "room-chat")
        # A plain link to a hand and trick opens the replay there.
        replay_id = room_link.split("replay=")[1].split("&")[0]
        other.goto(f"/?replay={replay_id}&hand=1&trick=5")
        _until_step(other, "trick 5 of 13")
        for p in (ada, bo):
            assert not p.page.js_errors, p.page.js_errors  # type: ignore[attr-defined]
    finally:
        ada.close()
        bo.close()
