"""The results writer alone: CPU per record and per move, SQLite and PostgreSQL, by batch size.

    python -m bench.outbox [--games 60] [--batches 1 50] [--databases sqlite postgresql]
        [--postgres URL] [--redis URL]

The records: ``--games`` classic games played to their end with random legal moves (seats: one
guest account and three computers, a casual table, as most are), turned into the records the
tables write (app.tables.records: one per hand with its moves, one per game), encoded
(app.store.records) and added to the results streams of a namespace of their own, spread over
the shards by table. Then one `OutboxWorker` of that namespace drains them into a fresh
database (a new SQLite file, or a new PostgreSQL schema migrated to head), once per batch size
(``records_per_transaction``; 1 is the writer before it wrote several records per transaction).

Printed per database and batch size: records/s (wall), the writer's CPU per record and per move
(``process_time`` of this process: the worker, its SQL thread, the driver and, for SQLite, the
database itself), PostgreSQL's CPU per record and per move (utime+stime in /proc/<pid>/stat of
the backends of the writer's connections, found by ``pg_backend_pid()`` when each connects;
the WAL writer and checkpointer are not counted), and the two together per move. Moves per
record come from the records themselves. One JSON line per run follows.

Needs a Redis (keys under ``bench-outbox-<random>``, deleted at the end) and, for PostgreSQL, a
server where the user may create a schema. Figures on a loaded machine vary: quote the load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from app.db import Database, make_database, upgrade_to_head
from app.db.outbox import OutboxWorker
from app.db.players import create_guest
from app.engine import apply, make_rules, move_to_json, new_game, seats_to_act
from app.store import keys
from app.store.records import FIELD, encode_event
from app.tables.records import hand_record
from bench.engine import _random_move

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def game_records(game_no: int, player_id: str, rng: random.Random) -> list[dict[str, Any]]:
    """One random classic game's records, in the tables' shape (app.tables.records)."""
    table_id = f"bench{game_no:06d}"
    seats = [
        {"player_id": player_id, "bot_level": None, "replaced_by_bot": False, "name": "Guest"},
        *({"player_id": None, "bot_level": "standard", "name": f"Bot {i}"} for i in (1, 2, 3)),
    ]
    common = {
        "table_id": table_id,
        "game_no": 1,
        "preset": "classic",
        "options": {},
        "seed": game_no,
        "seats": seats,
        "private": False,
        "rated": False,
    }
    records: list[dict[str, Any]] = []
    state = new_game(make_rules("classic"), game_no)
    moves: list[list[Any]] = []
    now = 1_767_268_800_000 + game_no * 1000
    while state.phase != "over":
        for seat in seats_to_act(state):
            move = _random_move(state, seat, rng)
            hands_before = len(state.history)
            state = apply(state, seat, move)  # type: ignore[arg-type]
            moves.append([seat, move_to_json(move)])  # type: ignore[arg-type]
            for result in state.history[hands_before:]:
                records.append(hand_record(common, result, moves, now, now + 60_000))
                moves = []
            if state.phase == "over":
                break
    records.append(
        {
            "kind": "game",
            **common,
            "ended": "finished",
            "hands": len(state.history),
            "totals": list(state.history[-1].totals),
            "winners": [int(w) for w in state.winners],
            "started_at": now,
            "ended_at": now + 600_000,
        }
    )
    return records


def make_records(games: int, player_ids: list[str], seed: int = 1) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        record
        for game_no in range(games)
        for record in game_records(game_no, player_ids[game_no % len(player_ids)], rng)
    ]


def moves_in(records: list[dict[str, Any]]) -> int:
    return sum(len(r.get("moves") or ()) for r in records)


def _cpu_ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5)


@dataclass
class Run:
    database: str
    records_per_transaction: int
    records: int
    moves: int
    wall_s: float
    records_per_s: float
    writer_us_per_record: float
    writer_us_per_move: float
    postgres_us_per_record: float | None
    postgres_us_per_move: float | None
    total_us_per_move: float
    transactions: int


@contextmanager
def _fresh_url(kind: str, postgres_url: str) -> Iterator[str]:
    """The URL of a new SQLite file, or of a new PostgreSQL schema (dropped afterwards)."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/bench.sqlite3"
        return
    schema = "bench_" + uuid.uuid4().hex[:16]
    admin = sa.create_engine(postgres_url)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield (
            sa.make_url(postgres_url)
            .update_query_dict({"options": f"-csearch_path={schema}"})
            .render_as_string(hide_password=False)
        )
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@contextmanager
def fresh_database(kind: str, postgres_url: str) -> Iterator[Database]:
    """A migrated database of its own: a new SQLite file, or a new PostgreSQL schema."""
    with _fresh_url(kind, postgres_url) as url:
        upgrade_to_head(url)
        db = make_database(url)
        try:
            yield db
        finally:
            db.dispose()


