"""A whole turn-based game of four friends over the real server, the clock driven by the
test: moves days apart, told whose turn it is by My games, a move the computer plays for a
player out of time, a seat the computer takes after three such moves and the player takes
back, and the result recorded once per hand."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import fakeredis
import httpx
import pytest

from tests.realtime.harness import Client, create_table, guest, in_process_server, pick_move
from tests.realtime.test_games import SHORT, settings_for

pytestmark = pytest.mark.asyncio

HOUR = 3_600_000.0
DAY = 24 * HOUR


class Clock:
    def __init__(self) -> None:
        self.ms = 1_800_000_000_000.0

    def __call__(self) -> float:
        return self.ms


def from_version(version: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: int(m["version"]) >= version


def phase(client: Client) -> str | None:
    state = client.last_state()
    view = (state or {}).get("view") or {}
    return view.get("phase")


async def my_games(address: str, token: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        r = await http.get("/api/games/mine", headers={"Authorization": f"Bearer {token}"})
        r.raise_for_status()
        data: dict[str, Any] = r.json()
        return data


async def table_json(address: str, table_id: str, invite: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        r = await http.get(f"/api/tables/{table_id}", params={"invite": invite})
        r.raise_for_status()
        data: dict[str, Any] = r.json()
        return data


async def test_four_friends_play_a_turn_based_game_over_days(tmp_path: Any) -> None:
    clock = Clock()
    settings = settings_for(tmp_path, idle_table_ttl_seconds=600, disconnect_grace_seconds=5)
    async with in_process_server(settings, fakeredis.FakeServer(), clock) as address:
        names = ["Ann", "Ben", "Cat", "Dan"]
        logins = [await guest(address, n) for n in names]
        created = await create_table(
            address, logins[0][0], options=SHORT, private=True, pace="turn", move_seconds=259200
        )
        table_id, invite = created["table"]["id"], created["table"]["invite"]
        assert created["table"]["pace"] == "turn" and created["table"]["move_seconds"] == 259200
        clients = [
            Client(address, table_id, tok, n) for (tok, _), n in zip(logins, names, strict=True)
        ]
        for seat, client in enumerate(clients):
            await client.connect(invite=invite)
            if seat:
                assert (await client.command("sit", seat=seat))["type"] == "ack"
        assert (await clients[0].command("start"))["type"] == "ack"
        rng = random.Random(29)
        timeouts = 0
        came_back = False
        for _step in range(400):
            info = await table_json(address, table_id, invite)
            table, version = info["table"], info["version"]
            if table["status"] == "over":
                break
            states = [await c.wait_state(from_version(version)) for c in clients]
            states = [c.last_state() or st for c, st in zip(clients, states, strict=True)]
            movers = [i for i, st in enumerate(states) if (st["view"] or {}).get("legal")]
            if not movers or states[movers[0]]["version"] != version:
                await clients[0].wait_state(from_version(version + 1))
                continue
            seat = movers[0]
            if seat == 3 and table["seats"][3]["away"]:
                assert timeouts == 3  # three in a row: the computer took the seat
                assert (await clients[3].command("back"))["type"] == "ack"
                came_back = True
                continue
            mine = await my_games(address, logins[seat][0])
            line = mine["games"][0]
            assert line["id"] == table_id and line["my_turn"] and seat in line["to_act"]
            assert mine["my_turn"] == 1 and line["deadline_ms"] > clock.ms
            if seat == 3 and timeouts < 3 and phase(clients[3]) == "play":
                # Dan lets his clock run out: the computer plays this one move for him.
                clock.ms = line["deadline_ms"] + 1
                await clients[0].wait_state(from_version(version + 1))
                timeouts += 1
                continue
            # Days between moves in the play; half a day in the pass (one clock for four).
            clock.ms += 2 * DAY if phase(clients[seat]) == "play" else 12 * HOUR
            move = pick_move(states[seat]["view"], rng)
            assert move is not None
            reply = await clients[seat].command("move", move=move, version=version)
            assert reply["type"] == "ack", reply
        else:
            raise AssertionError("the game did not end")
        assert timeouts == 3 and came_back
        events = [e for m in clients[1].messages for e in m.get("events") or ()]
        rows = [e["row"] for e in events if e["kind"] == "timeout" and e["seat"] == 3]
        assert rows == [1, 2, 3]
        assert sum(1 for e in events if e.get("timeout") and e["kind"] == "move") >= 3
        assert any(e["kind"] == "away" and e["seat"] == 3 for e in events)
        assert any(e["kind"] == "back" and e["seat"] == 3 for e in events)
        # Days passed (more than the idle time many times over): the game ran to its end.
        final = await table_json(address, table_id, invite)
        assert final["table"]["ended"] == "finished"
        for token, _ in logins:
            games = (await my_games(address, token))["games"]
            assert [g["status"] for g in games] == ["over"] and not games[0]["my_turn"]
        for client in clients:
            await client.close()


async def test_playing_hours_and_bad_paces_over_http(tmp_path: Any) -> None:
    clock = Clock()
    clock.ms = 1_772_492_400_000.0  # 2026-03-02 23:00 UTC: outside the hours 8-22
    settings = settings_for(tmp_path)
    async with in_process_server(settings, fakeredis.FakeServer(), clock) as address:
        token, _ = await guest(address, "Ann")
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=f"http://{address}", headers=headers) as http:
            for body, code in [
                ({"pace": "slow"}, "bad_pace"),
                ({"pace": "turn", "move_seconds": 60}, "bad_move_time"),
                ({"pace": "turn", "hours": [8, 8]}, "bad_hours"),
                ({"pace": "turn", "time_zone": "Nowhere/Town"}, "bad_time_zone"),
                ({"pace": "live", "move_seconds": 3600}, "bad_pace"),
                ({"pace": "turn", "turn_timer": 30}, "bad_timer"),
            ]:
                r = await http.post("/api/tables", json=body)
                assert r.status_code == 422 and r.json()["detail"]["code"] == code, body
            assert (await my_games(address, token))["games"] == []  # nothing was created
        bots = {"1": "easy", "2": "easy", "3": "easy"}
        created = await create_table(
            address,
            token,
            pace="turn",
            move_seconds=3600,
            hours=[8, 22],
            time_zone="UTC",
            bots=bots,
        )
        table_id = created["table"]["id"]
        ann = Client(address, table_id, token, "Ann")
        await ann.connect()
        assert (await ann.command("start"))["type"] == "ack"
        # The computers pass at once; Ann's hour runs from 08:00 tomorrow.
        await ann.wait_state(lambda m: m["table"]["deadline_seats"] == [0])
        line = (await my_games(address, token))["games"][0]
        assert line["my_turn"] and not line["clock_running"]
        assert line["deadline_ms"] == 1_772_492_400_000.0 + 10 * HOUR  # 09:00 on the 3rd
        await ann.close()
