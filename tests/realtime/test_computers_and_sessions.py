"""Over real sockets: a game against Pro and Expert computers (worker process), and sessions
that end (logout, password change, account deletion) closing sockets on every instance."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import fakeredis
import httpx
import pytest

from app.settings import Settings
from tests.realtime import harness
from tests.realtime.harness import Client, create_table, guest, in_process_server, pick_move

pytestmark = pytest.mark.asyncio

SECRET = "test-secret-key-0123456789"


def make_settings(tmp_path: Any, **extra: Any) -> Settings:
    return harness.quick_settings(
        tmp_path, **{"ws_rate_per_second": 1000, "secret_key": SECRET, **extra}
    )


async def test_game_against_pro_and_expert_computers_finishes(tmp_path: Any) -> None:
    # One worker process runs the searches (small budgets keep the test short).
    settings = make_settings(tmp_path, bot_workers=1, bot_budget_ms=10)
    async with in_process_server(settings, fakeredis.FakeServer()) as address:
        token, _ = await guest(address, "Alice")
        created = await create_table(
            address, token, preset="classic", options={"end": "hands", "hands": 1}
        )
        alice = Client(address, created["table"]["id"], token, "alice")
        await alice.connect()
        await alice.wait_state(lambda m: True)
        for seat, level in ((1, "pro"), (2, "expert"), (3, "expert")):
            reply = await alice.command("add_bot", seat=seat, level=level)
            assert reply["type"] == "ack", reply
        assert (await alice.command("start"))["type"] == "ack"
        rng = random.Random(5)
        acted = -1
        while True:
            state = await alice.wait_state(lambda m, v=acted: m["version"] > v, timeout=120)
            latest = alice.last_state()
            assert latest is not None
            if latest["table"]["status"] == "over":
                break
            acted = state["version"]
            move = pick_move(latest["view"], rng) if latest["view"] else None
            if move is not None:
                reply = await alice.command("move", move=move, version=latest["version"])
                assert reply["type"] == "ack" or reply["code"] == "stale_version", reply
        final = alice.last_state()
        assert final is not None and final["view"]["phase"] == "over"
        assert final["table"]["ended"] == "finished"
        moves = [
            e
            for msg in alice.messages
            if msg["type"] in ("state", "events")
            for e in msg.get("events", ())
            if e["kind"] == "move"
        ]
        computer_seats = {e["seat"] for e in moves if e.get("computer")}
        assert computer_seats == {1, 2, 3}
        assert any(e["kind"] == "game_over" for m in alice.messages for e in m.get("events", ()))
        await alice.close()


@pytest.fixture
def cheap_passwords(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from argon2 import PasswordHasher

    from app.db import players

    cheap = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    monkeypatch.setattr(players, "password_hasher", lambda: cheap)
    yield


async def post(address: str, path: str, token: str | None, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        return await http.post(path, json=body, headers=headers)


async def closed_for_bad_token(client: Client, timeout: float = 5.0) -> None:
    error = await client.wait(lambda m: m["type"] == "error", timeout=timeout)
    assert error["code"] == "bad_token"
    assert client._reader is not None
    await asyncio.wait_for(client._reader, timeout)
    assert client.closed_code == 4401


async def test_ended_sessions_close_sockets_on_every_instance(
    tmp_path: Any, cheap_passwords: None
) -> None:
    fake = fakeredis.FakeServer()
    async with (
        in_process_server(make_settings(tmp_path, instance_id="A"), fake) as a,
        in_process_server(
            make_settings(tmp_path, instance_id="B", migrate_on_start=False), fake
        ) as b,
    ):
        host_token, _ = await guest(a, "Host")
        table_id = (await create_table(a, host_token, preset="classic"))["table"]["id"]

        # Logout: the socket signed in with that token closes on the other instance, at once,
        # and the token is refused everywhere (no 30 s cache).
        token, _ = await guest(a, "Gus")
        on_a = Client(a, table_id, token, "gus-a")
        await on_a.connect()
        await on_a.wait_state(lambda m: True)  # A has verified (and cached) the token
        assert (await post(b, "/api/account/logout", token)).status_code == 204
        await closed_for_bad_token(on_a)
        again = Client(a, table_id, token, "gus-again")
        await again.connect()
        await closed_for_bad_token(again)

        # Password change: every other session ends, this one stays.
        reply = await post(
            a, "/api/account/register", None, {"name": "carol", "password": "pw-Zx81-qq"}
        )
        assert reply.status_code == 201, reply.text
        first = reply.json()["token"]
        reply = await post(
            b, "/api/account/login", None, {"name": "carol", "password": "pw-Zx81-qq"}
        )
        second = reply.json()["token"]
        old_session = Client(a, table_id, first, "carol-old")
        new_session = Client(b, table_id, second, "carol-new")
        for client in (old_session, new_session):
            await client.connect()
            await client.wait_state(lambda m: True)
        reply = await post(
            b,
            "/api/account/password",
            second,
            {"old_password": "pw-Zx81-qq", "new_password": "pw-Yq72-ww"},
        )
        assert reply.status_code == 204, reply.text
        await closed_for_bad_token(old_session)
        pong = await new_session.command("chat", text="still here")
        assert pong["type"] == "ack"

        # Account deletion: the last session ends too.
        reply = await post(a, "/api/account/delete", second, {"password": "pw-Yq72-ww"})
        assert reply.status_code == 204, reply.text
        await closed_for_bad_token(new_session)
        for client in (on_a, again, old_session, new_session):
            await client.close()
