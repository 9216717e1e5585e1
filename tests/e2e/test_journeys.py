"""Whole journeys in a real browser, at a phone size and a desktop size, with no reload.

- A host creates a private table; a friend opens the invite link in a second browser context,
  names themselves, sits, and both play a whole (one-hand) game through passing and every
  trick to the game-over screen, then a rematch.
- The same through the lobby's Watch, then "Sit here"; a spectator opens the table mid-hand
  and watches to the end.
- A player whose connection drops mid-trick sends a chat line and a card meanwhile: both
  arrive exactly once when it is back, also when they had already reached the server.

At every step the action bar must show the expected control (Pass, "Your turn") in the same
document: the page is marked when it loads and a reload would drop the mark. Screenshots of
key moments go to ``HEARTS_TEST_SHOTS`` (a temporary folder if unset).

At each state the journeys pass through (waiting, passing, playing, a refused card, game over,
spectator) the page is checked once per window size (helpers.check_sizes: both phones or both
desktops): axe-core finds no serious or critical violation, no text is cut off, and on a
phone the hand and the action bar are on the first screen.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    Player,
    SocketCut,
    act_once,
    action_bar,
    check_sizes,
    create_table,
    expect_control,
    layout_problems,
    mark_loaded,
    new_player,
    received_views,
    snap,
    still_same_document,
    view_state,
    wait_for,
)

SIZES = {"phone": PHONE, "desktop": DESKTOP}
SHORT_GAME = {"end": "hands", "hands": 1}


@pytest.fixture(scope="module")
def shots() -> Path:
    folder = os.environ.get("HEARTS_TEST_SHOTS") or tempfile.mkdtemp(prefix="hearts-journeys-")
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def checked() -> set[str]:
    """The states already checked (state and window size): each is checked once a module."""
    return set()


@pytest.fixture(params=sorted(SIZES))
def size(request: Any) -> str:
    return str(request.param)


def _person(browser: Any, server: Any, name: str | None, size: str) -> Player:
    return new_player(browser, server, name, viewport=SIZES[size], mobile=size == "phone")


def _other(size: str) -> str:
    return "desktop" if size == "phone" else "phone"


@pytest.fixture
def people() -> Iterator[list[Player]]:
    made: list[Player] = []
    yield made
    for p in made:
        p.close()


def _no_js_errors(*players: Player) -> None:
    for p in players:
        assert not p.page.js_errors, p.page.js_errors  # type: ignore[attr-defined]


def _sit_with_a_new_name(page: Any, name: str, shots: Path, tag: str) -> None:
    """A visitor without a name: "Sit here", the name form, Enter."""
    page.locator(".seat button", has_text="Sit here").first.click()
    bar = action_bar(page)
    assert bar["name_form"] and "Sit down" in bar["buttons"], bar
    page.fill("#table-guest-name", name)
    snap(page, shots, f"{tag}-name-form")
    assert not layout_problems(page), layout_problems(page)
    page.press("#table-guest-name", "Enter")
    page.wait_for_selector(".table-page.seated")


def _refuse_once_and_check(page: Any, checked: set[str], shots: Path) -> None:
    """At the subject's turn: check the page, try a card that is not allowed, check the page
    with the reason shown (the action bar keeps its size and clips nothing)."""
    check_sizes(page, "playing", checked, shots)
    state = view_state(page)
    illegal = [c["card"] for c in state["hand"] if not c["legal"]]
    size = page.viewport_size
    if not illegal or f"refused-{size['width']}x{size['height']}" in checked:
        return
    card = f'.hand-cards .card[data-card="{illegal[0]}"]'
    page.click(card, force=True, position={"x": 8, "y": 24})
    wait_for(lambda: view_state(page)["error"], what="the reason for the refused card")
    check_sizes(page, "refused", checked, shots)


def _play_to_game_over(
    pages: list[Any], subject: Any, timeout: float = 90.0, on_turn: Any = None
) -> dict[str, int]:
    """Both people play (first legal cards) until every page shows the game over. Each time
    the subject may act, its action bar must say so (checked before it acts); ``on_turn``
    is called with the subject's page at each of its turns to play, before it plays."""
    seen = {"pass": 0, "turn": 0}
    deadline = time.monotonic() + timeout
    while not all("phase-over" in view_state(p)["classes"] for p in pages):
        assert time.monotonic() < deadline, [view_state(p) for p in pages]
        acted = False
        for page in pages:
            if page is subject:
                # The subject acts only on what its action bar showed just before.
                bar = action_bar(page)
                assert not bar["name_form"], bar
                if not bar["legal"]:
                    continue
                if "phase-pass" in view_state(page)["classes"]:
                    assert bar["pass_button"] and "to pass" in bar["status"], bar
                    kind = "pass"
                else:
                    assert bar["status"].startswith(("Your turn", "Your lead")), bar
                    kind = "turn"
                    if on_turn is not None:
                        on_turn(page)
                if act_once(page):
                    seen[kind] += 1
                    acted = True
            elif act_once(page):
                acted = True
        if not acted:
            pages[0].wait_for_timeout(40)
    return seen


