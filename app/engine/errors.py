"""Errors with stable reason codes; the code goes to the client unchanged."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of the engine's errors: a stable ``code`` and a sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class IllegalMove(EngineError):
    """A move that the rules do not allow now; the state it was tried on is unchanged."""


class RulesError(EngineError):
    """An option set that is unknown, malformed or impossible."""
