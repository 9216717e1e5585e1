"""The due loop: each instance claims due bot turns and timers and acts on them.

Claims are leases in the Redis sorted set (see app.store.lua.CLAIM_DUE): exactly one
instance holds an item at a time, and an item whose claimer died comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from app.tables.service import TableService

log = logging.getLogger(__name__)


async def run_due_loop(service: TableService, stop: asyncio.Event, *, batch: int = 50) -> None:
    settings = service.settings
    lease_ms = settings.due_lease_seconds * 1000
    while not stop.is_set():
        try:
            claimed = await service.store.claim_due(time.time() * 1000, lease_ms, batch)
        except Exception:
            log.exception("could not claim due items")
            claimed = []
        if claimed:
            results = await asyncio.gather(
                *(service.run_due(table_id) for table_id in claimed), return_exceptions=True
            )
            for table_id, result in zip(claimed, results, strict=True):
                if isinstance(result, BaseException):
                    log.error("due work failed on table %s: %r", table_id, result)
        if len(claimed) < batch:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), settings.due_poll_seconds)
