"""The daily challenge's routes over HTTP with the embedded defaults: every preset can be
offered as a daily (the whole game of the daily over the real server is
tests/compete/test_daily_server.py)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.compete.standins import embedded_settings
from tests.compete.standins import guest as _guest


def test_every_preset_can_be_a_daily(tmp_path: Path) -> None:
    """With every preset offered, each one's daily table is made and started: the human in
    seat 0, an Expert in every other seat, the game of the day's hands under way."""
    from app import engine

    settings = embedded_settings(
        tmp_path,
        "daily",
        bot_delay_min_ms=60_000,
        bot_delay_max_ms=60_000,
        daily_presets=",".join(engine.PRESETS),
        daily_deals=2,
        max_tables_per_host=0,
        max_tables_per_address=0,
    )
    with TestClient(create_app(settings)) as client:
        me, _ = _guest(client, "Ann")
        assert client.get("/api/daily").json()["presets"] == list(engine.PRESETS)
        for preset, rules in engine.PRESETS.items():
            r = client.post(f"/api/daily/{preset}/start", headers=me)
            assert r.status_code == 200, (preset, r.text)
            table_id = r.json()["attempt"]["table_id"]
            refused = client.get(f"/api/tables/{table_id}", headers=me)
            assert refused.status_code == 403  # private: its invite is the player's alone
            services = client.app.state.services  # type: ignore[attr-defined]
            assert client.portal is not None
            table, state = client.portal.call(services.tables.read, table_id)
            assert table.status == "playing" and state is not None, preset
            assert table.compete["preset"] == preset and state.rules.hands == 2
            assert [(s.kind, s.level) for s in table.seats] == [("human", None)] + [
                ("bot", "expert")
            ] * (rules.players - 1)
