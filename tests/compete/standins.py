"""Stand-ins for what the events' scheduler (app.compete.events_runner) asks of the rest of
the app: the notifier's send, and the few calls it makes of app.tables."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any


class Told:
    """What the runners asked the notifier to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    async def __call__(
        self, player_id: str, kind: str, *, table_id: str | None = None, data: Any = None
    ) -> None:
        assert table_id is None  # an event's table is private: its id stays out of notices
        await asyncio.sleep(0)
        self.sent.append((player_id, kind, dict(data or {})))


class Tables:
    """Just what the runner asks of app.tables: making a round's tables, reading them (every
    seat's player away until ``end`` gives the table its final scores)."""

    def __init__(self) -> None:
        self.made: dict[str, int] = {}
        self.scores: dict[str, list[int]] = {}

    async def create_compete(self, actor: Any, *args: Any, **kw: Any) -> Any:
        await asyncio.sleep(0.05)  # the other runner tries meanwhile
        table_id = f"T{len(self.made) + 1}"
        self.made[table_id] = 1 + len(kw["others"]) + len(kw["bots"])
        return SimpleNamespace(id=table_id)

    def end(self, table_id: str, scores: list[int]) -> None:
        self.scores[table_id] = scores

    async def read(self, table_id: str) -> tuple[Any, None]:
        seat = SimpleNamespace(player_id=None, away=True, gone_since=None)
        over = table_id in self.scores
        table = SimpleNamespace(
            seats=[seat] * self.made[table_id],
            game_started_ms=0,
            created_ms=0,
            ended=1 if over else None,
            game={"scores": self.scores[table_id]} if over else None,
        )
        return table, None

    def clock(self) -> float:
        return 0.0
