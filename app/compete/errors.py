"""What the competition stores refuse with: clubs (``ClubError``), events (``EventError``) and
the daily challenge (``DailyError``) each raise a subclass of ``CompeteError``, an HTTP status,
a stable code and a message; a refused call changes nothing. One class, so that their routes
answer any of them the same way (app.compete.http) and the stores stay free of web code."""

from __future__ import annotations


class CompeteError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
