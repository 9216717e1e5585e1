"""The move path does not import SQLAlchemy: the results records are encoded by app.store.records,
and the SQL side (app.db) is loaded only by what writes to or reads from SQL."""

from __future__ import annotations

import subprocess
import sys


def test_table_service_does_not_load_sqlalchemy() -> None:
    probe = (
        "import sys\n"
        "import app.tables.service, app.tables.due, app.store\n"
        "loaded = sorted(m for m in sys.modules if m == 'sqlalchemy' or m.startswith('app.db'))\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "", result.stdout


def test_the_sql_side_reads_what_the_move_path_encodes() -> None:
    import orjson
    import pytest

    from app.db.events import HandRecord, parse_event
    from app.store.records import EVENT_SCHEMA, encode_event
    from tests.db.helpers import hand_event, seats_of

    event = hand_event(seats_of("a", "b", "c", "d"), game_no=2, hand_no=3, points=[26, 0, 0, 0])
    raw = encode_event(event)
    assert orjson.loads(raw)["v"] == EVENT_SCHEMA
    parsed = parse_event(orjson.loads(raw))
    assert isinstance(parsed, HandRecord)
    assert (parsed.game_no, parsed.hand_no, parsed.points) == (2, 3, (26, 0, 0, 0))
    with pytest.raises(ValueError):
        encode_event({"kind": "chat"})
