"""What the due loop's poll costs when nothing is due (most polls, on every instance).

    python -m bench.due_poll                                  # the stand-in and the local Redis
    python -m bench.due_poll --url redis://127.0.0.1:6379/0 --polls 2000
    python -m bench.due_poll --url redis+cluster://127.0.0.1:7101

Every instance polls every shard's due set (64 of them) every ``HEARTS_DUE_POLL_SECONDS``
(0.2 s) to claim computer turns and timers. A poll first asks each shard how many items are
due (one ZCOUNT each, sent together) and runs the claim script only on a shard that has one,
so an idle poll runs no script. This prints, per idle poll, the instance's CPU and, on a real
Redis, Redis's own CPU (INFO's used_cpu_user + used_cpu_sys over the polls; on a cluster,
summed over the masters); ``--scripts`` measures the old way (the claim script on every
shard) for comparison. Timings belong here, not in the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from typing import Any

from app.settings import MEMORY_REDIS_URL
from app.store import TableStore, keys, make_fast, make_redis


async def _redis_cpu(url: str) -> float | None:
    """Redis's CPU seconds so far (summed over a cluster's masters); None for the stand-in."""
    if url == MEMORY_REDIS_URL:
        return None
    import redis as sync_redis

    if url.startswith("redis+cluster://"):
        cluster = sync_redis.RedisCluster.from_url(url.replace("redis+cluster://", "redis://"))
        try:
            infos: Any = cluster.info("cpu", target_nodes=sync_redis.RedisCluster.PRIMARIES)
            return sum(float(i["used_cpu_user"]) + float(i["used_cpu_sys"]) for i in infos.values())
        finally:
            cluster.close()
    client = sync_redis.Redis.from_url(url)
    try:
        info: Any = client.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    finally:
        client.close()


async def measure(url: str, polls: int, scripts: bool) -> None:
    redis = make_redis(url)
    fast = make_fast(url) if url != MEMORY_REDIS_URL else None
    store = TableStore(redis, namespace="bench" + uuid.uuid4().hex[:8], fast=fast)
    try:
        claim = store._claim

        async def old_poll(now: int) -> None:  # the claim script on every shard
            await asyncio.gather(
                *(
                    store._run(claim, keys=[store.due_keys[k]], args=[now, now + 60_000, 2])
                    for k in range(keys.SHARDS)
                )
            )

        now = int(time.time() * 1000)
        for _ in range(20):  # warm up: connections, script cache
            await (old_poll(now) if scripts else store.claim_due(now, 60_000))
        r0 = await _redis_cpu(url)
        c0 = time.process_time()
        w0 = time.perf_counter()
        for _ in range(polls):
            if scripts:
                await old_poll(now)
            else:
                assert await store.claim_due(now, 60_000) == []
        wall = time.perf_counter() - w0
        cpu = time.process_time() - c0
        r1 = await _redis_cpu(url)
        redis_part = (
            "" if r0 is None or r1 is None else f" redis_cpu_us={(r1 - r0) / polls * 1e6:.0f}"
        )
        way = "script on every shard" if scripts else "ZCOUNT probe"
        print(
            f"{url} ({way}): {polls} idle polls, instance_cpu_us={cpu / polls * 1e6:.0f}"
            f"{redis_part} wall_us={wall / polls * 1e6:.0f}"
        )
    finally:
        if fast is not None:
            await fast.aclose()
        await redis.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", action="append", help="memory://, redis://..., redis+cluster://")
    parser.add_argument("--polls", type=int, default=500)
    parser.add_argument("--scripts", action="store_true", help="also the old way, for comparison")
    args = parser.parse_args()
    urls = args.url or [MEMORY_REDIS_URL, "redis://127.0.0.1:6379/0"]
    for url in urls:
        await measure(url, args.polls, scripts=False)
        if args.scripts:
            await measure(url, args.polls, scripts=True)


if __name__ == "__main__":
    asyncio.run(main())
