"""The WebSocket protocol: every message is a JSON object with a ``type`` (docs/protocol.md).

Client messages are checked here by hand: clear errors, no exceptions escaping, and cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

PROTOCOL = 1

# Client message types and the fields each one needs besides ``type``.
COMMANDS: dict[str, tuple[str, ...]] = {
    "move": ("id", "move"),
    "sit": ("id", "seat"),
    "leave": ("id",),
    "add_bot": ("id", "seat"),
    "remove_bot": ("id", "seat"),
    "start": ("id",),
    "rematch": ("id",),
    "chat": ("id", "text"),
    "back": ("id",),
    "give_time": ("id", "seat", "seconds"),
    "hint": ("id",),
}
CLIENT_TYPES = ("hello", "ping", "resync", *COMMANDS)


# Its own type (the socket's refusals, caught by name); the code-and-message form of the
# other error types.
class ProtocolError(Exception):
    def __init__(self, code: str, message: str, msg_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id


@dataclass(frozen=True, slots=True)
class ClientMessage:
    type: str
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])


def parse_client(raw: str | bytes, max_bytes: int) -> ClientMessage:
    if len(raw) > max_bytes:
        raise ProtocolError("too_large", f"messages are limited to {max_bytes} bytes")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a 'type'")
    kind = data.get("type")
    msg_id = data.get("id")
    msg_id = msg_id if isinstance(msg_id, str) else None
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind!r}; expected one of {', '.join(CLIENT_TYPES)}",
            msg_id,
        )
    for name in COMMANDS.get(kind, ()):
        if name not in data:
            raise ProtocolError("bad_message", f"'{kind}' needs the field '{name}'", msg_id)
    if kind in COMMANDS:
        if not isinstance(data["id"], str) or not 1 <= len(data["id"]) <= 64:
            raise ProtocolError("bad_message", "'id' must be a string of 1 to 64 characters")
        if "seat" in data and (not isinstance(data["seat"], int) or isinstance(data["seat"], bool)):
            raise ProtocolError("bad_message", "'seat' must be a number", msg_id)
        version = data.get("version")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            raise ProtocolError("bad_message", "'version' must be a number", msg_id)
    return ClientMessage(kind, data)


def error(
    code: str,
    message: str,
    msg_id: str | None = None,
    *,
    retry_after: float | None = None,
    values: Mapping[str, object] | None = None,
) -> bytes:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if values:  # the named values the page words the code with (app.engine.errors)
        out["values"] = dict(values)
    if msg_id is not None:
        out["id"] = msg_id
    if retry_after is not None:  # a retryable error: seconds to wait before trying again
        out["retry_after"] = retry_after
    return orjson.dumps(out)


def ack(msg_id: str, version: int, **extra: Any) -> bytes:
    return orjson.dumps({"type": "ack", "id": msg_id, "version": version, **extra})
