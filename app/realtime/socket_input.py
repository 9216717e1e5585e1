"""What a socket route takes from its path and query string, checked before anything is read.

The HTTP routes refuse bad input with 422 before a handler runs (FastAPI's validation and
app/api/strict.py's ``bad_text``); a socket route has its handshake accepted first and then
closes. These checks give every socket route the same answers: an ``error`` naming the input
(``bad_text``, ``bad_table_id``, ``bad_game_id``, ``bad_seat``, ``bad_share``), then close
4400. An id that is well formed but names nothing is the route's own 4404; 1013 ("try again
later") is kept for a service that is really down, never for input no service could take (a
game id past PostgreSQL's integer range was one). docs/protocol.md, "Close codes".
"""

from __future__ import annotations

import re

from starlette.websockets import WebSocket

from app.api.strict import text_problem

# A table id as app/tables/seats.py makes them (URL-safe letters and digits), with room to
# spare: anything else names no table and must not reach a Redis key (no "{", "}" hash tag).
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# Game ids are PostgreSQL integers (the HTTP routes' GameIdPath bounds).
GAME_ID_MAX = 2**31 - 1
SEAT_MAX = 15
SHARE_MAX_CHARS = 64  # the HTTP routes' ShareQuery
_WHOLE = re.compile(r"[0-9]{1,12}")


# Its own type, caught by name; the code-and-message form of the other error types.
class BadSocketInput(Exception):
    """Input a socket route refuses: ``code`` for the error message, close 4400."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_text(ws: WebSocket) -> None:
    """Refuse (``bad_text``) a path parameter or query value the server could not store or
    send back (a NUL character, a lone surrogate), as StrictRoute does for HTTP."""
    for name, value in ws.path_params.items():
        if isinstance(value, str) and (problem := text_problem(value)):
            raise BadSocketInput("bad_text", f"the path's {name} {problem}")
    for name, value in ws.query_params.multi_items():
        if problem := text_problem(name) or text_problem(value):
            raise BadSocketInput("bad_text", f"a query parameter {problem}")


def whole_number(value: str | None, code: str, name: str, low: int, high: int) -> int:
    """``value`` as a whole number from ``low`` to ``high`` (written in digits only)."""
    if value is None or not _WHOLE.fullmatch(value) or not low <= int(value) <= high:
        raise BadSocketInput(code, f"{name} must be a whole number from {low} to {high}")
    return int(value)


def table_id(value: str) -> str:
    """A table id that could name a table (``bad_table_id`` otherwise)."""
    if not TABLE_ID.fullmatch(value):
        raise BadSocketInput("bad_table_id", "a table id is 1 to 64 letters, digits, '-' or '_'")
    return value


def game_id(value: str) -> int:
    return whole_number(value, "bad_game_id", "the game id", 1, GAME_ID_MAX)


def seat(value: str | None) -> int:
    return whole_number(value, "bad_seat", "seat", 0, SEAT_MAX)


def share(value: str | None) -> str | None:
    if value is not None and len(value) > SHARE_MAX_CHARS:
        raise BadSocketInput("bad_share", f"a share link's token is at most {SHARE_MAX_CHARS}")
    return value
