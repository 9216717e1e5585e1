"""Real servers and real WebSocket clients for the realtime tests.

``in_process_server`` runs uvicorn inside the test's event loop (a real TCP port), with a
fakeredis server the test can read too; ``subprocess_server`` runs ``python -m app``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import orjson
import uvicorn
import websockets

from app.main import create_app
from app.settings import Settings
from bench.load_client import random_move
from bench.ports import free_port
from tests.conftest import cluster_redis_url, drop_namespace, real_redis_url

ROOT = Path(__file__).resolve().parents[2]


def quick_values(tmp_path: Any, **extra: Any) -> dict[str, Any]:
    """Settings for a test's server: SQLite in ``tmp_path``, no turn timer, computers and the
    next hand at once, due items looked for every 50 ms; ``extra`` on top."""
    return {
        "database_url": f"sqlite:///{tmp_path}/hearts.sqlite3",
        "turn_timer_seconds": 0,
        "bot_delay_min_ms": 0,
        "bot_delay_max_ms": 0,
        "hand_pause_ms": 0,
        "due_poll_seconds": 0.05,
        **extra,
    }


def quick_settings(tmp_path: Any, **extra: Any) -> Settings:
    """``quick_values`` as ``Settings``."""
    return Settings(**quick_values(tmp_path, **extra))


@contextlib.asynccontextmanager
async def in_process_server(
    settings: Settings,
    fake_server: Any = None,
    clock: Callable[[], float] | None = None,
    apps: list[Any] | None = None,
) -> AsyncIterator[str]:
    """``clock`` (epoch ms): the tables' time, driven by the test. ``apps``: the app is
    appended to it (a test that looks at the instance's services)."""
    app = create_app(settings, fake_redis_server=fake_server, clock=clock)
    if apps is not None:
        apps.append(app)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", ws="websockets-sansio", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started:
            break
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        done, _ = await asyncio.wait({task}, timeout=15)
        if not done:  # say what still runs: the test's output shows where it hangs
            for running in asyncio.all_tasks():
                print("still running:", running, file=sys.stderr)
                running.print_stack(file=sys.stderr)
            raise TimeoutError("the server did not stop within 15 s")
        task.result()


@contextlib.contextmanager
def subprocess_server(
    env: dict[str, str], output: Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``python -m app`` on a free port; yields (host:port, process). Logs at warning unless
    ``env`` names a level; ``output``: a file for its stdout and stderr."""
    with subprocess_servers([env], [output]) as [(address, proc)]:
        yield address, proc


@contextlib.contextmanager
def two_subprocess_servers(
    env: dict[str, str],
) -> Iterator[tuple[tuple[str, subprocess.Popen[bytes]], tuple[str, subprocess.Popen[bytes]]]]:
    """Instances A and B (``subprocess_server``) on one ``env``, started one after the other:
    A migrates the database, B does not; yields A's and B's (host:port, process)."""
    with (
        subprocess_server({**env, "HEARTS_INSTANCE_ID": "A"}) as first,
        subprocess_server(
            {**env, "HEARTS_INSTANCE_ID": "B", "HEARTS_MIGRATE_ON_START": "false"}
        ) as second,
    ):
        yield first, second


@contextlib.asynccontextmanager
async def in_process_pair(
    settings: Settings, fake_server: Any = None
) -> AsyncIterator[tuple[str, str]]:
    """Instances A and B of ``settings`` in this process (``in_process_server``, on
    ``fake_server`` when given); A migrates the database, B does not. Yields their addresses."""
    async with (
        in_process_server(settings.model_copy(update={"instance_id": "A"}), fake_server) as a,
        in_process_server(
            settings.model_copy(update={"instance_id": "B", "migrate_on_start": False}),
            fake_server,
        ) as b,
    ):
        yield a, b


Instance = tuple[str, subprocess.Popen[bytes] | None]


def redis_url(kind: str) -> str:
    """The Redis of a test ``kind``: "cluster" (the local Redis Cluster) or "real"."""
    return cluster_redis_url() if kind == "cluster" else real_redis_url()


@contextlib.asynccontextmanager
async def two_instances(
    kind: str, settings: Mapping[str, Any], processes_only: Mapping[str, str] | None = None
) -> AsyncIterator[tuple[Instance, Instance]]:
    """Instances A and B with ``settings`` (its ``database_url`` among them) on one Redis; A
    migrates the database, B does not. ``kind`` "fake": both in this process on one fakeredis
    server; "real" or "cluster": two ``python -m app`` (``two_subprocess_servers``, with
    ``processes_only`` on top) in a namespace of their own, deleted afterwards. Yields A's and
    B's (host:port, process; None in this process)."""
    if kind == "fake":
        async with in_process_pair(Settings(**settings), fakeredis.FakeServer()) as (a, b):
            yield (a, None), (b, None)
        return
    namespace = "t" + uuid.uuid4().hex[:10]
    env = {
        **{f"HEARTS_{name.upper()}": str(value) for name, value in settings.items()},
        "HEARTS_REDIS_URL": redis_url(kind),
        "HEARTS_REDIS_NAMESPACE": namespace,
        **(processes_only or {}),
    }
    try:
        with two_subprocess_servers(env) as (first, second):
            yield first, second
    finally:  # the per-shard keys have no expiry
        drop_namespace(redis_url(kind), namespace)


@contextlib.contextmanager
def subprocess_servers(
    envs: list[dict[str, str]], outputs: list[Path | None] | None = None
) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    """Several ``python -m app`` started together (they start in the time of the slowest: the
    database must be migrated already, or only one of them migrate it), each on a free port;
    yields [(host:port, process)] in ``envs``' order, all answering /healthz."""
    started: list[tuple[str, subprocess.Popen[bytes]]] = []
    try:
        for env, output in zip(envs, outputs or [None] * len(envs), strict=True):
            port = free_port()
            full_env = {
                **os.environ,
                "HEARTS_LOG_LEVEL": "warning",
                **env,
                "HEARTS_PORT": str(port),
            }
            sink = output.open("wb") if output is not None else None
            with sink or contextlib.nullcontext():
                proc = subprocess.Popen(
                    [sys.executable, "-m", "app"], cwd=ROOT, env=full_env, stdout=sink, stderr=sink
                )
            started.append((f"127.0.0.1:{port}", proc))
        deadline = time.monotonic() + 30 + 15 * (len(started) - 1)
        for address, proc in started:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"server exited with {proc.returncode}")
                try:
                    if httpx.get(f"http://{address}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("server did not start")
                time.sleep(0.1)
        yield started
    finally:
        for _, proc in started:
            if proc.poll() is None:
                proc.terminate()
        for _, proc in started:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (its computer players' worker, its results writer)."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(p) for p in found.stdout.split()]


async def guest(address: str, name: str) -> tuple[str, str]:
    """Sign in a guest: (token, player id)."""
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        r = await http.post("/api/guest", json={"name": name})
        r.raise_for_status()
        data = r.json()
        return data["token"], data["player"]["id"]


async def create_table(address: str, token: str, **body: Any) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        r = await http.post("/api/tables", json=body, headers={"Authorization": f"Bearer {token}"})
        r.raise_for_status()
        data: dict[str, Any] = r.json()
        return data


async def told_to_come_back(address: str, table_id: str, token: str | None) -> None:
    """A socket opened while the store is out is told ``store_unavailable`` (with a time to
    retry after) and closed with 1013, to come back."""
    late = Client(address, table_id, token, "late")
    await late.connect()
    refused = await late.wait(lambda m: m["type"] == "error")
    assert refused["code"] == "store_unavailable" and refused["retry_after"] >= 1
    with contextlib.suppress(AssertionError):  # the socket closes: wait() says so
        await late.wait(lambda m: False, timeout=10)
    assert late.closed_code == 1013


async def computers_table(address: str, token: str, level: str = "easy") -> str:
    """A one-hand classic table of the token's player against three computers of ``level``:
    its id."""
    bots = {str(seat): level for seat in (1, 2, 3)}
    options = {"end": "hands", "hands": 1}
    created = await create_table(address, token, preset="classic", options=options, bots=bots)
    return str(created["table"]["id"])


class Client:
    """One WebSocket on one table, recording every message it receives."""

    def __init__(
        self,
        address: str,
        table_id: str,
        token: str | None,
        name: str = "",
        *,
        comes_back: bool = False,
    ) -> None:
        self.url = f"ws://{address}/ws/tables/{table_id}"
        # As the page does (static/js/socket.js): closed with 1012 (an instance going, or a
        # relayed socket whose relay broke) it connects again at once, with 1013 (a service
        # down) a moment later, with the last version it saw. ``reconnects`` counts those.
        self.comes_back = comes_back
        self.reconnects = 0
        self.token = token
        self.name = name
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._n = 0
        self.closed_code: int | None = None

    async def connect(
        self, last_version: int | None = None, invite: str | None = None, compact: bool = False
    ) -> None:
        self.ws = await websockets.connect(self.url, max_size=2**22)
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        if compact:
            hello["compact"] = True
        if last_version is not None:
            hello["last_version"] = last_version
        if invite is not None:
            hello["invite"] = invite
        await self.send(hello)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.raw.append(raw)
                self.messages.append(orjson.loads(raw))
                self._changed.set()
        except websockets.ConnectionClosed as exc:
            self.closed_code = exc.rcvd.code if exc.rcvd else None
        finally:
            if self.closed_code is None and self.ws.close_code is not None:
                self.closed_code = self.ws.close_code
            self._changed.set()

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        if isinstance(msg, dict):
            msg = orjson.dumps(msg).decode()
        await self.ws.send(msg)

    async def command(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a command with a fresh id and wait for its ack or error."""
        self._n += 1
        msg_id = fields.pop("id", None) or f"{self.name}-{self._n}-{random.random()}"
        start = len(self.messages)
        await self.send({"type": kind, "id": msg_id, **fields})
        return await self.wait(
            lambda m: m.get("id") == msg_id and m["type"] in ("ack", "error"), start=start
        )

    async def wait(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20.0, start: int = 0
    ) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        seen = start
        while True:
            for msg in self.messages[seen:]:
                if pred(msg):
                    return msg
            seen = len(self.messages)
            if self._reader is not None and self._reader.done():
                if self.comes_back and self.closed_code in (1012, 1013):
                    versions = [m["version"] for m in self.messages if "version" in m]
                    if self.closed_code == 1013:  # "try again later": the page waits a moment
                        await asyncio.sleep(0.5)
                    self.closed_code = None
                    self.reconnects += 1
                    await self.connect(last_version=max(versions) if versions else None)
                    continue
                raise AssertionError(f"{self.name}: socket closed ({self.closed_code})")
            self._changed.clear()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"{self.name}: timed out; last: {self.messages[-3:]}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    def last_state(self) -> dict[str, Any] | None:
        for msg in reversed(self.messages):
            if msg["type"] == "state":
                return msg
        return None

    async def wait_state(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20.0
    ) -> dict[str, Any]:
        return await self.wait(lambda m: m["type"] == "state" and pred(m), timeout)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader


def pick_move(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random legal move from a seat's view (its ``legal`` field), as the protocol wants."""
    legal = view.get("legal")
    if not legal:
        return None
    kind = legal["type"]
    assert kind in ("pass", "play", "direction", "moon"), f"unknown legal move type {kind}"
    return random_move(legal, rng)


async def play_until_over(
    client: Client,
    rng: random.Random,
    answered: Callable[[dict[str, Any]], None] | None = None,
    timeout: float = 20.0,
) -> None:
    """Play ``client``'s seat with random legal moves (``pick_move``) until its table's game is
    over: one move on each state newer than the last one moved on, when the seat has one;
    ``answered`` sees each move's answer. Fails when no new state comes within ``timeout``."""
    acted = -1
    while True:
        state = client.last_state()
        if state and state["table"]["status"] == "over":
            return
        if state and state["view"] and state["version"] > acted:
            move = pick_move(state["view"], rng)
            if move is not None:
                acted = state["version"]
                answer = await client.command("move", move=move, version=state["version"])
                if answered is not None:
                    answered(answer)
                continue
        n = len(client.messages)
        await client.wait(lambda m: m["type"] == "state", start=n, timeout=timeout)
