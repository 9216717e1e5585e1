"""End-to-end fixtures: a real server process and Debian's Chromium driven by Playwright.

The server runs ``python -m app`` on a free port with embedded defaults (SQLite in a temporary
directory, the in-process Redis stand-in), or against a real Redis when
``HEARTS_TEST_E2E_REDIS_URL`` is set. One server serves every module of a worker process that
takes these settings (starting one costs about 2 s of CPU, and 5 to 27 s on a loaded machine):
each test makes its own people, tables and accounts, so none sees another's. A module that
needs settings of its own, or fills what the others share (the lobby, an address's tables),
overrides ``server`` with ``private_server``. Chromium is the system's (/usr/bin/chromium, or
``HEARTS_TEST_CHROMIUM``); no browser is ever downloaded. Without it the tests skip, unless
``HEARTS_TEST_REQUIRE_SERVICES`` is set (CI), where they fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.helpers import ServerInfo

REQUIRE_SERVICES = os.environ.get("HEARTS_TEST_REQUIRE_SERVICES", "") not in ("", "0")
CHROMIUM = os.environ.get("HEARTS_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ROOT = Path(__file__).resolve().parents[2]


def _missing(reason: str) -> None:
    if REQUIRE_SERVICES:
        pytest.fail(f"HEARTS_TEST_REQUIRE_SERVICES is set but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(port: int, data_dir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEARTS_")}
    env.update(
        {
            "HEARTS_HOST": "127.0.0.1",
            "HEARTS_PORT": str(port),
            "HEARTS_DATABASE_URL": f"sqlite:///{data_dir}/e2e.sqlite3",
            "HEARTS_LOG_LEVEL": "warning",
            "HEARTS_SECRET_KEY": "e2e-secret-key-" + uuid.uuid4().hex,
            # Quick computer players and no public turn timer, so the tests run fast and a
            # slow CI machine never has the computer take a seat over.
            "HEARTS_BOT_DELAY_MIN_MS": "40",
            "HEARTS_BOT_DELAY_MAX_MS": "90",
            "HEARTS_TURN_TIMER_SECONDS": "0",
            # A short pause between hands, so the page's countdown to the next hand shows.
            "HEARTS_HAND_PAUSE_MS": "2500",
            "HEARTS_DISCONNECT_GRACE_SECONDS": "60",
            # The server's own due times wake its due loop when they come (EarlyWake), so
            # the poll only finds what another process wrote: none here. At 0.05 s it cost
            # the idle server 6.6% of a core (fakeredis parsing 64 shards' claims).
            "HEARTS_DUE_POLL_SECONDS": "1.0",
            "HEARTS_WS_RATE_PER_SECOND": "100",
            # Small searches for the Pro computer players: the tests are about the page.
            "HEARTS_BOT_BUDGET_MS": "5",
            # One test opens a table of each preset in a row and leaves each game running;
            # every test's people come from this one address, and the modules of a worker
            # share one server (the defaults are 5 and 20).
            "HEARTS_MAX_TABLES_PER_HOST": "10",
            "HEARTS_MAX_TABLES_PER_ADDRESS": "1000",
            # New guests from one address an hour (the default 30): a worker's modules make
            # a few hundred on their shared server.
            "HEARTS_MAX_GUESTS_PER_ADDRESS": "10000",
            # Game reviews (tests/e2e/test_review.py): a search small enough to take a few
            # seconds, in a thread of the server (no worker process to start, and no nice +10
            # to starve it on a loaded machine).
            "HEARTS_REVIEW_UNITS": "300",
            "HEARTS_REVIEW_WORKERS": "0",
            # Pushes go to a push service on this machine (tests/e2e/test_turn_notify.py).
            "HEARTS_PUSH_PRIVATE_ENDPOINTS": "1",
        }
    )
    redis_url = os.environ.get("HEARTS_TEST_E2E_REDIS_URL", "")
    if redis_url:
        env["HEARTS_REDIS_URL"] = redis_url
        env["HEARTS_REDIS_NAMESPACE"] = "e2e" + uuid.uuid4().hex[:10]
    else:
        env["HEARTS_REDIS_URL"] = "memory://"
    return env


def start_server(
    extra_env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], ServerInfo, str]:
    """The server, with ``extra_env`` over the tests' environment (a module's own settings)."""
    data_dir = tempfile.mkdtemp(prefix="hearts-e2e-")
    port = _free_port()
    log_path = os.path.join(data_dir, "server.log")
    log = open(log_path, "wb")  # noqa: SIM115 - kept open for the server's lifetime
    proc = subprocess.Popen(
        [sys.executable, "-m", "app"],
        cwd=str(ROOT),
        env=server_env(port, data_dir) | (extra_env or {}),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, ServerInfo(url, log_path), data_dir
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    output = Path(log_path).read_text(errors="replace")[-3000:]
    shutil.rmtree(data_dir, ignore_errors=True)
    pytest.fail(f"the server did not start:\n{output}")


def stop_server(proc: subprocess.Popen[bytes], data_dir: str) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    shutil.rmtree(data_dir, ignore_errors=True)


@contextlib.contextmanager
def private_server(extra_env: dict[str, str] | None = None) -> Iterator[ServerInfo]:
    """A server of a module's own (for its module-scoped ``server``), stopped at the end."""
    proc, info, data_dir = start_server(extra_env)
    try:
        yield info
    finally:
        stop_server(proc, data_dir)


