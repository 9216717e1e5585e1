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
