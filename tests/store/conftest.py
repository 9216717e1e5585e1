"""Each test's global keys on a real Redis (results stream, due set, lobby) are removed after
it: they have no expiry (a table's own keys do)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from tests.conftest import REDIS_URL


@pytest.fixture(autouse=True)
def drop_results_stream(request: pytest.FixtureRequest, namespace: str) -> Iterator[None]:
    yield
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("redis_client") == "real":
        client = redis.Redis.from_url(REDIS_URL)
        try:
            # Every key of the namespace and of namespaces made from it ("<namespace>b"): the
            # global ones have no expiry and would stay for good.
            doomed = list(client.scan_iter(match=f"*{namespace}*", count=1000))
            if doomed:
                client.delete(*doomed)
        finally:
            client.close()
