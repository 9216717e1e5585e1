"""The table page while it loads (issue 19): no layout shift from the first byte to the first
playable card, measured in the page with a PerformanceObserver, at a desktop and a phone size,
for the host of a game under way (passing) and for a spectator."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from tests.e2e.helpers import DESKTOP, PHONE, ServerInfo
from tests.e2e.test_lobby import CLS_OBSERVER


def table_in_play(server: ServerInfo) -> tuple[str, str]:
    """A public table whose game is under way (its host and three computers, passing), as
    bench/lighthouse.py opens it: its id and the host's session token."""
    from websockets.sync.client import connect

    with httpx.Client(base_url=server.url, timeout=10) as client:
        reply = client.post("/api/guest", json={"name": "Alexandra Long-Name"})
        assert reply.status_code == 200, reply.text
        token = str(reply.json()["token"])
        made = client.post(
            "/api/tables",
            json={"preset": "classic", "bots": {"1": "easy", "2": "easy", "3": "easy"}},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert made.status_code == 201, made.text
        table_id = str(made.json()["table"]["id"])
    ws_url = server.url.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with connect(ws_url, origin=server.url) as ws:  # type: ignore[arg-type]
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "start", "id": "load-start"}))
        deadline = time.monotonic() + 10
        while True:
            assert time.monotonic() < deadline, "the table did not start"
            message = json.loads(ws.recv(timeout=10))
            assert message.get("type") != "error", message
            if (message.get("table") or {}).get("status") == "playing":
                break
    return table_id, token


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_table_does_not_shift_from_load_to_the_first_playable_card(
    browser: Any, server: ServerInfo, viewport: dict[str, int]
) -> None:
    table_id, token = table_in_play(server)
    context = browser.new_context(viewport=viewport, base_url=server.url)
    context.set_default_timeout(15_000)
    context.add_cookies([{"name": "hearts_token", "value": token, "url": server.url}])
    context.add_init_script(CLS_OBSERVER)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(f"/?table={table_id}")
        page.wait_for_selector(".hand-cards .card.legal")
        page.wait_for_timeout(600)  # a late shift (the presets, a font) would show by now
        shifts = page.evaluate("window.__shifts")
        assert sum(s["value"] for s in shifts) < 0.05, shifts
        # A spectator of the same table (no hand): no shift either.
        watcher = browser.new_context(viewport=viewport, base_url=server.url)
        try:
            watcher.add_init_script(CLS_OBSERVER)
            seen = watcher.new_page()
            seen.goto(f"/?table={table_id}")
            seen.wait_for_selector(".table-page.spectator .seat .seat-info")
            seen.wait_for_timeout(600)
            shifts = seen.evaluate("window.__shifts")
            assert sum(s["value"] for s in shifts) < 0.05, shifts
        finally:
            watcher.close()
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_presets_that_come_late_move_nothing_and_presets_that_fail_hide_nothing(
    browser: Any, server: ServerInfo, viewport: dict[str, int]
) -> None:
    """/api/presets answering after the table's first state (a loaded server): the frame waits
    for it, so the table's name ("Table" -> "Hearts, 5 players", which wraps the head of a
    five-player table) moves nothing; /api/presets failing: the table shows all the same."""
    with httpx.Client(base_url=server.url, timeout=10) as client:
        reply = client.post("/api/guest", json={"name": "Annabelle"})
        token = str(reply.json()["token"])
        made = client.post(
            "/api/tables",
            json={"preset": "classic-5", "bots": {str(s): "easy" for s in range(1, 5)}},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert made.status_code == 201, made.text
        table_id = str(made.json()["table"]["id"])
    for late in (True, False):
        load_with_presets(browser, server, viewport, token, table_id, late=late)


def load_with_presets(
    browser: Any,
    server: ServerInfo,
    viewport: dict[str, int],
    token: str,
    table_id: str,
    *,
    late: bool,
) -> None:
    """Open the table with /api/presets held until the first state is in (``late``) or failed."""
    context = browser.new_context(viewport=viewport, base_url=server.url)
    context.set_default_timeout(15_000)
    context.add_cookies([{"name": "hearts_token", "value": token, "url": server.url}])
    context.add_init_script(CLS_OBSERVER)
    page = context.new_page()
    held: list[Any] = []
    frames: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda _f: frames.append(1)))
    if late:
        page.route("**/api/presets", lambda route: held.append(route))
    else:
        page.route("**/api/presets", lambda route: route.abort())
    try:
        page.goto(f"/?table={table_id}")
        if late:  # answered only once the table's first state is in the page
            deadline = time.monotonic() + 10
            while not (held and frames) and time.monotonic() < deadline:
                page.wait_for_timeout(50)
            page.wait_for_timeout(500)
            held[0].continue_()
        page.wait_for_selector(".table-page:not(.loading) #start-game")
        page.wait_for_timeout(600)
        title = page.inner_text(".table-title")
        assert title.startswith("Hearts, 5 players") if late else title == "Table", title
        shifts = page.evaluate("window.__shifts")
        assert sum(s["value"] for s in shifts) < 0.05, shifts
    finally:
        context.close()
