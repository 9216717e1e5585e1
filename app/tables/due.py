"""The due loop: each instance claims due bot turns and timers and acts on them.

Claims are leases in the Redis sorted set (see app.store.lua.CLAIM_DUE): exactly one
instance holds an item at a time, and an item whose claimer died comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time

from app.tables.service import TableService

log = logging.getLogger(__name__)


async def run_due_loop(
    service: TableService, stop: asyncio.Event, *, batch: int = 50, max_running: int = 500
) -> None:
    """Claim due tables and act on each in its own task, so that a computer's search at one
    table never holds up the timers and computers of the others."""
    settings = service.settings
    lease_ms = settings.due_lease_seconds * 1000
    running: dict[str, asyncio.Task[None]] = {}

    def finished(table_id: str, task: asyncio.Task[None]) -> None:
        running.pop(table_id, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("due work failed on table %s: %r", table_id, task.exception())

    try:
        while not stop.is_set():
            claimed: list[str] = []
            room = max_running - len(running)
            if room > 0:
                try:
                    claimed = await service.store.claim_due(
                        time.time() * 1000, lease_ms, min(batch, room)
                    )
                except Exception:
                    log.exception("could not claim due items")
            for table_id in claimed:
                if table_id in running:
                    continue  # still being worked on here (a long search); the lease renews
                task = asyncio.create_task(service.run_due(table_id), name=f"due:{table_id}")
                running[table_id] = task
                task.add_done_callback(functools.partial(finished, table_id))
            if len(claimed) < batch:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), settings.due_poll_seconds)
    finally:
        for task in list(running.values()):
            task.cancel()
        if running:
            await asyncio.gather(*running.values(), return_exceptions=True)
