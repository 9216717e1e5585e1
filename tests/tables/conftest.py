"""Each test's results stream on a real Redis is removed after it (it has no expiry)."""

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
            client.delete("{" + namespace + ":outbox}:results")
        finally:
            client.close()
