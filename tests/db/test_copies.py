"""The SQL copy of turn-based tables (app.db.copies): one row per table that only moves
forward in version, on SQLite and PostgreSQL; the commit's results records written with it,
once, however often they are delivered."""

from __future__ import annotations

import asyncio
import uuid

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.db import Database
from app.db.copies import SqlCopies, load_copy, save_copy
from app.db.models import Game
from app.store.paging import Copy


def test_a_copy_never_goes_back_in_version(database: Database) -> None:
    assert load_copy(database, "t1") is None
    assert save_copy(database, Copy("t1", 3, b'{"a":3}', [b"[0,1]"]))
    assert not save_copy(database, Copy("t1", 2, b'{"a":2}', []))  # older: a no-op
    assert not save_copy(database, Copy("t1", 3, b'{"a":"x"}', []))  # the same version
    assert save_copy(database, Copy("t1", 5, b'{"a":5}', [b"[0,1]", b'[1,{"c":"2C"}]']))
    copy = load_copy(database, "t1")
    assert copy == Copy("t1", 5, b'{"a":5}', [b"[0,1]", b'[1,{"c":"2C"}]'])


# The database is shared by the examples: each writes its own table.
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=12))
def test_any_order_of_saves_keeps_the_newest(sqlite_database: Database, order: list[int]) -> None:
    table_id = uuid.uuid4().hex
    copies = SqlCopies(sqlite_database)
    for v in order:
        asyncio.run(copies.save(Copy(table_id, v, b'{"v":%d}' % v, [])))
    copy = asyncio.run(copies.load(table_id))
    assert copy is not None and copy.version == max(order)
    assert copy.state == b'{"v":%d}' % max(order)


def test_the_records_of_a_commit_are_written_once(database: Database) -> None:
    game = {
        "kind": "game",
        "table_id": "t2",
        "game_no": 1,
        "preset": "classic",
        "options": {},
        "seed": 7,
        "seats": [
            {"player_id": None, "bot_level": "easy", "replaced_by_bot": False, "name": f"B{i}"}
            for i in range(4)
        ],
        "private": False,
        "rated": False,
        "ended": "abandoned",
        "hands": 0,
        "totals": [0, 0, 0, 0],
        "winners": [],
        "moves": [],
        "started_at": 1_000,
        "ended_at": 2_000,
    }
    save_copy(database, Copy("t2", 1, b"{}", []), [game])
    save_copy(database, Copy("t2", 1, b"{}", []), [game])  # delivered again (a retry)
    with database.session() as session:
        found = session.execute(sa.select(Game).where(Game.table_id == "t2")).scalars().all()
    assert len(found) == 1 and found[0].status == "abandoned"
