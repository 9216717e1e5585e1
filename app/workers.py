"""What every worker process of a server starts with (the computer players, the claim checks,
the reviews, the results writer: app/outbox_process.py).

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
