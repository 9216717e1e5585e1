"""Entry points of the server's worker processes (computer players, the results writer).

Each ends when its server process ends: a server killed outright (SIGKILL, out of memory)
cannot stop its workers, and a spawned worker blocked on a queue does not notice; without the
watch it would live on, orphaned. This module imports little, so that the watch starts before
the heavy imports of a worker.
"""

from __future__ import annotations

import importlib
import os
import threading
import time

OUTBOX_NICE = 10  # the results writer's niceness, above the server's


def exit_with_parent(
    preload: str | None = None, parent: int | None = None, every: float = 1.0
) -> None:
    """Watch the parent process from a daemon thread and end this process as soon as it is
    gone; then import ``preload`` (a module the worker needs).  ``parent`` is the server's pid,
    given by the server: a parent that died before this runs is then noticed too (reading
    ``getppid`` here would already give the adopting process)."""
    if parent is None:
        parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    if preload:
        importlib.import_module(preload)


def run_outbox_process(
    redis_url: str,
    database_url: str,
    log_level: str = "info",
    parent: int | None = None,
    namespace: str | None = None,
    log_format: str = "text",
) -> None:
    """The results writer (app.db.outbox) of one server, in a process of its own.

    It runs at a lower priority (nice +10): its records wait seconds without harm, while its
    milliseconds of SQL per record, all at the end of a hand, took the CPU from the event
    loops that serve the moves (measured with bench.load: the latency spike at the end of
    the hands)."""
    exit_with_parent(parent=parent)
    os.nice(OUTBOX_NICE)
    import asyncio
    import signal

    from app.db import make_database
    from app.db.outbox import OutboxWorker
    from app.logs import configure
    from app.store import make_redis

    configure(log_format, log_level)

    async def run() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        redis = make_redis(redis_url)
        database = make_database(database_url)
        try:
            await OutboxWorker(redis, database, namespace=namespace).run(stop)
        finally:
            await redis.aclose()
            database.dispose()

    asyncio.run(run())