def _game_over_and_rematch(
    players: list[Player], subject: Player, shots: Path, tag: str, checked: set[str]
) -> None:
    for p in players:
        panel = p.page.locator(".center-panel.game-over")
        panel.wait_for()
        assert re.search(r"wins?!|share the win", panel.locator(".winners").inner_text())
    # The same final scores on both screens.
    scores = [
        p.page.eval_on_selector_all(".final-scores li", "els => els.map(e => e.textContent)")
        for p in players
    ]
    assert scores[0] == scores[1] and len(scores[0]) == 4, scores
    snap(subject.page, shots, f"{tag}-game-over")
    check_sizes(subject.page, "game-over", checked, shots)
    subject.page.click("#rematch")
    for p in players:
        p.page.wait_for_selector(".table-page.phase-pass")
        expect_control(p.page, "pass")
    snap(subject.page, shots, f"{tag}-rematch-pass")


def test_friend_by_invite_link_plays_a_whole_game_and_a_rematch(
    browser: Any, server: Any, size: str, shots: Path, people: list[Player], checked: set[str]
) -> None:
    host = _person(browser, server, "Hosty", _other(size))
    friend = _person(browser, server, None, size)
    people += [host, friend]
    create_table(
        host,
        "classic",
        seats={1: "open", 2: "easy", 3: "easy"},
        private=True,
        options=SHORT_GAME,
    )
    invite = host.page.url
    assert "invite=" in invite
    check_sizes(host.page, "waiting", checked, shots)
    # The friend opens the link: watching at first, then a seat and a name.
    friend.page.goto(invite)
    friend.page.wait_for_selector(".table-page.spectator")
    mark_loaded(friend.page)
    _sit_with_a_new_name(friend.page, "Invitee", shots, f"invite-{size}")
    # Every seat is taken: the host's page starts, and the friend is asked to pass.
    bar = expect_control(friend.page, "pass")
    assert "Waiting for players" not in bar["status"], bar
    expect_control(host.page, "pass")
    snap(friend.page, shots, f"invite-{size}-pass")
    check_sizes(friend.page, "passing", checked, shots)
    assert host.page.locator(".seat .name-text", has_text="Invitee").count() == 1

    seen = _play_to_game_over(
        [host.page, friend.page],
        friend.page,
        on_turn=lambda page: _refuse_once_and_check(page, checked, shots),
    )
    assert seen["pass"] >= 1 and seen["turn"] >= 13, seen  # a pass and every trick
    _game_over_and_rematch([host, friend], friend, shots, f"invite-{size}", checked)
    assert still_same_document(friend.page), "the friend's page was reloaded"
    _no_js_errors(host, friend)


