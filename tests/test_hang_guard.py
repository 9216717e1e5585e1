"""The hang guard (tests/hang_guard.py) fails a test that hangs, with its stacks, and the run
goes on; a test whose event loop cannot even close ends the process (status 3), never a hang.
Checked by running pytest on small test files in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SYNC_HANG = """
import threading


def test_sync_hang():
    threading.Event().wait()


def test_after():
    assert True
"""

ASYNC_HANG = """
import asyncio

import pytest


@pytest.mark.asyncio
async def test_task_swallows_cancel():
    async def stubborn():
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass

    asyncio.create_task(stubborn(), name="stubborn-task")
    await asyncio.sleep(3600)
"""


def _run(tmp_path: Path, source: str) -> tuple[int, str]:
    (tmp_path / "test_hangs.py").write_text(textwrap.dedent(source))
    (tmp_path / "conftest.py").write_text(
        "from tests.hang_guard import pytest_configure, pytest_runtest_protocol\n"
    )
    env = {
        **os.environ,
        "HEARTS_TEST_TIMEOUT": "2",
        "HEARTS_TEST_TIMEOUT_GRACE": "3",
        "PYTHONPATH": str(ROOT),
    }
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_hangs.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    return result.returncode, result.stdout + result.stderr


def test_a_hanging_test_fails_with_its_stacks_and_the_run_goes_on(tmp_path: Path) -> None:
    code, output = _run(tmp_path, SYNC_HANG)
    assert code == 1, output
    assert "1 failed, 1 passed" in output, output
    assert "test_sync_hang ran past its 2 s limit" in output, output
    assert "threading.Event().wait()" in output, output  # where it waited


def test_a_loop_that_cannot_close_ends_the_process_with_the_stacks(tmp_path: Path) -> None:
    code, output = _run(tmp_path, ASYNC_HANG)
    assert code == 3, output
    assert "still running after 2 s" in output, output
    assert "asyncio task stubborn-task" in output, output
    assert "exiting with status 3" in output, output
