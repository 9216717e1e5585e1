"""Errors of the table writer: a stable ``code`` for clients and a human message."""

from __future__ import annotations


class TableError(Exception):
    """A request the table refuses; nothing was changed.

    Codes: ``unknown_table``, ``stale_version``, ``not_seated``, ``seat_taken``, ``bad_seat``,
    ``already_seated``, ``not_host``, ``seats_open``, ``wrong_status``, ``bad_level``,
    ``bad_chat``, ``between_hands``, ``forbidden``, ``busy``, ``bad_options``,
    ``too_many_tables`` and every engine reason code (``not_your_turn``, ``must_follow_suit``,
    ...), passed on unchanged.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
