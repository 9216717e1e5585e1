"""Push endpoints: only https URLs on public addresses are taken (a client could otherwise make
the server post into its own network); checked at subscription and again before each post."""

from __future__ import annotations

from typing import Any

import pytest

from app.notify import store
from app.notify.endpoints import endpoint_problem
from bench.push_service import PushService
from tests.notify.conftest import Site

PRIVATE = [
    "https://127.0.0.1/push/1",
    "https://localhost/push/1",
    "https://10.1.2.3/x",
    "https://192.168.0.7/x",
    "https://172.16.5.5/x",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/x",
    "https://[fd00::1]/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://0.0.0.0/x",
    "https://100.64.0.1/x",
    "https://224.0.0.1/x",
]
MALFORMED = [
    "http://fcm.googleapis.com/fcm/send/abc",  # plain http
    "ftp://push.example/x",
    "https://user:pw@8.8.8.8/x",
    "https:///nohost",
    "https://8.8.8.8:99999/x",
    "https://8.8.8.8/a b",
    "https://8.8.8.8/\r\nHost: evil",
    "https://" + "a" * 3000 + ".example/",
    "https://no-such-host.invalid/x",
]


@pytest.mark.parametrize("endpoint", PRIVATE + MALFORMED)
def test_private_plain_and_malformed_endpoints_are_refused(endpoint: str) -> None:
    assert endpoint_problem(endpoint, private_allowed=False)


def test_a_public_https_address_is_taken() -> None:
    # an address literal: nothing to resolve (the machine has no outside DNS)
    assert endpoint_problem("https://8.8.8.8/fcm/send/abc", private_allowed=False) is None
    assert endpoint_problem("https://[2001:4860:4860::8888]/x", private_allowed=False) is None


def test_a_local_push_service_only_when_allowed() -> None:
    assert endpoint_problem("http://127.0.0.1:8123/push/1", private_allowed=True) is None
    assert endpoint_problem("http://127.0.0.1:8123/push/1", private_allowed=False)
    # malformed stays refused even then
    assert endpoint_problem("ftp://127.0.0.1/x", private_allowed=True)


@pytest.mark.asyncio
@pytest.mark.parametrize("endpoint", ["https://127.0.0.1/push/1", "https://169.254.169.254/x"])
async def test_the_api_refuses_private_endpoints_and_stores_nothing(
    site_factory: Any, push_service: PushService, endpoint: str
) -> None:
    site: Site = await site_factory(push_private_endpoints=False)
    ann, headers = await site.register("Ann")
    body = {**push_service.device().subscription(), "endpoint": endpoint}
    r = await site.http.post("/api/notify/push/subscriptions", json=body, headers=headers)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]["code"] == "bad_subscription"
    assert store.subscriptions(site.services.database, ann) == []


@pytest.mark.asyncio
async def test_a_stored_endpoint_that_turned_private_gets_no_post(
    site_factory: Any, push_service: PushService
) -> None:
    """Stored while allowed (or before its name moved), then posted with the rule on: the post
    is not made (the local service gets nothing)."""
    site: Site = await site_factory()
    ann, headers = await site.register("Ann")
    device = push_service.device()
    r = await site.http.post(
        "/api/notify/push/subscriptions", json=device.subscription(), headers=headers
    )
    assert r.status_code == 201, r.text
    push = site.services.notifier.push
    push.private_endpoints = False
    [target] = store.subscriptions(site.services.database, ann)
    result = push.post(target, b'{"title": "x"}', "t")
    assert result.status == 400
    assert push_service.received == []
