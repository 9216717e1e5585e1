"""Errors of the table writer: a stable ``code`` for clients, a human message and the named
``values`` the page words the code with (app.engine.errors)."""

from __future__ import annotations

from app.engine.errors import Values


class TableError(Exception):
    """A request the table refuses; nothing was changed.

    Codes: ``unknown_table``, ``stale_version``, ``not_seated``, ``seat_taken``, ``bad_seat``,
    ``already_seated``, ``not_host``, ``seats_open``, ``wrong_status``, ``bad_level``,
    ``bad_chat``, ``between_hands``, ``forbidden``, ``busy``, ``bad_options``,
    ``too_many_tables`` and every engine reason code (``not_your_turn``, ``must_follow_suit``,
    ...), passed on unchanged.
    """

    def __init__(self, code: str, message: str, values: Values | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.values: dict[str, str | int | float] = dict(values or {})
