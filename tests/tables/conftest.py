"""Each test's global keys on a real Redis (results stream, due set, lobby) are removed after
it, by the same autouse fixture as the store tests (tests/store/conftest.py)."""

from tests.store.conftest import drop_results_stream

__all__ = ["drop_results_stream"]
