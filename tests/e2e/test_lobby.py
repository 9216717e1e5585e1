"""The lobby page in Chromium (issue 19): no layout shift from load with 50 tables listed, at a
desktop and a phone size; a level-one heading; Create before the list on a phone; the create
form takes its choices from /api/presets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import private_server
from tests.e2e.helpers import DESKTOP, PHONE, ServerInfo, resize, wait_for

# Every layout shift the page makes from its first byte (buffered: the ones before this script
# ran too), without those that follow a click or key press within 500 ms (as CLS counts them).
CLS_OBSERVER = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__shifts.push({
      value: entry.value,
      at: Math.round(entry.startTime),
      nodes: (entry.sources || []).map(
        (s) => s.node ? (s.node.id || s.node.className || s.node.nodeName) : "?"),
    });
  }
}).observe({ type: "layout-shift", buffered: true });
"""
TABLES = 50
PRESETS = ["classic", "two-player-dummy", "classic-3", "double-hearts", "omnibus"]


@pytest.fixture(scope="module")
def server(browser: Any) -> Iterator[ServerInfo]:
    """A server of this module's own: the lobby it measures holds its fifty tables and no
    other module's (a game under way elsewhere changes rows while the shifts are counted)."""
    with private_server() as info:
        yield info


@pytest.fixture(scope="module")
def fifty_tables(server: ServerInfo) -> Iterator[list[str]]:
    """50 public tables with a person at each (5 guests, 10 tables each: the per-host limit
    of the e2e server), of several games, some with computers seated."""
    ids: list[str] = []
    with httpx.Client(base_url=server.url, timeout=10) as client:
        for host in range(TABLES // 10):
            reply = client.post("/api/guest", json={"name": f"Host {host}"})
            assert reply.status_code == 200, reply.text
            bearer = {"Authorization": f"Bearer {reply.json()['token']}"}
            client.cookies.clear()
            for i in range(10):
                preset = PRESETS[(host + i) % len(PRESETS)]
                bots = {"1": "easy"} if i % 3 == 0 else {}
                made = client.post(
                    "/api/tables",
                    json={"preset": preset, "bots": bots, "turn_timer": 30 * (i % 2)},
                    headers=bearer,
                )
                assert made.status_code == 201, made.text
                ids.append(made.json()["table"]["id"])
        listed = client.get("/api/tables", params={"limit": 50}).json()
        assert listed["total"] >= TABLES, listed
    yield ids


def open_lobby(browser: Any, server: ServerInfo, viewport: dict[str, int], signed_in: bool) -> Any:
    context = browser.new_context(viewport=viewport, base_url=server.url)
    context.set_default_timeout(15_000)
    if signed_in:
        # A returning guest: the session cookie, and the player record the page keeps.
        reply = context.request.post("/api/guest", data={"name": "Watcher"})
        assert reply.ok, reply.text()
        player = json.dumps(reply.json()["player"])
        context.add_init_script(f"localStorage.setItem('hearts.player', {json.dumps(player)});")
    context.add_init_script(CLS_OBSERVER)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.js_errors = errors
    page.goto("/")
    return context, page


@pytest.mark.parametrize("signed_in", [True, False], ids=["guest", "new visitor"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_lobby_does_not_shift_while_it_loads_50_tables(
    browser: Any,
    server: ServerInfo,
    fifty_tables: list[str],
    viewport: dict[str, int],
    signed_in: bool,
) -> None:
    context, page = open_lobby(browser, server, viewport, signed_in)
    try:
        # Everything the page fetches after its first paint has arrived: the tables (over the
        # socket), the create form (/api/presets), the identity.
        page.wait_for_selector(".table-list .table-row")
        page.wait_for_selector("#create-go")
        page.wait_for_selector(".me-name" if signed_in else "#guest-name")
        wait_for(
            lambda: (
                "of" in page.inner_text("#table-count") or "50" in page.inner_text("#table-count")
            ),
            what="the table count",
        )
        page.wait_for_timeout(600)  # a late shift (a fetch, a font) would show by now
        shifts = page.evaluate("window.__shifts")
        total = sum(s["value"] for s in shifts)
        assert total < 0.05, shifts
        # The rest of the 50 tables, asked for with "More tables": the list box keeps its
        # height (the shifts after a click do not count for CLS, but there are none anyway).
        while page.locator("#tables-more").is_visible():
            before = page.locator(".table-list .table-row").count()
            page.click("#tables-more")
            wait_for(lambda b=before: page.locator(".table-list .table-row").count() > b)
        assert page.locator(".table-list .table-row").count() >= TABLES
        assert not page.js_errors
    finally:
        context.close()


def test_the_lobby_has_one_level_one_heading_and_create_first_on_a_phone(
    browser: Any, server: ServerInfo, fifty_tables: list[str]
) -> None:
    context, page = open_lobby(browser, server, PHONE, signed_in=True)
    try:
        page.wait_for_selector("#create-go")
        page.wait_for_selector(".table-list .table-row")
        assert page.locator("h1").count() == 1
        assert "lobby" in page.locator("h1").inner_text().lower()
        create = page.locator("section.panel.create").bounding_box()
        tables = page.locator("section.panel.tables").bounding_box()
        assert create and tables and create["y"] < tables["y"]
        # Every panel on the screen in the page's order (a panel with no place of its own in
        # the phone's column would jump to the top: the friends panel did).
        tops = page.evaluate(
            "() => [...document.querySelectorAll('main section.panel')]"
            ".filter((s) => s.getClientRects().length)"
            ".map((s) => [s.className, s.getBoundingClientRect().top])"
        )
        assert [t for _, t in tops] == sorted(t for _, t in tops), tops
        # The Create button comes before the list's rows in the page's order too (the order
        # of the Tab key and of screen readers), not only on the screen.
        order = page.evaluate(
            """() => {
              const all = [...document.querySelectorAll('main a, main button, main select')];
              return [all.indexOf(document.querySelector('#create-go')),
                      all.indexOf(document.querySelector('.table-row a'))];
            }"""
        )
        assert 0 <= order[0] < order[1], order
        # Every seat's choice stands where the others' do (all under their labels on a
        # phone): as wrapping rows, "Seat 3 (across)" kept its choice beside its label.
        for preset in ("classic", "classic-5-jokers", "classic-3"):
            page.select_option("#create-preset", preset)
            places = page.evaluate(
                """() => [...document.querySelectorAll('.seat-line select')].map((s) => {
                    const label = document.querySelector(`label[for="${s.id}"]`);
                    const a = label.getBoundingClientRect(), b = s.getBoundingClientRect();
                    return [Math.round(b.left), Math.round(b.width), b.top >= a.bottom - 1];
                })"""
            )
            assert len(places) >= 2 and all(p == places[0] for p in places), (preset, places)
            assert places[0][2], f"{preset}: a seat's choice beside its label on a phone"
        # No table to list (no turn-based one here): on a phone the list's box is as high as
        # its one line, not half a screen of blank; back to its fixed height with tables.
        box = ".table-scroll"
        page.select_option("#filter-pace", "turn")
        page.wait_for_selector(".table-list li.empty")
        assert page.locator(box).bounding_box()["height"] < 100
        page.select_option("#filter-pace", "")
        page.wait_for_selector(".table-list .table-row")
        assert page.locator(box).bounding_box()["height"] > 300
        # A wider window: two columns again (the list on the left), nothing lost.
        resize(page, DESKTOP)
        wait_for(
            lambda: (
                page.locator("section.panel.tables").bounding_box()["x"]  # type: ignore[index]
                < page.locator("section.panel.create").bounding_box()["x"]
            )  # type: ignore[index]
        )
        assert page.locator(".table-list .table-row").count() > 0
    finally:
        context.close()


def test_the_create_form_offers_what_the_server_advertises(
    browser: Any, server: ServerInfo
) -> None:
    """The form's choices come from /api/presets: a classic table for 3 shows that count's
    decks and no 'Left, right, across'; 5 players bring pass count 2; a game of fixed hands
    starts from the advertised minimum or more; what it sends is accepted."""
    options = {o["name"]: o for o in httpx.get(f"{server.url}/api/presets").json()["options"]}
    context, page = open_lobby(browser, server, DESKTOP, signed_in=True)
    try:
        page.wait_for_selector("#create-go")
        page.click("details.more-options summary")
        players = page.eval_on_selector_all("#opt-players option", "els => els.map(e => e.value)")
        assert players == [str(n) for n in options["players"]["choices"]]
        for n in ("3", "5", "4"):
            page.select_option("#opt-players", n)
            shown = page.eval_on_selector_all(
                "#opt-passing option", "els => els.filter(e => !e.hidden).map(e => e.value)"
            )
            allowed = set(options["passing"]["choices_by_game"]["classic"]) & set(
                options["passing"]["choices_by_players"][n]
            )
            assert set(shown) == allowed, (n, shown)
            decks = page.eval_on_selector_all(
                "#opt-deck option", "els => els.filter(e => !e.hidden).map(e => e.value)"
            )
            assert set(decks) == set(options["deck"]["choices_by_players"][n])
            assert page.input_value("#opt-deck") == options["deck"]["default_by_players"][n]
            assert page.input_value("#opt-pass_count") == str(
                options["pass_count"]["default_by_players"][n]
            )
        for name in ("pass_count", "target_score"):
            assert page.get_attribute(f"#opt-{name}", "min") == str(options[name]["min"])
            assert page.get_attribute(f"#opt-{name}", "max") == str(options[name]["max"])
        assert page.locator('[data-option="hands"]').is_hidden()
        page.select_option("#opt-end", "hands")
        assert page.locator('[data-option="hands"]').is_visible()
        assert page.locator('[data-option="target_score"]').is_hidden()
        assert page.get_attribute("#opt-hands", "min") == str(options["hands"]["min"])
        assert int(page.input_value("#opt-hands")) >= options["hands"]["min"]
        page.select_option("#opt-players", "5")
        page.fill("#opt-hands", "2")
        page.dispatch_event("#opt-hands", "change")
        # a pass of 3 with 5 players: classic's own value, not the count's default of 2
        page.fill("#opt-pass_count", "3")
        page.dispatch_event("#opt-pass_count", "change")
        with page.expect_response(lambda r: r.url.endswith("/api/tables")) as created:
            page.click("#create-go")
        assert created.value.status == 201
        sent = created.value.request.post_data_json
        assert sent["preset"] == "classic"
        # every option the form shows, as shown (values equal to the preset's included)
        chosen = {
            "players": 5,
            "deck": options["deck"]["default_by_players"]["5"],
            "pass_count": 3,
            "end": "hands",
            "hands": 2,
        }
        assert sent["options"].items() >= chosen.items(), sent
        assert "target_score" not in sent["options"]  # not shown with a fixed number of hands
        # The table as the server keeps it (the response body is gone once the page moved on).
        page.wait_for_url("**/?table=*")
        table_id = page.url.split("table=")[1].split("&")[0]
        table = httpx.get(f"{server.url}/api/tables/{table_id}").json()["table"]
        assert {k: table["options"][k] for k in chosen} == chosen
    finally:
        context.close()
