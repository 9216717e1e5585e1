"""Game reviews as jobs: who may ask, the hourly limit, computed once and shared, progress
over the socket, a leak scan over all they return (and over a shared replay room showing
them), and a review finished by another instance after the one computing it was killed."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from fastapi.testclient import TestClient
from sqlmodel import select
from starlette.websockets import WebSocketDisconnect

import app.main as main
from app import engine
from app.db import Database, make_database, reviews
from app.db.auth import issue_token
from app.db.players import create_guest
from app.db.results import write_event
from app.review import ReviewBudget, review_seat
from app.settings import load_settings
from tests.db.helpers import play_random_game, seats_of
from tests.realtime.leak_scan import Game, Leak, Scanner, mentions

SECRET = "review-test-secret-0123456789"
SEED = 987_654_321_987  # a seed no review number could contain by chance


@contextlib.contextmanager
def server(tmp_path: Path, **overrides: Any) -> Iterator[TestClient]:
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 'reviews.sqlite3'}",
        "redis_url": "memory://",
        "secret_key": SECRET,
        "bot_workers": 0,
        "review_workers": 0,
        "review_units": 32,
        "review_poll_seconds": 0.1,
        "run_outbox_worker": False,
    }
    values.update(overrides)
    with TestClient(main.create_app(load_settings(**values))) as client:
        yield client


def _db(client: TestClient) -> Database:
    database: Database = client.app.state.services.database  # type: ignore[attr-defined]
    return database


def person(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    guest = create_guest(_db(client), name)
    return guest.id, {"Authorization": f"Bearer {issue_token(_db(client), guest.id, SECRET)}"}


def store_game(
    database: Database,
    people: list[str | None],
    *,
    preset: str = "classic",
    options: dict[str, Any] | None = None,
    private: bool = False,
    table: str = "R1",
    status: str = "finished",
) -> int:
    """Play a random game (the empty seats as computers), store it; its id."""
    options = options if options is not None else {"end": "hands", "hands": 1}
    bots = {i: "easy" for i, p in enumerate(people) if p is None}
    events, _ = play_random_game(preset, options, SEED, seats_of(*people, bots=bots), 5)
    for event in events:
        event["table_id"] = table
        event["private"] = private
        if event["kind"] == "game":
            event["ended"] = status
        if event["kind"] == "hand" or status == "finished":
            write_event(database, event)
    from app.db.models import Game as GameRow

    with database.session() as session:
        game = session.exec(select(GameRow).where(GameRow.table_id == table)).one()
        assert game.id is not None
        return game.id


def wait_done(
    client: TestClient, game_id: int, seat: int, query: str = "", timeout: float = 30
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        reply = client.get(f"/api/games/{game_id}/review?seat={seat}{query}")
        body: dict[str, Any] = reply.json()
        if body["status"] in ("done", "failed") or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def test_who_may_ask_and_a_review_is_computed_once(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        database = _db(client)
        alice, alice_auth = person(client, "Alice")
        bob, bob_auth = person(client, "Bob")
        _, carol_auth = person(client, "Carol")
        public = store_game(database, [alice, bob, None, None], table="pub")
        private = store_game(database, [alice, None, None, None], private=True, table="priv")
        playing = store_game(database, [alice, None, None, None], table="live", status="playing")

        url = f"/api/games/{public}/review"
        assert client.post(url, json={"seat": 0}).status_code == 401  # signed in only
        bad = client.post(url, json={"seat": 4}, headers=alice_auth)
        assert bad.status_code == 422 and bad.json()["detail"]["code"] == "bad_seat"
        loose = client.post(url, json={"seat": "0"}, headers=alice_auth)
        assert loose.status_code == 422  # strict body: no "0" for 0
        hidden = client.post(f"/api/games/{private}/review", json={"seat": 0}, headers=carol_auth)
        assert hidden.status_code == 404 and hidden.json()["detail"]["code"] == "unknown_game"
        live = client.post(f"/api/games/{playing}/review", json={"seat": 0}, headers=alice_auth)
        assert live.status_code == 409 and live.json()["detail"]["code"] == "game_in_progress"
        unrecorded = store_game(database, [alice, None, None, None], table="old")
        with database.session() as session:
            from app.db.models import Game as GameRow
            from app.db.models import Hand

            old = session.get(GameRow, unrecorded)
            assert old is not None
            old.moves = None
            session.add(old)
            for hand in session.exec(select(Hand).where(Hand.game_id == unrecorded)).all():
                hand.moves = []
                session.add(hand)
            session.commit()
        gone = client.post(f"/api/games/{unrecorded}/review", json={"seat": 0}, headers=alice_auth)
        assert gone.status_code == 409 and gone.json()["detail"]["code"] == "review_unavailable"
        unasked = client.get(f"{url}?seat=0")
        assert unasked.status_code == 404 and unasked.json()["detail"]["code"] == "no_review"

        first = client.post(url, json={"seat": 0}, headers=alice_auth)
        assert first.status_code == 202, first.text
        assert first.json()["status"] in ("queued", "running", "done")
        done = wait_done(client, public, 0)
        assert done["status"] == "done" and done["progress"] == 1
        result = done["result"]
        assert result["seat"] == 0 and result["variant"] == "classic"
        assert {"inaccuracy", "mistake", "blunder"} <= set(result["thresholds"])
        assert result["hands"] and all("decisions" in h for h in result["hands"])
        # Computed once: Bob (another player), and Carol (anyone may read a public game)
        # get the same stored review, and no new job.
        for auth in (bob_auth, carol_auth):
            again = client.post(url, json={"seat": 0}, headers=auth)
            assert again.status_code == 200 and again.json()["result"] == result
        row = reviews.read(database, public, 0)
        assert row is not None and row.attempts == 1 and row.requested_by == alice
        # In the requester's own data (the download), not in the others'.
        mine = client.get("/api/account/export", headers=alice_auth).json()["reviews_requested"]
        assert [(r["game_id"], r["seat"], r["status"]) for r in mine] == [(public, 0, "done")]
        assert client.get("/api/account/export", headers=bob_auth).json()["reviews_requested"] == []
        assert client.get(f"{url}?seat=0").json()["result"] == result  # read signed out too
        listing = client.get(url).json()["reviews"]
        assert [(r["seat"], r["status"], r["result"]) for r in listing] == [(0, "done", None)]

        # A private game: its player asks; others only with the share link.
        mine = client.post(f"/api/games/{private}/review", json={"seat": 0}, headers=alice_auth)
        assert mine.status_code == 202
        assert client.get(f"/api/games/{private}/review?seat=0").status_code == 404
        with database.session() as session:
            from app.db.models import Game as GameRow

            token = session.get(GameRow, private).share_token  # type: ignore[union-attr]
        shared = client.get(f"/api/games/{private}/review?seat=0&share={token}")
        assert shared.status_code == 200
        assert wait_done(client, private, 0, f"&share={token}")["status"] == "done"


def _alice_bob_and_a_game(
    client: TestClient,
) -> tuple[str, dict[str, str], dict[str, str], int, str]:
    """Alice (her id and headers), Bob's headers, a stored game Alice played in seat 0 against
    computers, and its review URL."""
    alice, alice_auth = person(client, "Alice")
    _, bob_auth = person(client, "Bob")
    game = store_game(_db(client), [alice, None, None, None])
    return alice, alice_auth, bob_auth, game, f"/api/games/{game}/review"


def test_new_reviews_are_limited_per_player_per_hour(tmp_path: Path) -> None:
    with server(tmp_path, review_requests_per_hour=2, run_review_jobs=False) as client:
        database = _db(client)
        alice, alice_auth, bob_auth, game, url = _alice_bob_and_a_game(client)
        assert client.post(url, json={"seat": 0}, headers=alice_auth).status_code == 202
        assert client.post(url, json={"seat": 1}, headers=alice_auth).status_code == 202
        # Asking again for a review that exists costs nothing.
        assert client.post(url, json={"seat": 0}, headers=alice_auth).status_code == 200
        over = client.post(url, json={"seat": 2}, headers=alice_auth)
        assert over.status_code == 429
        assert over.json()["detail"]["code"] == "too_many_reviews"
        assert 0 < int(over.headers["Retry-After"]) <= 3600
        # the limit, the cost and when, as named values for the page's words
        values = over.json()["detail"]["values"]
        assert values["per_hour"] >= values["cost"] >= 1
        wait_ms = values["until"] - time.time() * 1000
        assert 0 < wait_ms <= 3600 * 1000 + 5000
        assert reviews.read(database, game, 2) is None  # nothing was queued
        # Another player's own hour.
        assert client.post(url, json={"seat": 2}, headers=bob_auth).status_code == 202
        # From one address, three times a player's limit (6; Alice's refused one counts too):
        # Bob's second, then Carol's first, and Carol's second is one too many.
        assert client.post(url, json={"seat": 3}, headers=bob_auth).status_code == 202
        _, carol_auth = person(client, "Carol")
        other = f"/api/games/{store_game(database, [alice, None, None, None], table='R2')}/review"
        assert client.post(other, json={"seat": 0}, headers=carol_auth).status_code == 202
        crowded = client.post(other, json={"seat": 1}, headers=carol_auth)
        assert crowded.status_code == 429
        assert crowded.json()["detail"]["code"] == "too_many_reviews"


def paced_compute(
    record: dict[str, Any], seat: int, budget: int, progress_path: str | None
) -> dict[str, Any]:
    """The real review, its progress written at each decision with a short pause there, so
    that the progress is seen between 0 and 1 on a fast machine too."""
    from app.jobs.review import write_progress

    def progress(fraction: float) -> None:
        assert progress_path is not None
        write_progress(progress_path, fraction)
        time.sleep(0.04)

    units = ReviewBudget(play_units=budget, pass_units=3 * budget)
    return review_seat(record, seat, budget=units, progress=progress)


def test_the_socket_follows_the_job_to_the_end(tmp_path: Path) -> None:
    with server(tmp_path, review_units=64) as client:
        client.app.state.services.reviews.compute = paced_compute  # type: ignore[attr-defined]
        database = _db(client)
        alice, alice_auth = person(client, "Alice")
        game = store_game(database, [alice, None, None, None], options={"end": "hands", "hands": 2})
        with client.websocket_connect(f"/ws/games/{game}/review?seat=0") as ws:
            first = orjson.loads(ws.receive_text())
            assert first == {
                "type": "review", "game_id": game, "seat": 0, "status": "none", "progress": 0,
            }  # fmt: skip
            asked = client.post(f"/api/games/{game}/review", json={"seat": 0}, headers=alice_auth)
            assert asked.status_code == 202
            seen = []
            while True:
                message = orjson.loads(ws.receive_text())
                seen.append(message)
                if message["status"] == "done":
                    break
            with pytest.raises(WebSocketDisconnect):  # closed by the server once done
                ws.receive_text()
        statuses = [m["status"] for m in seen]
        assert statuses[0] == "queued" and statuses[-1] == "done" and "running" in statuses
        progress = [m["progress"] for m in seen if m["status"] == "running"]
        assert progress == sorted(progress) and any(0 < p < 1 for p in progress), seen
        # A socket opened afterwards gets the final state at once, then is closed.
        with client.websocket_connect(f"/ws/games/{game}/review?seat=0") as ws:
            assert orjson.loads(ws.receive_text())["status"] == "done"
        with client.websocket_connect(f"/ws/games/{game + 99}/review?seat=0") as ws:
            assert orjson.loads(ws.receive_text())["code"] == "unknown_game"


CROSS_BACKENDS = ["real"] + (["cluster"] if os.environ.get("HEARTS_TEST_REDIS_CLUSTER_URL") else [])


@pytest.mark.parametrize("backend", CROSS_BACKENDS)
def test_a_socket_on_one_instance_follows_a_review_computed_on_another(
    tmp_path: Path, backend: str, namespace: str
) -> None:
    """Instance A takes the request and the socket but computes no review; instance B computes
    it: its progress reaches A's socket through Redis (one Redis, and Redis Cluster's shard
    channels)."""
    from tests.conftest import cluster_redis_url, real_redis_url

    url = real_redis_url() if backend == "real" else cluster_redis_url()
    shared = {"redis_url": url, "redis_namespace": namespace, "review_units": 64}
    with (
        server(tmp_path, run_review_jobs=False, instance_id="A", **shared) as a,
        server(tmp_path, instance_id="B", **shared) as b,
    ):
        b.app.state.services.reviews.compute = paced_compute  # type: ignore[attr-defined]
        alice, alice_auth = person(a, "Alice")
        game = store_game(_db(a), [alice, None, None, None])
        with a.websocket_connect(f"/ws/games/{game}/review?seat=0") as ws:
            assert orjson.loads(ws.receive_text())["status"] == "none"
            assert (
                a.post(
                    f"/api/games/{game}/review", json={"seat": 0}, headers=alice_auth
                ).status_code
                == 202
            )
            seen = [orjson.loads(ws.receive_text())]
            while seen[-1]["status"] != "done":
                seen.append(orjson.loads(ws.receive_text()))
        assert any(m["status"] == "running" and 0 < m["progress"] < 1 for m in seen), seen
        row = reviews.read(_db(a), game, 0)
        assert row is not None and row.status == "done" and row.attempts == 1
        assert a.get(f"/api/games/{game}/review?seat=0").json()["result"]["seat"] == 0


LEAK_CASES = [
    ("classic", {"end": "hands", "hands": 2}, 4),
    ("two-player-dummy", {"end": "hands", "hands": 1}, 2),
    ("double-hearts-3", {"end": "hands", "hands": 1}, 3),
    ("classic-3-jokers", {"end": "hands", "hands": 1}, 3),
]


@pytest.mark.parametrize(("preset", "options", "players"), LEAK_CASES)
def test_nothing_returned_names_a_card_the_seat_could_not_know(
    tmp_path: Path, preset: str, options: dict[str, Any], players: int
) -> None:
    """Every decision of every seat's review, as the API and the socket return it, names
    only cards its seat could see at that moment (its own, passed and received ones, cards
    played), and no form of the game's seed; the rest of the answer names no card at all."""
    with server(tmp_path, review_units=16) as client:
        database = _db(client)
        people: list[str | None] = []
        auth: dict[str, str] = {}
        for i in range(players):
            pid, auth = person(client, f"P{i}")
            people.append(pid)
        game_id = store_game(database, people, preset=preset, options=options)
        record = reviews_record(database, game_id)
        game = Game(engine.make_rules(preset, options), SEED)
        game.extend(record["moves"])
        scanned = 0
        for seat in range(players):
            with client.websocket_connect(f"/ws/games/{game_id}/review?seat={seat}") as ws:
                socket_messages = [ws.receive_text()]
                reply = client.post(
                    f"/api/games/{game_id}/review", json={"seat": seat}, headers=auth
                )
                assert reply.status_code == 202
                while orjson.loads(socket_messages[-1])["status"] not in ("done", "failed"):
                    socket_messages.append(ws.receive_text())
            scanner = Scanner(game, seat, f"seat {seat}")
            for raw in socket_messages:
                scanner.check_no_cards("a review socket message", raw)
            body = client.get(f"/api/games/{game_id}/review?seat={seat}")
            raw_body = body.content
            data = body.json()
            assert data["status"] == "done", data
            decisions = [d for h in data["result"]["hands"] for d in h["decisions"]]
            assert decisions, "a seat with no decision reviewed"
            for decision in decisions:
                # the seat's knowledge just before its move (state index = move index)
                scanner.check(
                    f"decision {decision['index']}", orjson.dumps(decision), decision["index"]
                )
                scanned += 1
            # The scan has teeth: a card hidden at a decision, planted as its best move, is found.
            index = decisions[0]["index"]
            hidden = sorted(game.hidden(seat, index, index))
            planted = {**decisions[0], "best": {"type": "play", "card": hidden[0]}}
            with pytest.raises(Leak):
                scanner.check("a planted card", orjson.dumps(planted), index)
            rest = {k: v for k, v in data["result"].items() if k != "hands"}
            rest["hands"] = [
                {k: v for k, v in h.items() if k != "decisions"} for h in data["result"]["hands"]
            ]
            scanner.check_no_cards("the review outside its decisions", orjson.dumps(rest))
            assert not any(True for _ in mentions({k: v for k, v in data.items() if k != "result"}))
            assert str(SEED).encode() not in raw_body
            listing = client.get(f"/api/games/{game_id}/review")
            scanner.check_no_cards("the list of reviews", listing.content)
            # A shared replay room showing this review (app/api/replay_rooms.py) carries the
            # seat only: every page reads the review above itself; nothing of it is in the room.
            room = client.post(
                "/api/replay-rooms", json={"game_id": game_id, "review_seat": seat}, headers=auth
            )
            assert room.status_code == 201, room.text
            chose = client.post(
                f"/api/replay-rooms/{room.json()['room']['id']}/review",
                json={"seat": seat},
                headers=auth,
            )
            assert chose.json()["room"]["review"] == {"seat": seat, "asked": 1}, chose.text
            for answer in (room, chose):
                scanner.check_no_cards("a replay room showing the review", answer.content)
        assert scanned >= players


