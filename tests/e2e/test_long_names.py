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
    new_player,
    play_until,
    view_state,
)
from tests.e2e.test_play import name_problems

LONG_NAME = "Alexandrina Montgomery-W"  # 24 letters: the most a name may have


def _my_card_in_the_trick(page: Any) -> bool:
    state = view_state(page)
    return "phase-play" in state["classes"] and bool(
        page.locator(".trick .slot-bottom .slot-name").count()
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
            play_until([page], lambda: _my_card_in_the_trick(page))
            check_sizes(page, f"{preset}-my-card", done)
            problems = name_problems(page)
            assert not problems, f"{preset}: {problems}"
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
            if preset == "classic":
                play_until([page], lambda: "phase-over" in view_state(page)["classes"])
                check_sizes(page, "game-over", done)
                assert LONG_NAME in page.locator(".center-panel .final-scores").inner_text()
    finally:
        p.close()