def test_watch_then_sit_and_a_spectator_from_mid_hand_to_the_end(
    browser: Any, server: Any, size: str, shots: Path, people: list[Player], checked: set[str]
) -> None:
    host = _person(browser, server, "Ana", _other(size))
    friend = _person(browser, server, None, size)
    people += [host, friend]
    table = create_table(
        host, "classic", seats={1: "open", 2: "easy", 3: "easy"}, options=SHORT_GAME
    )
    # The friend finds the public table in the lobby and watches it first.
    row = friend.page.locator(f'.table-row[data-table="{table}"]')
    row.wait_for()
    row.get_by_role("link", name=re.compile("^Watch")).click()
    friend.page.wait_for_selector(".table-page.spectator")
    mark_loaded(friend.page)
    _sit_with_a_new_name(friend.page, "Walker", shots, f"watch-{size}")
    expect_control(friend.page, "pass")
    snap(friend.page, shots, f"watch-{size}-pass")

    # Mid-hand (a few tricks played), someone opens the table to watch.
    pages = [host.page, friend.page]
    deadline = time.monotonic() + 60
    while (
        len(view_state(friend.page)["hand"]) > 9
        or "phase-play" not in view_state(friend.page)["classes"]
    ):
        assert time.monotonic() < deadline, view_state(friend.page)
        if not any([act_once(p) for p in pages]):
            friend.page.wait_for_timeout(40)
    watcher = _person(browser, server, None, size)
    people.append(watcher)
    watcher.page.goto(f"/?table={table}")
    watcher.page.wait_for_selector(".table-page.spectator.phase-play")
    mark_loaded(watcher.page)
    assert watcher.page.locator(".hand-cards .card").count() == 0
    assert watcher.page.is_visible(".watching")
    assert view_state(watcher.page)["status"].startswith("You are watching"), view_state(
        watcher.page
    )
    seat_names = watcher.page.eval_on_selector_all(
        ".seat .name-text", "els => els.map(e => e.textContent)"
    )
    assert "Ana" in seat_names and "Walker" in seat_names, seat_names
    snap(watcher.page, shots, f"spectator-{size}-mid-hand")
    check_sizes(watcher.page, "spectator", checked, shots)

    seen = _play_to_game_over(pages, friend.page)
    assert seen["turn"] >= 9, seen
    # The spectator watched it to the end: the same result, and no Rematch for them.
    watcher.page.wait_for_selector(".center-panel.game-over")
    assert watcher.page.locator("#rematch").count() == 0
    final = [
        p.page.eval_on_selector_all(".final-scores li", "els => els.map(e => e.textContent)")
        for p in (host, watcher)
    ]
    assert final[0] == final[1], final
    snap(watcher.page, shots, f"spectator-{size}-game-over")
    assert still_same_document(watcher.page), "the spectator's page was reloaded"
    _game_over_and_rematch([host, friend], friend, shots, f"watch-{size}", checked)
    assert still_same_document(friend.page), "the friend's page was reloaded"
    _no_js_errors(host, friend, watcher)


def _chat_lines(page: Any, text: str) -> int:
    return int(
        page.evaluate(
            "(t) => [...document.querySelectorAll('.chat-line .chat-text')]"
            ".filter((e) => e.textContent === t).length",
            text,
        )
    )


def _unanswered(page: Any) -> int:
    return int(
        page.evaluate("() => Number(document.querySelector('.table-page').dataset.unanswered)")
    )


def _my_turn(page: Any, mid_trick: bool) -> bool:
    state = view_state(page)
    return (
        "phase-play" in state["classes"]
        and any(c["legal"] for c in state["hand"])
        and (bool(state["trick"]) or not mid_trick)
    )


