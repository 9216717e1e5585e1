"""Redis restarted (append-only file) and Redis unreachable for a while, under a live server.

Each test starts its own ``redis-server`` on a spare port with ``--appendonly yes`` in a
temporary directory, runs the app against it (uvicorn in the test's event loop, real
WebSockets), plays part of a game, then stops Redis and starts it again on the same files.
Tables must survive, a move sent while Redis is away must get the retryable
``store_unavailable`` error and change nothing, and play must go on to the game's end (and
its record reach SQL) without restarting the app: the pipelined client, the pub/sub
subscriber, the due loop and the results writer all reconnect by themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from sqlmodel import select

from app.db import make_database
from app.db.models import Game
from app.settings import Settings
from app.store import TableStore, make_redis
from tests.conftest import REQUIRE_SERVICES
from tests.realtime.harness import (
    Client,
    create_table,
    free_port,
    guest,
    in_process_server,
    pick_move,
    told_to_come_back,
)
from tests.realtime.test_games import play_to_end, settings_for
from tests.realtime.test_lobby import feed_on, line, until

pytestmark = pytest.mark.asyncio


class RedisServer:
    """A throwaway redis-server with append-only persistence in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            if REQUIRE_SERVICES:
                pytest.fail("HEARTS_TEST_REQUIRE_SERVICES is set but redis-server is missing")
            pytest.skip("no redis-server binary")
        options = {
            "port": str(self.port),
            "bind": "127.0.0.1",
            "appendonly": "yes",
            "appendfsync": "always",  # a SIGKILL loses nothing acknowledged
            "save": "",
            "dir": str(self.directory),
            "daemonize": "no",
        }
        self.proc = subprocess.Popen(
            [binary, *(part for name, value in options.items() for part in (f"--{name}", value))],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        try:
            deadline = time.monotonic() + 20
            while True:
                with contextlib.suppress(redis.RedisError):
                    # Ready only once the append-only file is loaded back.
                    if client.ping() and client.info("persistence")["loading"] == 0:
                        return
                assert self.proc.poll() is None, "redis-server exited"
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no last write (the file was synced at every write)."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    directory = tmp_path / "redis"
    directory.mkdir()
    server = RedisServer(directory)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def seated_table(
    address: str, other: str, comes_back: bool = False
) -> tuple[str, list[Client]]:
    """A classic one-hand table with four players on sockets, started: seats 0 and 1 on the
    instance at ``address``, 2 and 3 on ``other`` (with the relay off, they hear of the
    others' moves only through pub/sub; on, ``address`` is the table's home and ``other``
    passes their frames on). ``comes_back``: the clients reconnect after 1012 as pages do."""
    logins = [await guest(address, f"P{i}") for i in range(4)]
    created = await create_table(
        address, logins[0][0], preset="classic", options={"end": "hands", "hands": 1}
    )
    table_id = created["table"]["id"]
    clients = [
        Client(address if i < 2 else other, table_id, tok, f"P{i}", comes_back=comes_back)
        for i, (tok, _) in enumerate(logins)
    ]
    for client in clients:
        await client.connect()
        await client.wait(lambda m: m["type"] == "welcome")
    for i, client in enumerate(clients[1:], start=1):
        assert (await client.command("sit", seat=i))["type"] == "ack"
    assert (await clients[0].command("start"))["type"] == "ack"
    return table_id, clients


async def pass_cards(clients: list[Client]) -> None:
    """Every seat passes (the first moves of a classic hand), each acked."""
    rng = random.Random(7)
    for client in clients:
        state = await client.wait_state(lambda m: (m["view"] or {}).get("legal") is not None)
        move = pick_move(state["view"], rng)
        assert move is not None and move["type"] == "pass"
        assert (await client.command("move", move=move))["type"] == "ack"


async def game_recorded(database_url: str, table_id: str) -> None:
    database = make_database(database_url)
    try:
        deadline = time.monotonic() + 30
        while True:
            with database.session() as session:
                games = session.exec(select(Game).where(Game.table_id == table_id)).all()
            if games and games[0].status == "finished":
                assert len(games) == 1
                return
            assert time.monotonic() < deadline, "the finished game never reached SQL"
            await asyncio.sleep(0.2)
    finally:
        database.dispose()


@contextlib.asynccontextmanager
async def table_on_two_instances(
    tmp_path: Path, server: RedisServer, relay: bool = False
) -> AsyncIterator[tuple[str, str, list[Client], Settings]]:
    """Two app instances on ``server`` and a started table with its four players' sockets
    (two on each instance), their passes made: (address, table id, clients, settings).
    Without ``relay`` each instance serves its own sockets, so what these tests follow is
    the pub/sub fan-out's recovery; with it, the relayed sockets' (app/realtime/relay.py)."""
    settings = settings_for(
        tmp_path,
        redis_url=server.url,
        redis_namespace="restart",
        secret_key="k" * 32,
        ws_relay=relay,
    )
    async with (
        in_process_server(settings) as address,
        in_process_server(settings.model_copy(update={"migrate_on_start": False})) as other,
    ):
        table_id, clients = await seated_table(address, other, comes_back=relay)
        try:
            await pass_cards(clients)
            yield address, table_id, clients, settings
        finally:
            for client in clients:
                await client.close()


def without_presence(table: dict[str, Any]) -> dict[str, Any]:
    """A table's JSON less what sockets coming and going change: its version, the seats'
    "connected"."""
    out = {k: v for k, v in table.items() if k != "version"}
    if isinstance(out.get("table"), dict):
        inner = dict(out["table"])
        inner["seats"] = [
            {k: v for k, v in seat.items() if k != "connected"} for seat in inner["seats"]
        ]
        out["table"] = inner
    return out


@pytest.mark.parametrize("relay", [False, True], ids=["fanout", "relay"])
async def test_tables_survive_a_redis_restart_and_play_resumes(
    tmp_path: Path, redis_server: RedisServer, relay: bool
) -> None:
    """The table survives; so do the sockets each instance serves itself. A relayed socket
    whose relay lost messages with the restart is closed with 1012 and its page comes back,
    resynced, at once (app/realtime/relay.py): play goes on either way."""
    async with table_on_two_instances(tmp_path, redis_server, relay) as (
        address,
        table_id,
        clients,
        s,
    ):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            before = (await http.get(f"/api/tables/{table_id}")).json()
            redis_server.stop()  # SIGTERM: Redis shuts down cleanly
            redis_server.start()  # the same append-only file
            r = await http.get(f"/api/tables/{table_id}")
            assert r.status_code == 200
            if relay:
                # The relayed players' sockets end and come back meanwhile: their seats'
                # "connected" may have changed (a commit each); nothing else has.
                assert without_presence(r.json()) == without_presence(before)
                assert r.json()["version"] >= before["version"]
            else:
                assert r.json() == before
        if relay:
            # The relayed players (seats 2 and 3) come back once the instances' pub/sub
            # connections are back (each instance's return ends them: once or twice), and
            # play goes on when they have been quiet a while; the home's own sockets stay.
            deadline, quiet_since = time.monotonic() + 30, time.monotonic()
            seen = [c.reconnects for c in clients]
            while min(seen[2:]) == 0 or time.monotonic() - quiet_since < 2.0:
                assert time.monotonic() < deadline, f"not settled: {seen}"
                for client in clients[2:]:
                    with contextlib.suppress(AssertionError):
                        await client.wait(lambda m: False, timeout=0.1)
                if [c.reconnects for c in clients] != seen:
                    seen, quiet_since = [c.reconnects for c in clients], time.monotonic()
            for client in clients[2:]:
                welcomes = [m["type"] for m in client.messages].count("welcome")
                assert welcomes == client.reconnects + 1
            assert seen[:2] == [0, 0]
        applied = await play_to_end(clients, [0, 1, 2, 3], seed=3)
        assert applied  # moves went on after the restart, on the same sockets
        await game_recorded(s.database_url, table_id)


async def test_redis_away_gives_a_retryable_error_and_play_resumes(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    async with table_on_two_instances(tmp_path, redis_server) as (address, table_id, clients, s):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            version = (await http.get(f"/api/tables/{table_id}")).json()["version"]
        for client in clients:
            await client.wait_state(lambda m, v=version: m["version"] >= v)
        mover = next(
            c
            for c in clients
            if ((c.last_state() or {}).get("view") or {}).get("legal") is not None
        )
        view = (mover.last_state() or {})["view"]
        move = pick_move(view, random.Random(1))
        assert move is not None

        redis_server.kill()
        # A move while Redis is away: a retryable error for that command, socket open.
        reply = await mover.command("move", move=move, id="during-outage")
        assert reply["type"] == "error" and reply["code"] == "store_unavailable", reply
        assert reply["retry_after"] >= 1
        await mover.send({"type": "ping", "t": 1})  # still answering on the same socket
        await mover.wait(lambda m: m["type"] == "pong")
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            r = await http.get(f"/api/tables/{table_id}")
            assert r.status_code == 503, r.text
            assert r.json()["detail"]["code"] == "store_unavailable"
            assert int(r.headers["Retry-After"]) >= 1
            r = await http.get("/readyz")
            assert r.status_code == 503 and r.json()["redis"] is False
            r = await http.post("/api/guest", json={"name": "Late"})
            assert r.status_code == 503, r.text
        for client in clients:
            assert client.closed_code is None  # no socket was dropped
        # A socket opening meanwhile is told to come back (1013, as for the database).
        await told_to_come_back(address, table_id, None)

        redis_server.start()
        # Nothing was half applied: the table is at the version it had.
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            deadline = time.monotonic() + 20
            while (r := await http.get(f"/api/tables/{table_id}")).status_code != 200:
                assert time.monotonic() < deadline, r.text
                await asyncio.sleep(0.2)
            assert r.json()["version"] == version
        # The same command again (the page resends it with its id): applied once now,
        # and every socket hears of it through the reconnected pub/sub subscriber.
        reply = await mover.command("move", move=move, id="during-outage")
        assert reply["type"] == "ack" and reply["version"] == version + 1, reply
        for client in clients:
            await client.wait_state(lambda m, v=version: m["version"] > v)
        applied = await play_to_end(clients, [0, 1, 2, 3], seed=5)
        assert applied
        await game_recorded(s.database_url, table_id)


async def test_the_lobby_catches_up_when_pub_sub_is_back(namespace: str) -> None:
    """A lobby line changed while the subscriber was away (its message lost) is read as soon
    as the subscriber is back, not at the next periodic sweep (a minute later)."""
    client = make_redis("memory://")
    async with feed_on(client, namespace) as feed:
        index = await feed.ready()
        store = TableStore(client, namespace=namespace)
        table_id = namespace + "-quiet"
        await client.hset(store.lobby_key_of(table_id), table_id, line(table_id, created=1))
        assert table_id not in index.entries
        feed.fanout._reconnected()  # what Fanout._keep_connected calls once it is back
        await until(lambda: table_id in index.entries)
    await client.aclose()


async def play_two_moves(clients: list[Client], version: int) -> tuple[Client, dict[str, Any]]:
    """Two moves from ``version`` (each by the client whose turn it is); the first mover and
    move."""
    rng = random.Random(4)
    made: list[tuple[Client, dict[str, Any]]] = []
    for played in range(2):
        for client in clients:
            await client.wait_state(lambda m, v=version + played: m["version"] >= v)
        mover = next(
            c
            for c in clients
            if ((c.last_state() or {}).get("view") or {}).get("legal") is not None
        )
        move = pick_move((mover.last_state() or {})["view"], rng)
        assert move is not None
        assert (await mover.command("move", move=move))["type"] == "ack"
        made.append((mover, move))
    for client in clients:
        await client.wait_state(lambda m, v=version + 2: m["version"] == v)
    return made[0]


async def test_a_redis_that_lost_its_last_writes_is_followed(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """Redis crashes and comes back behind (its files from two moves earlier, as a crash
    with `appendfsync everysec` can leave them): every socket gets the state Redis holds,
    marked ``resync``, and the game goes on from there, on both instances, no cached copy of
    the lost moves reused."""
    async with table_on_two_instances(tmp_path, redis_server) as (address, table_id, clients, s):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            version = (await http.get(f"/api/tables/{table_id}")).json()["version"]
        saved = tmp_path / "redis-earlier"
        shutil.copytree(redis_server.directory, saved)
        await play_two_moves(clients, version)

        redis_server.kill()
        shutil.rmtree(redis_server.directory)
        shutil.copytree(saved, redis_server.directory)
        redis_server.start()
        for client in clients:
            await client.wait(
                lambda m, v=version: m["type"] == "state" and m.get("resync") and m["version"] == v
            )
        applied = await play_to_end(clients, [0, 1, 2, 3], seed=11)
        assert min(applied) == version + 1  # the lost moves' versions, played again
        await game_recorded(s.database_url, table_id)


async def test_a_table_that_goes_back_without_a_restart_resyncs_its_sockets(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """The table's keys are put back to what they held two moves earlier while every
    connection stays up (no reconnect to notice: a restored backup, a failover to a replica
    behind): the next change reuses a version number the sockets have seen. Every socket, on
    both instances, gets the state Redis holds marked ``resync`` (it froze before: the hubs
    took the notices for ones they had), and the game goes on from there."""
    from app.store import keys

    async with table_on_two_instances(tmp_path, redis_server) as (address, table_id, clients, s):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            version = (await http.get(f"/api/tables/{table_id}")).json()["version"]
        for client in clients:
            await client.wait_state(lambda m, v=version: m["version"] >= v)
        direct = redis.Redis(port=redis_server.port)
        saved = {key: direct.dump(key) for key in keys.table_keys(table_id) if direct.exists(key)}
        first_mover, first_move = await play_two_moves(clients, version)
        for key, blob in saved.items():  # two moves back, the connections untouched
            direct.restore(key, 0, blob, replace=True)
        direct.close()
        # the same first move again (what the table holds now allows it): version + 1 again
        reply = await first_mover.command("move", move=first_move)
        assert reply["type"] == "ack", reply
        for client in clients:
            await client.wait(
                lambda m, v=version + 1: (
                    m["type"] == "state" and m.get("resync") and m["version"] == v
                )
            )
        applied = await play_to_end(clients, [0, 1, 2, 3], seed=12)
        assert applied
        await game_recorded(s.database_url, table_id)
