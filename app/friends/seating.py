"""Who may take a seat, as friends' blocks say: a player blocked by someone seated at a table
is refused a seat there (``blocked``), at every door a seat is taken through (the table
socket's ``sit``, a friend's join, an accepted invitation: all go through the table service's
``sit``, which asks this gate). Checked in SQL when the seat is taken, never from a copy made
earlier, so a block made a moment ago holds.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from app.db import Database
from app.friends import store
from app.tables import Table, TableError


async def refuse_blocked(database: Database, player_id: str, table: Table) -> None:
    """Raise ``blocked`` when a human seated at ``table`` blocked ``player_id``."""
    others = [
        seat.player_id
        for seat in table.seats
        if seat.kind == "human" and seat.player_id and seat.player_id != player_id
    ]
    if not others:
        return
    refused: bool = await run_in_threadpool(store.blocked_by, database, player_id, others)
    if refused:
        raise TableError("blocked", "a player at this table has blocked you")
