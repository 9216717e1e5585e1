"""The results writer's process: app.db.outbox's worker, spawned by each server.

Spawned, its first import is this module: it imports only app.workers before the parent
watch starts, and the database and Redis code inside the function.
"""

from __future__ import annotations

import os

from app.workers import exit_with_parent

OUTBOX_NICE = 10  # the results writer's niceness, above the server's


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
