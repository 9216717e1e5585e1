"""Turn-based tables that outlive what Redis loses, and leave Redis while nobody plays them.

A turn-based game lasts days or weeks: longer than Redis can be trusted to keep a key (a
restart without AOF, a failover's lost writes, eviction). So every commit of a turn-based
table also writes the new version (its state blob and its game's moves) to SQL, after Redis
committed it and before the move is answered (``save``). SQL then always holds every answered
move, and never goes back in version (an older copy is a no-op). Moves there are rare (hours
apart), so the cost, one SQL read and one SQL write per commit, is paid where it is cheap.

- **Restore**: a table whose state Redis does not have is put back from SQL on its next read
  (``restore``, from the writer's fetch: one SQL read); before each commit of a turn-based
  table, a copy newer than what Redis holds (Redis lost writes) is put back and the change is
  made again on it (``catch_up``). A restore never takes a table back in version.
- **Page-out**: a playing turn-based table idle for ``turn_based_page_out_seconds`` with no
  socket open on it leaves Redis when its due item comes (``page_out``): its state, log and
  move list are deleted once SQL holds its newest version; its version number, its lobby line
  and its clock's due item stay. Opening it, a move, or its clock falling due read it, which
  restores it.

The guarantee: a move answered to its player is in SQL. If the SQL write fails (the database is
down), the move is still answered (Redis has it) and the failure logged and counted
(``saves_failed``); the next commit's copy carries it, being the whole table. Only a move
answered while SQL was down and lost by Redis before the next successful copy is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import orjson

import app.tables.timers as timers
from app.settings import Settings
from app.store import LoadedTable, TableStore
from app.store.errors import StoreUnavailable
from app.store.paging import Copy, TablePaging
from app.tables.change import FindGameId
from app.tables.mine import GameIndex
from app.tables.model import Table

log = logging.getLogger(__name__)

LOST_LOOKBACK_DAYS = 30  # restore_lost: copies written this recently are looked at


class Copies(Protocol):
    """Where the copies are kept (app.db.copies.SqlCopies)."""

    async def load(self, table_id: str) -> Copy | None: ...

    async def save(self, copy: Copy, records: Sequence[Mapping[str, Any]] = ()) -> bool: ...

    async def recent(self, since_ms: float) -> list[str]: ...


class Durable:
    """The writer's side of the copies: restore, catch up, save, page out."""

    def __init__(
        self,
        store: TableStore,
        settings: Settings,
        copies: Copies,
        find_game_id: FindGameId | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.copies = copies
        self.find_game_id = find_game_id
        self.paging = TablePaging(store)
        self.saves_failed = 0
        self.restored = 0
        self.paged_out = 0
        # Versions this instance just restored from SQL (table -> version): the check that
        # follows, on that version, needs no second SQL read.
        self._fresh: dict[str, int] = {}

    async def restore(
        self, table_id: str, now: float, *, copy: Copy | None = None
    ) -> LoadedTable | None:
        """Put SQL's copy of a table back into Redis (None: SQL has none). What Redis holds
        after it is returned: the copy, or a newer version that got there first."""
        if copy is None:
            copy = await self._load(table_id)
            if copy is None:
                return None
        table = Table.from_json(orjson.loads(copy.state), copy.version)
        due = timers.next_due(table, now, self.settings, self.find_game_id, page_out=True)
        done, current = await self.paging.restore(
            table_id,
            version=copy.version,
            blob=copy.state,
            moves=copy.moves,
            ttl_seconds=timers.ttl(table, self.settings),
            due="remove" if due is None else due,
        )
        if done:
            self.restored += 1
            if len(self._fresh) > 10_000:
                self._fresh.clear()
            self._fresh[table_id] = copy.version
            log.info("table %s restored from SQL at version %d", table_id, copy.version)
            return LoadedTable(copy.version, copy.state)
        log.info("table %s: Redis holds version %d, not restored", table_id, current)
        return await self.store.load(table_id)

    async def peek(self, table_id: str) -> LoadedTable | None:
        """SQL's copy of a table, left out of Redis (None: none)."""
        copy = await self._load(table_id)
        return None if copy is None else LoadedTable(copy.version, copy.state)

    async def _load(self, table_id: str) -> Copy | None:
        """The copy, for a table Redis does not hold: an unreachable database is then an
        outage like Redis's (503 store_unavailable, the command may be sent again)."""
        try:
            return await self.copies.load(table_id)
        except Exception as exc:
            raise StoreUnavailable(f"the SQL copy of table {table_id} is unreachable") from exc

    async def catch_up(self, table_id: str, version: int, now: float) -> bool:
        """Before a commit over ``version``: True when SQL holds a newer version (Redis lost
        writes); it is then put back, and the caller loads the table again."""
        if self._fresh.pop(table_id, None) == version:
            return False  # just restored from SQL: nothing newer there
        try:
            copy = await self.copies.load(table_id)
        except Exception:
            # The database is away: go on with what Redis holds (docs/turn-based.md).
            log.warning("table %s: SQL copy unreachable, not compared", table_id, exc_info=True)
            return False
        if copy is None or copy.version <= version:
            return False
        log.warning(
            "table %s: Redis was at version %d, SQL at %d; restoring",
            table_id,
            version,
            copy.version,
        )
        await self.restore(table_id, now, copy=copy)
        return True

    async def save(
        self, table: Table, blob: bytes, records: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        """Copy a version just committed (and its results records) to SQL."""
        try:
            moves = (await self.store.game_moves(table.id))[: table.move_no]
            await self.copies.save(Copy(table.id, table.version, blob, moves), records)
        except Exception:
            self.saves_failed += 1
            log.exception("table %s: version %d not copied to SQL", table.id, table.version)

    def idle(self, table: Table, now: float) -> bool:
        """Whether the table may be paged out now (sockets aside)."""
        seconds = self.settings.turn_based_page_out_seconds
        return (
            table.turn_based
            and table.status == "playing"
            and seconds > 0
            and now >= table.updated_ms + seconds * 1000
        )

    async def page_out(self, table: Table, now: float) -> bool:
        """Take an idle table out of Redis once SQL holds its version (one SQL read)."""
        copy = await self.copies.load(table.id)
        if copy is None or copy.version != table.version:
            return False
        due = timers.next_due(table, now, self.settings, self.find_game_id)
        done = await self.paging.page_out(
            table.id, version=table.version, due="remove" if due is None else due
        )
        if done:
            self.paged_out += 1
            log.info("table %s paged out at version %d", table.id, table.version)
        return done

    async def restore_lost(self, now: float, games: GameIndex) -> int:
        """Put back every turn-based game SQL holds that Redis lost whole (a restart of the
        embedded stand-in, a flushed or replaced Redis): its table, its clock's due item and
        its players' My games entries, so that nobody has to know its link to carry on. Run
        once at start; a table Redis still has (paged out included) is left alone. The copies
        looked at: those written in the last ``LOST_LOOKBACK_DAYS`` (a game's clock plays a
        move for an absent player within days). Returns the number restored."""
        since = now - LOST_LOOKBACK_DAYS * 86_400_000
        restored = 0
        for table_id in await self.copies.recent(since):
            if await self.paging.known(table_id):
                continue
            copy = await self.copies.load(table_id)
            if copy is None:
                continue
            table = Table.from_json(orjson.loads(copy.state), copy.version)
            if table.status == "over":
                continue
            if await self.restore(table_id, now, copy=copy) is None:
                continue
            for seat in table.seats:
                if seat.kind == "human" and seat.player_id:
                    await games.add(seat.player_id, table_id, now)
            restored += 1
        if restored:
            log.warning("%d turn-based table(s) Redis had lost restored from SQL", restored)
        return restored
