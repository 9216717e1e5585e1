"""A club event in a real browser: Ann makes a club, Bob joins it; Ann schedules an event from
the club page (a start in the past and too many rounds are refused next to the form, then
one that starts in a few seconds), both register on its page, the event starts, each follows
"Go to your table" (the computer plays for them until they come) and plays the round, goes
back to the event from the game-over panel (no rematch there), and both see the round in the
standings, then the club's standings over its events on the club page. At the table there is
no "Host" badge and no "Leave" (refused mid-game), and its head and title name the event and
round. Run with Ann on a desktop and Bob on a phone, then the other way round, so each page
is checked at both sizes (axe-core, clipped text, overlaps). The module's server plays 2
hands a round, so both surely play whenever they come.

Then a short arena check (no second journey): Ann schedules an arena from the form (a length
refused, then 5 minutes starting in a few seconds), pauses before it starts and resumes on its
page (the time left ticking), is seated and shown "Go to your table"; Bob, on the other size,
joins it while it runs and is seated too (computers fill their tables after 2 s)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import private_server
from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    Player,
    ServerInfo,
    act_once,
    check_page,
    new_player,
    snap,
    wait_for,
)

pytestmark = pytest.mark.hang_timeout(600)

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
START_IN_SECONDS = 12  # time enough for both to register

# A moment ``seconds`` from now as a datetime-local input's value, in the browser's own time.
LOCAL_INPUT_JS = """(seconds) => {
    const d = new Date(Date.now() + seconds * 1000);
    const p = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}` +
        `T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}"""


@pytest.fixture(scope="module")
def server(browser: Any) -> Iterator[ServerInfo]:
    with private_server(
        {"HEARTS_EVENTS_HANDS_PER_ROUND": "2", "HEARTS_EVENTS_ARENA_FILL_SECONDS": "2"}
    ) as info:
        yield info


def _person(browser: Any, server: ServerInfo, name: str, size: dict[str, int]) -> Player:
    return new_player(browser, server, name, viewport=size, mobile=size == PHONE)


def _error_shown(page: Any, words: str) -> None:
    wait_for(lambda: words in page.locator("#event-error").inner_text(), what=words)


def _go_and_play(players: list[Player], title: str) -> dict[str, int]:
    """Each follows "Go to your table" (coming to it takes the seat back from the computer,
    which played for them until then), finds the table named ``title`` (the event and round)
    and plays (first legal cards) until the game is over; how many moves each made."""
    for player in players:
        player.page.click("#event-go")
    for player in players:  # seated: their socket at the table ends the computer's stand-in
        player.page.wait_for_selector(".table-page.seated", timeout=20_000)
        # a competition's table: no chat to type into, no invite link (both refused there)
        assert player.page.locator("#chat-input").is_hidden()
        assert player.page.locator("button >> text=Copy invite link").is_hidden()
        # and no host: nobody's "Host" badge; the head and the title name the event and round
        page = player.page
        assert page.locator(".seat .tag", has_text="Host").count() == 0
        assert page.locator(".head-actions button", has_text="Leave").is_hidden()  # refused
        head = page.locator(".table-title")
        wait_for(lambda head=head: head.inner_text() == title, what=title)
        assert title in page.title(), page.title()
    moves = {player.name: 0 for player in players}
    pages = [player.page for player in players]

    def over() -> bool:
        return all(page.locator(".final-scores").count() > 0 for page in pages)

    wait_for(lambda: _play_round(players, moves) or over(), timeout=120, interval=0.05)
    for page in pages:  # "Add <name> as a friend" stays inside the game-over panel, whole
        page.wait_for_selector(".center-panel .befriend .btn")
        assert page.evaluate(BEFRIEND_INSIDE_JS), page.viewport_size
    return moves


# Every "Add ... as a friend" button of the game-over panel lies within the panel and shows
# its whole text.
BEFRIEND_INSIDE_JS = """() => [...document.querySelectorAll('.center-panel .befriend .btn')]
  .every((b) => {
    const panel = b.closest('.center-panel').getBoundingClientRect();
    const r = b.getBoundingClientRect();
    return r.left >= panel.left - 1 && r.right <= panel.right + 1
      && b.scrollWidth <= b.clientWidth + 1;
  })"""


def _play_round(players: list[Player], moves: dict[str, int]) -> bool:
    for player in players:
        if player.page.locator(".final-scores").count() == 0 and act_once(player.page):
            moves[player.name] += 1
    return False


@pytest.mark.parametrize(
    ("ann_size", "bob_size"),
    [(DESKTOP, PHONE), (PHONE, DESKTOP)],
    ids=["ann-1280x800-bob-390x844", "ann-390x844-bob-1280x800"],
)
def test_a_club_event_from_scheduling_to_the_standings(
    browser: Any, server: ServerInfo, ann_size: dict[str, int], bob_size: dict[str, int]
) -> None:
    # A long name: Bob's game-over panel offers "Add Annabelle Lee-Smith as a friend"
    ann = _person(browser, server, "Annabelle Lee-Smith", ann_size)
    bob = _person(browser, server, "Bob", bob_size)
    done: set[str] = set()
    try:
        page = ann.page
        page.goto("/?clubs=1")
        page.fill("#club-name", f"Event night {ann_size['width']}")  # names are unique
        page.click("#club-create")
        page.wait_for_selector("#event-create")
        club_url = page.url
        bob.page.goto(club_url)
        bob.page.click("#club-join")
        bob.page.wait_for_selector("#club-leave")
        assert bob.page.locator("#event-create").count() == 0  # admins schedule
        assert (
            "No event to come"
            in bob.page.locator("section[aria-labelledby=club-events-title]").inner_text()
        )

        # Bad input is refused next to the form: a start in the past (the page's own check),
        # too many rounds (the server's refusal, in its words)
        page.fill("#event-name", "Friday cup")
        page.fill("#event-start", page.evaluate(LOCAL_INPUT_JS, -600))
        page.click("#event-create")
        _error_shown(page, "has passed")
        assert page.get_attribute("#event-start", "aria-invalid") == "true"
        page.fill("#event-start", page.evaluate(LOCAL_INPUT_JS, 3600))
        page.fill("#event-rounds", "99")
        page.click("#event-create")
        _error_shown(page, "rounds")
        assert page.get_attribute("#event-rounds", "aria-invalid") == "true"
        check_page(page, "club-event-form", done, SHOTS)

        # A one-round Swiss event that starts in a few seconds
        page.fill("#event-rounds", "1")
        page.fill("#event-start", page.evaluate(LOCAL_INPUT_JS, START_IN_SECONDS))
        page.click("#event-create")
        page.wait_for_selector("#event-register")
        event_url = page.url
        assert "?event=" in event_url
        assert "Registration open" in page.locator("#event-status").inner_text()
        page.click("#event-register")
        page.wait_for_selector("#event-withdraw")

        bob.page.reload()
        bob.page.click(".club-events a >> text=Friday cup")
        bob.page.wait_for_selector("#event-register")
        bob.page.click("#event-register")
        bob.page.wait_for_selector("#event-withdraw")
        wait_for(
            lambda: "Bob (you)" in bob.page.locator(".event-players").inner_text(),
            what="Bob in the players registered",
        )
        assert "Ann" in bob.page.locator(".event-players").inner_text()
        check_page(bob.page, "event-registered", done, SHOTS)
        snap(bob.page, SHOTS, f"event-registered-bob-{bob_size['width']}")

        # The event starts: each is told their table
        for player in (ann, bob):
            player.page.wait_for_selector("#event-go", timeout=40_000)
        assert "round 1 of 1" in page.locator("#event-status").inner_text()
        check_page(page, "event-seated", done, SHOTS)
        check_page(bob.page, "event-seated", done, SHOTS)

        moves = _go_and_play([ann, bob], "Friday cup, round 1")
        assert all(moves.values()), moves  # both played at their table

        # The game-over panel leads back to the event (an event's table has no rematch), and
        # there the round is in the standings
        event_path = event_url[event_url.index("/?event=") :]
        for player in (ann, bob):
            back = player.page.locator("#event-back")
            back.wait_for(timeout=10_000)
            assert back.get_attribute("href") == event_path
            assert player.page.locator("#rematch").count() == 0
            back.click()
            player.page.wait_for_url(f"**{event_path}")
            player.page.wait_for_function(
                """() => (document.getElementById('event-status') || {}).textContent === 'Finished'
                    && document.querySelectorAll('.event-standings tbody tr').length === 2""",
                timeout=30_000,
            )
            text = player.page.locator(".event-standings").inner_text()
            assert "Ann" in text and "Bob" in text
            # both played the one round: its column says 1 on each line
            cells = player.page.locator(".event-standings tbody tr td:last-child").all_inner_texts()
            assert cells == ["1", "1"], cells
            assert player.page.locator("#event-go, #event-register, #event-withdraw").count() == 0
        check_page(page, "event-finished", done, SHOTS)
        check_page(bob.page, "event-finished", done, SHOTS)
        # The club's standings over its events: both, by their place in the event (1 point
        # for the player above the other, 1/2 each when level)
        for player in (ann, bob):
            player.page.goto(club_url)
            player.page.wait_for_selector(".club-event-standings tbody tr >> nth=1")
            rows = player.page.locator(".club-event-standings tbody tr").all_inner_texts()
            assert any("Ann" in r for r in rows) and any("Bob" in r for r in rows), rows
            points = player.page.locator(".club-event-standings tbody td:nth-child(3)")
            assert sorted(points.all_inner_texts()) in (["0", "1"], ["0.5", "0.5"]), rows
            check_page(player.page, "club-event-standings", done, SHOTS)
        # the event counted links to its own standings (it is no longer among those to come)
        bob.page.click("section[aria-labelledby=club-event-standings-title] a >> text=Friday cup")
        bob.page.wait_for_url(f"**{event_path}")
        bob.page.wait_for_selector(".event-standings tbody tr >> nth=1")
        snap(page, SHOTS, f"club-event-standings-{ann_size['width']}")
        # The console's line for the refused form (rounds) is the one expected
        errors = [e for e in ann.page.js_errors + bob.page.js_errors if "status of 422" not in e]
        assert not errors, errors
    finally:
        for player in (ann, bob):
            player.close()


def test_an_arena_pause_resume_and_join_while_it_runs(browser: Any, server: ServerInfo) -> None:
    ann = _person(browser, server, "Ann", DESKTOP)
    bob = _person(browser, server, "Bob", PHONE)
    done: set[str] = set()
    try:
        page = ann.page
        page.goto("/?clubs=1")
        page.fill("#club-name", "Arena nights")
        page.click("#club-create")
        page.wait_for_selector("#event-create")
        club_url = page.url
        page.fill("#event-name", "Quick arena")
        page.select_option("#event-format", "arena")
        assert page.locator("#event-rounds").is_hidden()  # a time window instead of rounds
        page.fill("#event-minutes", "4")
        page.click("#event-create")
        _error_shown(page, "5 to 720")
        assert page.get_attribute("#event-minutes", "aria-invalid") == "true"
        page.fill("#event-minutes", "5")
        page.fill("#event-start", page.evaluate(LOCAL_INPUT_JS, 4))
        page.click("#event-create")
        page.wait_for_selector("#event-register")
        event_url = page.url
        assert "5 min" in page.locator(".event-facts").inner_text()
        page.click("#event-register")
        page.click("#event-pause")  # paused before the start: not seated when it starts
        page.wait_for_selector("#event-resume")
        wait_for(
            lambda: "You are paused" in page.locator(".event-seat").inner_text(),
            timeout=30,
            what="paused once it runs",
        )
        # The window's clock counts down from 5:00 (it reads 5:00 in the event's first second)
        wait_for(
            lambda: "Time left: 4:" in page.locator("#event-clock").inner_text(),
            timeout=10,
            what="the arena's clock counting down",
        )
        check_page(page, "arena-paused", done, SHOTS)
        page.click("#event-resume")
        page.wait_for_selector("#event-go", timeout=20_000)
        assert page.locator("#event-pause").count() == 1
        check_page(page, "arena-seated", done, SHOTS)

        bob.page.goto(club_url)
        bob.page.click("#club-join")
        bob.page.wait_for_selector("#club-leave")
        bob.page.goto(event_url[event_url.index("/?event=") :])
        bob.page.click("#event-register")  # joins the arena running
        bob.page.wait_for_selector("#event-go", timeout=20_000)
        assert "Games" in bob.page.locator(".event-standings thead").inner_text()
        check_page(bob.page, "arena-seated", done, SHOTS)
        errors = [e for e in ann.page.js_errors + bob.page.js_errors if "status of 422" not in e]
        assert not errors, errors
    finally:
        for player in (ann, bob):
            player.close()
