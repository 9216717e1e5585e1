"""The game review in the replay page (issue 16): a person finishes a one-hand game, opens its
replay, asks for the review of their seat, watches its progress, then steps through their
marked moves with n and p and sees the better move on the cards; at a phone's size and a
desktop's, with axe, cut-text and layout checks, and no layout shift while the review comes."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    check_page,
    create_table,
    new_player,
    play_until,
    resize,
    view_state,
)

# Layout shifts not caused by a key press or click (those within 0.5 s of one do not count).
SHIFTS = """() => {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value);
  }).observe({ type: "layout-shift" });
}"""


def _current(page: Any) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """() => {
            const item = document.querySelector('.review-move-btn.current');
            return {
              index: item ? Number(item.dataset.index) : -1,
              marked: !!item && !item.closest('.review-move').classList.contains('ok'),
              text: item ? item.innerText : '',
              step: document.querySelector('#replay-step').innerText,
              better: document.querySelectorAll('.review-card-group.better .card').length,
              outlined: document.querySelectorAll('.holding .card.better').length,
              played: document.querySelectorAll('.card.marked').length,
            };
        }"""
        )
    )


def test_a_player_reviews_their_game_and_steps_through_their_mistakes(
    browser: Any, server: Any
) -> None:
    p = new_player(browser, server, "Rae", viewport=DESKTOP, record_frames=True)
    try:
        page = p.page
        create_table(p, "classic", options={"end": "hands", "hands": 1})
        play_until([page], lambda: "phase-over" in view_state(page)["classes"])
        link = page.locator(".center-panel.game-over a#watch-replay")
        link.wait_for(timeout=20_000)
        link.click()
        page.wait_for_selector("#replay-step")
        # Rae's own seat is the one offered; nobody has asked for its review yet.
        assert page.locator("#review-seat option:checked").inner_text() == "Rae"
        page.wait_for_function(
            "() => document.querySelector('#review-status').innerText.includes('Not reviewed')"
        )
        page.evaluate(SHIFTS)
        page.click("#review-go")
        # The progress shows while the Expert works (the page follows the job's socket).
        page.wait_for_selector(".review-panel.reviewing #review-progress", state="visible")
        page.wait_for_selector("#review-summary:not(:empty)", timeout=20_000)
        progress = [
            json.loads(f)
            for f in p.frames
            if f.startswith("{") and json.loads(f).get("type") == "review"
        ]
        statuses = [m["status"] for m in progress]
        assert statuses[-1] == "done" and "running" in statuses, statuses
        # (the progress between 0 and 1 on the socket: tests/jobs/test_review.py, paced)
        assert sum(page.evaluate("window.__shifts")) < 0.05
        summary = page.inner_text("#review-summary")
        assert re.search(r"Rae: (accuracy [\d.]+%|no choice to make), [\d.]+ points? lost", summary)
        assert page.locator(".loss-svg rect.bar").count() == page.locator(".review-move").count()
        marked = page.locator(".review-move:not(.ok)").count()
        assert marked >= 1, "first-card play made no marked move: " + summary
        # n: to the first marked move; the board shows its trick (or the passing), the note
        # names the mark in words, the better move is drawn and outlined in Rae's cards.
        marks = page.eval_on_selector_all(
            ".review-move:not(.ok) .review-move-btn",
            "els => els.map((e) => Number(e.dataset.index))",
        )
        if _current(page)["index"] not in marks:  # the deal shows Rae's pass, if it is marked
            page.keyboard.press("n")
        first = _current(page)
        assert first["index"] == marks[0] and first["marked"], (first, marks)
        assert first["better"] >= 1 and first["outlined"] >= 1 and first["played"] >= 1, first
        words = r"(Inaccuracy|Mistake|Blunder), [\d.]+ points? lost; better "
        assert re.search(words, first["text"]), first
        note = page.inner_text("#review-note")
        assert re.search(r"(Inaccuracy|Mistake|Blunder) \u2013 Rae (played|passed) ", note), note
        assert "Better" in note
        check_page(page, "review")
        # At a phone's size: readable, nothing cut or overlapping; n and p go through every
        # marked move, on and back, and no further.
        resize(page, PHONE, 120)
        check_page(page, "review")
        visited = [first["index"]]
        while not page.locator("#review-next").is_disabled():
            page.keyboard.press("n")
            visited.append(_current(page)["index"])
        assert visited == marks
        page.keyboard.press("n")  # past the last: the board stays
        back = [_current(page)["index"]]
        while not page.locator("#review-prev").is_disabled():
            page.keyboard.press("p")
            back.append(_current(page)["index"])
        assert back == marks[::-1]
        page.keyboard.press("p")
        assert _current(page)["index"] == marks[0]
        assert not page.js_errors, page.js_errors  # type: ignore[attr-defined]
    finally:
        p.close()
