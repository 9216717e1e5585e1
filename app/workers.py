"""What every worker process of a server starts with (the computer players, the claim checks,
the reviews, the results writer: app/outbox_process.py).

Each ends when its server process ends: a server killed outright (SIGKILL, out of memory)
cannot stop its workers, and a spawned worker blocked on a queue does not notice; without the
watch it would live on, orphaned. This module imports little, so that the watch starts before
the heavy imports of a worker. ``worker_pool`` makes the pools of such workers.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor


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


def _start_worker(preload: str, parent: int, nice: int) -> None:
    exit_with_parent(preload, parent)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)


def worker_pool(processes: int, name: str, preload: str, nice: int = 0) -> Executor:
    """``processes`` worker processes that end with this one, import ``preload`` first and run
    ``nice`` steps below this process's priority; with ``processes`` 0 or less, one thread
    (named ``name``) in this process instead, as tests and a one-process server want.

    The processes are spawned, not forked: each starts a clean interpreter (forking a process
    with an event loop and threads running is not safe) and imports only what it needs."""
    if processes <= 0:
        return ThreadPoolExecutor(1, thread_name_prefix=name)
    return ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(preload, os.getpid(), nice),
    )
