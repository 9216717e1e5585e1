"""The SQL copy of turn-based tables: one row per table, its newest committed version.

app.tables.durable writes it after each commit of a turn-based table (before the move is
answered) and reads it back when Redis lost or paged out the table. A write never takes a row
back in version: a copy older than the row is a no-op. The finished hands and games of that
commit are written in the same call (idempotent, app.db.results), so they are in SQL when the
move is answered even if Redis then loses its results stream; the outbox writes them again as
duplicates, which change nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
import sqlalchemy as sa
from starlette.concurrency import run_in_threadpool

from app.db.database import Database
from app.db.events import parse_event
from app.db.models import TurnBasedCopy, utcnow
from app.db.results import write_records
from app.store.paging import Copy
from app.store.records import encode_event


class SqlCopies:
    """``app.tables.durable.Copies`` over the app's database (calls run in a thread)."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.reads = 0  # SQL reads of a copy (the benchmark's "a page-in costs one read")
        self.writes = 0

    async def load(self, table_id: str) -> Copy | None:
        self.reads += 1
        return await run_in_threadpool(load_copy, self.database, table_id)

    async def save(self, copy: Copy, records: Sequence[Mapping[str, Any]] = ()) -> bool:
        self.writes += 1
        return await run_in_threadpool(save_copy, self.database, copy, records)

    async def recent(self, since_ms: float) -> list[str]:
        return await run_in_threadpool(recent_copies, self.database, since_ms)


def recent_copies(database: Database, since_ms: float) -> list[str]:
    """The tables whose copy was written at ``since_ms`` (epoch ms) or later."""
    since = datetime.fromtimestamp(since_ms / 1000, tz=UTC)
    table = TurnBasedCopy.__table__  # type: ignore[attr-defined]
    with database.session() as session:
        rows = session.execute(sa.select(table.c.table_id).where(table.c.saved_at >= since))
        return [str(r[0]) for r in rows]


def load_copy(database: Database, table_id: str) -> Copy | None:
    with database.session() as session:
        row = session.get(TurnBasedCopy, table_id)
        if row is None:
            return None
        moves = [orjson.dumps(m) for m in orjson.loads(row.moves)]
        return Copy(table_id, row.version, row.state.encode(), moves)


def save_copy(database: Database, copy: Copy, records: Sequence[Mapping[str, Any]] = ()) -> bool:
    """Store ``copy`` unless the row holds its version or a newer one (False then); then the
    commit's results records. One UPDATE (or INSERT for a new table) guarded by the version."""
    state = copy.state.decode()
    moves = "[" + ",".join(m.decode() for m in copy.moves) + "]"
    table = TurnBasedCopy.__table__  # type: ignore[attr-defined]
    with database.session() as session:
        updated = session.execute(
            sa.update(table)
            .where(table.c.table_id == copy.table_id, table.c.version < copy.version)
            .values(version=copy.version, state=state, moves=moves, saved_at=utcnow())
        )
        saved = bool(updated.rowcount)  # type: ignore[attr-defined]
        if not saved and session.get(TurnBasedCopy, copy.table_id) is None:
            session.add(
                TurnBasedCopy(
                    table_id=copy.table_id, version=copy.version, state=state, moves=moves
                )
            )
            try:
                session.flush()
                saved = True
            except sa.exc.IntegrityError:  # another instance inserted it first: compare again
                session.rollback()
                return save_copy(database, copy, records)
        session.commit()
    if records:
        write_records(database, [parse_event(orjson.loads(encode_event(r))) for r in records])
    return saved
