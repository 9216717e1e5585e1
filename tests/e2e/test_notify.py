"""Notifications in Chromium: the service worker is registered and controls the page, a push
delivered through the DevTools protocol (ServiceWorker.deliverPushMessage, with the payload
the server builds) shows its notification, and the worker's click handler opens the table; the
site is installable (manifest, icons) and the worker caches no API answer; the settings'
notifications section passes the axe, text and layout checks at 390x844 and 1280x800 with tap
targets of at least 44 px on the phone.

DevTools has no way to click a system notification: the click is the worker's own handler
(``openTarget``, what ``notificationclick`` calls) run in the worker with the notification's
data, so the page it opens is the one a click opens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.notify.push import payload
from app.notify.service import KINDS, Notice
from tests.e2e.helpers import (
    DESKTOP,
    ServerInfo,
    check_page,
    create_table,
    new_player,
    snap,
    wait_for,
)

SHOTS = Path(__file__).resolve().parent / "screenshots" / "notify"
PHONE = {"width": 390, "height": 844}


def _registration(cdp: Any, regs: list[dict[str, Any]], origin: str) -> str:
    found = wait_for(
        lambda: [r for r in regs if r["scopeURL"] == origin + "/" and not r["isDeleted"]],
        what="the service worker's registration",
    )
    return str(found[0]["registrationId"])


def test_push_shows_a_notification_whose_click_opens_the_table(
    browser: Any, server: ServerInfo
) -> None:
    player = new_player(browser, server, "Noor")
    page = player.page
    try:
        player.context.grant_permissions(["notifications"], origin=server.url)
        cdp = player.context.new_cdp_session(page)
        regs: list[dict[str, Any]] = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: regs.extend(e["registrations"]))
        cdp.send("ServiceWorker.enable")
        table_id = create_table(player, "classic", seats={1: "open"}, autostart=False)
        page.goto("/")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        registration = _registration(cdp, regs, server.url)

        body = payload(Notice("someone", "your_turn", table_id, {"table_name": "Noor's table"}))
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": server.url, "registrationId": registration, "data": body.decode()},
        )
        shown = wait_for(
            lambda: page.evaluate(
                """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                    .map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}))"""
            ),
            what="the notification",
        )
        sent = json.loads(body)
        assert shown == [
            {"title": "Your turn", "body": sent["body"], "tag": sent["tag"], "url": sent["url"]}
        ]
        assert "Noor's table" in shown[0]["body"]
        # a newer push about the same table replaces it (same tag), not beside it
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": server.url, "registrationId": registration, "data": body.decode()},
        )
        page.wait_for_timeout(300)
        count = page.evaluate(
            "async () => (await (await navigator.serviceWorker.ready).getNotifications()).length"
        )
        assert count == 1

        [worker] = wait_for(lambda: player.context.service_workers, what="the worker")
        worker.evaluate("(path) => openTarget(path)", sent["url"])
        page.wait_for_url(f"**/?table={table_id}")
        page.wait_for_selector(".table-page:not(.loading)")
        assert page.js_errors == []  # type: ignore[attr-defined]
    finally:
        player.close()


def test_installable_and_nothing_of_the_api_cached(browser: Any, server: ServerInfo) -> None:
    player = new_player(browser, server, "Ines")
    page = player.page
    try:
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        manifest = page.evaluate(
            """async () => {
                const link = document.querySelector('link[rel=manifest]');
                const r = await fetch(link.href);
                const type = r.headers.get('content-type');
                return {status: r.status, type, body: await r.json()};
            }"""
        )
        assert manifest["status"] == 200
        assert manifest["type"].startswith("application/manifest+json")
        body = manifest["body"]
        assert body["display"] == "standalone" and body["start_url"] == "/"
        sizes = {icon["sizes"] for icon in body["icons"] if icon["type"] == "image/png"}
        assert {"192x192", "512x512"} <= sizes
        assert any(icon.get("purpose") == "maskable" for icon in body["icons"])
        for icon in body["icons"]:
            r = page.request.get(icon["src"])
            assert r.status == 200 and r.headers["content-type"] == icon["type"]
        # the API and the page were used through the worker: only the offline page is cached
        page.evaluate("async () => { await fetch('/api/tables'); await fetch('/api/me'); }")
        cached = page.evaluate(
            """async () => {
                const out = [];
                for (const name of await caches.keys()) {
                    for (const request of await (await caches.open(name)).keys()) {
                        out.push(new URL(request.url).pathname);
                    }
                }
                return out;
            }"""
        )
        assert cached == ["/offline.html"]
        r = page.request.get("/sw.js")
        assert r.status == 200 and r.headers["cache-control"] == "no-cache"
    finally:
        player.close()


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390x844", "1280x800"])
def test_settings_section_at_both_sizes(
    browser: Any, server: ServerInfo, size: dict[str, int]
) -> None:
    player = new_player(browser, server, "Ravi", viewport=size, mobile=size == PHONE)
    page = player.page
    try:
        page.click("#prefs-button")
        page.wait_for_selector("#notify-section .notify-choices")
        rows = page.locator(".notify-choices tbody tr")
        assert rows.count() == len(KINDS)  # a row for each kind of notice
        # a guest: push choices, e-mail for accounts only
        assert page.locator(".notify-choices input:disabled").count() == len(KINDS)
        page.locator(".notify-choices tbody tr").first.locator("input").first.click()
        wait_for(
            lambda: (
                page.evaluate(
                    "async () => (await (await fetch('/api/notify/settings')).json()).choices"
                    ".your_turn.push"
                )
                is False
            ),
            what="the choice saved",
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        snap(page, SHOTS, f"settings-{size['width']}x{size['height']}")
        check_page(page, "notify-settings")
        if size == PHONE:
            small = page.evaluate(
                """() => [...document.querySelectorAll(
                    '#notify-section .notify-box, #notify-section button')]
                    .map((el) => { const r = el.getBoundingClientRect();
                                   return [el.className || el.id, r.width, r.height]; })
                    .filter(([, w, h]) => w < 44 || h < 44)"""
            )
            assert small == []
        assert page.js_errors == []  # type: ignore[attr-defined]
    finally:
        player.close()
