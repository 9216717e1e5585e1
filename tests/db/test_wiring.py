"""The persistence side inside the real app: create_app's router, lifespan and outbox worker."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

import app.main as main
import app.settings as settings_module
from app.db.outbox import enqueue
from tests.db.helpers import game_event, seats_of


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


def test_a_live_game_reaches_sql_and_replays_as_played(tmp_path: Path) -> None:
    """A game played by the live server (a person who leaves, computers finishing the game)
    arrives through the outbox, and its replay equals the live game."""
    from app import engine
    from app.tables.service import Actor

    settings = settings_module.load_settings(
        database_url=f"sqlite:///{tmp_path / 'live.sqlite3'}",
        redis_url="memory://",
        secret_key="wiring-test-secret",
        bot_delay_min_ms=0,
        bot_delay_max_ms=0,
        due_poll_seconds=0.01,
    )
    app = main.create_app(settings)
    with TestClient(app) as client:
        guest = client.post("/api/guest", json={"name": "Leaver"}).json()
        player_id = guest["player"]["id"]
        auth = {"Authorization": f"Bearer {guest['token']}"}
        created = client.post(
            "/api/tables",
            json={"preset": "classic", "options": {"end": "hands", "hands": 1}, "turn_timer": 0},
            headers=auth,
        )
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["id"]
        tables = app.state.services.tables
        actor = Actor(player_id, "Leaver")
        call = client.portal.call  # type: ignore[union-attr]
        table, _ = call(tables.read, table_id)
        mine = table.seat_of(player_id)  # the creator sits down at once
        for seat in range(4):
            if seat != mine:
                call(tables.add_bot, table_id, actor, seat, "easy")
        call(tables.start, table_id, actor)
        call(tables.leave, table_id, actor)  # a computer plays the seat to the end

        deadline = time.monotonic() + 60  # guards a hang only
        game: dict[str, Any] = {}
        while time.monotonic() < deadline and game.get("status") != "finished":
            game = client.get("/api/games/1").json()  # the first game of a fresh database
            time.sleep(0.05)
        assert game.get("status") == "finished", f"the game never reached SQL: {game}"
        assert game["seats"][mine]["replaced_by_bot"] is True
        assert [h["hand_no"] for h in game["hands"]] == [0]
        replay = client.get("/api/games/1/replay").json()
        _, live = call(tables.read, table_id)
    assert live.phase == "over"
    assert replay["matches_record"] and replay["totals"] == list(live.scores)
    [hand] = replay["hands"]
    assert [[p["card"] for p in t["plays"]] for t in hand["tricks"]] == [
        [engine.card_str(c) for c in t.cards] for t in live.prev_tricks
    ]
    assert hand["result"]["points"] == list(live.history[-1].points)


def test_deceptive_guest_names_are_refused_through_the_app(tmp_path: Path) -> None:
    settings = settings_module.load_settings(
        database_url=f"sqlite:///{tmp_path / 'app.sqlite3'}",
        redis_url="memory://",
        secret_key="wiring-test-secret",
    )
    with TestClient(main.create_app(settings)) as client:
        for name, code in [
            ("Computer (Pro)", "name_confusable"),
            ("\u3164", "bad_name"),
            ("Z" + "\u0301" * 23, "bad_name"),
        ]:
            reply = client.post("/api/guest", json={"name": name})
            assert reply.status_code == 422, reply.text
            assert reply.json()["detail"]["code"] == code
        reply = client.post("/api/guest", json={"name": "ｆｕｌｌ"})
        assert reply.status_code == 200 and reply.json()["player"]["name"] == "full"