def reviews_record(database: Database, game_id: int) -> dict[str, Any]:
    from app.jobs.review import load_record

    record = load_record(database, game_id)
    assert record is not None
    return record


# --- an instance killed mid-review --------------------------------------------------------


def _server_env(pg_url: str, redis_url: str, namespace: str, instance: str) -> dict[str, str]:
    return {
        "HEARTS_DATABASE_URL": pg_url,
        "HEARTS_REDIS_URL": redis_url,
        "HEARTS_REDIS_NAMESPACE": namespace,
        "HEARTS_SECRET_KEY": SECRET,
        "HEARTS_INSTANCE_ID": instance,
        "HEARTS_BOT_WORKERS": "0",
        "HEARTS_REVIEW_WORKERS": "1",
        "HEARTS_REVIEW_UNITS": "300",
        "HEARTS_REVIEW_LEASE_SECONDS": "2",
        "HEARTS_REVIEW_POLL_SECONDS": "0.2",
    }


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                status = (entry / "status").read_text()
                ppid = next(x for x in status.splitlines() if x.startswith("PPid:")).split()[1]
                if int(ppid) == pid:
                    found.append(int(entry.name))
    return found


def test_a_review_whose_instance_was_killed_is_finished_by_another(
    pg_url: str, tmp_path: Path
) -> None:
    from app.db import upgrade_to_head
    from tests.conftest import real_redis_url
    from tests.realtime.harness import subprocess_server

    redis_url = real_redis_url()
    namespace = "reviewkill" + os.urandom(4).hex()
    upgrade_to_head(pg_url)
    database = make_database(pg_url)
    try:
        alice = create_guest(database, "Alice")
        token = issue_token(database, alice.id, SECRET)
        # Six hands: long enough at the test's small budget to be caught mid-review on a
        # quiet machine (two hands were done before the first look).
        game_id = store_game(
            database, [alice.id, None, None, None], options={"end": "hands", "hands": 6}
        )
        with subprocess_server(_server_env(pg_url, redis_url, namespace, "first")) as (a, proc):
            reply = httpx.post(
                f"http://{a}/api/games/{game_id}/review",
                json={"seat": 0},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert reply.status_code == 202, reply.text
            deadline = time.monotonic() + 60
            while True:  # mid-review: running on the first instance, some progress stored
                row = reviews.read(database, game_id, 0)
                assert row is not None and row.status != "done", "finished before the kill"
                if row.status == "running" and row.progress > 0:
                    break
                assert time.monotonic() < deadline, row
                time.sleep(0.05)
            assert row.lease_owner == "first"
            workers = _children(proc.pid)  # the review worker computing it, the results writer
            assert workers
            proc.kill()  # SIGKILL: no clean-up, the lease is left to run out
            proc.wait()
        # The instance's workers end with it (app.workers.exit_with_parent).
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in workers):
            assert time.monotonic() < deadline, "a worker outlived its server"
            time.sleep(0.1)
        row = reviews.read(database, game_id, 0)
        assert row is not None and row.status == "running" and row.attempts == 1
        # Another instance (here in this process, its review in a thread: quicker to start on
        # a loaded machine) takes the job over once the lease has run out, and finishes it.
        with server(
            tmp_path,
            database_url=pg_url,
            redis_url=redis_url,
            redis_namespace=namespace,
            instance_id="second",
            review_lease_seconds=2,
            migrate_on_start=False,
        ) as second:
            body = wait_done(second, game_id, 0, timeout=90)
            assert body["status"] == "done", body
        row = reviews.read(database, game_id, 0)
        assert row is not None and row.attempts == 2 and row.lease_owner is None
        # The same review as computed directly (it depends on the record and budget only).
        direct = review_seat(
            reviews_record(database, game_id),
            0,
            budget=ReviewBudget(play_units=300, pass_units=900),
        )
        assert body["result"] == orjson.loads(orjson.dumps(direct))
    finally:
        database.dispose()


