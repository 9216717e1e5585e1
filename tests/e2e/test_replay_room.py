"""Watching a replay together: a player finishes a one-hand game and opens a shared room from
the game-over panel; a friend opens its link and follows; the first asks for the review of
her seat in the room and both see the same marks on the same position as she steps; control
is handed over and the friend steps for both; a line in the room's chat reaches the other; a
link naming a hand or trick the game does not have says so. At a desktop's size and a
phone's, with axe, cut-text and layout checks."""

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
    snap,
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


def _marks(page: Any) -> dict[str, Any]:
    """What the review shows at the position on screen: the note, the move marked current."""
    return dict(
        page.evaluate(
            """() => ({
              step: document.querySelector('#replay-step').innerText,
              note: document.querySelector('#review-note').innerText,
              current: (document.querySelector('.review-move-btn.current') || {}).innerText || '',
              summary: document.querySelector('#review-summary').innerText,
            })"""
        )
    )


def _same_marks(driver: Any, follower: Any) -> dict[str, Any]:
    """Wait until the follower shows the driver's position and review note; both."""
    driver.wait_for_function("() => document.querySelector('#review-note').innerText !== ''")
    want = _marks(driver)
    follower.wait_for_function(
        """(w) => document.querySelector('#replay-step').innerText === w.step
              && document.querySelector('#review-note').innerText === w.note""",
        arg=want,
    )
    return want


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_players_go_over_a_game_and_its_review_together(
    browser: Any, server: Any, size: dict[str, int]
) -> None:
    ada = new_player(browser, server, "Ada", viewport=size)
    bo = new_player(browser, server, "Bo", viewport=size)
    tag = f"room-{size['width']}"
    try:
        page = ada.page
        create_table(ada, "classic", options={"end": "hands", "hands": 1, "passing": "none"})
        play_until([page], lambda: "phase-over" in view_state(page)["classes"])
        # The game-over panel opens a room at once: Ada drives it, on the replay page, and the
        # page's address and the copy field hold its link.
        opener = page.locator(".center-panel.game-over #open-room")
        opener.wait_for(timeout=20_000)
        # The page was scrolled down to the hand to play; the result comes into sight whole
        # (the winner and the final scores at its top), not cut off above the screen.
        page.wait_for_function(
            """() => { const r = document.querySelector('.center-panel.game-over')
                .getBoundingClientRect(); return r.top > -1 && r.bottom < innerHeight + 1; }"""
        )
        snap(page, None, f"{tag}-game-over")
        check_page(page, "game-over-room")
        opener.click()
        _until_status(page, "You drive")
        assert "room=" in page.url
        page.click("#next-trick")
        _until_step(page, "trick 1 of 13")
        room_link = page.input_value("#room-link")
        assert "room=" in room_link and "hand=1" in room_link and "trick=1" in room_link
        # Bo opens the link: he is in the room, at Ada's trick, and follows her.
        other = bo.page
        other.goto(room_link)
        _until_status(other, "Ada drives")
        _until_step(other, "trick 1 of 13")
        page.wait_for_function("() => document.querySelectorAll('#room-members li').length === 2")
        # The review shown is Ada's choice: her seat; Bo's choices are off.
        assert other.locator("#review-seat option:checked").inner_text() == "Ada"
        assert other.locator("#review-seat").is_disabled()
        # Ada asks for the review of her seat in the room: both pages follow it to the end.
        page.click("#review-go")
        page.wait_for_selector("#review-summary:not(:empty)", timeout=30_000)
        other.wait_for_selector("#review-summary:not(:empty)", timeout=30_000)
        assert _marks(other)["summary"] == _marks(page)["summary"]
        # Ada steps (and jumps to her next marked move if there is one): the same marks on
        # the same position for both.
        page.click("#next-trick")
        _until_step(page, "trick 2 of 13")
        seen = _same_marks(page, other)
        if not page.locator("#review-next").is_disabled():
            page.click("#review-next")
            page.wait_for_function(
                "(s) => document.querySelector('#replay-step').innerText !== s", arg=seen["step"]
            )
            seen = _same_marks(page, other)
        assert _marks(other)["current"] == seen["current"]
        # A follower's own step buttons and review moves are off, and his keys move nothing.
        assert other.locator("#next-trick").is_disabled()
        assert other.locator(".review-move-btn").first.get_attribute("aria-disabled") == "true"
        other.keyboard.press("ArrowRight")
        other.wait_for_timeout(300)
        assert _step(other) == seen["step"] == _step(page)
        snap(other, None, f"{tag}-follower")
        check_page(other, "room-follower")
        # Bo cannot take control while Ada is there.
        other.click("#room-take")
        other.wait_for_selector("#toast.show")
        assert "Ada still drives" in other.inner_text("#toast")
        errors = other.js_errors  # type: ignore[attr-defined]
        errors[:] = [e for e in errors if "status of 409" not in e]  # that refusal, expected
        # Ada hands control to Bo; now he steps for both, the review's moves his to click.
        page.select_option("#room-hand-to", label="Bo")
        page.click("#room-hand-over")
        _until_status(page, "Bo drives")
        _until_status(other, "You drive")
        assert not other.locator("#review-seat").is_disabled()
        before = _step(other)
        other.click("#prev-trick")
        other.wait_for_function(
            "(s) => document.querySelector('#replay-step').innerText !== s", arg=before
        )
        seen = _same_marks(other, page)
        assert page.locator("#next-trick").is_disabled()
        # The room's chat.
        other.fill("#room-chat-input", "Look at this")
        other.click("#room-chat-send")
        page.wait_for_function(
            "() => document.querySelector('#room-chat-log').innerText.includes('Look at this')"
        )
        snap(page, None, f"{tag}-chat")
        check_page(page, "room-chat")
        # A plain link to a hand and trick opens the replay there; one naming a hand or a
        # step the game does not have says so and opens at the start.
        replay_id = room_link.split("replay=")[1].split("&")[0]
        other.goto(f"/?replay={replay_id}&hand=1&trick=5")
        _until_step(other, "trick 5 of 13")
        assert other.locator("#replay-link-problem").is_hidden()
        for query, words, where in (
            ("hand=7&trick=2", "hands are 1 to 1", "the deal"),
            ("hand=1&trick=x9", "steps are 0 (the deal) to 14", "the deal"),
        ):
            other.goto(f"/?replay={replay_id}&{query}")
            problem = other.locator("#replay-link-problem")
            problem.wait_for()
            assert words in problem.inner_text(), problem.inner_text()
            _until_step(other, where)
        check_page(other, "replay-bad-link")
        for p in (ada, bo):
            assert not p.page.js_errors, p.page.js_errors  # type: ignore[attr-defined]
    finally:
        ada.close()
        bo.close()
