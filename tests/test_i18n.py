"""The server's side of the languages (app/i18n.py): which language a visitor gets, plural
rules, the catalogs' texts, the page served in the visitor's language, e-mails and pushes in
the recipient's language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.i18n import (
    from_accept_language,
    from_cookie_header,
    pick_language,
    plural_category,
    render_page,
    translate,
)
from app.notify.service import Notice
from app.notify.texts import words
from tests.api.test_security import build

IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(build(tmp_path), raise_server_exceptions=False) as test_client:
        yield test_client


def test_the_language_is_the_setting_then_the_cookie_then_accept_language_then_english() -> None:
    assert pick_language() == "en"
    assert pick_language(accept="fr-CH, fr;q=0.9, en;q=0.8") == "fr"
    assert pick_language(accept="ja, nl;q=0.5, de;q=0.7") == "de"  # by q, unknown ones skipped
    assert pick_language(accept="ja, zh") == "en"
    assert pick_language(cookie="es", accept="fr") == "es"
    assert pick_language(setting="nl", cookie="es", accept="fr") == "nl"
    assert pick_language(cookie="xx", accept="de") == "de"  # a cookie not of ours is ignored
    assert from_accept_language("fr;q=0, de") == "de"
    assert from_accept_language("fr;q=abc") is None
    assert from_cookie_header("a=1; hearts_lang=nl; b=2") == "nl"
    assert from_cookie_header("hearts_lang=klingon") is None
    assert from_cookie_header('bad"cookie') is None


@pytest.mark.parametrize(
    ("lang", "count", "category"),
    [
        ("en", 1, "one"),
        ("en", 0, "other"),
        ("en", 2, "other"),
        ("de", 1, "one"),
        ("nl", 3, "other"),
        ("fr", 0, "one"),  # French: 0 and 1 are singular
        ("fr", 1, "one"),
        ("fr", 2, "other"),
        ("fr", 1_000_000, "many"),
        ("es", 0, "other"),
        ("es", 1, "one"),
        ("es", 2_000_000, "many"),
    ],
)
def test_plural_categories_match_intl_plural_rules(lang: str, count: int, category: str) -> None:
    assert plural_category(lang, count) == category


def test_translate_fills_placeholders_and_chooses_plurals() -> None:
    assert translate("fr", "notify.invitation.body", name="Anne") == "Anne vous invite à une table."
    assert translate("de", "notify.time_up.hours", count=1) == "noch 1 Stunde"
    assert translate("de", "notify.time_up.hours", count=5) == "noch 5 Stunden"
    assert translate("fr", "notify.time_up.hours", count=0) == "il reste 0 heure"
    with pytest.raises(ValueError):
        translate("de", "notify.time_up.hours")
    with pytest.raises(KeyError):
        translate("de", "no.such.key")


def test_the_page_is_rendered_in_a_language() -> None:
    page = (
        '<html lang="en"><link rel="preload" href="/i18n/en.json">'
        '<a href="#m" data-i18n="page.skip">Skip to the game</a>'
        '<a aria-label="x" data-i18n-aria-label="page.brand_label">'
    )
    out = render_page(page, "de")
    assert '<html lang="de">' in out
    assert 'href="/i18n/de.json"' in out
    assert ">Zum Spiel springen</a>" in out
    assert 'aria-label="Hearts Online, zurück zur Lobby"' in out


def test_a_french_visitor_gets_the_page_in_french_with_its_catalog_only(client: TestClient) -> None:
    version = client.app.state.static.version  # type: ignore[attr-defined]
    page = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"})
    assert page.status_code == 200
    assert '<html lang="fr">' in page.text
    assert ">Aller au jeu<" in page.text and ">Réglages<" in page.text
    catalogs = re.findall(r'href="(/v/[^"]+/i18n/\w+\.json)"', page.text)
    assert catalogs == [f"/v/{version}/i18n/fr.json"]
    assert "Accept-Language" in page.headers["vary"] and "Cookie" in page.headers["vary"]
    catalog = client.get(catalogs[0])
    assert catalog.headers["cache-control"] == IMMUTABLE
    assert catalog.json()["page.skip"] == "Aller au jeu"
    # The picker's cookie wins over Accept-Language; an English page by default.
    client.cookies.set("hearts_lang", "nl")
    dutch = client.get("/", headers={"Accept-Language": "fr"})
    assert '<html lang="nl">' in dutch.text and ">Instellingen<" in dutch.text
    assert dutch.headers["etag"] != page.headers["etag"]
    client.cookies.clear()
    english = client.get("/")
    assert '<html lang="en">' in english.text and ">Skip to the game<" in english.text


def test_the_table_section_is_served_next_to_the_catalog_and_not_preloaded(
    client: TestClient,
) -> None:
    """The table's words (i18n.js loadSection("table")) at a versioned, immutable URL beside
    the main catalog; the page preloads only the main one (the lobby never needs them)."""
    version = client.app.state.static.version  # type: ignore[attr-defined]
    page = client.get("/", headers={"Accept-Language": "de"})
    assert "table.json" not in page.text
    section = client.get(f"/v/{version}/i18n/de.table.json", headers={"Accept-Encoding": "gzip"})
    assert section.status_code == 200
    assert section.headers["cache-control"] == IMMUTABLE
    assert section.headers["content-encoding"] == "gzip"
    assert section.json()["table.start"] == "Spiel starten"


def test_the_offline_page_is_in_the_visitors_language(client: TestClient) -> None:
    """The service worker's offline page (static/sw.js caches it with the player's cookie)
    follows the language as the site's page does."""
    french = client.get("/offline.html", headers={"Accept-Language": "fr"})
    assert french.status_code == 200
    assert '<html lang="fr">' in french.text and ">Vous êtes hors ligne<" in french.text
    assert "Cookie" in french.headers["vary"]
    client.cookies.set("hearts_lang", "de")
    german = client.get("/offline.html", headers={"Accept-Language": "fr"})
    assert '<html lang="de">' in german.text and ">Du bist offline<" in german.text
    client.cookies.clear()
    assert ">You are offline<" in client.get("/offline.html").text


def test_the_servers_own_texts_are_read_with_the_catalog() -> None:
    """E-mails' and pushes' words live in <lang>.notify.json, which no page downloads; the
    server reads them with the main catalog."""
    assert translate("fr", "notify.your_turn.title") != translate("en", "notify.your_turn.title")


def test_notices_are_written_in_the_recipients_language() -> None:
    notice = Notice("p1", "time_almost_up", "T1", {"hours_left": 3, "table_name": "Chez Anne"})
    german = words(notice, "de")
    assert german.title == "Die Zeit ist fast um"
    assert "Chez Anne" in german.body and "noch 3 Stunden" in german.body
    assert words(notice).title == "Time is almost up"
    assert "3 h left" in words(notice).body
    friend = words(Notice("p1", "friend_request", None, {"from": "Bo"}), "es")
    assert friend.body == "A Bo le gustaría ser tu amigo."
    assert (
        words(Notice("p1", "your_turn", "T1", {}), "nl").body
        == "Jij bent aan zet in je spel Hartenjagen."
    )