def test_the_queue_is_bounded_for_the_whole_deployment(tmp_path: Path) -> None:
    with server(tmp_path, review_queue_max=2, run_review_jobs=False) as client:
        database = _db(client)
        alice, alice_auth, bob_auth, game, url = _alice_bob_and_a_game(client)
        assert client.post(url, json={"seat": 0}, headers=alice_auth).status_code == 202
        assert client.post(url, json={"seat": 1}, headers=bob_auth).status_code == 202
        full = client.post(url, json={"seat": 2}, headers=bob_auth)
        assert full.status_code == 503 and full.json()["detail"]["code"] == "review_queue_full"
        assert int(full.headers["Retry-After"]) > 0
        assert reviews.read(database, game, 2) is None and reviews.pending(database) == 2
        # asking for one that is queued already is no new job: answered, not refused
        assert client.post(url, json={"seat": 0}, headers=bob_auth).status_code == 200
        with pytest.raises(reviews.QueueFull):  # the same bound where the row is written
            reviews.request(database, game, 3, alice, 32, queue_max=2)


def test_jobs_are_taken_round_robin_between_requesters(tmp_path: Path) -> None:
    """Alice asks for three reviews, then Bob and Carol for one each: Bob's and Carol's come
    after Alice's first, not after all of hers."""
    with server(tmp_path, run_review_jobs=False) as client:
        database = _db(client)
        alice, _ = person(client, "Alice")
        bob, _ = person(client, "Bob")
        carol, _ = person(client, "Carol")
        game = store_game(database, [alice, bob, carol, None])
        other = store_game(database, [alice, None, None, None], table="R2")
        asked = [(game, 0, alice), (game, 1, alice), (other, 0, alice), (game, 2, bob)]
        asked += [(game, 3, carol)]
        for game_id, seat, who in asked:
            assert reviews.request(database, game_id, seat, who, 32)[1]
            time.sleep(0.002)  # distinct times of asking
        order = reviews.claimable(database, limit=10)
        assert order == [(game, 0), (game, 2), (game, 3), (game, 1), (other, 0)]


