"""Log lines: readable text by default, or one JSON object per line (``HEARTS_LOG_FORMAT=json``).

A JSON line has ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger`` and
``message``, then ``table_id`` and ``player_id`` when the code that logged runs for one (the
table socket's handler and the commands it runs, the due work of a table), ``exc_info`` with
the traceback of an exception. The ids live in context variables, so every log call in that
task (and the tasks it starts) carries them without passing them along.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from datetime import UTC, datetime

import orjson

TABLE_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("table_id", default=None)
PLAYER_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("player_id", default=None)

TEXT_FORMAT = "%(levelname)s %(name)s %(message)s"
# The loggers uvicorn (and fastapi-cli) give handlers of their own: JSON mode sends them to
# the root's one handler instead, so every line has the same shape.
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "fastapi", "fastapi_cli")


def bind(*, table_id: str | None = None, player_id: str | None = None) -> None:
    """Name the table and player the current task works for, in its log lines."""
    if table_id is not None:
        TABLE_ID.set(table_id)
    if player_id is not None:
        PLAYER_ID.set(player_id)


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        table_id, player_id = TABLE_ID.get(), PLAYER_ID.get()
        if table_id is not None:
            line["table_id"] = table_id
        if player_id is not None:
            line["player_id"] = player_id
        if record.exc_info:
            line["exc_info"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


class _JsonHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler JSON mode installs (a type of its own, so installing twice is a no-op)."""


def configure(log_format: str, level: str) -> None:
    """Make the process's logs ``log_format`` ("text" or "json") at ``level``.

    Text leaves a configuration that exists alone (uvicorn's, a test's) and otherwise adds one
    plain handler. JSON puts one handler on the root and sends the server's own loggers to it.
    """
    root = logging.getLogger()
    root.setLevel(level.upper())
    if log_format != "json":
        if not root.handlers:
            logging.basicConfig(format=TEXT_FORMAT)
        return
    if not any(isinstance(h, _JsonHandler) for h in root.handlers):
        handler = _JsonHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        root.handlers = [handler]
    for name in SERVER_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
