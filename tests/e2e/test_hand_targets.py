"""Every card of a big hand is a real tap target on a phone: with 13 to 17 cards (classic, three
players, Double Hearts, the dummy game's hand and half dummy) the part of each card that shows
(its left edge, and on a phone where the rows overlap its top) is at least 44x44 px (WCAG
2.5.5), the page finds the card itself at that part's centre, and tapping there picks that card
and no neighbour (a second tap puts it back). At the pass, where a tap only marks a card.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    ServerInfo,
    check_page,
    shots_folder,
    view_state,
    wait_for,
)
from tests.e2e.test_newcomer import (
    guest_token,
    new_table,
    open_page,
    pass_first_cards,
    shifted,
    start_at_table,
)

SMALL_PHONE = {"width": 360, "height": 740}

# Each card's showing part: its box less what later cards (drawn over it) cover.
TARGETS_JS = """(selector) => {
  const cards = [...document.querySelectorAll(selector + ' .card')];
  return cards.map((el, i) => {
    const r = el.getBoundingClientRect();
    let right = r.right, bottom = r.bottom;
    for (const later of cards.slice(i + 1)) {
      const o = later.getBoundingClientRect();
      const rowsMeet = o.top < r.bottom && o.bottom > r.top;
      const colsMeet = o.left < r.right && o.right > r.left;
      const sameRow = rowsMeet && Math.abs(o.top - r.top) < 2;
      if (sameRow && o.left > r.left) right = Math.min(right, o.left);
      else if (colsMeet && o.top > r.top + 2) bottom = Math.min(bottom, o.top);
    }
    const x = (r.left + right) / 2, y = (r.top + bottom) / 2;
    const hit = document.elementFromPoint(x, y);
    return { card: el.dataset.card, width: right - r.left, height: bottom - r.top, x, y,
             hit: hit && hit.closest('.card') === el,
             inView: r.top >= 0 && bottom <= window.innerHeight };
  });
}"""

CASES = [
    ("classic", PHONE),
    ("classic-3", PHONE),
    ("two-player-dummy", PHONE),
    ("double-hearts-3", SMALL_PHONE),
    ("classic-3", DESKTOP),
]


# The half dummy's targets, read only while its block is the one shown (on a phone the page
# shows the hand or the half dummy by turns, and switches to the one to play from).
DUMMY_TARGETS_JS = (
    "(selector) => getComputedStyle(document.querySelector('#dummy-block')).visibility"
    " === 'visible' ? (" + TARGETS_JS + ")(selector) : null"
)


def check_targets(page: Any, row: str, targets: list[dict[str, Any]] | None = None) -> None:
    """Each card of the row: a showing part of 44x44 px at least, on the first screen, where
    the page finds that card."""
    if targets is None:
        targets = page.evaluate(TARGETS_JS, row)
    assert targets is not None
    assert len(targets) >= 8, targets
    small = [t for t in targets if t["width"] < 44 or t["height"] < 44]
    assert not small, small
    assert all(t["hit"] for t in targets), [t for t in targets if not t["hit"]]
    assert all(t["inView"] for t in targets), [t for t in targets if not t["inView"]]


@pytest.mark.parametrize(
    ("preset", "viewport"),
    CASES,
    ids=[f"{p}-{v['width']}x{v['height']}" for p, v in CASES],
)
def test_every_card_of_a_big_hand_is_a_44_px_target(
    browser: Any, server: ServerInfo, preset: str, viewport: dict[str, int]
) -> None:
    token = guest_token(server, "Annabelle")
    bots = {"1": "easy"} if preset.startswith("two-player") else None
    players = 3 if preset.endswith("-3") else 2 if bots else 4
    table = new_table(
        server, token, preset, bots=bots or {str(s): "easy" for s in range(1, players)}
    )
    page = open_page(browser, server, viewport, token)
    try:
        start_at_table(page, table["id"])
        wait_for(lambda: page.locator("#pass-button").count() > 0, what="the pass")
        wait_for(lambda: len(view_state(page)["hand"]) >= 13, what="the deal")
        check_targets(page, ".hand-cards")
        # Tapping each card's showing part picks that card, and only it; again puts it back.
        phone = viewport["width"] < 760
        for target in page.evaluate(TARGETS_JS, ".hand-cards"):
            for pressed in ("true", "false"):
                if phone:
                    page.touchscreen.tap(target["x"], target["y"])
                else:
                    page.mouse.click(target["x"], target["y"])
                picked = page.evaluate(
                    "() => [...document.querySelectorAll('.hand-cards .card[aria-pressed=true]')]"
                    ".map((el) => el.dataset.card)"
                )
                assert picked == ([target["card"]] if pressed == "true" else []), (target, picked)
        check_page(page, f"big-hand-{preset}-pass", shots=shots_folder())
        if preset == "two-player-dummy":
            # After the pass the half dummy's cards come; on a phone it has its place by
            # turns with the hand (the switch over them), and its cards are targets too.
            pass_first_cards(page)
            wait_for(lambda: page.locator(".dummy-cards .card").count() >= 8, what="half dummy")

            def shown_dummy() -> list[dict[str, Any]] | None:
                if phone and page.get_attribute("#dummy-block-show", "aria-pressed") != "true":
                    page.click("#dummy-block-show")
                targets = page.evaluate(DUMMY_TARGETS_JS, ".dummy-cards")
                return None if targets is None else list(targets)

            check_targets(page, ".dummy-cards", wait_for(shown_dummy, what="the half dummy shown"))
        check_page(page, f"big-hand-{preset}", shots=shots_folder())
        assert shifted(page) < 0.05, page.evaluate("window.__shifts")
        assert not page.js_errors, page.js_errors
    finally:
        page.context.close()