def test_a_long_game_costs_more_of_the_hourly_allowance(tmp_path: Path) -> None:
    """A unit covers 14 decisions here (a hand's pass and 13 cards): a one-hand game's seat
    costs one, a two-hand game's two; with two units an hour, a player gets two short reviews
    or one long one."""
    with server(
        tmp_path, review_requests_per_hour=2, review_decisions_per_unit=14, run_review_jobs=False
    ) as client:
        database = _db(client)
        alice, alice_auth = person(client, "Alice")
        short = store_game(database, [alice, None, None, None], table="S")
        long = store_game(
            database, [alice, None, None, None], options={"end": "hands", "hands": 2}, table="L"
        )
        bob, bob_auth = person(client, "Bob")
        for seat in (0, 1):
            reply = client.post(f"/api/games/{short}/review", json={"seat": seat}, headers=bob_auth)
            assert reply.status_code == 202
        over = client.post(f"/api/games/{short}/review", json={"seat": 2}, headers=bob_auth)
        assert over.status_code == 429
        first = client.post(f"/api/games/{long}/review", json={"seat": 0}, headers=alice_auth)
        assert first.status_code == 202
        again = client.post(f"/api/games/{long}/review", json={"seat": 1}, headers=alice_auth)
        assert again.status_code == 429 and "costs 2" in again.json()["detail"]["message"]
        assert bob and reviews.read(database, long, 1) is None


