"""The signing key when none is configured (the embedded default): made once, kept in the
database, so a restart signs nobody out; a configured key always wins."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app.settings as app_settings
from app.db import make_database, upgrade_to_head
from app.db.secret import stored_secret
from app.main import create_app
from tests.api.test_security import make_settings


def test_the_key_is_made_once_and_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/k.sqlite3"
    upgrade_to_head(url)
    database = make_database(url)
    try:
        first = stored_secret(database)
        assert len(first) >= 32 and stored_secret(database) == first
    finally:
        database.dispose()


def test_a_guest_stays_signed_in_across_a_restart_of_the_embedded_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(tmp_path, secret_key="")  # no key given: the embedded default
    with TestClient(create_app(settings)) as client:
        reply = client.post("/api/guest", json={"name": "Stays"})
        token = reply.json()["token"]
        assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).is_success
    # A new process would make a new random key of its own: so does this one now.
    monkeypatch.setattr(app_settings, "_PROCESS_SECRET", app_settings._ProcessSecret())
    with TestClient(create_app(settings)) as client:  # the same database, a new process' app
        again = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert again.status_code == 200 and again.json()["name"] == "Stays", again.text
    # A configured key is the one used (every instance of a shared deployment signs alike).
    other = make_settings(tmp_path, secret_key="another-configured-key")
    with TestClient(create_app(other)) as client:
        refused = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert refused.status_code == 401
