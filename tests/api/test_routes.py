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


def test_an_explicit_rule_equal_to_the_preset_is_kept_by_the_table(tmp_path: Path) -> None:
    """A table stores its options as the difference from the preset and builds its rules from
    them when a game starts: classic's own pass of 3, chosen with 5 players (whose default is
    2), must be stored, or the game passes 2."""
    from tests.api.test_security import guest

    with TestClient(build(tmp_path)) as client:
        token, _ = guest(client)
        reply = client.post(
            "/api/tables",
            json={"preset": "classic", "options": {"players": 5, "pass_count": 3}},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert reply.status_code == 201, reply.text
        table = reply.json()["table"]
        again = client.get(f"/api/tables/{table['id']}").json()["table"]
    assert table["options"]["pass_count"] == 3
    rules = engine.make_rules(again["preset"], again["options"])  # what a game starts with
    assert (rules.players, rules.pass_count, rules.deck) == (5, 3, "remove_2c_2d")


def test_the_players_language_is_kept_and_bad_ones_change_nothing(tmp_path: Path) -> None:
    """The page tells the server the language its player reads the site in (e-mails and pushes
    are written in it: tests/notify); GET /api/me says what the server knows (null at first).
    An unknown language, a region code, a wrong type, no body or no session: a clear refusal,
    and the stored language stays."""
    from tests.api.test_security import guest

    with TestClient(build(tmp_path)) as client:
        token, _ = guest(client)
        auth = {"Authorization": f"Bearer {token}"}
        assert client.get("/api/me", headers=auth).json()["language"] is None
        put = client.put("/api/me/language", json={"language": "fr"}, headers=auth)
        assert put.status_code == 204, put.text
        assert client.get("/api/me", headers=auth).json()["language"] == "fr"
        for body in (
            {"language": "xx"},
            {"language": "fr-CA"},
            {"language": "FR"},
            {"language": ""},
            {"language": 3},
            {"language": None},
            {"language": "f" * 200},
            {},
            ["fr"],
        ):
            refused = client.put("/api/me/language", json=body, headers=auth)
            assert refused.status_code == 422, (body, refused.text)
        assert refused.json()["detail"]
        bad = client.put("/api/me/language", json={"language": "xx"}, headers=auth).json()
        assert bad["detail"]["code"] == "bad_language"
        assert client.get("/api/me", headers=auth).json()["language"] == "fr"
        anonymous = client.put("/api/me/language", json={"language": "de"})
        assert anonymous.status_code == 401
        assert client.get("/api/me", headers=auth).json()["language"] == "fr"
