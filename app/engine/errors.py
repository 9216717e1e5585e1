"""Errors with stable reason codes; the code goes to the client unchanged.

A code may carry named values (``values``) for the page to word it in the player's language:
a claim's refusal names its reason (``{"reason": "too_long"}``), never only an English
sentence. The sentence (``message``) is for people reading logs and API answers."""

from __future__ import annotations

from collections.abc import Mapping

Values = Mapping[str, str | int | float]


class EngineError(ValueError):
    """Base of the engine's errors: a stable ``code``, a sentence for people and the named
    ``values`` the page words the code with (empty for most codes)."""

    def __init__(self, code: str, message: str, values: Values | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.values: dict[str, str | int | float] = dict(values or {})

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code, "message": self.message}
        if self.values:
            out["values"] = dict(self.values)
        return out


class IllegalMove(EngineError):
    """A move that the rules do not allow now; the state it was tried on is unchanged."""


class RulesError(EngineError):
    """An option set that is unknown, malformed or impossible."""
