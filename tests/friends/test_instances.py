"""Two server instances on one Redis and one PostgreSQL: presence and invitations cross
instances (the ``<namespace>:friends`` channel). With fakeredis both run in this process; with
a real Redis they are two ``python -m app`` processes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.friends.helpers import COMMON, Person, account, befriend, presence_of
from tests.realtime.harness import Client, create_table, two_instances

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("kind", ["fake", "real"])
async def test_presence_and_invitations_cross_instances(kind: str, pg_url: str) -> None:
    async with two_instances(kind, {**COMMON, "database_url": pg_url}) as ((a, _), (b, _)):
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
