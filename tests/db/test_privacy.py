"""Hidden information in the persistence API: a game's seed stays on the server while it is
played, and a private table's games are readable only by their players and a share link."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import fakeredis
import orjson
import pytest
import redis.asyncio as aioredis
from fastapi.testclient import TestClient
from sqlmodel import select

from app.db import Database
from app.db.auth import issue_token
from app.db.events import BadEvent, parse_event
from app.db.models import Game
from app.db.players import create_guest
from app.db.results import write_event
from tests.db.helpers import game_event, hand_event, play_random_game, seats_of
from tests.db.test_api import make_app

SECRET = "api-test-secret"


@pytest.fixture
def client(database: Database) -> Iterator[TestClient]:
    """On SQLite and on PostgreSQL."""
    with TestClient(make_app(database, fakeredis.FakeAsyncRedis())) as test_client:
        yield test_client


def _db(client: TestClient) -> Database:
    database: Database = client.app.state.database  # type: ignore[attr-defined]
    return database


def _guest(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    guest = create_guest(_db(client), name)
    token = issue_token(_db(client), guest.id, SECRET)
    return guest.id, {"Authorization": f"Bearer {token}"}


def _private(event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "private": True}


def _played_game(seats: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The outbox records of a real two-hand game (moves that replay) on ``seats``."""
    # A seed as large as the server's (64 random bits), so searching the export's text for it
    # cannot hit a timestamp or an id by chance (77 once matched a timestamp).
    events, live = play_random_game(
        "classic", {"end": "hands", "hands": 2}, 8_431_927_615_204_331_977, seats, 5
    )
    return events, live


def test_export_keeps_the_seed_and_the_moves_of_a_game_in_play(client: TestClient) -> None:
    """The finding: during a game the export held its seed, which deals every hand."""
    me, auth = _guest(client, "Me")
    events, _ = _played_game(seats_of(me, None, None, None, bots={1: "easy", 2: "easy", 3: "easy"}))
    write_event(_db(client), events[0])  # the first hand is over, the game goes on
    [game] = client.get("/api/account/export", headers=auth).json()["games"]
    assert game["status"] == "playing" and game["hands_played"] == 1
    assert game["seed"] is None and game["moves"] is None
    assert [h["moves"] for h in game["hands"]] == [None]
    raw = client.get("/api/account/export", headers=auth).content
    assert str(events[0]["seed"]).encode() not in raw
    # Once the game has ended, the export is whole again (its replay shows every hand anyway).
    for event in events[1:]:
        write_event(_db(client), event)
    [game] = client.get("/api/account/export", headers=auth).json()["games"]
    assert game["status"] == "finished" and game["seed"] == str(events[0]["seed"])
    assert all(h["moves"] for h in game["hands"])


def test_a_private_game_is_unknown_to_others(client: TestClient) -> None:
    alice, alice_auth = _guest(client, "Alice")
    bob, bob_auth = _guest(client, "Bob")
    _, eve_auth = _guest(client, "Eve")
    events, _ = _played_game(seats_of(alice, bob, None, None, bots={2: "easy", 3: "pro"}))
    for event in events:
        write_event(_db(client), _private(event))
    never = client.get("/api/games/999")
    assert never.status_code == 404
    for path in ("/api/games/1", "/api/games/1/replay"):
        for headers in ({}, eve_auth):
            answer = client.get(path, headers=headers)
            assert answer.status_code == 404, (path, headers)
            assert answer.json() == never.json()  # nothing tells it apart from an unused id
        wrong = client.get(path, params={"share": "A" * 22})
        assert wrong.status_code == 404 and wrong.json() == never.json()
    # Its players read it, and get the link to share.
    detail = client.get("/api/games/1", headers=bob_auth).json()
    token = detail["share_token"]
    assert detail["private"] and isinstance(token, str) and len(token) >= 22
    replay = client.get("/api/games/1/replay", headers=alice_auth).json()
    assert replay["game"]["share_token"] == token and replay["hands"][0]["deal"]
    # The link opens the page and the replay for anyone, without handing the token on.
    shared = client.get("/api/games/1", params={"share": token})
    assert shared.status_code == 200 and shared.json()["share_token"] is None
    shared_replay = client.get("/api/games/1/replay", params={"share": token}, headers=eve_auth)
    assert shared_replay.status_code == 200 and shared_replay.json()["game"]["share_token"] is None


