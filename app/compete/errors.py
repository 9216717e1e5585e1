"""What the competition stores refuse with: clubs (``ClubError``), events (``EventError``) and
the daily challenge (``DailyError``) each raise a subclass of ``CompeteError``, an HTTP status,
a stable code and a message; a refused call changes nothing. One class, so that their routes
answer any of them the same way (app.compete.http) and the stores stay free of web code.
``checked_name`` is the name rule clubs and events share."""

from __future__ import annotations

from app.text import TextRuleError, clean_name

NAME_MAX_CHARS = 40  # a club's or an event's name


class CompeteError(Exception):
    """``values``: the named values the page words the code with (a limit)."""

    def __init__(
        self, status: int, code: str, message: str, values: dict[str, str | int] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.values = dict(values or {})


def checked_name(name: object, error: type[CompeteError], whose: str) -> str:
    """``name`` cleaned by app.text.clean_name's rules, 1 to ``NAME_MAX_CHARS`` characters;
    else ``error`` 422 ``bad_name`` (``whose``: "a club's", "an event's", for its message)."""
    try:
        clean = clean_name(name)
    except (TextRuleError, ValueError) as exc:
        raise error(422, "bad_name", str(exc)) from None
    if not 1 <= len(clean) <= NAME_MAX_CHARS:
        raise error(422, "bad_name", f"{whose} name has 1 to {NAME_MAX_CHARS} characters")
    return clean
