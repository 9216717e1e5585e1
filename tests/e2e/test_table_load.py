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
