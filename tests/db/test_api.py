"""The persistence API through HTTP: accounts, profile, leaderboards, history, replay, own data."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import fakeredis
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import select

from app.api.accounts import router
from app.db import Database
from app.db.auth import issue_token
from app.db.models import Rating
from app.db.players import create_guest
from app.db.ratings import PROVISIONAL_DEVIATION
from app.db.results import write_event
from tests.db.helpers import game_event, hand_event, play_random_game, seats_of

PASSWORD = "correct horse battery"


def make_app(database: Database, redis: Any) -> FastAPI:
    app = FastAPI()
    app.include_router(router)
    app.state.database = database
    app.state.redis = redis
    app.state.settings = SimpleNamespace(secret_key="api-test-secret")
    return app


@pytest.fixture
def client(database: Database) -> Iterator[TestClient]:
    """On SQLite and on PostgreSQL."""
    with TestClient(make_app(database, fakeredis.FakeAsyncRedis())) as test_client:
        yield test_client


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _guest(client: TestClient) -> tuple[str, str]:
    database: Database = client.app.state.database  # type: ignore[attr-defined]
    guest = create_guest(database, "Guest")
    return guest.id, issue_token(database, guest.id, "api-test-secret")


def test_register_claims_guest_history_then_login_logout(client: TestClient) -> None:
    database: Database = client.app.state.database  # type: ignore[attr-defined]
    guest_id, guest_token = _guest(client)
    other = create_guest(database, "Other")
    write_event(
        database, game_event(seats_of(guest_id, other.id), [10, 100], preset="two-player-28")
    )

    reply = client.post(
        "/api/account/register",
        json={"name": "Alice", "password": PASSWORD},
        headers=_auth(guest_token),
    )
    assert reply.status_code == 201, reply.text
    assert reply.json()["player"] == {"id": guest_id, "name": "Alice", "is_guest": False}
    games = client.get(f"/api/players/{guest_id}/games").json()["games"]
    assert len(games) == 1 and games[0]["seats"][0]["player_id"] == guest_id

    taken = client.post("/api/account/register", json={"name": "ALICE", "password": PASSWORD})
    assert taken.status_code == 409 and taken.json()["detail"]["code"] == "name_taken"
    weak = client.post("/api/account/register", json={"name": "Bob", "password": "short"})
    assert weak.status_code == 400 and "at least 8" in weak.json()["detail"]["message"]
    bad = client.post("/api/account/register", json={"name": "b\nob", "password": PASSWORD})
    assert bad.json()["detail"]["code"] == "bad_name"
    # Cyrillic а: too similar to the account "Alice", without saying which account.
    like = client.post("/api/account/register", json={"name": "\u0430lice", "password": PASSWORD})
    assert like.status_code == 422 and like.json()["detail"] == {
        "code": "name_confusable",
        "message": "the name is too similar to an existing player's name",
    }

    wrong = client.post("/api/account/login", json={"name": "alice", "password": "nope nope"})
    assert wrong.status_code == 401 and wrong.json()["detail"]["code"] == "wrong_credentials"
    login = client.post("/api/account/login", json={"name": "alice", "password": PASSWORD})
    assert login.status_code == 200
    token = login.json()["token"]
    assert client.get("/api/account/me", headers=_auth(token)).json()["name"] == "Alice"
    assert client.post("/api/account/logout", headers=_auth(token)).status_code == 204
    assert client.get("/api/account/me", headers=_auth(token)).status_code == 401
    client.cookies.set("hearts_token", guest_token)
    assert client.get("/api/account/me").json()["id"] == guest_id


def test_login_is_rate_limited(client: TestClient) -> None:
    """Failed sign-ins make the next attempt wait (tests/db/test_login_throttle.py has the
    delays, the known device and the attack from many addresses)."""
    client.post("/api/account/register", json={"name": "Carol", "password": PASSWORD})
    codes = [
        client.post(
            "/api/account/login", json={"name": "carol", "password": "wrong one!"}
        ).status_code
        for _ in range(7)
    ]
    assert codes == [401] * 5 + [429, 429]
    limited = client.post("/api/account/login", json={"name": "carol", "password": PASSWORD})
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) == 1
    # Another account from the same address is not blocked by Carol's counter.
    client.post("/api/account/register", json={"name": "Dave", "password": PASSWORD})
    assert (
        client.post("/api/account/login", json={"name": "dave", "password": PASSWORD}).status_code
        == 200
    )


def test_profile_leaderboard_history_replay(client: TestClient) -> None:
    database: Database = client.app.state.database  # type: ignore[attr-defined]
    tokens = []
    ids = []
    for name in ("Ann", "Ben", "Cat", "Dan"):
        reply = client.post("/api/account/register", json={"name": name, "password": PASSWORD})
        tokens.append(reply.json()["token"])
        ids.append(reply.json()["player"]["id"])
    seats = seats_of(*ids)
    for game_no in range(3):
        write_event(
            database, hand_event(seats, game_no=game_no, hand_no=0, points=[0, 26, 0, 0], moons=[1])
        )
        write_event(database, hand_event(seats, game_no=game_no, hand_no=1, points=[4, 0, 9, 13]))
        write_event(database, game_event(seats, [4, 26, 9, 13], game_no=game_no))

    profile = client.get(f"/api/players/{ids[0]}").json()
    [classic] = profile["variants"]
    assert (classic["games"], classic["wins"], classic["hands"], classic["moons"]) == (3, 3, 6, 0)
    assert classic["average_points_per_hand"] == 2.0
    assert classic["rated_games"] == 3 and len(classic["rating_history"]) == 3
    assert classic["rating"] > 1500
    # three games against other new players: still provisional, so on no leaderboard
    assert classic["provisional"] is True and classic["deviation"] > PROVISIONAL_DEVIATION
    assert classic["rating_history"][-1]["deviation"] == classic["deviation"]
    board = client.get("/api/leaderboards/classic", params={"min_games": 3}).json()
    assert board["entries"] == []
    with database.session() as session:  # as if they had played on until established
        for row in session.exec(select(Rating)).all():
            row.deviation = PROVISIONAL_DEVIATION - 1
            session.add(row)
        session.commit()
    assert client.get(f"/api/players/{ids[0]}").json()["variants"][0]["provisional"] is False
    ben = client.get(f"/api/players/{ids[1]}").json()["variants"][0]
    assert (ben["moons"], ben["wins"], ben["average_points_per_hand"]) == (3, 0, 13.0)

    board = client.get("/api/leaderboards/classic", params={"min_games": 3}).json()
    assert [e["player"]["name"] for e in board["entries"]] == ["Ann", "Cat", "Dan", "Ben"]
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3, 4]
    assert client.get("/api/leaderboards/classic", params={"min_games": 4}).json()["entries"] == []
    assert client.get("/api/leaderboards/omnibus").json()["entries"] == []

    history = client.get(f"/api/players/{ids[0]}/games", params={"limit": 2}).json()
    assert len(history["games"]) == 2 and history["next_offset"] == 2
    game_id = history["games"][0]["id"]
    detail = client.get(f"/api/games/{game_id}").json()
    assert [h["points"] for h in detail["hands"]] == [[0, 26, 0, 0], [4, 0, 9, 13]]
    # These records carry no moves, so there is nothing to replay.
    assert (
        client.get(f"/api/games/{game_id}/replay").json()["detail"]["code"] == "replay_unavailable"
    )
    assert client.get("/api/games/999999/replay").status_code == 404
    assert client.get("/api/players/nobody").status_code == 404


def test_replay_endpoint_shows_a_real_game(client: TestClient) -> None:
    database: Database = client.app.state.database  # type: ignore[attr-defined]
    events, live = play_random_game(
        "classic",
        {"end": "hands", "hands": 2},
        77,
        seats_of(None, None, None, None, bots={i: "easy" for i in range(4)}),
        5,
    )
    for event in events[:-1]:
        write_event(database, event)
    game_id = 1  # the first game of a fresh database
    assert client.get(f"/api/games/{game_id}/replay").json()["detail"]["code"] == "game_in_progress"
    write_event(database, events[-1])
    replay = client.get(f"/api/games/{game_id}/replay").json()
    assert replay["totals"] == live["totals"] and replay["matches_record"]
    assert len(replay["hands"]) == 2 and len(replay["hands"][0]["tricks"]) == 13
    assert replay["hands"][0]["deal"][0]["cards"]
    assert replay["game"]["id"] == game_id


def test_export_and_delete(client: TestClient) -> None:
    database: Database = client.app.state.database  # type: ignore[attr-defined]
    reply = client.post("/api/account/register", json={"name": "Eve", "password": PASSWORD})
    token, eve = reply.json()["token"], reply.json()["player"]["id"]
    other_id, other_token = _guest(client)
    write_event(database, game_event(seats_of(eve, other_id), [0, 100], preset="two-player-28"))

    export = client.get("/api/account/export", headers=_auth(token))
    assert export.status_code == 200
    assert "attachment" in export.headers["content-disposition"]
    data = export.json()
    assert data["player"]["name"] == "Eve" and len(data["games"]) == 1
    assert data["ratings"][0]["variant"] == "two-player-28"
    client.cookies.clear()  # (register set the page's session cookie too)
    assert client.get("/api/account/export").status_code == 401

    refused = client.post(
        "/api/account/delete", json={"password": "not mine!"}, headers=_auth(token)
    )
    assert refused.status_code == 401
    assert (
        client.post(
            "/api/account/delete", json={"password": PASSWORD}, headers=_auth(token)
        ).status_code
        == 204
    )
    assert client.get("/api/account/me", headers=_auth(token)).status_code == 401
    assert client.get(f"/api/players/{eve}").status_code == 404
    # The other player's history keeps the game, with Eve's seat anonymous.
    [game] = client.get(f"/api/players/{other_id}/games").json()["games"]
    assert game["seats"][0] == {**game["seats"][0], "player_id": None, "name": None}
    # A guest deletes without a password.
    assert (
        client.post("/api/account/delete", json={}, headers=_auth(other_token)).status_code == 204
    )
    assert (
        client.post("/api/account/login", json={"name": "eve", "password": PASSWORD}).status_code
        == 401
    )


def test_password_change_ends_other_sessions(client: TestClient) -> None:
    first = client.post("/api/account/register", json={"name": "Fay", "password": PASSWORD}).json()[
        "token"
    ]
    second = client.post("/api/account/login", json={"name": "fay", "password": PASSWORD}).json()[
        "token"
    ]
    body = {"old_password": PASSWORD, "new_password": "another good one"}
    assert client.post("/api/account/password", json=body, headers=_auth(first)).status_code == 204
    assert client.get("/api/account/me", headers=_auth(first)).status_code == 200
    assert client.get("/api/account/me", headers=_auth(second)).status_code == 401
    login = client.post("/api/account/login", json={"name": "fay", "password": "another good one"})
    assert login.status_code == 200
