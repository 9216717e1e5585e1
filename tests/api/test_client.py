"""The client's address (app/api/client.py): X-Forwarded-For only from trusted proxies."""

from __future__ import annotations

from types import SimpleNamespace

from starlette.requests import HTTPConnection

from app.api.client import address_group, client_address


def conn(peer: str, forwarded: list[str] | None = None, trusted: str = "") -> HTTPConnection:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded or []]
    app = SimpleNamespace(state=SimpleNamespace(settings=SimpleNamespace(trusted_proxies=trusted)))
    scope = {"type": "http", "client": (peer, 1234), "headers": headers, "app": app}
    return HTTPConnection(scope)


def test_the_peer_unless_it_is_a_trusted_proxy() -> None:
    # Anyone may send the header: without trusted proxies it is ignored.
    assert client_address(conn("203.0.113.7", ["198.51.100.1"])) == "203.0.113.7"
    assert client_address(conn("203.0.113.7", ["198.51.100.1"], "10.0.0.0/8")) == "203.0.113.7"
    # From a trusted proxy: the right-most hop that is not one of ours.
    chain = ["6.6.6.6, 198.51.100.1", "10.0.0.5"]
    assert client_address(conn("10.0.0.9", chain, "10.0.0.0/8")) == "198.51.100.1"
    assert client_address(conn("10.0.0.9", [], "10.0.0.0/8")) == "10.0.0.9"
    assert client_address(conn("::ffff:192.0.2.1")) == "192.0.2.1"


def test_ipv6_counts_by_its_64() -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == address_group("2001:db8:1:2:bbbb::2")
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("192.0.2.1") == "192.0.2.1"
