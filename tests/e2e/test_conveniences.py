"""Friends' conveniences in a real browser (issue 19): claiming the remaining tricks (refused,
then accepted), a card chosen before one's turn, and the automatic play of a forced card.

The deal is the server's (random): the accepted claim is made when the page's own view shows
it is sure (every card left in the claimant's hand is the highest of its suit still out, and
the trick in progress is won), which the test checks from the view the server sent that
player; the player plays low cards so that high ones are left for the end.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    check_page,
    choose_and_pass,
    click_card,
    create_table,
    new_player,
    page_version,
    resize,
    settle,
    view_state,
    wait_for,
)

RANKS = "23456789TJQKA"
# HEARTS_TEST_SHOTS=DIR keeps a screenshot of each checked state (docs/screenshots/conv-*).
SHOTS = Path(os.environ["HEARTS_TEST_SHOTS"]) if os.environ.get("HEARTS_TEST_SHOTS") else None


def _view(page: Any) -> dict[str, Any]:
    """The view the server sent this player (its own cards only)."""
    return dict(page.evaluate("() => window.__hearts.view") or {})


def _hand(page: Any) -> list[str]:
    return [c["card"] for c in view_state(page)["hand"]]


def _my_turn(page: Any) -> bool:
    state = view_state(page)
    return "phase-play" in state["classes"] and any(c["legal"] for c in state["hand"])


def _sure_claim(view: dict[str, Any]) -> bool:
    """Classic Hearts, 52 cards dealt: every trick left is mine whatever the others play."""
    played = {p["card"] for t in view["tricks"] for p in t["plays"]}
    played |= {p["card"] for p in view["trick"]}
    mine = set(view["hand"])
    out = {r + s for r in RANKS for s in "CDSH"} - played - mine
    for card in mine:
        if any(o[1] == card[1] and RANKS.index(o[0]) > RANKS.index(card[0]) for o in out):
            return False
    if view["trick"]:
        led = view["led_suit"]
        follow = [c for c in mine if c[1] == led]
        if not follow:
            return False
        best = max(RANKS.index(p["card"][0]) for p in view["trick"] if p["card"][1] == led)
        return max(RANKS.index(c[0]) for c in follow) > best
    return True


def _play_low(page: Any) -> None:
    """Play the lowest playable card (high cards are kept for a claim)."""
    legal = [c["card"] for c in view_state(page)["hand"] if c["legal"]]
    if not legal:  # the turn moved on since it was read (a card forced, a trick taken)
        return
    card = min(legal, key=lambda c: RANKS.index(c[0]))
    before = page_version(page)
    click_card(page, card)
    settle(page, before)


def _check_both_sizes(page: Any, state: str) -> None:
    """Text, layout and axe checks at a phone size and a desktop size."""
    size = dict(page.viewport_size)
    try:
        for other in (PHONE, DESKTOP):
            resize(page, other, 150)
            check_page(page, f"conv-{state}", shots=SHOTS)
    finally:
        resize(page, size)


def _log_lines(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".log-line", "els => els.map(e => e.textContent)"))


def test_claims_refused_then_accepted(browser: Any, server: Any) -> None:
    ann = new_player(browser, server, "Ann")
    watcher = new_player(browser, server, None, viewport=PHONE)  # a spectator on a phone
    try:
        table = create_table(ann, "classic", options={"end": "hands", "hands": 8})
        page = ann.page
        watcher.page.goto(f"/?table={table}")
        watcher.page.wait_for_selector(".table-page.spectator")
        # Pass (first cards), then reach Ann's first turn to play.
        wait_for(
            lambda: (
                "phase-play" in view_state(page)["classes"] or page.locator("#pass-button").count()
            ),
            what="the deal",
        )
        if page.locator("#pass-button").count():
            choose_and_pass(page, [c["card"] for c in view_state(page)["hand"] if c["legal"]][:3])
        wait_for(lambda: _my_turn(page), what="Ann's first turn")
        assert not _sure_claim(_view(page))
        # A claim asks first: a mis-click costs nothing.
        page.click("#claim-button")
        page.locator("#claim-confirm").wait_for()
        assert "Claim every remaining trick?" in view_state(page)["status"]
        _check_both_sizes(page, "claim-confirm")
        page.click("#claim-cancel")
        assert page.locator("#claim-confirm").count() == 0
        page.click("#claim-button")
        before = page_version(page)
        page.click("#claim-confirm")
        settle(page, before, timeout=15_000)
        error = wait_for(lambda: view_state(page)["error"], what="the refusal")
        assert error.startswith("Your claim was refused:"), error
        # The event comes to everyone a moment after the claimant's answer.
        wait_for(lambda: "Your claim was refused." in _log_lines(page), what="the log line")
        wait_for(
            lambda: "Ann's claim was refused." in _log_lines(watcher.page),
            what="the spectator told of the refusal",
        )
        # One refused claim per hand: no claim offered again in this hand.
        wait_for(lambda: page.locator("#claim-button").count() == 0, what="no claim offered")
        _check_both_sizes(page, "claim-refused")
        refused_hand = _view(page)["hand_no"]

        # Play low until a claim is sure in a later hand, then claim it.
        claimed = False
        deadline_hands = 8
        while not claimed:
            state = view_state(page)
            if "phase-over" in state["classes"]:
                break
            if "phase-pass" in state["classes"] and page.locator("#pass-button").count():
                legal = [c["card"] for c in state["hand"] if c["legal"]]
                if legal and "to pass" in state["status"]:
                    # Pass low cards: high ones are kept for a claim.
                    choose_and_pass(page, sorted(legal, key=lambda c: RANKS.index(c[0]))[:3])
                    continue
            if not _my_turn(page):
                page.wait_for_timeout(50)
                continue
            view = _view(page)
            assert view["hand_no"] < deadline_hands
            if view["hand_no"] != refused_hand and _sure_claim(view):
                page.click("#claim-button")
                before = page_version(page)
                page.click("#claim-confirm")
                settle(page, before, timeout=15_000)
                claimed = True
                break
            _play_low(page)
        assert claimed, "no sure claim came up in the game"
        line = wait_for(
            lambda: [t for t in _log_lines(page) if t.startswith("You claim the remaining")],
            what="the claim in the log",
        )
        assert line
        seen = wait_for(
            lambda: [t for t in _log_lines(watcher.page) if t.startswith("Ann claims")],
            what="the spectator told of the claim",
        )
        # The claimant's cards are named for screen readers and shown.
        assert re.search(r"of (clubs|diamonds|spades|hearts)", seen[0]), seen
        assert watcher.page.locator(".log-line.claim .claim-cards .card").count() >= 1
        note = watcher.page.locator(".center-panel .claim-note")
        note.wait_for(timeout=10_000)
        assert note.inner_text().startswith("Ann claimed the last")
        page.locator(".center-panel .claim-note").wait_for(timeout=10_000)
        assert not view_state(page)["error"]
        # Each at its own size (a trick gathered at one size keeps its way to the winner's seat
        # when the window is resized: motion.js).
        check_page(page, "conv-claim-accepted", shots=SHOTS)
        check_page(watcher.page, "conv-claim-accepted", shots=SHOTS)
        assert not page.js_errors, page.js_errors
        assert not watcher.page.js_errors, watcher.page.js_errors
    finally:
        ann.close()
        watcher.close()


def test_a_card_chosen_early_and_forced_cards(browser: Any, server: Any) -> None:
    ann = new_player(browser, server, "Ann")
    ben = new_player(browser, server, "Ben")
    try:
        # Ben sits at seat 3, just before Ann (seat 0): while Ben thinks, Ann may choose.
        table = create_table(
            ann, "classic", seats={3: "open"}, options={"end": "hands", "hands": 3}
        )
        ben.page.goto(f"/?table={table}&sit=1")
        ben.page.wait_for_selector(".table-page.seated")
        a, b = ann.page, ben.page
        for page in (a, b):
            page.wait_for_selector(".table-page.phase-pass, .table-page.phase-play")

        def pass_if_asked(page: Any) -> bool:
            state = view_state(page)
            if "phase-pass" not in state["classes"] or not page.locator("#pass-button").count():
                return False
            legal = [c["card"] for c in state["hand"] if c["legal"]]
            if not legal or "to pass" not in state["status"]:
                return False
            choose_and_pass(page, legal[:3])
            return True

        dropped = played = forced_stayed = False
        while not (dropped and played and forced_stayed):
            assert "phase-over" not in view_state(a)["classes"], (dropped, played, forced_stayed)
            pass_if_asked(a)
            pass_if_asked(b)
            if _my_turn(a):
                legal = [c["card"] for c in view_state(a)["hand"] if c["legal"]]
                if len(legal) == 1 and not forced_stayed:
                    # The setting is off: a forced card waits for its player.
                    a.wait_for_timeout(1200)
                    assert [c["card"] for c in view_state(a)["hand"] if c["legal"]] == legal
                    assert a.locator(".card.forced").count() == 0
                    forced_stayed = True
                _play_low(a)
                continue
            if not _my_turn(b):
                b.wait_for_timeout(50)
                continue
            view = _view(a)
            trick_seats = [p["seat"] for p in view["trick"]]
            hand = view["hand"]
            led = view["led_suit"]
            follow = [c for c in hand if led and c[1] == led and c != "QS"]
            other = [c for c in hand if led and c[1] != led and c[1] != "H" and c != "QS"]
            if trick_seats and 0 not in trick_seats and follow and (dropped or other):
                if not dropped:
                    # A card Ann may not play when her turn comes (she holds the suit led).
                    card = other[0]
                    click_card(a, card)
                    a.locator(f'.card.prechosen[data-card="{card}"]').wait_for()
                    # Tapped again: unmarked; a third time: marked again.
                    click_card(a, card)
                    a.locator(".card.prechosen").wait_for(state="detached")
                    click_card(a, card)
                    a.locator(f'.card.prechosen[data-card="{card}"]').wait_for()
                    assert "plays when your turn comes" in view_state(a)["status"]
                    label = a.get_attribute(f'.hand-cards .card[data-card="{card}"]', "aria-label")
                    assert label and "chosen to play when your turn comes" in label
                    assert a.locator("#prechosen-cancel").is_visible()
                    _check_both_sizes(a, "prechosen")
                    _play_low(b)
                    text = wait_for(lambda: view_state(a)["error"], what="the mark dropped")
                    assert "cannot be played now" in text
                    assert card in _hand(a)
                    assert a.locator(".card.prechosen").count() == 0
                    dropped = True
                    continue
                card = follow[0]
                click_card(a, card)
                a.locator(f'.card.prechosen[data-card="{card}"]').wait_for()
                # The cancel button unmarks it; chosen again, it plays when the turn comes.
                a.click("#prechosen-cancel")
                a.locator(".card.prechosen").wait_for(state="detached")
                click_card(a, card)
                a.locator(f'.card.prechosen[data-card="{card}"]').wait_for()
                _play_low(b)
                wait_for(
                    lambda card=card: card not in _hand(a),
                    what="the chosen card played by itself",
                )
                assert not view_state(a)["error"]
                played = True
                continue
            _play_low(b)

        # The setting on (Settings dialog): Ann's forced cards play themselves.
        a.click("#prefs-button")
        a.check("#pref-forced")
        a.click("#prefs-dialog button[value=close]")
        assert a.evaluate("() => JSON.parse(localStorage.getItem('hearts.prefs')).autoForced")
        auto_played = 0
        while auto_played < 1:
            if "phase-over" in view_state(a)["classes"]:
                break
            pass_if_asked(a)
            pass_if_asked(b)
            if _my_turn(a):
                legal = [c["card"] for c in view_state(a)["hand"] if c["legal"]]
                if len(legal) == 1:
                    a.locator(f'.hand-cards .card.forced[data-card="{legal[0]}"]').wait_for()
                    assert "plays in a moment" in view_state(a)["status"]
                    wait_for(
                        lambda card=legal[0]: card not in _hand(a),
                        timeout=5,
                        what="the forced card played by itself",
                    )
                    auto_played += 1
                    continue
                _play_low(a)
                continue
            if _my_turn(b):
                _play_low(b)
            else:
                b.wait_for_timeout(50)
        assert auto_played == 1
        assert not a.js_errors, a.js_errors
        assert not b.js_errors, b.js_errors
    finally:
        ann.close()
        ben.close()


def _play_points_first(page: Any) -> None:
    """Play a heart or the queen of spades when one may be played (the point cards go early)."""
    legal = [c["card"] for c in view_state(page)["hand"] if c["legal"]]
    points = [c for c in legal if c[1] == "H" or c == "QS"]
    before = page_version(page)
    click_card(page, (points or legal)[0])
    settle(page, before)


def test_a_hand_that_ended_by_itself_says_so(browser: Any, server: Any) -> None:
    ann = new_player(browser, server, "Ann")
    try:
        # The option is on the lobby's Create form (from /api/presets).
        # Whether a hand ends by itself depends on the deal: up to 12 hands (the points go
        # early, so most games have one in the first two; five hands missed it about 1 in 20).
        create_table(ann, "classic", options={"auto_end": True, "end": "hands", "hands": 12})
        page = ann.page

        def ended_early() -> dict[str, Any] | None:
            history = _view(page).get("history") or []
            return next((r for r in history if r.get("ended_early")), None)

        found = None
        while found is None:
            view = _view(page)
            if not view:  # no game yet: the table's first state comes before the start
                page.wait_for_timeout(50)
                continue
            assert view["phase"] != "over" and view["hand_no"] < 11, "no hand ended by itself"
            state = view_state(page)
            if "phase-pass" in state["classes"] and page.locator("#pass-button").count():
                legal = [c["card"] for c in state["hand"] if c["legal"]]
                if legal and "to pass" in state["status"]:
                    choose_and_pass(page, legal[:3])
            elif _my_turn(page):
                _play_points_first(page)
            else:
                page.wait_for_timeout(50)
            found = ended_early()
        played = sum(found["tricks_won"])
        assert played < 13
        panel = page.locator(".center-panel.hand-result")
        panel.wait_for(timeout=10_000)
        note = panel.locator(".ended-early").inner_text()
        assert note.startswith(f"The hand ended by itself after {played} tricks"), note
        assert "not scored" in note
        check_page(page, "conv-ended-by-itself", shots=SHOTS)
        assert not page.js_errors, page.js_errors
    finally:
        ann.close()
