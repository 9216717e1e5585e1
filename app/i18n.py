"""The site's languages on the server: which language a visitor gets, the page in it, and the
server's own texts (e-mails, pushes) from the message catalogs.

The catalogs are the page's own files, ``static/i18n/<lang>.json`` and its sections (the words
of one page, ``<lang>.<section>.json``, which that page's modules load), and the server's own
texts (``SERVER_SECTIONS``: ``<lang>.notify.json``, ``<lang>.offline.json``), which no page
loads: each a flat object of keys to
texts with named placeholders (``{name}``), or, for a text that depends on a number, an object
of CLDR plural categories (``{"one": ..., "other": ...}``) chosen by ``count`` with the same
rules as the browser's ``Intl.PluralRules`` (``plural_category``). The browser side is
``static/js/i18n.js``; docs/frontend.md says how to add a string or a language.

The language: the visitor's choice (the ``hearts_lang`` cookie the page's picker sets; there is
no per-player settings store on the server), then ``Accept-Language``, then English.
``render_page`` writes it into ``index.html`` (``<html lang>``, the catalog the page preloads,
and the texts of the elements marked ``data-i18n``), so the first paint is in that language.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Final

LANGUAGES: Final = ("en", "fr", "de", "es", "nl")
DEFAULT: Final = "en"
COOKIE: Final = "hearts_lang"
CATALOG_DIR: Final = Path(__file__).resolve().parents[1] / "static" / "i18n"
# The plural categories a language's texts must give (CLDR, as Intl.PluralRules reports them).
PLURAL_FORMS: Final = {
    "en": ("one", "other"),
    "de": ("one", "other"),
    "nl": ("one", "other"),
    "fr": ("one", "many", "other"),
    "es": ("one", "many", "other"),
}

# The server's own texts in their own files per language, written by the server only, so no
# page downloads them: e-mails and pushes (``notify.*``, ``<lang>.notify.json``) and the page
# the service worker shows offline (``offline.*``, ``<lang>.offline.json``).
SERVER_SECTIONS: Final = ("notify", "offline")

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_TAG = re.compile(r"<[a-zA-Z][^>]*\sdata-i18n[^>]*>")
_ATTR_KEY = re.compile(r'\sdata-i18n-([a-z][a-z-]*)="([\w.]+)"')
_TEXT_KEY = re.compile(r'\sdata-i18n="([\w.]+)"')


def q_value(params: str) -> float:
    """The quality of one item of an HTTP Accept-* header, from what follows its first ";"
    ("q=0.8" -> 0.8; none -> 1.0; a bad one -> 0.0)."""
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.strip() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


def supported(lang: str | None) -> str | None:
    """A language code of ours for ``lang`` (``fr-CA`` -> ``fr``), or None."""
    if not lang:
        return None
    base = lang.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else None


def from_accept_language(header: str | None) -> str | None:
    """The first language of ours an Accept-Language value asks for, by q then order."""
    if not header:
        return None
    wanted: list[tuple[float, int, str]] = []
    for order, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        q = q_value(params)
        lang = supported(tag)
        if lang and q > 0:
            wanted.append((-q, order, lang))
    return min(wanted)[2] if wanted else None


def from_cookie_header(header: str | None) -> str | None:
    """The language the ``hearts_lang`` cookie of a Cookie header names, if one of ours."""
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return None
    morsel = jar.get(COOKIE)
    return supported(morsel.value) if morsel is not None else None


def pick_language(
    *, setting: str | None = None, cookie: str | None = None, accept: str | None = None
) -> str:
    """The player's setting, then the cookie's language, then Accept-Language, then English."""
    return supported(setting) or supported(cookie) or from_accept_language(accept) or DEFAULT


def plural_category(lang: str, count: float) -> str:
    """CLDR's cardinal category of ``count`` in ``lang`` (integers and decimals as numbers)."""
    whole = float(count).is_integer()
    n = abs(count)
    if lang == "fr":
        if int(n) in (0, 1):
            return "one"
        return "many" if whole and n != 0 and n % 1_000_000 == 0 else "other"
    if lang == "es":
        if n == 1:
            return "one"
        return "many" if whole and n != 0 and n % 1_000_000 == 0 else "other"
    return "one" if n == 1 and whole else "other"


@cache
def catalog(lang: str) -> dict[str, str | dict[str, str]]:
    """A language's catalog (read once): the page's main catalog and the server's own texts,
    ``SERVER_SECTIONS`` (no page loads those)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    data: dict[str, str | dict[str, str]] = {}
    for name in (lang, *(f"{lang}.{section}" for section in SERVER_SECTIONS)):
        part = json.loads((CATALOG_DIR / f"{name}.json").read_text(encoding="utf-8"))
        if not isinstance(part, dict):
            raise ValueError(f"{name}.json is not an object")
        data.update(part)
    return data


def translate(lang: str, key: str, **params: str | int | float) -> str:
    """The text of ``key`` in ``lang`` with its placeholders filled; a plural text is chosen by
    ``count``. English when the language lacks the key; a KeyError when English lacks it too."""
    found = catalog(lang).get(key) if lang in LANGUAGES else None
    if found is None:
        lang, found = DEFAULT, catalog(DEFAULT)[key]
    if isinstance(found, dict):
        count = params.get("count")
        if not isinstance(count, (int, float)):
            raise ValueError(f"{key} needs a number 'count'")
        text = found.get(plural_category(lang, count)) or found["other"]
    else:
        text = found
    return _PLACEHOLDER.sub(lambda m: str(params.get(m[1], m[0])), text)


def render_page(page: str, lang: str) -> str:
    """``index.html`` in ``lang``: ``<html lang>``, the preloaded catalog's URL, each
    ``data-i18n="key"`` element's text and each ``data-i18n-<attribute>="key"`` attribute."""
    page = re.sub(r'<html lang="[^"]*"', f'<html lang="{lang}"', page, count=1)
    page = page.replace('href="/i18n/en.json"', f'href="/i18n/{lang}.json"')

    def attributes(tag: str) -> str:
        for attr, key in _ATTR_KEY.findall(tag):
            value = html.escape(translate(lang, key), quote=True).replace("\\", "\\\\")
            tag = re.sub(rf'(\s{attr}=")[^"]*(")', rf"\g<1>{value}\g<2>", tag)
        return tag

    out: list[str] = []
    pos = 0
    for match in _TAG.finditer(page):
        out.append(page[pos : match.start()])
        tag = attributes(match[0])
        out.append(tag)
        pos = match.end()
        key = _TEXT_KEY.search(tag)
        if key is not None:  # the element's own text runs to the next tag
            end = page.find("<", pos)
            out.append(html.escape(translate(lang, key[1]), quote=False))
            pos = end
    out.append(page[pos:])
    return "".join(out)
