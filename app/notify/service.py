"""The notifier: the one call producers make, ``await notifier.send(player_id, kind, ...)``.

It never blocks the caller for long and never raises for a delivery problem: the notice is
queued and a background task hands it to each channel the player wants for that kind (Web
Push, e-mail). A channel that fails is logged; the move or request that caused the notice
is not affected. With no channel configured the notice is written to the log.

Exactly-once enough: the caller calls once per event (after its commit); each subscription or
address gets at most one delivery of it (retries only when the peer said it took nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.stopping import STOP_SECONDS, cancel_until_done, run_within
from app.store.sockets import SocketCounts, table_sockets_key

log = logging.getLogger(__name__)

# The kinds a player chooses about, in the order the settings page lists them.
KINDS: tuple[str, ...] = (
    "your_turn",
    "time_almost_up",
    "game_over",
    "invitation",
    "friend_request",
    "event_scheduled",
    "event_soon",
    "event_started",
)
# Kinds about one table: a push for them is skipped while the player has that table open.
TABLE_KINDS = frozenset({"your_turn", "time_almost_up", "game_over", "invitation"})


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice to one player. ``data`` holds only public words (a name, a table's title):
    never a card, a seed or a private table's code (the channels copy it into what they send)."""

    player_id: str
    kind: str
    table_id: str | None = None
    data: Mapping[str, object] = field(default_factory=dict)
    at: float = field(default_factory=time.time)  # epoch seconds the producer asked


class Channel(Protocol):
    """A way to reach a player (app.notify.push, app.notify.mail)."""

    name: str

    async def deliver(self, notice: Notice, *, away: bool) -> None:
        """Deliver ``notice`` if the player wants it on this channel (``away``: the player
        has no socket on the notice's table, or it names none)."""


# Whether the player has a socket open on the table now (any instance).
HasSocket = Callable[[str, str], Awaitable[bool]]


class LogChannel:
    """The channel of last resort: the notice in the log (no push or e-mail configured)."""

    name = "log"

    async def deliver(self, notice: Notice, *, away: bool) -> None:
        log.info(
            "notice %s for player %s (table %s, away %s)",
            notice.kind,
            notice.player_id,
            notice.table_id or "-",
            away,
        )


class Notifier:
    """Queues notices and hands each to every channel; ``start`` before, ``stop`` after."""

    def __init__(
        self,
        channels: list[Channel] | None = None,
        *,
        has_socket: HasSocket | None = None,
        queue_size: int = 10_000,
    ) -> None:
        self.channels: list[Channel] = channels if channels is not None else [LogChannel()]
        self.has_socket = has_socket
        self._queue: asyncio.Queue[Notice] | None = None
        self._queue_size = queue_size
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self.dropped = 0  # notices refused because the queue was full
        # The channels by name, and the threads they share (app.notify.setup sets them).
        self.push: Any = None
        self.mail: Any = None
        self.executor: Executor | None = None

    async def send(
        self,
        player_id: str,
        kind: str,
        *,
        table_id: str | None = None,
        data: Mapping[str, object] | None = None,
    ) -> None:
        """Queue one notice for ``player_id``; returns at once. ``kind`` is one of ``KINDS``
        (ValueError otherwise: a producer's bug, not the player's)."""
        if kind not in KINDS:
            raise ValueError(f"unknown notice kind {kind!r}; one of {', '.join(KINDS)}")
        if not isinstance(player_id, str) or not player_id:
            raise ValueError("player_id must be a non-empty string")
        notice = Notice(player_id, kind, table_id, dict(data or {}))
        if self._queue is None:  # not started (a test, a script): deliver in line
            await self.process(notice)
            return
        try:
            self._queue.put_nowait(notice)
        except asyncio.QueueFull:
            self.dropped += 1
            log.warning("notice queue full: %s for %s dropped", kind, player_id)

    async def start(self) -> None:
        self._queue = asyncio.Queue(self._queue_size)
        self._task = asyncio.create_task(self._run(), name="notifier")

    async def drain(self) -> None:
        """Until every notice queued so far is delivered (benchmarks, tests)."""
        if self._queue is not None:
            await self._queue.join()
        while self._pending:
            await asyncio.wait(set(self._pending))

    async def stop(self, seconds: float = 5.0) -> None:
        """Deliver what is queued (``seconds`` at most), then stop. Each step is bounded, and
        a task stuck in a library that swallows its cancellation is left behind (logged) after
        its bound (app/stopping.py): a stop never hangs."""
        bound = min(STOP_SECONDS, seconds)
        if self._queue is not None and self._task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._queue.join(), seconds)
            await cancel_until_done(self._task, bound, "the notifier's queue")
        if self._pending:
            await asyncio.wait(self._pending, timeout=seconds)
            for task in list(self._pending):
                await cancel_until_done(task, bound, "a notice being sent")
        for channel in self.channels:
            close = getattr(channel, "close", None)
            if close is not None:
                await run_within(close(), bound, f"closing {type(channel).__name__}")
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
        self._queue = None
        self._task = None

    async def _run(self) -> None:
        assert self._queue is not None
        queue = self._queue
        while True:
            notice = await queue.get()
            # Each notice on its own task: one slow peer does not hold the others back.
            task = asyncio.create_task(self._process_done(notice, queue))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _process_done(self, notice: Notice, queue: asyncio.Queue[Notice]) -> None:
        try:
            await self.process(notice)
        finally:
            queue.task_done()

    async def process(self, notice: Notice) -> None:
        """Decide presence once, then hand the notice to each channel (errors logged)."""
        away = True
        if notice.table_id is not None and notice.kind in TABLE_KINDS and self.has_socket:
            try:
                away = not await self.has_socket(notice.player_id, notice.table_id)
            except Exception:
                log.warning("presence of %s unknown; treated as away", notice.player_id)
        for channel in self.channels:
            try:
                await channel.deliver(notice, away=away)
            except Exception:
                log.exception(
                    "%s could not deliver %s to %s", channel.name, notice.kind, notice.player_id
                )


async def table_has_socket(
    sockets: SocketCounts, clock: Callable[[], float], player_id: str, table_id: str
) -> bool:
    """Whether ``player_id`` has a socket open on ``table_id`` on any instance (the table's
    socket counts in Redis, app/store/sockets.py; read, not changed)."""
    counted = await sockets.change(table_sockets_key(table_id), clock(), 0, player_id)
    return counted.holder > 0
