"""Graceful shutdown (issue 20): SIGTERM one of two instances in the middle of a hand.

Its sockets are told 1012 "service restart"; the players (clients that follow that code, as
static/js/socket.js does) reconnect to the other instance and play on. A computer's turn the
stopping instance had claimed and was still deciding is handed back and taken by the other
instance at once, not after its lease (60 s here). Two ``python -m app`` processes on the real
Redis; the stopping instance's computer is kept deciding by stopping its worker process
(SIGSTOP) until the test lets it go.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis.asyncio as aioredis
import websockets

from app.store import keys
from tests.conftest import real_redis_url
from tests.realtime.harness import (
    Client,
    children,
    computers_table,
    create_table,
    guest,
    pick_move,
    subprocess_server,
)
from tests.realtime.test_instances import server_env

LEASE_SECONDS = 60
SERVICE_RESTART = 1012


class Player:
    """A scripted player that plays its seat's legal moves and, told 1012, goes to the other
    instance with the last version it saw (what the page does)."""

    def __init__(self, addresses: list[str], table_id: str, token: str, name: str) -> None:
        self.addresses = addresses
        self.table_id = table_id
        self.token = token
        self.name = name
        self.client = Client(addresses[0], table_id, token, name)
        self.moved_to: list[tuple[str, float, float]] = []  # (address, closed at, welcomed at)
        self.states: list[dict[str, Any]] = []  # every state seen, on either instance
        self.rng = random.Random(name)

    async def connect(self) -> None:
        await self.client.connect()
        await self.client.wait(lambda m: m["type"] == "state")

    async def follow_restart(self) -> None:
        """The socket closed: it must say 1012; connect to the next instance at once."""
        closed_at = time.monotonic()
        assert self.client.closed_code == SERVICE_RESTART, self.client.closed_code
        self.states.extend(m for m in self.client.messages if m["type"] == "state")
        last = self.client.last_state()
        address = self.addresses[len(self.moved_to) + 1]
        self.client = Client(address, self.table_id, self.token, self.name)
        await self.client.connect(last_version=last["version"] if last else None)
        await self.client.wait(lambda m: m["type"] == "welcome")
        self.moved_to.append((address, closed_at, time.monotonic()))

    async def play(self) -> None:
        acted = -1
        while True:
            try:
                state = self.client.last_state()
                if state is not None and state["table"]["status"] == "over":
                    self.states.extend(m for m in self.client.messages if m["type"] == "state")
                    return
                if state is not None and state["view"] and state["version"] > acted:
                    move = pick_move(state["view"], self.rng)
                    if move is not None:
                        acted = state["version"]
                        reply = await self.client.command("move", move=move, version=acted)
                        if reply["type"] == "error":
                            assert reply["code"] == "stale_version", reply
                        continue
                seen = len(self.client.messages)
                await self.client.wait(lambda m: m["type"] == "state", start=seen, timeout=60)
            except AssertionError:
                if self.client.closed_code is None:
                    raise
                await self.follow_restart()
                acted = -1  # a move sent as the socket closed may not have landed


async def claimed(redis: aioredis.Redis, namespace: str, table_id: str) -> None:
    """Wait until the table's due item has been claimed: its score pushed a lease ahead."""
    due_key = keys.due_key(namespace, keys.shard_of(table_id))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        score = await redis.zscore(due_key, table_id)
        if score is not None and score > time.time() * 1000 + LEASE_SECONDS * 1000 / 2:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("no computer turn was claimed on the instance to stop")


