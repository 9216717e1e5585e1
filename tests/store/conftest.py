"""Each test's global keys on a real Redis (results stream, due set, lobby) are removed after
it: they have no expiry (a table's own keys do)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import REDIS_CLUSTER_URL, REDIS_URL, drop_namespace


@pytest.fixture(autouse=True)
def drop_results_stream(request: pytest.FixtureRequest, namespace: str) -> Iterator[None]:
    yield
    callspec = getattr(request.node, "callspec", None)
    backend = callspec.params.get("redis_client") if callspec is not None else None
    # Every key of the namespace and of namespaces made from it ("<namespace>b"): the global
    # ones have no expiry and would stay for good.
    if backend == "real":
        drop_namespace(REDIS_URL, namespace)
    elif backend == "cluster":
        drop_namespace(REDIS_CLUSTER_URL, namespace)