def test_a_private_game_in_play_answers_like_an_unknown_one(client: TestClient) -> None:
    alice, alice_auth = _guest(client, "Alice")
    events, _ = _played_game(seats_of(alice, None, None, None, bots={1: "easy", 2: "easy"}))
    write_event(_db(client), _private(events[0]))
    never = client.get("/api/games/7/replay").json()
    assert client.get("/api/games/1/replay").json() == never  # not 409 game_in_progress
    mine = client.get("/api/games/1/replay", headers=alice_auth).json()
    assert mine["detail"]["code"] == "game_in_progress"


def test_lists_show_a_private_game_only_to_its_players(client: TestClient) -> None:
    alice, alice_auth = _guest(client, "Alice")
    bob, bob_auth = _guest(client, "Bob")
    _, eve_auth = _guest(client, "Eve")
    seats = seats_of(alice, bob)
    write_event(_db(client), game_event(seats, [0, 100], preset="two-player-28", table_id="PUB"))
    private = _private(game_event(seats, [100, 0], preset="two-player-28", table_id="PRIV"))
    write_event(_db(client), private)
    public_id, private_id = 1, 2

    def listed(player: str, headers: dict[str, str]) -> list[int]:
        answer = client.get(f"/api/players/{player}/games", headers=headers).json()
        return [g["id"] for g in answer["games"]]

    def rated(player: str, headers: dict[str, str]) -> list[int | None]:
        answer = client.get(f"/api/players/{player}", headers=headers).json()
        return [p["game_id"] for v in answer["variants"] for p in v["rating_history"]]

    for headers in ({}, eve_auth):
        assert listed(alice, headers) == [public_id]
        assert rated(alice, headers) == [public_id, None]  # the rating moved; the id is hidden
    assert listed(alice, alice_auth) == [private_id, public_id]
    assert listed(alice, bob_auth) == [private_id, public_id]  # Bob played it too
    assert rated(alice, bob_auth) == [public_id, private_id]
    assert rated(alice, alice_auth) == [public_id, private_id]
    [entry] = [
        g
        for g in client.get(f"/api/players/{bob}/games", headers=bob_auth).json()["games"]
        if g["id"] == private_id
    ]
    assert entry["private"] and entry["share_token"]
    # The export is the player's own: every game, with its share link.
    exported = client.get("/api/account/export", headers=alice_auth).json()["games"]
    assert {g["id"]: g["share_token"] is not None for g in exported} == {1: False, 2: True}


def test_the_private_flag_is_parsed_strictly_and_sticks() -> None:
    seats = seats_of("p1", "p2")
    assert parse_event(_private(hand_event(seats))).private
    assert not parse_event(hand_event(seats)).private
    with pytest.raises(BadEvent, match="private"):
        parse_event({**hand_event(seats), "private": "yes"})


def test_a_game_recorded_private_once_stays_private(database: Database) -> None:
    seats = seats_of(None, None, None, None, bots={i: "easy" for i in range(4)})
    write_event(database, _private(hand_event(seats)))
    write_event(database, game_event(seats, [26, 0, 0, 0]))  # a record without the flag
    with database.session() as session:
        game = session.exec(select(Game)).one()
    assert game.private and game.share_token and game.status == "finished"


@pytest.mark.asyncio
async def test_a_private_tables_game_reaches_sql_private(
    redis_client: aioredis.Redis, namespace: str, tmp_path: Any
) -> None:
    """The table writer's records say the table was private; the stored game is then private."""
    from app.db.outbox import OutboxWorker
    from tests.tables.test_records import computers_hand, results_database
    from tests.tables.test_service import Clock, drive_bots, make_service

    database, host = results_database(tmp_path)
    clock = Clock()
    service, results = make_service(redis_client, namespace, clock)
    table = await computers_hand(service, host, private=True)
    await service.attach(table.id, host.player_id)
    await service.detach(table.id, host.player_id)
    clock.ms += 31_000
    await drive_bots(service, table.id, clock)
    records = await results.records()
    assert records and all(r["private"] is True for r in records)
    assert all(parse_event(orjson.loads(orjson.dumps(r))).private for r in records)
    worker = OutboxWorker(redis_client, database, streams=results.streams, block_ms=10)
    await worker.drain()
    with database.session() as session:
        game = session.exec(select(Game)).one()
    assert game.private and game.share_token and game.status == "finished"
    database.dispose()
