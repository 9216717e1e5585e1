"""The table's chat on a phone: under the table, a few screens down, so the head has a Chat
button that counts the lines others wrote while the chat was out of sight, and takes the player
there, ready to type. Bob (a scripted socket) sits and writes; Ann plays on a 390x844 phone.
At 1280x800 the chat is beside the table: no button, no count."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.e2e.helpers import DESKTOP, PHONE, ServerInfo, check_page, shots_folder, wait_for
from tests.e2e.test_newcomer import guest_token, new_table, open_page, shifted


def say(ws: Any, text: str, command_id: str) -> None:
    ws.send(json.dumps({"type": "chat", "id": command_id, "text": text}))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(timeout=10))
        assert message.get("type") != "error", message
        if message.get("type") == "ack" and message.get("id") == command_id:
            return
    raise AssertionError("no ack for the chat line")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_chat_button_counts_unseen_lines_and_takes_you_there(
    browser: Any, server: ServerInfo, viewport: dict[str, int]
) -> None:
    ann = guest_token(server, "Ann")
    bob = guest_token(server, "Bob")
    table = new_table(server, ann, "classic", bots={"2": "easy", "3": "easy"})
    page = open_page(browser, server, viewport, ann)
    phone = viewport["width"] < 760
    ws_url = server.url.replace("http://", "ws://") + f"/ws/tables/{table['id']}"
    try:
        page.goto(f"/?table={table['id']}")
        page.wait_for_selector(".table-page:not(.loading)")
        button = page.locator("#chat-jump")
        assert button.is_visible() == phone
        with connect(ws_url, origin=server.url) as ws:
            ws.send(json.dumps({"type": "hello", "token": bob}))
            ws.send(json.dumps({"type": "sit", "id": "b-sit", "seat": 1}))
            say(ws, "Hello Ann!", "b-1")
            say(ws, "Ready when you are.", "b-2")
            page.wait_for_selector(".chat-line:has-text('Ready when you are.')", state="attached")
            if not phone:
                # beside the table: seen as it comes, nothing counted
                assert page.locator(".chat-count").is_hidden()
                check_page(page, "chat-desktop", shots=shots_folder())
                assert not page.js_errors, page.js_errors
                return
            wait_for(lambda: page.text_content(".chat-count") == "2 unread", what="2 unread")
            assert page.get_by_role("button", name="Chat 2 unread").count() == 1
            box = button.bounding_box()
            assert box and box["height"] >= 28 and box["y"] < viewport["height"]
            check_page(page, "chat-unread", shots=shots_folder())
            button.tap()
            wait_for(
                lambda: (
                    page.evaluate("document.activeElement && document.activeElement.id")
                    == "chat-input"
                ),
                what="the chat's input focused",
            )
            wait_for(lambda: page.locator(".chat-count").is_hidden(), what="the count gone")
            assert page.get_by_role("button", name="Chat", exact=True).count() == 1
            wait_for(
                lambda: page.evaluate(
                    """() => { const r = document.querySelector('#chat-input')
                    .getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"""
                ),
                what="the chat's input on screen",
            )
            check_page(page, "chat-open", shots=shots_folder())
            # a line that comes while the chat is on screen is not counted
            say(ws, "Your move.", "b-3")
            page.wait_for_selector(".chat-line:has-text('Your move.')")
            page.wait_for_timeout(200)
            assert page.locator(".chat-count").is_hidden()
            # back up to the table: the next line is counted again
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_timeout(300)
            say(ws, "Still there?", "b-4")
            wait_for(lambda: page.text_content(".chat-count") == "1 unread", what="one unread line")
        assert shifted(page) < 0.05, page.evaluate("window.__shifts")
        assert not page.js_errors, page.js_errors
    finally:
        page.context.close()
