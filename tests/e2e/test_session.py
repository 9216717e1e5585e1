"""The page's session in the browser: an HttpOnly cookie no script can read, the same guest
after a reload and in every tab, an older version's stored token handed over once, sign-out
that ends it, and a page that no other site can frame."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.helpers import Player, create_table, new_player


def _me(page: Any) -> Any:
    return page.evaluate(
        """async () => {
            const r = await fetch('/api/me', {credentials: 'same-origin'});
            return r.ok ? (await r.json()).id : r.status;
        }"""
    )


def _session_cookie(context: Any) -> dict[str, Any] | None:
    for cookie in context.cookies():
        if cookie["name"] == "hearts_token":
            return dict(cookie)
    return None


def test_a_guest_lives_in_an_httponly_cookie_across_reloads_and_tabs(
    browser: Any, server: Any
) -> None:
    p = new_player(browser, server, "Tabby")
    try:
        page = p.page
        cookie = _session_cookie(p.context)
        assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
        # No script on the page can read the token.
        assert "hearts_token" not in page.evaluate("document.cookie")
        stored = page.evaluate("Object.keys(localStorage)")
        assert "hearts.token" not in stored and "hearts.player" in stored
        me = _me(page)
        assert isinstance(me, str)
        # A reload keeps the same guest.
        page.reload()
        page.wait_for_selector(".who-name:has-text('Tabby')")
        assert _me(page) == me
        # Two more tabs are the same person, and can create and sit at a table.
        tabs = [p.context.new_page() for _ in range(2)]
        for tab in tabs:
            tab.goto("/")
            tab.wait_for_selector(".who-name:has-text('Tabby')")
            assert _me(tab) == me
        create_table(Player(p.context, tabs[0], "Tabby"), "classic")
        tabs[0].wait_for_selector(".table-page.seated")
        for tab in tabs:
            tab.close()
        # Signing out (a guest too) ends the session: the cookie is gone.
        page.click(".who button")
        page.wait_for_selector("#guest-name")
        assert _session_cookie(p.context) is None
        assert page.evaluate("localStorage.getItem('hearts.player')") is None
        assert [e for e in page.js_errors if "Content Security Policy" in e] == []
    finally:
        p.close()


def test_an_older_versions_stored_token_becomes_the_cookie(browser: Any, server: Any) -> None:
    made = httpx.post(f"{server.url}/api/guest", json={"name": "Oldie"}).json()
    p = new_player(browser, server, None)
    try:
        page = p.page
        # What an older version of the page left behind.
        page.evaluate(
            """([token, player]) => {
                localStorage.setItem('hearts.token', token);
                localStorage.setItem('hearts.player', JSON.stringify(player));
            }""",
            [made["token"], made["player"]],
        )
        page.reload()
        page.wait_for_selector(".who-name:has-text('Oldie')")
        page.wait_for_function("() => localStorage.getItem('hearts.token') === null")
        cookie = _session_cookie(p.context)
        assert cookie is not None and cookie["httpOnly"]
        assert _me(page) == made["player"]["id"]
    finally:
        p.close()


def test_another_site_cannot_frame_the_page(browser: Any, server: Any) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content(f'<iframe id="f" src="{server.url}/" width="800" height="600"></iframe>')
        page.wait_for_timeout(1500)
        framed = [f for f in page.frames if f != page.main_frame]
        assert framed, "the iframe is there"
        # Blocked by frame-ancestors 'none' / X-Frame-Options: the lobby never loads in it.
        for frame in framed:
            assert frame.query_selector("#main") is None
    finally:
        context.close()
