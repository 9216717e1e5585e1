"""An HTTP refusal as every route writes it: ``{"detail": {"code", "message", "values"?}}``.

The code is stable and the page words it from its message catalog (static/i18n/<lang>.error.json);
the message is an English sentence for API clients and logs; ``values`` are the named values
the page's words need (a ban's end, a limit), never shown as the server wrote them."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import HTTPException


def refusal(
    status: int,
    code: str,
    message: str,
    values: Mapping[str, object] | None = None,
    headers: Mapping[str, str] | None = None,
) -> HTTPException:
    detail: dict[str, object] = {"code": code, "message": message}
    if values:
        detail["values"] = dict(values)
    return HTTPException(status, detail=detail, headers=dict(headers) if headers else None)
