"""Hints at the table in the browser: a casual table created with Hints from the lobby's form;
at the pass the player asks, reads the suggestion in words, sees its cards marked in the hand
(and the button is a 44 px target on a phone); the table then says hints were used."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    ServerInfo,
    check_page,
    new_player,
    shots_folder,
    wait_for,
)


def card_short(code: str) -> str:
    """A card as static/js/cards.js cardShort shows it: "JC" -> "J♣", "TD" -> "10♦"."""
    rank, suit = code[:-1], code[-1]
    return {"T": "10"}.get(rank, rank) + {
        "C": "\u2663",
        "D": "\u2666",
        "S": "\u2660",
        "H": "\u2665",
    }[suit]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_a_hint_at_the_pass(browser: Any, server: ServerInfo, viewport: dict[str, int]) -> None:
    phone = viewport["width"] < 760
    player = new_player(browser, server, "Ann", viewport=viewport, mobile=phone)
    page = player.page
    try:
        page.wait_for_selector("#create-preset option", state="attached")
        page.select_option("#create-preset", "classic")
        for select in page.locator("select[data-seat]").all():
            select.select_option("easy")
        page.select_option("#create-timer", "0")
        page.set_checked("#create-autostart", True)
        page.check("#create-hints")
        page.click("#create-go")
        page.wait_for_url("**/?table=*")
        page.wait_for_selector(".table-page.phase-pass")
        button = page.locator("#hint-button")
        button.wait_for(state="visible")
        assert not page.locator(".card.hinted").count()
        if phone:
            box = button.bounding_box()
            assert box and box["width"] >= 44 and box["height"] >= 44, box
        button.click()
        wait_for(lambda: (page.text_content("#hint-text") or "").startswith("Pass "), what="words")
        wait_for(lambda: page.locator(".card.hinted").count() == 3, what="3 cards marked")
        marked = sorted(
            page.locator(".card.hinted").evaluate_all("els => els.map(e => e.dataset.card)")
        )
        words = page.text_content("#hint-text") or ""
        # the page's words name the cards as the hand shows them ("J♣"), not by code
        shown = [card_short(card) for card in marked]
        assert all(card in words for card in shown), (shown, words)
        assert "points" in words and "this hand" in words, words
        assert button.is_disabled()  # one hint a position
        wait_for(
            lambda: "Hints used in this game by Ann" in (page.text_content("#hints-used") or ""),
            what="the table says hints were used",
        )
        check_page(page, "hint", shots=shots_folder())
        assert not page.js_errors, page.js_errors
    finally:
        player.context.close()
