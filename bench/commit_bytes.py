"""Bytes a move sends into Redis through the commit script, and what they are made of.

    python -m bench.commit_bytes                  # 10 classic games of one hand each
    python -m bench.commit_bytes --games 20 --preset classic --hands 2

Plays whole games through the table service (four people, each move a command with an id as
the page sends it) on the in-process Redis stand-in, and wraps the store's commit: for each
commit it counts the argument bytes the script receives (the table's state, the event message,
the lobby line, the moves appended, the results records; the state as the store sends it,
deflated by app.store.codec). Printed: bytes per move of each part and in all, the state's JSON
before deflating, and the JSON's share by field (the table's keys, and the engine state's
inside ``game``), averaged over every commit that wrote a state. The figure to cut is "all": it is
what crosses the network into Redis and what a replica receives again.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import random
import statistics
from typing import Any

import fakeredis
import orjson

from app import engine
from app.settings import Settings
from app.store import TableStore, make_redis
from app.store.codec import encode_state
from app.tables import Actor, TableService


async def run(games: int, preset: str, hands: int) -> dict[str, Any]:
    redis = make_redis("memory://", fake_server=fakeredis.FakeServer())
    store = TableStore(redis, namespace="bench-bytes")
    settings = Settings(bot_delay_min_ms=0, bot_delay_max_ms=0, hand_pause_ms=0)
    service = TableService(store, settings, instance_id="bench", rng=random.Random(7))
    parts: collections.Counter[str] = collections.Counter()
    fields: collections.Counter[str] = collections.Counter()
    game_fields: collections.Counter[str] = collections.Counter()
    blobs: list[int] = []
    json_bytes = [0]  # the states' JSON before the store deflates it
    commits = 0
    real_commit = store.commit

    async def counting_commit(table_id: str, **kw: Any) -> Any:
        nonlocal commits
        commits += 1
        blob = kw.get("blob")
        if blob:
            stored = len(encode_state(blob))  # what the commit sends (app.store.codec)
            blobs.append(stored)
            parts["state"] += stored
            json_bytes[0] += len(blob)
            table = orjson.loads(blob)
            for key, value in table.items():
                fields[key] += len(orjson.dumps(value)) + len(key) + 4
                if key == "game" and isinstance(value, dict):
                    for gkey, gvalue in value.items():
                        game_fields[gkey] += len(orjson.dumps(gvalue)) + len(gkey) + 4
        parts["message"] += len(kw.get("message") or b"")
        summary = kw.get("lobby_summary")
        if isinstance(summary, bytes):
            parts["lobby line"] += len(summary)
        parts["moves"] += sum(len(m) for m in kw.get("moves") or ())
        parts["records"] += sum(len(r) for r in kw.get("records") or ())
        return await real_commit(table_id, **kw)

    store.commit = counting_commit  # type: ignore[method-assign]
    players = [Actor(f"p{i}", f"Player {i}") for i in range(engine.make_rules(preset).players)]
    moves = 0
    rng = random.Random(11)
    for n in range(games):
        table = await service.create(players[0], preset, options={"end": "hands", "hands": hands})
        for seat, actor in enumerate(players[1:], start=1):
            await service.sit(table.id, actor, seat)
        await service.start(table.id, players[0])
        while True:
            t, state = await service.read(table.id)
            if state is None or t.status != "playing" or state.phase == "over":
                break
            to_act = engine.seats_to_act(state)
            if not to_act:
                break
            seat = to_act[0]
            move = rng.choice(engine.legal_moves(state, seat))
            await service.move(table.id, players[seat], f"m{n}-{moves}", engine.move_to_json(move))
            moves += 1
    await redis.aclose()
    per_move = {k: v / moves for k, v in parts.items()}
    per_move["all"] = sum(parts.values()) / moves
    return {
        "preset": preset,
        "games": games,
        "moves": moves,
        "commits": commits,
        "bytes_per_move": per_move,
        "state_bytes_median": statistics.median(blobs) if blobs else 0,
        "state_json_bytes_per_move": json_bytes[0] / moves,
        "state_fields": {k: v / len(blobs) for k, v in fields.most_common()},
        "game_fields": {k: v / len(blobs) for k, v in game_fields.most_common()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--hands", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(run(args.games, args.preset, args.hands))
    print(
        f"{result['preset']}: {result['games']} games, {result['moves']} moves,"
        f" {result['commits']} commits"
    )
    print(
        "bytes into Redis per move: "
        + ", ".join(f"{k} {v:.0f}" for k, v in result["bytes_per_move"].items())
    )
    print(
        f"state per commit (median): {result['state_bytes_median']:.0f} bytes stored"
        f" (its JSON: {result['state_json_bytes_per_move']:.0f} bytes per move)"
    )
    print(
        "state's fields (bytes per commit): "
        + ", ".join(f"{k} {v:.0f}" for k, v in result["state_fields"].items())
    )
    print(
        "engine state's fields (bytes per commit): "
        + ", ".join(f"{k} {v:.0f}" for k, v in list(result["game_fields"].items())[:14])
    )
    print(orjson.dumps(result).decode())


if __name__ == "__main__":
    main()
