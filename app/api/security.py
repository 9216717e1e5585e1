"""Browser hardening: security headers on every response, the Origin check, session cookies.

- Every HTTP response (API, static files, 404s, 422s, 500s) carries the Content-Security-Policy
  (with ``frame-ancestors 'none'``, which a ``<meta>`` tag cannot carry), X-Frame-Options,
  X-Content-Type-Options, Referrer-Policy, Permissions-Policy and the cross-origin isolation
  headers. ``install`` puts the middleware outside Starlette's error handler so that even an
  unhandled error's 500 gets them.
- Origin: a browser names the page that opened a WebSocket or sent a POST in ``Origin``. A
  socket or an unsafe request (POST, PUT, PATCH, DELETE) from a page of another site is
  refused: HTTP 403 ``bad_origin``, or the socket is closed with 4403 and the same code. The
  allowed origins are ``HEARTS_ALLOWED_ORIGINS``, by default the request's own host (same
  origin). Requests without Origin (API clients, tests) pass: browsers always send it on
  these requests.
- The browser's session token lives in the HttpOnly cookie ``hearts_token`` (set by guest
  creation, login and register, cleared by logout and account deletion); a cookie-signed
  unsafe request must also carry ``X-Requested-With``, which a cross-site form cannot send
  (``app.api.deps``). API clients send ``Authorization: Bearer`` instead.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import orjson
from fastapi import FastAPI, Request, Response
from itsdangerous import BadSignature, URLSafeSerializer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_COOKIE = "hearts_token"
# A cookie-signed unsafe request must carry this header (any value; the page sends "hearts").
CSRF_HEADER = "X-Requested-With"
UNSAFE_METHODS = frozenset(("POST", "PUT", "PATCH", "DELETE"))
CLOSE_BAD_ORIGIN = 4403

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# A Host header worth naming in the policy (anything else gets 'self' alone).
_HOST_RE = re.compile(r"[A-Za-z0-9.\-]{1,253}(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")

# The page's policy: scripts and styles from this server only, no plugins, no framing.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src {connect}; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
_FIXED_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    # Full URLs (invite tokens in them) never leave the site; same-origin requests keep their
    # Origin header, which the check below needs.
    (b"referrer-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)

Origin = tuple[str, str, int]  # scheme, host (lower case), port


def parse_origin(text: str) -> Origin | None:
    """``scheme://host[:port]`` as a comparable triple; None for "null" or anything else."""
    try:
        parts = urlsplit(text.strip().rstrip("/"))
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def parse_allowed_origins(value: str) -> frozenset[Origin]:
    """``HEARTS_ALLOWED_ORIGINS`` (a comma list, checked by the settings) as triples."""
    found = (parse_origin(item) for item in value.split(",") if item.strip())
    return frozenset(origin for origin in found if origin is not None)


def origin_allowed(origin: str, host: str | None, allowed: frozenset[Origin]) -> bool:
    """Whether a page at ``origin`` may talk to this server, reached as ``host``.

    With allowed origins configured, only those; else the origin must be the request's own
    host (same host and port; a Host without a port matches ports 80 and 443, so a
    TLS-terminating proxy that passes the Host header works unconfigured).
    """
    parsed = parse_origin(origin)
    if parsed is None:
        return False
    if allowed:
        return parsed in allowed
    if not host:
        return False
    try:
        own = urlsplit("//" + host.strip())
        own_host, own_port = own.hostname, own.port
    except ValueError:
        return False
    if own_host is None or own_host.lower() != parsed[1]:
        return False
    return parsed[2] == own_port if own_port is not None else parsed[2] in (80, 443)


def _headers(scope: Scope) -> dict[bytes, bytes]:
    out: dict[bytes, bytes] = {}
    for name, value in scope.get("headers", ()):
        out.setdefault(name, value)
    return out


def content_security_policy(host: str | None, allowed: Iterable[Origin]) -> str:
    """The policy; its connect-src names this server's WebSocket URLs (``'self'`` covers
    ws: and wss: only in browsers that follow CSP level 3)."""
    sources = ["'self'"]
    origins = list(allowed)
    if origins:
        for scheme, name, port in sorted(origins):
            ws = "wss" if scheme == "https" else "ws"
            netloc = f"[{name}]" if ":" in name else name
            default = _DEFAULT_PORTS[scheme]
            sources.append(f"{ws}://{netloc}" + ("" if port == default else f":{port}"))
    elif host and _HOST_RE.fullmatch(host):
        sources += [f"ws://{host}", f"wss://{host}"]
    return _CSP.format(connect=" ".join(sources))


