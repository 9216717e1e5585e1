"""Text that the server cannot store or send back is refused before any route sees it.

Two kinds of text get through JSON and URLs but break later:
- a lone surrogate (``"\\ud800"`` in a JSON body) is not Unicode: encoding it as UTF-8 fails,
  so the answer that echoes it (a validation error, a refusal naming the character) raised
  ``UnicodeEncodeError`` and the client got a bare 500 with its connection dropped;
- a NUL character cannot be stored by PostgreSQL (``ValueError`` from the driver: a 500).

``StrictRoute`` is the route class of every HTTP router: before the route's own parsing it
checks the path parameters, the query string and the JSON body, and answers 422 ``bad_text``
for either kind, naming where it was. The handlers below keep error answers encodable even for
input that slips past (they never echo a lone surrogate), and answer 503
``database_unavailable`` with Retry-After when the database does not answer. ``StrictBody``
is the base of the request bodies: their types are taken as they are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

MAX_DEPTH = 64


class StrictBody(BaseModel):
    """A request body taken as it is: "yes" is not true, "5" is not 5 (refuse rather than bend)."""

    model_config = ConfigDict(strict=True)


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be taken, or None."""
    if "\x00" in text:
        return "holds a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (a lone surrogate)"
    return None


def _first_problem(value: Any, where: str, depth: int = 0) -> tuple[str, str] | None:
    if isinstance(value, str):
        problem = text_problem(value)
        return (where, problem) if problem else None
    if depth > MAX_DEPTH:
        return None  # too deep for us to walk: the route's own validation refuses such input
    if isinstance(value, dict):
        for key, item in value.items():
            found = _first_problem(key, where, depth + 1) or _first_problem(
                item, f"{where}.{key}" if text_problem(key) is None else where, depth + 1
            )
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_problem(item, f"{where}[{i}]", depth + 1)
            if found:
                return found
    return None


def _refuse(where: str, problem: str) -> HTTPException:
    return HTTPException(
        422, detail={"code": "bad_text", "message": f"{where} {problem}: nothing was changed"}
    )


async def check_request(request: Request) -> None:
    """Raise 422 ``bad_text`` when a path parameter, query value or JSON body string holds
    text the server cannot store or send back."""
    for name, value in request.path_params.items():
        if isinstance(value, str) and (problem := text_problem(value)):
            raise _refuse(f"the path's {name}", problem)
    for name, value in request.query_params.multi_items():
        problem = text_problem(name) or text_problem(value)
        if problem:
            raise _refuse("a query parameter", problem)
    if request.method in ("POST", "PUT", "PATCH", "DELETE"):
        body = await request.body()
        if body and (b"\\u" in body or b"\x00" in body):
            try:
                data = json.loads(body)
            except ValueError:
                return  # not JSON: the route's validation answers
            found = _first_problem(data, "the body")
            if found:
                raise _refuse(*found)


class StrictRoute(APIRoute):
    """An APIRoute that runs ``check_request`` first."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            await check_request(request)
            return await handler(request)

        return strict_handler


def _safe(value: Any) -> Any:
    """``value`` with every string made encodable (a lone surrogate becomes U+FFFD)."""
    if isinstance(value, str):
        if text_problem(value) is None:
            return value
        return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_safe(k): _safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_safe(v) for v in value]
    return value


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 answer, but encodable whatever the input was (it echoes the input)."""
    assert isinstance(exc, RequestValidationError)
    errors = [
        {k: v for k, v in error.items() if k in ("type", "loc", "msg", "input")}
        for error in exc.errors()
    ]
    return JSONResponse({"detail": _safe(jsonable_encoder(errors))}, status_code=422)


async def http_error(_request: Request, exc: Exception) -> Response:
    """Starlette's HTTPException answer, with its detail made encodable."""
    assert isinstance(exc, StarletteHTTPException)
    headers = getattr(exc, "headers", None)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=headers)
    return JSONResponse({"detail": _safe(exc.detail)}, status_code=exc.status_code, headers=headers)


DATABASE_RETRY_AFTER_SECONDS = 5


def _unavailable(code: str, message: str, retry_after: int) -> JSONResponse:
    """503 with a stable code and Retry-After, never a bare 500; nothing was changed."""
    return JSONResponse(
        {"detail": {"code": code, "message": message}},
        status_code=503,
        headers={"Retry-After": str(retry_after)},
    )


async def database_unavailable(_request: Request, _exc: Exception) -> JSONResponse:
    """The database did not answer (down, restarting, unreachable). Nothing was changed (the
    session was rolled back)."""
    return _unavailable(
        "database_unavailable",
        "the database is not answering; try again in a few seconds",
        DATABASE_RETRY_AFTER_SECONDS,
    )


async def store_unavailable(_request: Request, _exc: Exception) -> JSONResponse:
    """Redis did not answer (down, restarting, unreachable). Nothing was changed: every table
    change is one atomic Redis step."""
    from app.store import RETRY_AFTER_SECONDS

    return _unavailable(
        "store_unavailable",
        "the game store is not answering; try again in a few seconds",
        RETRY_AFTER_SECONDS,
    )


def install(app: Any) -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
    from sqlalchemy.exc import InterfaceError, OperationalError

    from app.store import StoreUnavailable

    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    # OperationalError: connection refused or lost, server shutting down, timeouts;
    # InterfaceError: the driver's connection is gone.
    app.add_exception_handler(OperationalError, database_unavailable)
    app.add_exception_handler(InterfaceError, database_unavailable)
    # Redis away: redis-py's connection errors (BusyLoadingError while it reloads its data
    # included) and the pipelined move-path client's StoreUnavailable.
    app.add_exception_handler(RedisConnectionError, store_unavailable)
    app.add_exception_handler(RedisTimeoutError, store_unavailable)
    app.add_exception_handler(StoreUnavailable, store_unavailable)
