"""The competition routes' one way to answer a store's refusal: a ``CompeteError`` becomes
``{"detail": {"code", "message", "values"?}}`` with its status (``refuse``), whether the store
ran in a worker thread (``run``: the SQL stores of clubs and events) or is awaited
(``answered``: the daily challenge's service)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, TypeVar

from starlette.concurrency import run_in_threadpool

from app.api.refusal import refusal
from app.compete.errors import CompeteError

T = TypeVar("T")


def refuse(error: CompeteError) -> NoReturn:
    raise refusal(error.status, error.code, error.message, error.values) from None


async def run(fn: Callable[..., T], *args: Any, **kw: Any) -> T:
    """``fn(*args, **kw)`` in a worker thread (the stores do SQL); its refusal answered."""
    try:
        return await run_in_threadpool(fn, *args, **kw)
    except CompeteError as error:
        refuse(error)


async def answered(call: Awaitable[T]) -> T:
    """The awaited ``call``; its refusal answered."""
    try:
        return await call
    except CompeteError as error:
        refuse(error)