async def run_once(
    kind: str, size: int, games: int, redis: Any, postgres_url: str, seed: int
) -> Run:
    namespace = f"bench-outbox-{uuid.uuid4().hex[:12]}"
    with fresh_database(kind, postgres_url) as db:
        players = [create_guest(db, f"Guest{i}").id for i in range(20)]
        records = make_records(games, players, seed)
        pipe = redis.pipeline(transaction=False)
        for record in records:
            stream = keys.results_key(namespace, keys.shard_of(record["table_id"]))
            pipe.xadd(stream, {FIELD: encode_event(record)})
        await pipe.execute()
        backends: list[int] = []
        if kind == "postgresql":
            db.dispose()  # the guests' connection: the writer's own are counted from here

            def remember(connection: Any, _record: Any) -> None:
                cursor = connection.cursor()
                cursor.execute("SELECT pg_backend_pid()")
                backends.append(int(cursor.fetchone()[0]))
                cursor.close()

            sa.event.listen(db.engine, "connect", remember)
        worker = OutboxWorker(
            redis, db, namespace=namespace, records_per_transaction=size, batch=max(size, 50)
        )
        await worker.check_identity()
        await worker.ensure_group()
        pg_before = 0
        if kind == "postgresql":
            await asyncio.to_thread(_connect, db)  # the writer's connection, before the clock
            pg_before = sum(_cpu_ticks(pid) for pid in backends)
        cpu, wall = time.process_time(), time.perf_counter()
        while worker.handled < len(records):
            await worker.drain()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        pg = sum(_cpu_ticks(pid) for pid in backends) - pg_before if backends else None
        stored = await asyncio.to_thread(_stored_records, db)
        try:
            assert worker.written == len(records) == stored, (worker.written, stored)
        finally:
            await redis.delete(
                *(
                    name
                    for stream in keys.results_keys(namespace)
                    for name in (stream, keys.dead_letters_key(stream), keys.sql_time_key(stream))
                ),
                f"{namespace}:database",
            )
    moves = moves_in(records)
    pg_us = None if pg is None else pg / CLK_TCK * 1e6
    return Run(
        database=kind,
        records_per_transaction=size,
        records=len(records),
        moves=moves,
        wall_s=round(wall, 3),
        records_per_s=round(len(records) / wall, 1),
        writer_us_per_record=round(cpu * 1e6 / len(records), 1),
        writer_us_per_move=round(cpu * 1e6 / moves, 2),
        postgres_us_per_record=None if pg_us is None else round(pg_us / len(records), 1),
        postgres_us_per_move=None if pg_us is None else round(pg_us / moves, 2),
        total_us_per_move=round((cpu * 1e6 + (pg_us or 0.0)) / moves, 2),
        transactions=worker.transactions,
    )


def _connect(db: Database) -> None:
    with db.session() as session:
        session.execute(sa.text("SELECT 1"))


def _stored_records(db: Database) -> int:
    """Hands plus finished games in SQL: one row or status per record written."""
    with db.session() as session:
        hands = session.execute(sa.text("SELECT count(*) FROM hand")).scalar_one()
        games = session.execute(
            sa.text("SELECT count(*) FROM game WHERE status <> 'playing'")
        ).scalar_one()
    return int(hands) + int(games)


async def main_async(args: argparse.Namespace) -> list[Run]:
    import redis.asyncio as aioredis

    redis = aioredis.from_url(args.redis)
    runs = []
    try:
        for kind in args.databases:
            for size in args.batches:
                run = await run_once(kind, size, args.games, redis, args.postgres, args.seed)
                pg = (
                    ""
                    if run.postgres_us_per_record is None
                    else f", PostgreSQL {run.postgres_us_per_record:.0f} us/record "
                    f"{run.postgres_us_per_move:.1f} us/move"
                )
                print(
                    f"{kind:10} batch {size:3}: {run.records} records ({run.moves} moves, "
                    f"{run.transactions} transactions) in {run.wall_s:.2f} s = "
                    f"{run.records_per_s:.0f} records/s; writer {run.writer_us_per_record:.0f} "
                    f"us/record {run.writer_us_per_move:.1f} us/move{pg}; "
                    f"together {run.total_us_per_move:.1f} us/move",
                    flush=True,
                )
                runs.append(run)
    finally:
        await redis.aclose()
    for run in runs:
        print(json.dumps(asdict(run)))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=60, help="classic games (records: ~8 each)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 50])
    parser.add_argument(
        "--databases", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"]
    )
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    parser.add_argument("--redis", default=DEFAULT_REDIS)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 1 or any(b < 1 for b in args.batches):
        parser.error("--games and --batches must be at least 1")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