def _play_until_my_turn(page: Any, mid_trick: bool, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not _my_turn(page, mid_trick):
        assert time.monotonic() < deadline, view_state(page)
        if not act_once(page):
            page.wait_for_timeout(40)


def _applied(watcher: Player, kind: str, match: Any) -> set[int]:
    """The versions of the public events of ``kind`` the watcher received that ``match``:
    one version per time the server applied such a command."""
    # Playwright's sync API runs its callbacks (the frames recorded here, and the routed
    # socket's forwarding) only while the test is inside one of its calls: give it one.
    watcher.page.wait_for_timeout(10)
    versions: set[int] = set()
    for msg in received_views(watcher):
        for event in msg.get("events") or []:
            if event.get("kind") == kind and match(event):
                versions.add(int(event["v"]))
    return versions


def _chat_said(text: str) -> Any:
    return lambda e: e.get("text") == text


def _card_played(card: str) -> Any:
    return lambda e: e.get("seat") == 0 and (e.get("move") or {}).get("card") == card


def test_chat_and_card_sent_while_the_connection_is_down_arrive_once(
    browser: Any, server: Any, size: str, shots: Path, people: list[Player]
) -> None:
    player = _person(browser, server, "Nell", size)
    people.append(player)
    cut = SocketCut(player.context)
    page = player.page
    table = create_table(player, "classic", seats={1: "easy", 2: "easy", 3: "easy"})
    watcher = new_player(browser, server, None, record_frames=True)
    people.append(watcher)
    watcher.page.goto(f"/?table={table}")
    watcher.page.wait_for_selector(".table-page.spectator")
    mark_loaded(page)

    # 1. Mid-trick, the connection drops; a chat line and a card are given meanwhile.
    _play_until_my_turn(page, mid_trick=True)
    expect_control(page, "turn")
    cut.cut()
    page.wait_for_selector("#conn-note.warn")
    since = len(cut.sent)
    line = "brb, my train is in a tunnel"
    page.fill("#chat-input", line)
    page.press("#chat-input", "Enter")
    assert page.input_value("#chat-input") == ""
    card = next(c["card"] for c in view_state(page)["hand"] if c["legal"])
    page.click(f'.hand-cards .card[data-card="{card}"]')
    assert "sent when the connection is back" in page.inner_text("#toast")
    assert _unanswered(page) == 2
    snap(page, shots, f"offline-{size}-queued")
    assert cut.sent_ids("chat", since) == [] and cut.sent_ids("move", since) == []
    cut.restore()
    page.wait_for_selector("#conn-note.ok", timeout=15_000)
    wait_for(lambda: _unanswered(page) == 0, what="the answers to the queued chat and card")
    wait_for(lambda: _chat_lines(watcher.page, line) == 1, what="the chat line")
    # Sent once each, in the order given, on the new socket after its welcome.
    sent = [m for m in cut.sent[since:] if m.get("type") in ("chat", "move")]
    assert [m["type"] for m in sent] == ["chat", "move"], sent
    assert sent[1]["move"]["card"] == card
    wait_for(lambda: _applied(watcher, "move", _card_played(card)), what="the card's event")
    assert card not in [c["card"] for c in view_state(page)["hand"]]
    assert not view_state(page)["error"]

    # 2. The same, but the chat and card reached the server before the drop and only the
    # answers were lost: the page sends them again, the server applies them once.
    _play_until_my_turn(page, mid_trick=False)
    since = len(cut.sent)
    cut.mode = "deaf"
    line2 = "did that go through?"
    page.fill("#chat-input", line2)
    page.press("#chat-input", "Enter")
    card2 = next(c["card"] for c in view_state(page)["hand"] if c["legal"])
    page.click(f'.hand-cards .card[data-card="{card2}"]')
    wait_for(lambda: _applied(watcher, "chat", _chat_said(line2)), what="the chat at the server")
    wait_for(lambda: _applied(watcher, "move", _card_played(card2)), what="the card at the server")
    assert _unanswered(page) == 2  # no answer came back
    cut.cut()
    page.wait_for_selector("#conn-note.warn")
    cut.restore()
    page.wait_for_selector("#conn-note.ok", timeout=15_000)
    wait_for(lambda: _unanswered(page) == 0, what="the answers to the resent chat and card")
    resent = [m for m in cut.sent[since:] if m.get("type") in ("chat", "move")]
    assert [m["type"] for m in resent] == ["chat", "move", "chat", "move"], resent
    assert resent[0]["id"] == resent[2]["id"] and resent[1]["id"] == resent[3]["id"]
    page.wait_for_timeout(300)  # time for a second copy to show, if the server made one

    # Each arrived exactly once: one event each at the server, one line on both screens.
    for text in (line, line2):
        assert len(_applied(watcher, "chat", _chat_said(text))) == 1, text
        assert _chat_lines(watcher.page, text) == 1 and _chat_lines(page, text) == 1, text
    for played in (card, card2):
        assert len(_applied(watcher, "move", _card_played(played))) == 1, played
    assert card2 not in [c["card"] for c in view_state(page)["hand"]]
    assert not view_state(page)["error"], view_state(page)["error"]
    assert "refused" not in page.inner_text("#toast")
    # And play goes on from the same page.
    _play_until_my_turn(page, mid_trick=False)
    expect_control(page, "turn")
    snap(page, shots, f"offline-{size}-back")
    assert still_same_document(page), "the page was reloaded"
    _no_js_errors(player, watcher)
