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
    rated: bool = True,
) -> dict[str, Any]:
    """A game record; by default from a rated table (only those games are rated)."""
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
        "rated": rated,
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


def play_random_game(
    preset: str, options: dict[str, Any], seed: int, seats: list[dict[str, Any]], rng_seed: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play a whole game with random legal moves, as the live server would, and return the
    outbox events it sends plus what the live game showed (tricks and results per hand)."""
    import random

    from app import engine

    rng = random.Random(rng_seed)
    rules = engine.make_rules(preset, options)
    state = engine.new_game(rules, seed)
    all_moves: list[list[Any]] = []
    hand_moves: list[list[Any]] = []
    events: list[dict[str, Any]] = []
    live: dict[str, Any] = {"tricks": [], "results": []}
    while state.phase != "over":
        seat = rng.choice(engine.seats_to_act(state))
        if state.phase == "pass":
            cards = list(engine.cards_of(engine.passable_cards(state, seat)))
            move: Any = engine.PassCards(frozenset(rng.sample(cards, state.pass_count)))
        else:
            move = rng.choice(engine.legal_moves(state, seat))
        done = len(state.history)
        state = engine.apply(state, seat, move)
        entry = [seat, engine.move_to_json(move)]
        all_moves.append(entry)
        hand_moves.append(entry)
        if len(state.history) > done:
            result = state.history[-1]
            live["tricks"].append([list(t.cards) for t in state.prev_tricks])
            live["results"].append(list(result.points))
            events.append(
                {
                    "kind": "hand",
                    "table_id": f"live-{rng_seed}",
                    "game_no": 1,
                    "hand_no": result.hand_no,
                    "preset": preset,
                    "options": options,
                    "seed": seed,
                    "seats": seats,
                    "points": list(result.points),
                    "moon": result.moon if result.moon >= 0 else None,
                    "pass_direction": result.direction,
                    "moves": hand_moves,
                }
            )
            hand_moves = []
    events.append(
        {
            "kind": "game",
            "table_id": f"live-{rng_seed}",
            "game_no": 1,
            "preset": preset,
            "options": options,
            "seed": seed,
            "seats": seats,
            "totals": list(state.scores),
            "winners": list(state.winners),
            "ended": "finished",
            "moves": all_moves,
        }
    )
    live["totals"] = list(state.scores)
    live["final_state"] = engine.state_to_json(state)
    return events, live
