"""A player's page and a leaderboard in a real browser, at 1280x800 and 390x844: a rating shows
its uncertainty ("1530 ± 190") and "provisional" until it is established, and the leaderboard
lists established ratings only. Games are written to the server's database as the results
writer would (rated tables' game records); the layout, text and axe checks run at both sizes,
and the phone's links and buttons are at least 44 px tall."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
from sqlmodel import select

from app.db import make_database
from app.db.models import Rating
from app.db.ratings import PROVISIONAL_DEVIATION
from app.db.results import write_event
from tests.db.helpers import game_event, seats_of
from tests.e2e.helpers import DESKTOP, PHONE, ServerInfo, check_page, snap

SHOTS = Path(__file__).resolve().parent / "screenshots"
PASSWORD = "correct horse battery"


def _accounts(server: ServerInfo, names: list[str]) -> list[str]:
    ids = []
    for name in names:
        reply = httpx.post(
            f"{server.url}/api/account/register",
            json={"name": name, "password": PASSWORD},
            headers={"X-Requested-With": "fetch"},
        )
        assert reply.status_code in (200, 201), reply.text
        ids.append(reply.json()["player"]["id"])
    return ids


def _rated_games(server: ServerInfo, ids: list[str]) -> None:
    data_dir = os.path.dirname(server.log_path)
    database = make_database(f"sqlite:///{data_dir}/e2e.sqlite3")
    try:
        seats = seats_of(*ids)
        for game_no in range(5):  # the leaderboard counts players with 5 rated games
            event = game_event(seats, [20, 60, 90, 104], table_id="e2e-rated", game_no=game_no)
            write_event(database, event)
        with database.session() as session:  # Ann as if she had played on until established
            row = session.exec(select(Rating).where(Rating.player_id == ids[0])).one()
            row.deviation = PROVISIONAL_DEVIATION - 10
            session.add(row)
            session.commit()
    finally:
        database.dispose()


def _tall_enough(page: Any) -> list[str]:
    small = page.evaluate(
        """() => [...document.querySelectorAll('#main a, #main button')]
            .filter((el) => el.offsetParent !== null)
            .map((el) => [el.textContent.trim(), el.getBoundingClientRect().height])
            .filter(([, height]) => height < 44)"""
    )
    return [f"{text!r} is {height:.0f} px tall" for text, height in small]


def test_provisional_and_established_ratings(browser: Any, server: ServerInfo) -> None:
    ids = _accounts(server, ["RatedAnn", "RatedBen", "RatedCat", "RatedDan"])
    _rated_games(server, ids)
    done: set[str] = set()
    for size in (DESKTOP, PHONE):
        context = browser.new_context(viewport=size, base_url=server.url)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        try:
            page.goto(f"/?player={ids[1]}")
            row = page.locator("tr[data-variant='classic']")
            row.wait_for()
            text = row.inner_text()
            assert "\u00b1" in text and "provisional" in text, text
            check_page(page, "player-provisional", done)
            snap(page, SHOTS, f"player-provisional-{size['width']}x{size['height']}")
            if size == PHONE:
                assert not _tall_enough(page), _tall_enough(page)
            page.goto(f"/?player={ids[0]}")
            row.wait_for()
            assert "provisional" not in row.inner_text()
            page.goto("/?leaderboard=classic")
            page.wait_for_selector("ol.leaderboard li")
            entries = page.locator("ol.leaderboard li").all_inner_texts()
            assert len(entries) == 1 and "RatedAnn" in entries[0] and "\u00b1" in entries[0]
            check_page(page, "leaderboard", done)
            snap(page, SHOTS, f"leaderboard-{size['width']}x{size['height']}")
            if size == PHONE:
                assert not _tall_enough(page), _tall_enough(page)
            assert not errors, errors
        finally:
            context.close()


def _registered(browser: Any, server: ServerInfo, name: str, size: dict[str, int]) -> Any:
    """A context signed in as a new account (the session cookie set by the register route)."""
    context = browser.new_context(viewport=size, base_url=server.url)
    reply = context.request.post(
        "/api/account/register",
        data={"name": name, "password": PASSWORD},
        headers={"X-Requested-With": "fetch"},
    )
    assert reply.ok, reply.text()
    page = context.new_page()
    page.goto("/")
    page.evaluate(
        "(player) => localStorage.setItem('hearts.player', JSON.stringify(player))",
        reply.json()["player"],
    )
    return context, page


def _create_from_form(page: Any, *, rated: bool) -> str:
    page.goto("/")
    page.wait_for_selector("#create-preset option", state="attached")
    page.select_option("#create-preset", "classic")
    for seat in page.locator("select[data-seat]").all():
        seat.select_option("open")
    page.check('input[name="visibility"][value="public"]')
    page.select_option("#create-timer", "0")
    page.set_checked("#create-autostart", False)
    page.set_checked("#create-rated", rated)
    page.click("#create-go")
    page.wait_for_url("**/?table=*")
    page.wait_for_selector(".table-page:not(.loading)")
    return str(page.url.split("table=")[1].split("&")[0])


def test_a_rated_table_and_the_shared_address_notice(browser: Any, server: ServerInfo) -> None:
    """The e2e server asks HEARTS_RATED_MIN_GAMES (10) finished games: a new account's rated
    table is refused with the server's words; its casual table tells both players, who come
    from one address (127.0.0.1), that they do."""
    done: set[str] = set()
    for size, (ann_name, bob_name) in (
        (DESKTOP, ("DeskAnn", "DeskBob")),
        (PHONE, ("PhoneAnn", "PhoneBob")),
    ):
        ann_context, ann = _registered(browser, server, ann_name, size)
        bob_context, bob = _registered(browser, server, bob_name, size)
        try:
            ann.goto("/")
            ann.wait_for_selector("#create-rated", state="attached")
            ann.set_checked("#create-rated", True)
            ann.click("#create-go")
            ann.wait_for_selector("#create-error:not(:empty)")
            # the catalog's words with the refusal's named values (count 10 of needed 10)
            words = ann.inner_text("#create-error")
            assert "Finish 10 more games" in words and "(10 in all)" in words, words
            table_id = _create_from_form(ann, rated=False)
            bob.goto(f"/?table={table_id}")
            bob.get_by_role("button", name="Sit here").first.click()
            for page in (ann, bob):
                page.wait_for_function(
                    "() => document.body.innerText.includes('joined from the same address')"
                )
            check_page(ann, "shared-address-notice", done)
            snap(ann, SHOTS, f"shared-address-{size['width']}x{size['height']}")
        finally:
            ann_context.close()
            bob_context.close()
