"""What presence costs an instance: one heartbeat (refresh every local player's field) and one
reconcile (read every watched player's presence), each one pipeline, on a real Redis.

    python -m bench.presence [--redis redis://127.0.0.1:6379/0] [--players 1000 5000]

Prints, per number of players, the wall time and the process CPU time of each step (median of
several runs). Nothing of this is on the move path: a heartbeat runs every 10 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from typing import Any

import redis.asyncio as aioredis

from app.friends.hub import FriendsHub, _Local

RUNS = 7


class _NoFanout:
    async def subscribe(self, *_: Any) -> None:
        return None


async def _measure(step: Any) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(RUNS):
        wall, cpu = time.perf_counter(), time.process_time()
        await step()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


async def main(url: str, sizes: list[int]) -> None:
    redis = aioredis.from_url(url)
    namespace = "bench" + uuid.uuid4().hex[:8]
    try:
        for n in sizes:
            hub = FriendsHub(redis, None, _NoFanout(), namespace, "A")  # type: ignore[arg-type]
            for i in range(n):
                hub.local[f"p{i}"] = _Local(lobby={object(): False})
                hub.watchers[f"p{i}"] = {"someone"}
            beat = await _measure(hub.heartbeat)
            check = await _measure(hub.reconcile)
            print(
                f"{n:>6} players: heartbeat {beat[0]:7.1f} ms wall {beat[1]:7.1f} ms CPU; "
                f"reconcile {check[0]:7.1f} ms wall {check[1]:7.1f} ms CPU"
            )
    finally:
        doomed = [k async for k in redis.scan_iter(match=f"*{namespace}*", count=1000)]
        if doomed:
            await redis.delete(*doomed)
        await redis.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--players", type=int, nargs="+", default=[1000, 5000])
    args = parser.parse_args()
    asyncio.run(main(args.redis, args.players))
