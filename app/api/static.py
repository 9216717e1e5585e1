"""The page's static files: compressed, versioned, cacheable.

The files under ``static/`` (about 130 KiB) are read once when the app is built and kept in
memory with their gzip encoding (made once, at level 9: nothing is compressed per request).

Versions: ``version`` is a hash of every file's path and contents. ``index.html`` is served
with its own stylesheet and script URLs rewritten to ``/v/<version>/css/style.css`` and
``/v/<version>/js/app.js``; the modules' relative imports (``./api.js``, ``import("./table.js")``)
resolve under the same prefix, so every file the page loads has a versioned URL and none of
them needs rewriting. A versioned response is ``Cache-Control: public, max-age=31536000,
immutable``; any change to any file changes the version, so a browser never mixes old and new
modules. ``index.html`` (``/``) is ``no-cache`` with an ETag (revalidated on each visit, 304
when unchanged), and so are the unversioned paths (``/js/app.js``) and a versioned path whose
version is not the current one (a page loaded before a deploy: it gets today's file, which no
cache keeps under the old name).

The page is served in the visitor's language (app/i18n.py: the ``hearts_lang`` cookie, then
Accept-Language, then English): one ``index.html`` per language, made at start with its
``<html lang>``, its texts and the URL of the one catalog it preloads
(``/v/<version>/i18n/<lang>.json``, cached like the modules); its answer varies on
Accept-Language and Cookie. So does ``/offline.html``, the page the service worker keeps for a
page load that fails, made in each language the same way (static/sw.js caches the player's and
takes it again when the player switches language).

Every response of a compressible file says ``Vary: Accept-Encoding``. Editing a file under
``static/`` needs a restart of the server (the files are read at start).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from app.i18n import DEFAULT, LANGUAGES, from_cookie_header, pick_language, q_value, render_page

IMMUTABLE = b"public, max-age=31536000, immutable"
REVALIDATE = b"no-cache"
VERSION_PREFIX = "/v/"
# Text files worth compressing (and any file whose gzip is at least this much smaller).
_COMPRESSIBLE = (".html", ".css", ".js", ".json", ".svg", ".txt", ".map")
_MIN_SAVING = 64
_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".json": b"application/json",
    ".svg": b"image/svg+xml",
    ".txt": b"text/plain; charset=utf-8",
}
# The page's own references to its stylesheet, scripts, preloads, icons and web app manifest
# (root-relative URLs).
_PAGE_REF = re.compile(rb'((?:href|src)=")/((?:css|js|icons|i18n)/[^"?#]+|manifest\.webmanifest)"')


@dataclass(frozen=True, slots=True)
class StaticFile:
    body: bytes
    gzipped: bytes | None  # None: not worth compressing
    content_type: bytes
    etag: bytes  # quoted, of the identity body (the gzip variant adds "-gz")


def _content_type(name: str) -> bytes:
    suffix = Path(name).suffix.lower()
    if suffix in _TYPES:
        return _TYPES[suffix]
    guessed, _ = mimetypes.guess_type(name)
    return (guessed or "application/octet-stream").encode("latin-1")


def _make(name: str, body: bytes) -> StaticFile:
    gzipped: bytes | None = None
    if name.lower().endswith(_COMPRESSIBLE):
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        if len(packed) + _MIN_SAVING <= len(body):
            gzipped = packed
    digest = hashlib.sha256(body).hexdigest()[:20]
    return StaticFile(body, gzipped, _content_type(name), f'"{digest}"'.encode())


def accepts_gzip(header: bytes) -> bool:
    """Whether an Accept-Encoding value allows gzip (``gzip`` or ``*``, with a q above 0)."""
    wildcard = False
    for part in header.decode("latin-1").lower().split(","):
        token, _, params = part.strip().partition(";")
        token = token.strip()
        if token not in ("gzip", "x-gzip", "*"):
            continue
        q = q_value(params)
        if token == "*":
            wildcard = q > 0
        else:
            return q > 0
    return wildcard


OFFLINE_PAGE = "/offline.html"  # static/sw.js shows it when a page load fails


class StaticSite:
    """Pure ASGI app serving the files of one directory from memory (GET and HEAD)."""

    def __init__(self, directory: Path) -> None:
        raw: dict[str, bytes] = {}
        for path in sorted(directory.rglob("*")):
            relative = path.relative_to(directory).as_posix()
            if path.is_file() and not any(p.startswith(".") for p in relative.split("/")):
                raw[relative] = path.read_bytes()
        digest = hashlib.sha256()
        for name, body in raw.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        self.version = digest.hexdigest()[:16]
        self.files = {name: _make(name, body) for name, body in raw.items()}
        self.index: StaticFile | None = None
        self.pages: dict[str, StaticFile] = {}  # index.html in each language
        # The service worker's offline page in each language (it caches the player's).
        self.offline: dict[str, StaticFile] = {}
        if "offline.html" in raw:
            offline = raw["offline.html"].decode("utf-8")
            for lang in LANGUAGES:
                self.offline[lang] = _make("offline.html", render_page(offline, lang).encode())
        if "index.html" in raw:
            prefix = f"{VERSION_PREFIX}{self.version}/".encode()

            def versioned(page: bytes) -> StaticFile:
                page = _PAGE_REF.sub(lambda m: m[1] + prefix + m[2] + b'"', page)
                return _make("index.html", page)

            self.index = versioned(raw["index.html"])
            source = raw["index.html"].decode("utf-8")
            for lang in LANGUAGES:
                if f"i18n/{lang}.json" in raw:
                    self.pages[lang] = versioned(render_page(source, lang).encode("utf-8"))
            self.index = self.pages.get(DEFAULT, self.index)

    def url(self, name: str) -> str:
        """The versioned URL of a file (``css/style.css`` -> ``/v/<version>/css/style.css``)."""
        return f"{VERSION_PREFIX}{self.version}/{name}"

    def find(self, path: str, lang: str = DEFAULT) -> tuple[StaticFile | None, bytes]:
        """The file a request path names (the page in ``lang``) and the Cache-Control its
        answer carries."""
        page = self.pages.get(lang, self.index)
        if path in ("/", "/index.html"):
            return page, REVALIDATE
        if path == OFFLINE_PAGE and lang in self.offline:
            return self.offline[lang], REVALIDATE
        if path.startswith(VERSION_PREFIX):
            version, _, name = path[len(VERSION_PREFIX) :].partition("/")
            found = page if name == "index.html" else self.files.get(name)
            return found, IMMUTABLE if version == self.version else REVALIDATE
        return self.files.get(path.lstrip("/")), REVALIDATE

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # a socket to an unknown path
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1000})
            return
        method = scope.get("method", "GET")
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :] or "/"
        headers = dict(scope.get("headers", ()))
        is_page = path in ("/", "/index.html", OFFLINE_PAGE) or path.endswith("/index.html")
        lang = DEFAULT
        if is_page:
            lang = pick_language(
                cookie=from_cookie_header(headers.get(b"cookie", b"").decode("latin-1")),
                accept=headers.get(b"accept-language", b"").decode("latin-1"),
            )
        found, cache = self.find(path, lang)
        if method not in ("GET", "HEAD"):
            await _plain(send, 405, b"Method Not Allowed", [(b"allow", b"GET, HEAD")])
            return
        if found is None:
            await _plain(send, 404, b"Not Found")
            return
        use_gzip = found.gzipped is not None and accepts_gzip(headers.get(b"accept-encoding", b""))
        body = found.gzipped if use_gzip and found.gzipped is not None else found.body
        etag = found.etag[:-1] + b'-gz"' if use_gzip else found.etag
        out = [
            (b"content-type", found.content_type),
            (b"cache-control", cache),
            (b"etag", etag),
        ]
        if is_page:
            out.append((b"vary", b"Accept-Encoding, Accept-Language, Cookie"))
        elif found.gzipped is not None:
            out.append((b"vary", b"Accept-Encoding"))
        if use_gzip:
            out.append((b"content-encoding", b"gzip"))
        if _matches(headers.get(b"if-none-match"), etag):
            await send({"type": "http.response.start", "status": 304, "headers": out})
            await send({"type": "http.response.body", "body": b""})
            return
        out.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": out})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})


def _matches(if_none_match: bytes | None, etag: bytes) -> bool:
    if not if_none_match:
        return False
    wanted = {tag.strip().removeprefix(b"W/") for tag in if_none_match.split(b",")}
    return b"*" in wanted or etag in wanted


async def _plain(
    send: Send, status: int, text: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(text)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text})


class CompressReads:
    """gzip for the answers of the API's GET requests (``/api/presets`` is 9 KiB, 1.5 KiB
    gzipped), by Starlette's GZipMiddleware. WebSockets and other requests pass untouched:
    answers to POSTs carry session tokens next to text the client chose, which compressed
    answers could leak (BREACH), so they are not compressed. The static files are compressed
    by StaticSite (once, at start)."""

    def __init__(self, app: ASGIApp, minimum_size: int = 1024) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope.get("method") in ("GET", "HEAD")
            and scope["path"].startswith("/api/")
        ):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