class BrowserSecurity:
    """Pure ASGI middleware: the headers on every HTTP response, and the Origin check on
    unsafe requests and on WebSocket handshakes."""

    def __init__(self, app: ASGIApp, *, allowed_origins: str = "") -> None:
        self.app = app
        self.allowed = parse_allowed_origins(allowed_origins)
        # Both answers depend on a few header values only: kept, bounded, so that a request
        # costs a dict look-up (parsing the origin and the host costs about 20 us).
        self._csp_cache: dict[bytes, bytes] = {}
        self._origin_cache: dict[tuple[bytes, bytes], bool] = {}

    def origin_ok(self, headers: dict[bytes, bytes]) -> bool:
        """The Origin check of a request or socket handshake: no Origin (not a browser, or a
        browser's same-origin GET) passes, unless Sec-Fetch-Site says it is cross-site."""
        origin = headers.get(b"origin")
        if origin is None:
            site = headers.get(b"sec-fetch-site", b"").lower()
            return site not in (b"cross-site", b"same-site")
        key = (origin, headers.get(b"host", b""))
        ok = self._origin_cache.get(key)
        if ok is None:
            host = key[1].decode("latin-1") or None
            ok = origin_allowed(origin.decode("latin-1"), host, self.allowed)
            if len(self._origin_cache) >= 256:
                self._origin_cache.clear()
            self._origin_cache[key] = ok
        return ok

    def _csp(self, host: bytes) -> bytes:
        cached = self._csp_cache.get(host)
        if cached is None:
            policy = content_security_policy(host.decode("latin-1") or None, self.allowed)
            cached = policy.encode("latin-1")
            if len(self._csp_cache) < 64:  # a few host names; never grows with bad input
                self._csp_cache[host] = cached
        return cached

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if not self.origin_ok(_headers(scope)):
                await _refuse_socket(receive, send)
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        extra = [
            (b"content-security-policy", self._csp(headers.get(b"host", b""))),
            *_FIXED_HEADERS,
        ]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = list(message.get("headers", ()))
                present = {name.lower() for name, _ in out}
                out.extend(item for item in extra if item[0] not in present)
                message = {**message, "headers": out}
            await send(message)

        if scope.get("method", "GET") in UNSAFE_METHODS and not self.origin_ok(headers):
            await _refuse_request(send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


async def _refuse_request(send: Send) -> None:
    body = orjson.dumps(
        {
            "detail": {
                "code": "bad_origin",
                "message": "requests from pages of another site are refused",
            }
        }
    )
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _refuse_socket(receive: Receive, send: Send) -> None:
    """Close a cross-site socket with 4403 and an error that names the cause (the page's
    way of hearing why; a refused handshake would only show 1006)."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    error = {
        "type": "error",
        "code": "bad_origin",
        "message": "sockets from pages of another site are refused",
    }
    await send({"type": "websocket.send", "text": orjson.dumps(error).decode()})
    await send({"type": "websocket.close", "code": CLOSE_BAD_ORIGIN, "reason": "bad_origin"})


def install(app: FastAPI, *, allowed_origins: str = "") -> None:
    """Wrap the whole middleware stack, Starlette's error handler included, so that an
    unhandled error's 500 carries the headers too (``add_middleware`` would sit inside it)."""
    build = app.build_middleware_stack

    def build_with_security() -> ASGIApp:
        return BrowserSecurity(build(), allowed_origins=allowed_origins)

    app.build_middleware_stack = build_with_security  # type: ignore[method-assign]


# --- the session cookie -----------------------------------------------------------------------


def cookie_secure(request: Request) -> bool:
    """Secure when the request came over HTTPS, or when HEARTS_COOKIE_SECURE says so."""
    settings: Any = getattr(request.app.state, "settings", None)
    return request.url.scheme in ("https", "wss") or bool(getattr(settings, "cookie_secure", False))


def set_session_cookie(response: Response, request: Request, token: str) -> None:
    """The browser's session: HttpOnly (no script reads it), SameSite=Lax (not sent on
    cross-site POSTs or subrequests), for the whole site, as long as the token lives. The
    answer that carries it is not to be stored by any cache."""
    from app.db.auth import SESSION_TTL

    response.headers["Cache-Control"] = "no-store"
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(SESSION_TTL.total_seconds()),
        path="/",
        httponly=True,
        samesite="lax",
        secure=cookie_secure(request),
    )


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=cookie_secure(request)
    )


# --- the known-device cookie (sign-in throttling, app.db.ratelimit.LoginThrottle) --------------

DEVICE_COOKIE = "hearts_device"
# Sent to the account routes only; a year; the last few accounts signed in from this browser.
DEVICE_COOKIE_PATH = "/api/account"
DEVICE_COOKIE_MAX_AGE = 365 * 86_400
DEVICE_ACCOUNTS = 5
_DEVICE_SALT = "hearts.device"


def _device_entries(request: Request, secret: str) -> list[tuple[str, str]]:
    """(account name key, nonce) pairs of a valid, signed device cookie; [] otherwise."""
    raw = request.cookies.get(DEVICE_COOKIE)
    if not raw or len(raw) > 2048:
        return []
    try:
        data = URLSafeSerializer(secret, salt=_DEVICE_SALT).loads(raw)
    except BadSignature:
        return []
    if not isinstance(data, list):
        return []
    return [
        (item[0], item[1])
        for item in data
        if isinstance(item, list) and len(item) == 2 and all(isinstance(part, str) for part in item)
    ]


def known_device(request: Request, secret: str, name_key: str) -> str | None:
    """The nonce this browser got when it last signed in to the account, if it did."""
    for name, nonce in _device_entries(request, secret):
        if name == name_key:
            return nonce
    return None


def remember_device(response: Response, request: Request, secret: str, name_key: str) -> None:
    """After a successful sign-in: this browser is a known device of the account, with a new
    nonce (an old cookie copied elsewhere stops counting)."""
    entries = [(n, v) for n, v in _device_entries(request, secret) if n != name_key]
    entries.append((name_key, secrets.token_urlsafe(16)))
    value = URLSafeSerializer(secret, salt=_DEVICE_SALT).dumps(
        [list(entry) for entry in entries[-DEVICE_ACCOUNTS:]]
    )
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=DEVICE_COOKIE_MAX_AGE,
        path=DEVICE_COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=cookie_secure(request),
    )
