"""Builders of outbox events and a TCP proxy that can play a database outage."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


def seats_of(*players: str | None, bots: dict[int, str] | None = None) -> list[dict[str, Any]]:
    bots = bots or {}
    return [
        {"player_id": player, "bot_level": bots.get(i), "replaced_by_bot": False}
        for i, player in enumerate(players)
    ]


def hand_event(
    seats: list[dict[str, Any]],
    *,
    table_id: str = "T1",
    game_no: int = 1,
    hand_no: int = 0,
    points: list[int] | None = None,
    moons: list[int] | None = None,
    preset: str = "classic",
    moves: list[Any] | None = None,
) -> dict[str, Any]:
    return {
        "kind": "hand",
        "table_id": table_id,
        "game_no": game_no,
        "hand_no": hand_no,
        "preset": preset,
        "options": {},
        "seed": 42,
        "seats": seats,
        "points": points if points is not None else [26, 0, 0, 0][: len(seats)],
        "moons": moons or [],
        "pass_direction": "left",
        "moves": moves or [],
        "ended_at": "2026-01-01T12:00:00Z",
    }


def game_event(
    seats: list[dict[str, Any]],
    totals: list[int],
    *,
    table_id: str = "T1",
    game_no: int = 1,
    preset: str = "classic",
    ended: str = "finished",
    moves: list[Any] | None = None,
    seed: int = 42,
) -> dict[str, Any]:
    low = min(totals)
    return {
        "kind": "game",
        "table_id": table_id,
        "game_no": game_no,
        "preset": preset,
        "options": {},
        "seed": seed,
        "seats": seats,
        "totals": totals,
        "winners": [i for i, t in enumerate(totals) if t == low],
        "ended": ended,
        "started_at": "2026-01-01T11:00:00Z",
        "ended_at": "2026-01-01T12:00:00Z",
        "moves": moves or [],
    }


class TcpProxy:
    """Forwards a local port to a target; `down()` refuses and cuts every connection."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def up(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def down(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._writers.update({writer, up_writer})

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers.difference_update({writer, up_writer})
