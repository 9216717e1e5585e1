"""The due loop: each instance claims due bot turns and timers and acts on them.

Claims are leases in the Redis sorted sets, one per shard (see app.store.lua.CLAIM_DUE and
TableStore.claim_due, which shares a poll's batch among the shards): exactly one instance
holds an item at a time, and an item whose claimer died comes back.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import math

from app import logs
from app.stopping import cancel_until_done
from app.store import STORE_DOWN, keys
from app.tables.service import TableService

log = logging.getLogger(__name__)

# An early wake comes this long after the due time, so the claim (``score <= now``) finds it.
WAKE_MARGIN_SECONDS = 0.002


async def run_due_loop(
    service: TableService,
    stop: asyncio.Event,
    *,
    batch: int = 2 * keys.SHARDS,
    max_running: int = 500,
    finish_seconds: float = 2.0,
) -> None:
    """Claim due tables and act on each in its own task, so that a computer's search at one
    table never holds up the timers and computers of the others. A poll claims up to
    ``batch`` items; at least one per shard, so a poll reaches every shard's set.

    When ``stop`` is set (the server is shutting down) the work in hand gets
    ``finish_seconds`` to commit; what is still running then is cancelled and handed back:
    its items are due again at once, so another instance takes them on its next poll instead
    of after the lease."""
    settings = service.settings
    lease_ms = settings.due_lease_seconds * 1000
    running: dict[str, asyncio.Task[None]] = {}
    # Claimed again while still being worked on here: its work committed a new due time
    # (the next computer's turn, due at once) before the task ended. It runs again as soon as
    # the task ends; skipped, it would wait out the lease the claim just took.
    again: set[str] = set()
    store_down = False  # Redis is away: said once, not a traceback per poll
    wake = EarlyWake(service)
    service.store.due_written = wake.due_at

    def start(table_id: str) -> None:
        context = contextvars.copy_context()  # its log lines name the table
        context.run(logs.bind, table_id=table_id)
        task = asyncio.create_task(
            service.run_due(table_id), name=f"due:{table_id}", context=context
        )
        running[table_id] = task
        task.add_done_callback(functools.partial(finished, table_id))

    def finished(table_id: str, task: asyncio.Task[None]) -> None:
        running.pop(table_id, None)
        error = None if task.cancelled() else task.exception()
        if isinstance(error, STORE_DOWN):  # an outage, not a bug: the item is still claimed
            log.warning(
                "due work on table %s: Redis unavailable (%s); claimed again after its lease",
                table_id,
                error,
            )
        elif error is not None:
            log.error("due work failed on table %s: %r", table_id, error)
        if table_id in again and not stop.is_set():
            again.discard(table_id)
            start(table_id)

    try:
        while not stop.is_set():
            wake.clear()  # before the claim: a due time written during it wakes the next wait
            claimed: list[str] = []
            room = max_running - len(running)
            if room > 0:
                try:
                    # The service's clock: a test drives a turn-based table's days with it.
                    claimed = await service.store.claim_due(
                        service.clock(), lease_ms, min(batch, room)
                    )
                except STORE_DOWN as exc:
                    if not store_down:
                        log.warning("due loop: Redis unavailable (%s); trying each poll", exc)
                    store_down = True
                except Exception:
                    log.exception("could not claim due items")
                else:
                    if store_down:
                        log.warning("due loop: Redis answers again")
                    store_down = False
            for table_id in claimed:
                if table_id in running:
                    again.add(table_id)  # run again when this instance's work on it ends
                    continue
                start(table_id)
            if len(claimed) < batch:
                await wake.wait(stop, settings.due_poll_seconds)
    finally:
        wake.close()
        if service.store.due_written == wake.due_at:
            service.store.due_written = None
        if running:
            await asyncio.wait(list(running.values()), timeout=finish_seconds)
        unfinished = dict(running)
        for table_id, task in unfinished.items():
            await cancel_until_done(task, 1.0, f"the due item of table {table_id}")
        claimed_back = list(dict.fromkeys([*unfinished, *again]))
        if claimed_back:
            await hand_back(service, claimed_back)


class EarlyWake:
    """Wakes this instance's due loop when a due time its own writes set comes, rather than
    at the next poll (``HEARTS_DUE_POLL_SECONDS``): a computer's move or a timer written here
    is acted on when it is due. One wake is pending at a time, the earliest; polls still find
    every item (those written by other instances, and the later ones here)."""

    def __init__(self, service: TableService) -> None:
        self.clock = service.clock  # due times are on the service's clock (ms)
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at = math.inf  # the loop time the pending wake fires at

    def due_at(self, due_ms: float) -> None:
        at = self.loop.time() + max(0.0, (due_ms - self.clock()) / 1000) + WAKE_MARGIN_SECONDS
        if at >= self.timer_at:
            return
        if self.timer is not None:
            self.timer.cancel()
        self.timer_at = at
        self.timer = self.loop.call_at(at, self._fire)

    def _fire(self) -> None:
        self.timer, self.timer_at = None, math.inf
        self.event.set()

    def clear(self) -> None:
        self.event.clear()

    async def wait(self, stop: asyncio.Event, seconds: float) -> None:
        """Until the poll interval passed, a due time written here came, or ``stop``."""
        if self.event.is_set() or stop.is_set():
            return
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self.event.wait())]
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer, self.timer_at = None, math.inf


async def hand_back(service: TableService, table_ids: list[str]) -> None:
    """Make claimed items due now (only those still in the set: XX), releasing their lease."""
    try:
        await service.store.make_due_now(table_ids, service.clock())
        log.info("handed back %d due item(s) to the other instances", len(table_ids))
    except Exception:
        log.exception("could not hand back due items; they come back after the lease")
