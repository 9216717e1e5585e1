"""Stand-ins for what the events' scheduler (app.compete.events_runner) asks of the rest of
the app: the notifier's send, and the few calls it makes of app.tables; registered players;
and the settings, a guest and a refusal's code for the compete tests that run the whole app."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from app.db import Database
from app.db.models import Player
from app.settings import Settings, load_settings


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
    """Just what the runner asks of app.tables: making a round's tables, reading them (each
    human seated at theirs, except those in ``absent``, whose seats the computer plays, until
    ``end`` gives the table its final scores)."""

    def __init__(self, absent: set[str] | None = None, prefix: str = "T") -> None:
        self.prefix = prefix  # of the tables' ids: T1, T2...
        self.made: dict[str, int] = {}
        self.seated: dict[str, list[str | None]] = {}
        self.scores: dict[str, list[int]] = {}
        self.absent = absent or set()
        self.discarded: list[str] = []  # made in vain, then taken out

    async def create_compete(self, actor: Any, *args: Any, **kw: Any) -> Any:
        await asyncio.sleep(0.05)  # the other runner tries meanwhile
        table_id = f"{self.prefix}{len(self.made) + 1}"
        size = 1 + len(kw["others"]) + len(kw["bots"])
        self.made[table_id] = size
        humans = {0: actor, **kw["others"]}
        self.seated[table_id] = [humans[n].player_id if n in humans else None for n in range(size)]
        return SimpleNamespace(id=table_id)

    async def discard_compete(self, table: Any) -> None:
        self.discarded.append(table.id)

    def end(self, table_id: str, scores: list[int]) -> None:
        self.scores[table_id] = scores

    async def read(self, table_id: str) -> tuple[Any, None]:
        over = table_id in self.scores
        seats = [
            SimpleNamespace(player_id=pid, away=pid in self.absent, gone_since=None)
            for pid in self.seated[table_id]
        ]
        table = SimpleNamespace(
            seats=seats,
            game_started_ms=0,
            created_ms=0,
            ended=1 if over else None,
            game={"scores": self.scores[table_id]} if over else None,
        )
        return table, None

    def clock(self) -> float:
        return 0.0


def registered_event(
    database: Any,
    people: list[str],
    *,
    name: str,
    format: str,
    rounds: int,
    now: Any,
    ends_at: Any = None,
) -> int:
    """An event by ``people[0]`` starting in a minute (no club, the default limits and table
    points), with every one of ``people`` made a registered player and registered."""
    from datetime import timedelta

    from app.compete import events_store
    from app.compete.events import EventLimits

    add_players(database, people)
    extra = {} if ends_at is None else {"ends_at": ends_at}
    eid = int(
        events_store.create_event(
            database,
            people[0],
            name=name,
            format=format,
            preset="classic",
            rounds=rounds,
            starts_at=now + timedelta(minutes=1),
            grace_seconds=60,
            points_by_place=None,
            club_id=None,
            limits=EventLimits(),
            now=now,
            **extra,
        )["id"]
    )
    for pid in people:
        events_store.register(database, eid, pid, EventLimits())
    return eid


def guest(client: Any, name: str) -> tuple[dict[str, str], str]:
    """A new guest through the app's HTTP client: (its Authorization header, its id)."""
    r = client.post("/api/guest", json={"name": name})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}, r.json()["player"]["id"]


def code(r: Any) -> str:
    """The stable code of a refused request."""
    return str(r.json()["detail"]["code"])


def embedded_settings(tmp_path: Path, name: str, **extra: Any) -> Settings:
    """The app with its embedded defaults (a SQLite file ``name`` in ``tmp_path``, the
    in-process Redis) and no computer worker process; ``extra`` on top."""
    return load_settings(
        database_url=f"sqlite:///{tmp_path}/{name}.sqlite3",
        redis_url="memory://",
        secret_key=f"{name}-test-secret-key",
        bot_workers=0,
        **extra,
    )


def add_players(database: Database, ids: Iterable[str]) -> Database:
    """Registered players ``ids``, each named after its id ("ann": "Ann"); the database."""
    with database.session() as session:
        for pid in ids:
            session.add(Player(id=pid, name=pid.title(), is_guest=False))
        session.commit()
    return database
