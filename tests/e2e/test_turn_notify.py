"""A notification brings the friend back to a turn-based game, in Chromium, with the server's own
push: Ann (1280x800) and Bob (a 390x844 phone) play a one-hand turn-based game with two
computers. Bob's device is subscribed to a push service on this machine (bench/push_service.py,
which checks the VAPID signature and decrypts the push with the device's keys, RFC 8291) and Bob
leaves the table for the lobby after each move. When his turn comes the server pushes "Your
turn"; the test hands that very payload to Bob's service worker (DevTools'
ServiceWorker.deliverPushMessage: Chromium here has no push service of its own), the worker
shows the notification, and its click handler opens the table, where Bob moves. Twice; then both
play the hand out to the game's end. While Bob has the table open, no push is sent.

DevTools has no way to click a system notification: the click is the worker's own handler
(``openTarget``, what ``notificationclick`` calls) run in the worker with the notification's
data, as tests/e2e/test_notify.py does."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from typing import Any

from bench.push_service import PushService, Received
from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    Player,
    ServerInfo,
    act_once,
    check_page,
    new_player,
    shots_folder,
    view_state,
    wait_for,
)


class LocalPush:
    """bench/push_service.PushService on its own event loop in a thread (the test is sync)."""

    def __enter__(self) -> LocalPush:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.service = asyncio.run_coroutine_threadsafe(
            PushService().__aenter__(), self.loop
        ).result(10)
        return self

    def __exit__(self, *_: object) -> None:
        asyncio.run_coroutine_threadsafe(self.service.__aexit__(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    def received(self) -> list[Received]:
        return list(self.service.received)


def fetch_json(page: Any, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """POST from the page (its session cookie, the header the API asks of a page)."""
    out = page.evaluate(
        """async ([path, body]) => {
            const r = await fetch(path, {method: 'POST', body: JSON.stringify(body),
              headers: {'Content-Type': 'application/json', 'X-Requested-With': 'hearts'}});
            return [r.status, await r.json().catch(() => null)]; }""",
        [path, body],
    )
    return int(out[0]), out[1]


def registration_id(cdp: Any, regs: list[dict[str, Any]], origin: str) -> str:
    found = wait_for(
        lambda: [r for r in regs if r["scopeURL"] == origin + "/" and not r["isDeleted"]],
        what="the service worker's registration",
    )
    return str(found[0]["registrationId"])


def back_by_notification(
    bob: Player, cdp: Any, registration: str, push: LocalPush, seen: int, origin: str
) -> int:
    """Wait for Bob's next "Your turn" push; show it through his worker and open it."""
    arrived = wait_for(
        lambda: [r for r in push.received()[seen:] if r.payload.get("kind") == "your_turn"],
        timeout=30,
        what="a 'your turn' push for Bob",
    )
    sent = arrived[0].payload
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": origin, "registrationId": registration, "data": json.dumps(sent)},
    )
    shown = wait_for(
        lambda: bob.page.evaluate(
            """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                .map((n) => ({title: n.title, url: n.data.url}))"""
        ),
        what="the notification on Bob's phone",
    )
    assert shown[-1] == {"title": "Your turn", "url": sent["url"]}, shown
    [worker] = wait_for(lambda: bob.context.service_workers, what="Bob's worker")
    worker.evaluate("(path) => openTarget(path)", sent["url"])
    return len(push.received())


def test_a_notification_brings_the_friend_back_to_the_game(
    browser: Any, server: ServerInfo
) -> None:
    ann = new_player(browser, server, "Ann", viewport=DESKTOP)
    bob = new_player(browser, server, "Bob", viewport=PHONE, mobile=True)
    done: set[str] = set()
    try:
        with LocalPush() as push:
            bob.context.grant_permissions(["notifications"], origin=server.url)
            cdp = bob.context.new_cdp_session(bob.page)
            regs: list[dict[str, Any]] = []
            cdp.on(
                "ServiceWorker.workerRegistrationUpdated",
                lambda e: regs.extend(e["registrations"]),
            )
            cdp.send("ServiceWorker.enable")
            bob.page.wait_for_function("() => navigator.serviceWorker.controller !== null")
            registration = registration_id(cdp, regs, server.url)
            device = push.service.device()
            status, _ = fetch_json(
                bob.page, "/api/notify/push/subscriptions", device.subscription()
            )
            assert status == 201

            status, made = fetch_json(
                ann.page,
                "/api/tables",
                {
                    "preset": "classic",
                    "private": True,
                    "pace": "turn",
                    "move_seconds": 86400,
                    "bots": {"2": "easy", "3": "easy"},
                    "options": {"end": "hands", "hands": 1},
                },
            )
            assert status == 201, made
            table_id = made["table"]["id"]
            ann.page.goto(made["invite_path"])
            ann.page.wait_for_selector(".table-page:not(.loading)")
            bob.page.goto(made["invite_path"] + "&sit=1")
            wait_for(lambda: "seated" in view_state(bob.page)["classes"], what="Bob seated")
            ann.page.click("#start-game")
            wait_for(lambda: "phase-pass" in view_state(bob.page)["classes"], what="the deal")

            seen = 0
            brought_back = 0
            away: list[list[float]] = []  # [left, back at the table] (wall clock, as pushes)
            deadline = time.monotonic() + 240
            while "phase-over" not in view_state(ann.page)["classes"]:
                assert time.monotonic() < deadline, view_state(ann.page)
                at_table = "table=" in bob.page.url
                if at_table and act_once(bob.page):
                    if brought_back < 2:
                        # Bob moved: off to the lobby, away from the table
                        away.append([time.time(), math.inf])
                        bob.page.goto("/")
                        bob.page.wait_for_selector("#games-strip", state="attached")
                    continue
                if act_once(ann.page):
                    continue
                bob_to_act = ann.page.locator(".seat.to-act .name-text", has_text="Bob").count()
                if not at_table and bob_to_act:
                    seen = back_by_notification(bob, cdp, registration, push, seen, server.url)
                    bob.page.wait_for_url(f"**/?table={table_id}")
                    bob.page.wait_for_selector(".table-page:not(.loading)")
                    away[-1][1] = time.time()
                    brought_back += 1
                    if brought_back == 1:
                        check_page(bob.page, "brought-back-by-push", done, shots_folder())
                    continue
                ann.page.wait_for_timeout(50)
            assert brought_back >= 2, brought_back
            # While Bob had the table open, none of his turns was pushed: every push came
            # while he was away. (A turn that began as he left may be told twice, by its
            # commit and by his leaving (app/tables/presence.py); both carry the table's
            # topic, so his phone shows one notification.)
            turns = [r for r in push.received() if r.payload.get("kind") == "your_turn"]
            assert len(turns) >= brought_back, [r.payload for r in turns]
            stray = [r.at for r in turns if not any(a <= r.at <= b for a, b in away)]
            assert not stray, (stray, away)
            assert len({r.payload["tag"] for r in turns}) == 1, [r.payload for r in turns]
            assert all(r.payload["url"] == f"/?table={table_id}" for r in turns)
            assert push.service.refused == []
        wait_for(lambda: "phase-over" in view_state(bob.page)["classes"], what="Bob's game over")
        check_page(bob.page, "turn-based-game-over", done, shots_folder())
        check_page(ann.page, "turn-based-game-over", done, shots_folder())
        errors = ann.page.js_errors + bob.page.js_errors  # type: ignore[attr-defined]
        assert not errors, errors
    finally:
        ann.close()
        bob.close()