def test_a_review_stops_at_its_cpu_cap_scaled_to_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.jobs import review as jobs

    with server(tmp_path, run_review_jobs=False) as client:
        database = _db(client)
        alice, _ = person(client, "Alice")
        short = store_game(database, [alice, None, None, None], table="S")
        long = store_game(
            database, [alice, None, None, None], options={"end": "hands", "hands": 2}, table="L"
        )
        records = [jobs.load_record(database, g) for g in (short, long)]
    assert records[0] is not None and records[1] is not None
    runner = jobs.ReviewRunner(database, None, "ns", cpu_seconds_per_decision=0.5)
    assert [runner.cpu_cap(r, 0) for r in records] == [jobs.CPU_FLOOR_SECONDS, 14.0]
    runner.cpu_seconds_per_decision = 3.0
    caps = [runner.cpu_cap(r, 0) for r in records]
    assert caps == [42.0, 84.0]  # 14 and 28 decisions: a pass and 13 cards a hand
    runner.close()
    # a cap that is used up stops the review at its next decision
    with pytest.raises(jobs.ReviewTooLong):
        jobs.compute_review({**records[0], "cpu_cap_seconds": 0.0}, 0, 16, None)
    # and the job fails (the runner stores why) instead of running on
    monkeypatch.setattr(jobs, "CPU_FLOOR_SECONDS", 0.0)
    with server(tmp_path / "capped", review_cpu_seconds_per_decision=1e-9) as client:
        alice, alice_auth = person(client, "Alice")
        game = store_game(_db(client), [alice, None, None, None])
        assert client.post(f"/api/games/{game}/review", json={"seat": 0}, headers=alice_auth)
        done = wait_done(client, game, 0)
    assert done["status"] == "failed", done
    row = reviews.read(
        make_database(f"sqlite:///{tmp_path / 'capped' / 'reviews.sqlite3'}"), game, 0
    )
    assert row is not None and "CPU cap" in (row.error or "")
