"""Two server instances on one Redis and one PostgreSQL: presence and invitations cross
instances (the ``<namespace>:friends`` channel). With fakeredis both run in this process; with
a real Redis they are two ``python -m app`` processes."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import pytest
import redis

from app.settings import Settings
from tests.conftest import real_redis_url
from tests.friends.helpers import COMMON, SECRET, Person, account, befriend, presence_of
from tests.realtime.harness import Client, create_table, in_process_server, two_subprocess_servers

pytestmark = pytest.mark.asyncio


@contextlib.asynccontextmanager
async def two_instances(kind: str, database_url: str) -> AsyncIterator[tuple[str, str]]:
    if kind == "fake":
        fake = fakeredis.FakeServer()
        common = {**COMMON, "database_url": database_url}
        async with (
            in_process_server(Settings(instance_id="A", **common), fake) as a,
            in_process_server(
                Settings(instance_id="B", migrate_on_start=False, **common), fake
            ) as b,
        ):
            yield a, b
        return
    namespace = "t" + uuid.uuid4().hex[:10]
    env = {
        "HEARTS_REDIS_URL": real_redis_url(),
        "HEARTS_REDIS_NAMESPACE": namespace,
        "HEARTS_DATABASE_URL": database_url,
        "HEARTS_SECRET_KEY": SECRET,
        "HEARTS_TURN_TIMER_SECONDS": "0",
        "HEARTS_MAX_GUESTS_PER_ADDRESS": "0",
        "HEARTS_MAX_TABLES_PER_ADDRESS": "0",
    }
    try:
        with two_subprocess_servers(env) as ((a, _), (b, _)):
            yield a, b
    finally:  # keys without expiry
        client = redis.Redis.from_url(real_redis_url())
        doomed = list(client.scan_iter(match=f"*{namespace}*", count=1000))
        if doomed:
            client.delete(*doomed)
        client.close()


@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_presence_and_invitations_cross_instances(kind: str, pg_url: str) -> None:
    async with two_instances(kind, pg_url) as (a, b):
        ann = await account(a, "Ann")
        bob_on_a = await account(a, "Bob")
        bob = Person(b, bob_on_a.token, bob_on_a.id, "Bob")  # Bob uses instance B
        await befriend(ann, bob)
        ann_lobby = await ann.lobby()  # on A
        bob_lobby = await bob.lobby()  # on B
        await ann_lobby.wait(presence_of(ann_lobby, bob.id, "lobby"))
        listed = await bob_lobby.wait(lambda m: m["type"] == "friends")
        assert listed["friends"][0]["presence"] == {"state": "lobby", "table": None}

        # Bob (on B) hosts a table and invites Ann (on A): she sees it at once
        made = await create_table(b, bob.token, preset="classic", private=True)
        table_id = made["table"]["id"]
        bob_table = Client(b, table_id, bob.token, "bob-table")
        await bob_table.connect()
        await ann_lobby.wait(presence_of(ann_lobby, bob.id, "playing"))
        r = await bob.post("/api/friends/invites", {"player_id": ann.id, "table_id": table_id})
        assert r.status_code == 201, r.text
        invite: dict[str, Any] = r.json()["invite"]
        pushed = await ann_lobby.wait(lambda m: m["type"] == "invite")
        assert pushed["invite"]["id"] == invite["id"]

        # one call on A seats her; both sockets hear of it
        r = await ann.post(f"/api/friends/invites/{invite['id']}/accept")
        assert r.status_code == 200 and r.json()["seat"] == 1
        await ann_lobby.wait(lambda m: m["type"] == "invite_gone")
        await bob_table.wait(
            lambda m: m["type"] == "state" and m["table"]["seats"][1]["player_id"] == ann.id
        )

        # Bob leaves the table and then the lobby: Ann sees him in the lobby, then offline
        start = len(ann_lobby.messages)  # before the close: the news may beat its return
        await bob_table.close()
        await ann_lobby.wait(presence_of(ann_lobby, bob.id, "lobby"), start=start)
        await bob_lobby.close()
        await ann_lobby.wait(presence_of(ann_lobby, bob.id, "offline"))
        await ann_lobby.close()
