"""The server's worker pools (app.workers.worker_pool): a thread when no process is asked for;
otherwise spawned processes that have imported their module, run at the lower priority asked,
and are not this process."""

from __future__ import annotations

import os
import sys
import threading

from app.workers import worker_pool


def _thread_name() -> str:
    return threading.current_thread().name


def _worker() -> tuple[int, int, bool]:
    return os.getpid(), os.nice(0), "app.engine.claim" in sys.modules


def test_no_process_is_one_named_thread() -> None:
    pool = worker_pool(0, "claim-checks", "app.engine.claim")
    try:
        assert pool.submit(_thread_name).result().startswith("claim-checks")
    finally:
        pool.shutdown()


def test_processes_import_their_module_at_a_lower_priority() -> None:
    pool = worker_pool(1, "unused", "app.engine.claim", nice=3)
    try:
        pid, niceness, loaded = pool.submit(_worker).result(timeout=60)
    finally:
        pool.shutdown()
    assert pid != os.getpid()
    assert niceness == min(19, os.nice(0) + 3)
    assert loaded