def _exited(proc: subprocess.Popen[bytes], info: ServerInfo) -> str | None:
    """Why the server is gone (its status and the end of its log), or None while it runs."""
    if proc.poll() is None:
        return None
    tail = Path(info.log_path).read_text(errors="replace")[-3000:]
    return f"the e2e server exited with status {proc.returncode}; its log ends:\n{tail}"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not os.path.exists(CHROMIUM):
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("the playwright package is not installed")
    return CHROMIUM


@dataclass
class _Chromium:
    """The worker's Playwright and Chromium while browser tests run one after another."""

    playwright: Any = None
    browser: Any = None

    def start(self, chromium_path: str) -> Any:
        if self.browser is None:
            from playwright.sync_api import sync_playwright

            pw = sync_playwright().start()
            try:
                self.browser = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
            except Exception as exc:
                pw.stop()
                _missing(f"Chromium at {chromium_path} does not start: {exc}")
            self.playwright = pw
        return self.browser

    def stop(self) -> None:
        browser, pw = self.browser, self.playwright
        self.browser = self.playwright = None
        try:
            if browser is not None:
                browser.close()
        finally:
            if pw is not None:
                pw.stop()


_CHROMIUM = _Chromium()


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """Chromium, started once for the browser modules a worker runs in a row (0.85 s a
    start at load 9, python -m tests.e2e.costs); each module ends with the contexts and
    pages it left open closed. Playwright is stopped before any other test of the worker
    (pytest_runtest_teardown below): between its calls it marks its event loop as running
    in this thread, where the other packages' asyncio tests run their own loops."""
    chromium = _CHROMIUM.start(chromium_path)
    try:
        yield chromium
    finally:
        if _CHROMIUM.browser is chromium:
            for context in list(chromium.contexts):
                with contextlib.suppress(Exception):  # already closed with its page
                    context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a browser test's teardown: stop Chromium and Playwright unless the worker's next
    test is a browser test too."""
    yield
    if nextitem is None or "browser" not in getattr(nextitem, "fixturenames", ()):
        _CHROMIUM.stop()


@dataclass
class SharedServer:
    """The server a worker's modules share, while it runs."""

    proc: subprocess.Popen[bytes]
    info: ServerInfo
    data_dir: str


@pytest.fixture(scope="session")
def shared_server(chromium_path: str) -> Iterator[SharedServer]:
    """The worker's server for the modules that take the default settings (started again by
    ``server`` if a module left it dead)."""
    shared = SharedServer(*start_server())
    try:
        yield shared
    finally:
        stop_server(shared.proc, shared.data_dir)


@pytest.fixture(scope="module")
def server(browser: Any, shared_server: SharedServer) -> ServerInfo:
    """The worker's shared server. If it died during an earlier module, this module's tests
    fail with its status and log (the cause named once, where it was found) and a new one
    serves the modules after it."""
    why = _exited(shared_server.proc, shared_server.info)
    if why is not None:
        shutil.rmtree(shared_server.data_dir, ignore_errors=True)
        shared_server.proc, shared_server.info, shared_server.data_dir = start_server()
        pytest.fail(why)
    return shared_server.info