def signal_all(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


async def first_move_after(
    redis: aioredis.Redis, table_id: str, version: int, computers: tuple[int, ...]
) -> float:
    """When (epoch seconds) the first move of a computer (of ``computers``) after ``version``
    was committed, from the table's log (each entry has its commit time; waited for up to 20 s:
    the players' game may end before the computers' table is taken up). A person's move may
    come first: a computer's move A had computed just before its workers stopped commits
    after the version is read, and the next turn is a person's."""
    deadline = time.monotonic() + 20
    while True:
        log = [orjson.loads(e) for e in await redis.lrange(keys.log_key(table_id), 0, -1)]
        first = next(
            (
                entry
                for entry in log
                if entry["v"] > version
                and any(
                    event["kind"] == "move" and event.get("seat") in computers
                    for event in entry["events"]
                )
            ),
            None,
        )
        if first is not None:
            break
        assert time.monotonic() < deadline, f"no move after version {version} at {table_id}"
        await asyncio.sleep(0.1)
    return float(first["t"]) / 1000


async def logged(path: Path, text: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while text not in path.read_text():
        assert time.monotonic() < deadline, f"{text!r} not logged: {path.read_text()[-2000:]}"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_sigterm_sends_players_and_due_work_to_the_other_instance(
    tmp_path: Path, namespace: str
) -> None:
    env = {
        **server_env("redis", namespace, f"sqlite:///{tmp_path}/hearts.sqlite3"),
        "HEARTS_WS_PLAYER_RATE_PER_SECOND": "1000",
        "HEARTS_DUE_LEASE_SECONDS": str(LEASE_SECONDS),
    }
    a_env = {**env, "HEARTS_INSTANCE_ID": "A", "HEARTS_LOG_LEVEL": "info"}
    a_log = tmp_path / "a.log"
    redis = aioredis.from_url(real_redis_url())
    held: list[int] = []
    with subprocess_server({**a_env, "HEARTS_LOG_FORMAT": "json"}, output=a_log) as (a, proc_a):
        (ann_token, _), (bob_token, _) = [await guest(a, n) for n in ("Ann", "Bob")]
        table_id = (
            await create_table(a, ann_token, preset="classic", options={"end": "hands", "hands": 1})
        )["table"]["id"]
        ann = Player([a], table_id, ann_token, "Ann")
        bob = Player([a], table_id, bob_token, "Bob")
        await ann.connect()
        await bob.connect()
        assert (await bob.client.command("sit", seat=1))["type"] == "ack"
        for seat in (2, 3):
            reply = await ann.client.command("add_bot", seat=seat, level="standard")
            assert reply["type"] == "ack", reply
        started = await ann.client.command("start")
        assert started["type"] == "ack"
        players = asyncio.gather(ann.play(), bob.play())
        try:
            # Mid-hand (the cards passed, tricks under way), A's computers stop answering:
            # the next computer turn A claims stays in hand.
            await ann.client.wait_state(lambda m: m["version"] >= started["version"] + 10)
            # A second table, of computers only, that nobody is connected to (its host
            # started it and left): no socket closes there when A stops.
            carl_token, _ = await guest(a, "Carl")
            robots = await computers_table(a, carl_token, "standard")
            carl = Client(a, robots, carl_token, "carl")
            await carl.connect()
            assert (await carl.command("start"))["type"] == "ack"
            assert (await carl.command("leave"))["type"] == "ack"
            await carl.close()
            held = children(proc_a.pid)
            assert held, "A runs its computers in a worker process"
            signal_all(held, signal.SIGSTOP)
            await claimed(redis, namespace, table_id)
            await claimed(redis, namespace, robots)
            b_env = {**env, "HEARTS_INSTANCE_ID": "B", "HEARTS_MIGRATE_ON_START": "false"}
            with subprocess_server(b_env) as (b, _):
                ann.addresses.append(b)
                bob.addresses.append(b)
                version_at_stop = int(await redis.get(keys.version_key(table_id)) or 0)
                robots_at_stop = int(await redis.get(keys.version_key(robots)) or 0)
                stopped_at = time.time()
                proc_a.send_signal(signal.SIGTERM)
                # A closes its sockets (1012), gives the turn in hand 2 s, then hands it back.
                await logged(a_log, "handed back 2 due item(s)")
                # A takes no new socket while it stops.
                with pytest.raises((OSError, websockets.InvalidHandshake)):
                    async with websockets.connect(f"ws://{a}/ws/tables/{table_id}") as late:
                        await late.send(orjson.dumps({"type": "hello"}).decode())
                        await asyncio.wait_for(late.recv(), 5)
                signal_all(held, signal.SIGCONT)  # (A waits for its workers to end)

                # Both players were told 1012 and play on on B to the end of the hand.
                await asyncio.wait_for(players, 120)
                for player in (ann, bob):
                    assert [moved[0] for moved in player.moved_to] == [b], player.name
                    _, closed_at, welcomed_at = player.moved_to[0]
                    assert welcomed_at - closed_at < 2.0, "a reconnect takes a moment"
                    final = player.client.last_state()
                    assert final is not None and final["view"]["phase"] == "over"
                # The computer turns A had claimed were played on B at once, not after A's
                # 60 s lease. At the players' table the seats' going (A's sockets closed)
                # rewrote the due time already; at the computers' table nothing did: A gave
                # its turn in hand 2 s, then handed it back, and B took it at its next look.
                assert (
                    await first_move_after(redis, table_id, version_at_stop, (2, 3)) - stopped_at
                    < 10
                )
                took = (
                    await first_move_after(redis, robots, robots_at_stop, (0, 1, 2, 3)) - stopped_at
                )
                assert 1.5 < took < 10, f"the handed-back turn waited {took:.1f} s"
                await ann.client.close()
                await bob.client.close()
        finally:
            signal_all(held, signal.SIGCONT)
            players.cancel()
        # A exits by itself; its log is one JSON object a line (but hearts-server's banner).
        assert proc_a.wait(60) in (0, -signal.SIGTERM)
        text = [line for line in a_log.read_text().splitlines() if line.strip()]
        assert all(line.startswith(("{", "Hearts Online on ")) for line in text), text
        lines = [orjson.loads(line) for line in text if line.startswith("{")]
        handed = [line for line in lines if line["message"].startswith("handed back")]
        assert handed and handed[0]["logger"] == "app.tables.due"
    await redis.aclose()


def test_a_socket_opening_while_the_instance_stops_is_sent_elsewhere(tmp_path: Path) -> None:
    """Once the app's shutdown has begun (``hubs.closing``), a new table socket is told
    ``restarting`` and closed with 1012 before anything is read or counted."""
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from app.main import create_app
    from app.settings import Settings

    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/hearts.sqlite3"))
    with TestClient(app) as client:
        app.state.services.hubs.closing = True
        with client.websocket_connect("/ws/tables/anything") as ws:
            assert ws.receive_json()["code"] == "restarting"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == SERVICE_RESTART
