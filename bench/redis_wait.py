"""What ``WAIT 1`` after each commit costs on Redis Cluster.

    python -m bench.redis_wait                       # the local cluster, 200 tables, 5 s a mode
    python -m bench.redis_wait --url redis+cluster://127.0.0.1:7101 --tables 50 --seconds 3

Redis replication is asynchronous: a master that dies loses the writes its replica had not
received yet, and the replica promoted in its place answers without them. ``WAIT 1 <ms>``
after a commit returns once one replica has acknowledged every write the connection made
before it, so a commit that waited for it survives a failover. This measures what that
costs on the move path's own client (app/store/cluster.py, one pipelined connection per
master), with a commit script of the real one's shape (version check, a 3 KB state, the
bounded event log, the shard's due set and lobby hash, SPUBLISH), T tables each committing
as soon as its last commit returned:

- ``none``: the commit alone (the default);
- ``each``: WAIT 1 after every commit, on the same connection (a pipelined WAIT blocks the
  commands behind it until the replica caught up);
- ``batch``: one WAIT 1 per master per event-loop turn after the commits whose replies came
  in that turn, every one of them waiting for the same WAIT (a group commit: the client's
  ``wait_replicas``, what HEARTS_REDIS_WAIT_REPLICAS turns on).

It prints commits/s, the commit's latency p50/p99, and the client's CPU per commit. Timings
belong here, not in the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid

from app.store import keys, make_fast
from app.store.cluster import ClusterPipelinedRedis
from app.store.pipelined import PipelinedRedis

COMMIT = """
local ver = tonumber(redis.call('GET', KEYS[1]) or '0')
if ver ~= tonumber(ARGV[1]) then return {0, ver} end
ver = ver + 1
redis.call('SET', KEYS[1], ver, 'EX', 600)
redis.call('SET', KEYS[2], ARGV[2], 'EX', 600)
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('LTRIM', KEYS[3], -64, -1)
redis.call('EXPIRE', KEYS[3], 600)
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[5])
redis.call('HSET', KEYS[5], ARGV[5], ARGV[3])
redis.call('SPUBLISH', KEYS[6], ARGV[3])
return {1, ver}
"""


async def run_mode(
    client: ClusterPipelinedRedis, mode: str, tables: int, seconds: float, timeout_ms: int
) -> dict[str, float]:
    sha = await client.call("SCRIPT", "LOAD", COMMIT)
    for address in client.masters():  # every master knows the script
        await PipelinedRedis(*address).call("SCRIPT", "LOAD", COMMIT)
    state = os.urandom(1536).hex().encode()  # 3 KB, as a table's state
    run = uuid.uuid4().hex[:8]
    latencies: list[float] = []
    lagged = 0
    stop_at = time.perf_counter() + seconds

    async def table(index: int) -> None:
        nonlocal lagged
        table_id = f"wb{run}{index}"
        shard = keys.shard_of(table_id)
        names = [
            keys.version_key(table_id),
            keys.state_key(table_id),
            keys.log_key(table_id),
            keys.due_key("benchwait", shard),
            keys.lobby_key("benchwait", shard),
            keys.channel(table_id),
        ]
        version = 0
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            reply = await client.call_at(
                names[0], "EVALSHA", sha, 6, *names, version, state, b"m", 1.0, table_id
            )
            if mode == "each":
                acked = await client.call_at(names[0], "WAIT", 1, timeout_ms)
                lagged += int(acked) < 1
            elif mode == "batch":
                acked = await client.wait_replicas(names[0], 1, timeout_ms)
                lagged += int(acked) < 1
            latencies.append(time.perf_counter() - started)
            version = int(reply[1])
        await client.call_at(names[0], "DEL", *names[:3])

    cpu = time.process_time()
    wall = time.perf_counter()
    await asyncio.gather(*(table(i) for i in range(tables)))
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    for shard in range(keys.SHARDS):
        due = keys.due_key("benchwait", shard)
        await client.call_at(due, "DEL", due, keys.lobby_key("benchwait", shard))
    latencies.sort()
    count = len(latencies)
    return {
        "commits_s": count / wall,
        "p50_ms": latencies[count // 2] * 1000,
        "p99_ms": latencies[min(count - 1, int(count * 0.99))] * 1000,
        "cpu_us": cpu / count * 1e6,
        "lagged": float(lagged),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="redis+cluster://127.0.0.1:7101")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--timeout-ms", type=int, default=100, help="WAIT's timeout")
    parser.add_argument("--modes", default="none,each,batch,none")
    args = parser.parse_args()
    client = make_fast(args.url)
    if not isinstance(client, ClusterPipelinedRedis):
        raise SystemExit("--url must be a redis+cluster:// URL")
    try:
        for mode in args.modes.split(","):
            got = await run_mode(client, mode, args.tables, args.seconds, args.timeout_ms)
            print(
                f"WAIT {mode:5}  {args.tables} tables  {got['commits_s']:8.0f} commits/s  "
                f"p50 {got['p50_ms']:6.2f} ms  p99 {got['p99_ms']:6.2f} ms  "
                f"client CPU {got['cpu_us']:5.1f} us/commit  "
                f"not acked in {args.timeout_ms} ms: {got['lagged']:.0f}",
                flush=True,
            )
    finally:
        await client.aclose()


if __name__ == "__main__":
    asyncio.run(main())
