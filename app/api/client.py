"""Who is asking: the client's address, for the limits per address.

Behind a reverse proxy every connection comes from the proxy, so the proxy's
``X-Forwarded-For`` names the client instead; but anyone can send that header, so it is
believed only from the proxies listed in ``HEARTS_TRUSTED_PROXIES`` (addresses or networks,
comma separated; empty = believe no header). The address is the right-most one in the chain
that is not a trusted proxy: the left-most entries are whatever the client wrote.
"""

from __future__ import annotations

import functools
import ipaddress

from starlette.requests import HTTPConnection

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

UNKNOWN = "unknown"


@functools.lru_cache(maxsize=32)
def parse_trusted_proxies(value: str) -> tuple[Network, ...]:
    """``HEARTS_TRUSTED_PROXIES`` as networks (a bare address is a network of one)."""
    nets: list[Network] = []
    for item in (part.strip() for part in value.split(",")):
        if item:
            nets.append(ipaddress.ip_network(item, strict=False))
    return tuple(nets)


def _trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in proxies)


def _normal(address: str) -> str:
    """One spelling per address (IPv6 compressed, an IPv4-mapped IPv6 address as IPv4)."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip()[:64] or UNKNOWN
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def client_address(conn: HTTPConnection) -> str:
    """The client's address for a request or a WebSocket (see the module doc)."""
    peer = conn.client.host if conn.client is not None else UNKNOWN
    settings = getattr(conn.app.state, "settings", None)
    proxies = parse_trusted_proxies(getattr(settings, "trusted_proxies", "") or "")
    if not proxies or not _trusted(peer, proxies):
        return _normal(peer)
    chain = [
        part.strip()
        for header in conn.headers.getlist("x-forwarded-for")
        for part in header.split(",")
        if part.strip()
    ]
    for hop in reversed(chain):
        if not _trusted(hop, proxies):
            return _normal(hop)
    # Every hop is a proxy of ours: the left-most one is the nearest to the client.
    return _normal(chain[0]) if chain else _normal(peer)


def address_group(address: str) -> str:
    """What limits per address count by: an IPv4 address itself, but an IPv6 address's /64
    network (one home or host usually gets a whole /64, so counting single IPv6 addresses
    would let one client take as many as it likes)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)
