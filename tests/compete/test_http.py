"""The competition routes' answer to a store's refusal (app.compete.http): every store's error
(clubs, events, the daily challenge) becomes the same HTTP refusal, whether the store ran in a
worker thread or was awaited; any other exception is not turned into one."""

from __future__ import annotations

import threading

import pytest
from fastapi import HTTPException

from app.compete.clubs import ClubError
from app.compete.daily import DailyError
from app.compete.errors import CompeteError
from app.compete.events import EventError
from app.compete.http import answered, refuse, run


def _answer(error: HTTPException) -> tuple[int, object]:
    return error.status_code, error.detail


@pytest.mark.parametrize("kind", [ClubError, EventError, DailyError])
def test_each_store_error_is_one_refusal(kind: type[CompeteError]) -> None:
    with pytest.raises(HTTPException) as caught:
        refuse(kind(409, "room_full", "full"))
    assert _answer(caught.value) == (409, {"code": "room_full", "message": "full"})


@pytest.mark.asyncio
async def test_run_calls_in_a_worker_thread_and_answers_a_refusal() -> None:
    def store(a: int, *, b: int) -> tuple[int, bool]:
        return a + b, threading.current_thread() is threading.main_thread()

    assert await run(store, 2, b=3) == (5, False)

    def refusing() -> None:
        raise EventError(404, "unknown_event", "no such event")

    with pytest.raises(HTTPException) as caught:
        await run(refusing)
    assert _answer(caught.value) == (404, {"code": "unknown_event", "message": "no such event"})

    def broken() -> None:
        raise KeyError("a bug stays a bug")

    with pytest.raises(KeyError):
        await run(broken)


@pytest.mark.asyncio
async def test_answered_awaits_and_answers_a_refusal() -> None:
    async def fine() -> str:
        return "ok"

    async def refusing() -> str:
        raise DailyError(403, "deal_not_reached", "not yet")

    assert await answered(fine()) == "ok"
    with pytest.raises(HTTPException) as caught:
        await answered(refusing())
    assert _answer(caught.value) == (403, {"code": "deal_not_reached", "message": "not yet"})
