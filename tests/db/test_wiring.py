"""The persistence side inside the real app: create_app's router, lifespan and outbox worker."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db.outbox import enqueue
from tests.db.helpers import game_event, seats_of

main = pytest.importorskip("app.main")
settings_module = pytest.importorskip("app.settings")


def test_guest_registers_and_results_arrive_through_the_app(tmp_path: Path) -> None:
    settings = settings_module.load_settings(
        database_url=f"sqlite:///{tmp_path / 'app.sqlite3'}",
        redis_url="memory://",
        secret_key="wiring-test-secret",
    )
    app = main.create_app(settings)
    with TestClient(app) as client:
        guest = client.post("/api/guest", json={"name": "Wiring"})
        assert guest.status_code in (200, 201), guest.text
        token = guest.json()["token"]
        guest_id = guest.json()["player"]["id"]
        auth = {"Authorization": f"Bearer {token}"}
        reply = client.post(
            "/api/account/register",
            json={"name": "Wired", "password": "correct horse battery"},
            headers=auth,
        )
        assert reply.status_code == 201, reply.text
        assert reply.json()["player"]["id"] == guest_id

        services = app.state.services
        event = game_event(
            seats_of(guest_id, None, bots={1: "easy"}), [0, 100], preset="two-player-28"
        )
        client.portal.call(enqueue, services.redis, event)  # type: ignore[union-attr]
        deadline = time.monotonic() + 30  # guards a hang only; the worker polls every 2 s
        while time.monotonic() < deadline:
            games = client.get(f"/api/players/{guest_id}/games").json()["games"]
            if games:
                break
            time.sleep(0.05)
        assert len(games) == 1 and games[0]["variant"] == "two-player-28"
        profile = client.get(f"/api/players/{guest_id}").json()
        assert profile["variants"][0]["wins"] == 1
