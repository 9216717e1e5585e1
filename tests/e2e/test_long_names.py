"""A player with the longest name the site allows (24 letters) at the table, on a phone and on
a desktop: the seat's plaque, the name under the player's card, the scores panel and the game
over panel show it whole (made smaller where it must be, never cut or shortened with "…"), and
nothing else on the page is pushed out of its box.

Found by a walk: with "Alexandrina Montgomery-W" the plaque's counts were cut below (121 px of
words in 96 at 1280x800, 68 in 58 on a phone), the name under the card took two lines over the
words under the trick on a phone, and the scores panel's Total column ran out of the panel.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    check_sizes,
    create_table,
    name_problems,
    new_player,
    play_until,
    view_state,
)

LONG_NAME = "Alexandrina Montgomery-W"  # 24 letters: the most a name may have


WINNER_GROWS_JS = """() => [...document.querySelectorAll('.trick .slot-name.human')]
  .flatMap((el) => {
    const slot = el.closest('.slot');
    const was = slot.classList.contains('winner');
    slot.classList.add('winner');
    const out = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
        ? [`${el.textContent}: ${el.scrollWidth}x${el.scrollHeight}`
           + ` in ${el.clientWidth}x${el.clientHeight}`]
        : [];
    slot.classList.toggle('winner', was);
    return out;
})"""


def _my_card_in_the_trick(page: Any, dummy: bool) -> bool:
    """My card in the trick, and in the dummy game my half dummy's too (its name is the
    longest: "Alexandrina Montgomery-W's half dummy")."""
    state = view_state(page)
    mine = ".trick .slot-bottom .slot-name"
    return "phase-play" in state["classes"] and all(
        page.locator(sel).count()
        for sel in ([mine, ".trick .slot-dummy-near .slot-name"] if dummy else [mine])
    )


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_a_24_letter_name_fits_at_every_table(browser: Any, server: Any, size: Any) -> None:
    phone = size == PHONE
    p = new_player(browser, server, LONG_NAME, viewport=size, mobile=phone)
    page = p.page
    done: set[str] = set()
    try:
        for preset in ("two-player-dummy", "classic-5-jokers", "classic"):
            create_table(p, preset, options={"end": "hands", "hands": 1})
            dummy = preset == "two-player-dummy"
            play_until([page], lambda d=dummy: _my_card_in_the_trick(page, d))
            check_sizes(page, f"{preset}-my-card", done)
            problems = name_problems(page)
            assert not problems, f"{preset}: {problems}"
            # Marked the trick's winner (bold), a name still fits as it was fitted: read in
            # the same turn as the marking, before the page's observers could fit it again.
            grown = page.evaluate(WINNER_GROWS_JS)
            assert not grown, f"{preset}: a name outgrows its box once bold: {grown}"
            # The scores panel (a phone shows it under the felt) holds every name whole.
            cut = page.evaluate(
                """() => [...document.querySelectorAll('.score-table th[scope="row"]')]
                    .filter((th) => th.scrollWidth > th.clientWidth + 1)
                    .map((th) => th.textContent)"""
            )
            assert not cut, f"{preset}: names cut in the scores panel: {cut}"
            panel = page.evaluate(
                """() => { const box = document.querySelector('.score-table').parentElement;
                    return [box.scrollWidth, box.clientWidth]; }"""
            )
            assert panel[0] <= panel[1] + 1, f"{preset}: the scores run out of their panel {panel}"
            # The names' column's head stands over the names, not at the column's right end.
            lefts = page.evaluate(
                """() => {
                    const x = (el) => { const r = document.createRange(); r.selectNodeContents(el);
                        return Math.round(r.getBoundingClientRect().left); };
                    return [x(document.querySelector('.score-table thead th')),
                            x(document.querySelector('.score-table th[scope="row"]'))]; }"""
            )
            assert abs(lefts[0] - lefts[1]) <= 2, f"{preset}: the Player head at {lefts}"
            if preset == "classic":
                play_until([page], lambda: "phase-over" in view_state(page)["classes"])
                check_sizes(page, "game-over", done)
                assert LONG_NAME in page.locator(".center-panel .final-scores").inner_text()
    finally:
        p.close()
