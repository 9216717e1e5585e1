"""app/api/routes.py: what GET /api/presets advertises to the pages."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app import engine
from tests.api.test_security import build


def test_presets_name_each_game_and_the_chat_limit(tmp_path: Path) -> None:
    """The table page takes a preset's game and the chat's length from here (no copy of its
    own): the limit is the server's setting, not a fixed 300."""
    with TestClient(build(tmp_path, chat_max_chars=120)) as client:
        body = client.get("/api/presets").json()
    assert body["limits"] == {"chat_max_chars": 120}
    games = {p["id"]: p["game"] for p in body["presets"]}
    assert games == {name: rules.game for name, rules in engine.PRESETS.items()}
    assert games["two-player-dummy"] == "dummy"
    assert games["double-hearts-3"] == "double"
