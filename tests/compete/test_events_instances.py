"""A Swiss event of 9 players over 3 rounds on two real server instances (``python -m app``
processes on one Redis and one database: PostgreSQL when the tests have one, else SQLite), the
players scripted socket clients; instance A is killed (SIGKILL, with its results writer) in
the middle of round 2. The event goes on on B (its scheduler runs
on every instance, each step a compare-and-set), and at the end every round was seated by the
standings, every table's game is stored once with the scores the event recorded, and the
standings are Swiss's over those stored games: nothing lost, nothing counted twice."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
import websockets
from sqlmodel import col

from app.compete.swiss import Standing, after_round, order, seat_round
from app.db import make_database, upgrade_to_head
from app.db.compete_models import Event
from app.db.models import utcnow
from tests.conftest import drop_namespace, real_redis_url
from tests.realtime.harness import (
    Client,
    children,
    guest,
    play_until_over,
    subprocess_servers,
)

pytestmark = pytest.mark.asyncio

SECRET = "events-instances-secret-0123456789"
ROUNDS = 3
PLAYERS = 9
KILL_ROUND = 2
KILL_AFTER_MOVES = 6  # the humans' moves in the kill round before A dies


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if os.environ.get("HEARTS_TEST_DATABASE_URL"):
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{tmp_path}/hearts.sqlite3"


@contextlib.contextmanager
def two_instances(database_url: str, tmp_path: Path) -> Iterator[tuple[str, str, int]]:
    """Instances A and B, started together on the migrated database: (A's address, B's, A's
    process id)."""
    upgrade_to_head(database_url)
    namespace = "ev" + uuid.uuid4().hex[:10]
    redis_url = real_redis_url()
    env = {
        "HEARTS_REDIS_URL": redis_url,
        "HEARTS_REDIS_NAMESPACE": namespace,
        "HEARTS_DATABASE_URL": database_url,
        "HEARTS_MIGRATE_ON_START": "false",
        "HEARTS_SECRET_KEY": SECRET,
        "HEARTS_TURN_TIMER_SECONDS": "0",
        # The computers (a short table's, and a seat until its player comes) play at once
        # but not in no time: the players have their moves to make.
        "HEARTS_BOT_DELAY_MIN_MS": "30",
        "HEARTS_BOT_DELAY_MAX_MS": "30",
        "HEARTS_BOT_WORKERS": "0",  # the events' computers are Standard: no Expert pool
        "HEARTS_DUE_POLL_SECONDS": "0.05",
        "HEARTS_DUE_LEASE_SECONDS": "2",  # a computer's turn A held goes to B after 2 s
        "HEARTS_HAND_PAUSE_MS": "0",
        "HEARTS_WS_RATE_PER_SECOND": "1000",
        "HEARTS_RUN_REVIEW_JOBS": "false",
        "HEARTS_EVENTS_HANDS_PER_ROUND": "1",
        "HEARTS_EVENTS_REMIND_MINUTES": "0",
    }
    try:
        with subprocess_servers(
            [{**env, "HEARTS_INSTANCE_ID": "A"}, {**env, "HEARTS_INSTANCE_ID": "B"}],
            [tmp_path / "a.log", tmp_path / "b.log"],
        ) as [(a, proc_a), (b, _)]:
            yield a, b, proc_a.pid
    finally:
        drop_namespace(redis_url, namespace)


class Field:
    """What the players share: the instances still up, and the moves made per round."""

    def __init__(self, a: str, b: str) -> None:
        self.up = [a, b]
        self.moves: dict[int, int] = {}
        self.seated: dict[int, int] = {}  # players who have their table, per round


class Player:
    """A person in a browser, scripted: follows the event's page to each round's table and
    plays it (random legal moves) to its end; when its instance dies it goes on on the other
    (the load balancer's job in production)."""

    def __init__(self, field: Field, home: int, name: str) -> None:
        self.field = field
        self.home = home
        self.name = name
        self.token = ""
        self.id = ""
        self.rng = random.Random(name)

    @property
    def address(self) -> str:
        up = self.field.up
        return up[self.home % len(up)]

    def _dead(self, address: str) -> None:
        if address in self.field.up and len(self.field.up) > 1:
            self.field.up.remove(address)

    async def sign_in(self) -> None:
        self.token, self.id = await guest(self.address, self.name)

    async def call(self, method: str, path: str, **kw: Any) -> httpx.Response:
        while True:
            address = self.address
            try:
                async with httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as http:
                    return await http.request(
                        method, path, headers={"Authorization": f"Bearer {self.token}"}, **kw
                    )
            except httpx.TransportError:
                self._dead(address)
                await asyncio.sleep(0.2)

    async def table_of(self, event_id: int, round_no: int) -> str | None:
        """The player's table in ``round_no`` once made; None when the event ended first."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            page = (await self.call("GET", f"/api/events/{event_id}")).json()
            mine = page["my_table"]
            if mine and mine["round"] == round_no and mine["table_id"]:
                assert not mine["table_id"].startswith("making:")
                self.field.seated[round_no] = self.field.seated.get(round_no, 0) + 1
                return str(mine["table_id"])
            if page["state"] == "finished" or page["current_round"] > round_no:
                return None
            await asyncio.sleep(0.25)
        raise AssertionError(f"{self.name}: no table in round {round_no}")

    async def play(self, table_id: str, round_no: int) -> None:
        """Play the table to its end, coming back on the other instance if this one dies."""
        while True:
            address = self.address
            client = Client(address, table_id, self.token, self.name)
            try:
                await client.connect()
                await self._moves(client, round_no)
                return
            except (AssertionError, OSError, websockets.WebSocketException) as error:
                closed = client._reader is not None and client._reader.done()
                if isinstance(error, AssertionError) and not closed:
                    raise  # a timeout: the table stopped moving
                self._dead(address)
                await asyncio.sleep(0.2)
            finally:
                with contextlib.suppress(Exception):
                    await client.close()

    async def _moves(self, client: Client, round_no: int) -> None:
        def counted(answer: dict[str, Any]) -> None:
            if answer["type"] == "ack":
                self.field.moves[round_no] = self.field.moves.get(round_no, 0) + 1

        await play_until_over(client, self.rng, counted, timeout=30)

    async def attend(self, event_id: int) -> None:
        for round_no in range(1, ROUNDS + 1):
            table_id = await self.table_of(event_id, round_no)
            if table_id is None:
                return
            await self.play(table_id, round_no)


async def kill_mid_round(field: Field, a: str, pid: int) -> None:
    """SIGKILL instance A (and the process it started: its results writer) once the humans
    have made some moves in round ``KILL_ROUND``: its sockets drop, its computers' turns and
    its share of the scheduler's polls stop without a word."""
    # Once every table of the round is made: a table whose making A held when it died waits
    # for the claim's 60 s before another instance makes it (docs/compete.md).
    while (
        field.moves.get(KILL_ROUND, 0) < KILL_AFTER_MOVES
        or field.seated.get(KILL_ROUND, 0) < PLAYERS
    ):
        await asyncio.sleep(0.01)
    kill(pid)
    if a in field.up:
        field.up.remove(a)


def kill(pid: int) -> None:
    """SIGKILL an instance and the processes it started."""
    for doomed in [*children(pid), pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(doomed, signal.SIGKILL)


async def signed_in_and_registered(players: list[Player], **spec: Any) -> int:
    """The players signed in; the first makes an event starting in five minutes (``spec``:
    its name, format...) and all register: its id."""
    await asyncio.gather(*(p.sign_in() for p in players))
    start = datetime.now(UTC) + timedelta(minutes=5)
    made = await players[0].call(
        "POST", "/api/events", json={"starts_at": start.isoformat(), **spec}
    )
    assert made.status_code == 201, made.text
    event_id = int(made.json()["id"])
    for p in players:
        assert (await p.call("POST", f"/api/events/{event_id}/register")).status_code == 200
    return event_id


def start_now(database_url: str, event_id: int) -> None:
    """The clock jumps to the event's start."""
    db = make_database(database_url)
    try:
        with db.session() as session:
            session.execute(
                sa.update(Event).where(col(Event.id) == event_id).values(starts_at=utcnow())
            )
            session.commit()
    finally:
        db.dispose()


def rows(database_url: str, query: str, **params: Any) -> list[Any]:
    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as connection:
            return list(connection.execute(sa.text(query), params).all())
    finally:
        engine.dispose()


async def test_a_swiss_event_survives_an_instance_killed_mid_round(
    database_url: str, tmp_path: Path
) -> None:
    with two_instances(database_url, tmp_path) as (a, b, pid_a):
        field = Field(a, b)
        players = [Player(field, n % 2, f"P{n}") for n in range(PLAYERS)]
        event_id = await signed_in_and_registered(
            players, name="Killed mid-round", rounds=ROUNDS, grace_seconds=120
        )
        # Everyone is in: the clock jumps to the start (the next poll of either instance).
        start_now(database_url, event_id)
        killer = asyncio.create_task(kill_mid_round(field, a, pid_a))
        await asyncio.wait_for(asyncio.gather(*(p.attend(event_id) for p in players)), 150)
        assert killer.done() and field.up == [b]  # A died in round 2 and the event went on
        deadline = time.monotonic() + 30
        while (await players[0].call("GET", f"/api/events/{event_id}")).json()[
            "state"
        ] != "finished":
            assert time.monotonic() < deadline, "the event did not finish"
            await asyncio.sleep(0.25)
        standings = (
            await players[0].call("GET", f"/api/events/{event_id}/standings?limit=100")
        ).json()

        # What SQL holds: every seat of every round, scored once; every table's game stored
        # once (both instances write results; A died with some unwritten), its totals the
        # scores the event recorded.
        seed = rows(database_url, "SELECT seed FROM event WHERE id = :e", e=event_id)[0][0]
        seats = rows(
            database_url,
            "SELECT round, table_no, seat, player_id, late, table_id, score FROM event_seat "
            "WHERE event_id = :e ORDER BY round, table_no, seat",
            e=event_id,
        )
        assert len(seats) == ROUNDS * 3 * 4  # 9 players: tables of 4, 4 and 1 + 3 computers
        assert all(s.score is not None and not s.late for s in seats)
        table_ids = {s.table_id for s in seats}
        assert len(table_ids) == ROUNDS * 3
        # The outbox writer stores them: generous on a loaded machine (6 of 9 after 30 s once).
        deadline = time.monotonic() + 120
        while True:
            games = [
                g
                for g in rows(database_url, "SELECT table_id, totals FROM game")
                if g.table_id in table_ids
            ]
            if len({g.table_id for g in games}) == len(table_ids):
                break
            assert time.monotonic() < deadline, f"{len(games)} of {len(table_ids)} games stored"
            await asyncio.sleep(0.25)
        assert len(games) == len(table_ids), "a game stored twice"
        totals = {g.table_id: _ints(g.totals) for g in games}

        # The model: Swiss seating by the standings, each round's table points from the
        # stored games; the event's seating and standings must be the same.
        ids = [p.id for p in players]
        model = {pid: Standing(pid) for pid in ids}
        for round_no in range(1, ROUNDS + 1):
            mine = [s for s in seats if s.round == round_no]
            by_table: dict[int, list[Any]] = {}
            for s in mine:
                by_table.setdefault(s.table_no, []).append(s)
            tables = [[s.player_id for s in t] for t in by_table.values()]
            assert tables == seat_round(model.values(), 4, seed), f"round {round_no} seating"
            scores = [totals[t[0].table_id] for t in by_table.values()]
            assert [[s.score for s in t] for t in by_table.values()] == scores
            model = after_round(model, tables, scores, [6, 4, 2, 0])
        want = order(model.values(), seed)
        got = standings["lines"]
        assert standings["next"] is None
        assert [
            (x["player_id"], x["table_points"], x["game_points"], x["rounds"]) for x in got
        ] == [(s.player_id, s.table_points, s.game_points, ROUNDS) for s in want]


def _ints(value: Any) -> list[int]:
    return [int(v) for v in (json.loads(value) if isinstance(value, str) else value)]


async def test_an_arena_table_whose_maker_was_killed_is_made_within_seconds(
    database_url: str, tmp_path: Path
) -> None:
    """Instance A is killed (SIGKILL) holding the making of an arena's table: the seats are in
    SQL under A's claim, as A leaves them when it dies between its claim and storing the
    table id. B's poll makes the table once A's claim is a few seconds old (it is renewed
    only while its maker lives), not after a minute, and the four players find it on the
    event's page."""
    with two_instances(database_url, tmp_path) as (a, b, pid_a):
        field = Field(a, b)
        players = [Player(field, 1, f"R{n}") for n in range(4)]  # all on B
        event_id = await signed_in_and_registered(
            players, name="Killed making", format="arena", minutes=30
        )
        kill(pid_a)
        field.up.remove(a)
        # What A left: the arena started, its first game's four seated under A's claim (one
        # transaction, so B's polls see the event before the start or all of it).
        claimed = time.time()
        engine = sa.create_engine(database_url)
        try:
            with engine.begin() as connection:
                connection.execute(
                    sa.text(
                        "UPDATE event SET state = 'running', current_round = 1, "
                        "starts_at = :now WHERE id = :e"
                    ),
                    {"now": utcnow(), "e": event_id},
                )
                for seat, p in enumerate(players):
                    connection.execute(
                        sa.text(
                            "INSERT INTO event_seat (event_id, round, table_no, seat, "
                            "player_id, table_id, late) VALUES (:e, 1, 0, :s, :p, :t, :f)"
                        ),
                        {
                            "e": event_id,
                            "s": seat,
                            "p": p.id,
                            "t": f"making:A:{claimed:.1f}",
                            "f": False,
                        },
                    )
        finally:
            engine.dispose()
        tables = await asyncio.wait_for(
            asyncio.gather(*(p.table_of(event_id, 1) for p in players)), 40
        )
        took = time.time() - claimed
        assert len(set(tables)) == 1 and tables[0], tables  # one table, made once, by B
        assert took < 20, f"the table came {took:.1f} s after A's claim"  # the old claim: 60
        seats = rows(
            database_url,
            "SELECT DISTINCT table_id FROM event_seat WHERE event_id = :e",
            e=event_id,
        )
        assert [s.table_id for s in seats] == [tables[0]]
        client = Client(b, str(tables[0]), players[0].token, players[0].name)
        await client.connect()  # an ordinary table on B, the player seated at it
        try:
            state = await client.wait(lambda m: m["type"] == "state", timeout=20)
            assert state["table"]["status"] in ("playing", "waiting", "over")
        finally:
            await client.close()
