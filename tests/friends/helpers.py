"""Servers and clients for the friends tests: accounts, the API, and lobby sockets."""

from __future__ import annotations

from typing import Any

import httpx

from tests.realtime.harness import Client

SECRET = "test-secret-key-0123456789"

COMMON: dict[str, Any] = {
    "turn_timer_seconds": 0,
    "bot_delay_min_ms": 0,
    "bot_delay_max_ms": 0,
    "hand_pause_ms": 0,
    "due_poll_seconds": 0.05,
    "ws_rate_per_second": 1000,
    "secret_key": SECRET,
    "max_guests_per_address": 0,
    "max_tables_per_address": 0,
}


class Person:
    """A signed-in player on one server: the API with its token, and lobby sockets."""

    def __init__(self, address: str, token: str, player_id: str, name: str) -> None:
        self.address = address
        self.token = token
        self.id = player_id
        self.name = name

    async def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        async with httpx.AsyncClient(base_url=f"http://{self.address}") as http:
            return await http.request(
                method, path, headers={"Authorization": f"Bearer {self.token}"}, **kwargs
            )

    async def post(self, path: str, body: Any = None) -> httpx.Response:
        return await self.call("POST", path, json=body)

    async def lobby(self) -> Client:
        """A lobby socket signed in with a ``hello``; waits for its ``friends`` message."""
        client = Client(self.address, "-", self.token, self.name)
        client.url = f"ws://{self.address}/ws/lobby"
        await client.connect()
        await client.wait(lambda m: m["type"] == "friends")
        return client


async def account(address: str, name: str) -> Person:
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        r = await http.post(
            "/api/account/register", json={"name": name, "password": "correct horse battery"}
        )
        r.raise_for_status()
        data = r.json()
    return Person(address, data["token"], data["player"]["id"], name)


async def befriend(a: Person, b: Person) -> None:
    assert (await a.post("/api/friends/requests", {"name": b.name})).status_code == 201
    assert (await b.post(f"/api/friends/requests/{a.id}/accept")).status_code == 200


def presence_of(client: Client, player_id: str, state: str) -> Any:
    """A predicate: a ``presence`` message saying the player is in ``state``."""
    return lambda m: m["type"] == "presence" and m["player_id"] == player_id and m["state"] == state
