"""The results records' encoding: what a commit XADDs to its shard's results stream.

Here, not in app.db, so that the move path (app.tables) encodes records without importing
SQLAlchemy; app.db.events parses them on the SQL side (the same ``EVENT_SCHEMA``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

# The version of the record format (app.db.events reads every version it knows).
EVENT_SCHEMA = 1
# The stream field that holds a record.
FIELD = "event"
EVENT_KINDS = ("hand", "game")


def encode_event(event: Mapping[str, Any]) -> bytes:
    """The stream field value of an event (for a caller that XADDs it itself, e.g. in Lua)."""
    if not isinstance(event, Mapping) or event.get("kind") not in EVENT_KINDS:
        raise ValueError("an outbox event is an object whose 'kind' is 'hand' or 'game'")
    body = dict(event)
    body.setdefault("v", EVENT_SCHEMA)
    return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
