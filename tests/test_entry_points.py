"""The conventional entry point ``app.main:app`` (issue 20), beside ``hearts-server``."""

from __future__ import annotations

import importlib

import pytest
from fastapi import FastAPI


def test_app_main_app_is_built_from_the_environment_on_first_use(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    main = importlib.import_module("app.main")
    monkeypatch.setattr(main, "_MODULE_APP", None)
    monkeypatch.setenv("HEARTS_DATABASE_URL", f"sqlite:///{tmp_path}/entry.sqlite3")
    monkeypatch.setenv("HEARTS_TURN_TIMER_SECONDS", "45")
    app = main.app
    assert isinstance(app, FastAPI)
    assert app.state.settings.turn_timer_seconds == 45
    assert main.app is app  # built once
    with pytest.raises(AttributeError):
        _ = main.no_such_name


def test_a_bad_environment_stops_the_entry_point_with_the_settings_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.settings import SettingsError

    main = importlib.import_module("app.main")
    monkeypatch.setattr(main, "_MODULE_APP", None)
    monkeypatch.setenv("HEARTS_PORT", "0")
    with pytest.raises(SettingsError, match="HEARTS_PORT"):
        _ = main.app


def test_fastapi_cli_discovers_the_lazy_app(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    """fastapi-cli looks for the app among the module's names (``dir``): the lazily built
    ``app`` is listed there (``app.main.__dir__``) and is a FastAPI app when asked for."""
    from pathlib import Path

    from fastapi_cli.discover import get_app_name, get_module_data_from_path

    main = importlib.import_module("app.main")
    monkeypatch.setattr(main, "_MODULE_APP", None)
    monkeypatch.setenv("HEARTS_DATABASE_URL", f"sqlite:///{tmp_path}/cli.sqlite3")
    assert "app" in dir(main) and "create_app" in dir(main)
    module = get_module_data_from_path(Path(main.__file__))
    assert module.module_import_str == "app.main"
    assert get_app_name(mod_data=module) == "app"


@pytest.mark.parametrize("args", [["app/main.py"], []], ids=["path", "pyproject-entrypoint"])
def test_fastapi_run_serves_the_app(args: list[str], tmp_path: object) -> None:
    """``fastapi run app/main.py`` (and plain ``fastapi run``, through pyproject's
    [tool.fastapi] entrypoint) starts the server from the environment's settings."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    from tests.realtime.harness import ROOT, free_port

    port = free_port()
    env = {**os.environ, "HEARTS_DATABASE_URL": f"sqlite:///{tmp_path}/run.sqlite3"}
    command = [sys.executable, "-m", "fastapi", "run", *args, "--host", "127.0.0.1"]
    output = Path(str(tmp_path)) / "output.txt"
    with output.open("wb") as sink:
        proc = subprocess.Popen(
            [*command, "--port", str(port)], cwd=ROOT, env=env, stdout=sink, stderr=sink
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, output.read_text()
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "fastapi run did not start"
                time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()["ok"] is True
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    # SIGTERM: a clean shutdown (uvicorn raises the signal again once it is done).
    assert proc.returncode in (0, -signal.SIGTERM), output.read_text()
    assert "Application shutdown complete" in output.read_text()


def test_hearts_server_that_cannot_start_exits_with_uvicorns_start_up_failure(
    tmp_path: object,
) -> None:
    """``python -m app`` runs its own uvicorn Server (to say it is going on SIGTERM): a start-up
    that fails (here: no Redis answers) still ends the process with status 3, as uvicorn.run
    did, so a supervisor sees the failure."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    env = {
        **os.environ,
        "HEARTS_REDIS_URL": f"redis://127.0.0.1:{dead}/0",
        "HEARTS_DATABASE_URL": f"sqlite:///{tmp_path}/start.sqlite3",
        "HEARTS_SECRET_KEY": "k" * 32,
        "HEARTS_PORT": "8199",
    }
    done = subprocess.run(
        [sys.executable, "-m", "app"], env=env, capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 3, done.stderr[-3000:]
