"""Where a push may go: a push service's endpoint is a URL the browser gives, so a client could
give any URL and make the server post to it (a server-side request forgery into the network
behind the server: a metadata service, an admin port, Redis). An endpoint is taken only as an
https URL whose host is a public address; it is checked when a device subscribes and again
before each post (the name may have been pointed elsewhere since). A local push service (tests,
benchmarks) is allowed only with ``HEARTS_PUSH_PRIVATE_ENDPOINTS``.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def endpoint_problem(endpoint: str, *, private_allowed: bool) -> str | None:
    """Why ``endpoint`` may not be posted to (None: it may). Resolves its host (blocking)."""
    if any(c in endpoint for c in " \r\n\t") or len(endpoint) > 2048:
        return "endpoint must be the push service's URL"
    try:
        parts = urlsplit(endpoint)
        port = parts.port
        host = parts.hostname
    except ValueError:
        return "endpoint must be the push service's URL"
    schemes = ("https", "http") if private_allowed else ("https",)
    if parts.scheme not in schemes or not host or parts.username or parts.password:
        return "endpoint must be the push service's https URL"
    if private_allowed:
        return None
    try:
        found = socket.getaddrinfo(host, port or 443, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return "endpoint's host does not resolve"
    addresses = {str(info[4][0]) for info in found}
    if not addresses or not all(_public(a) for a in addresses):
        return "endpoint must be on a public address"
    return None
