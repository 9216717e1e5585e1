"""A private Redis Cluster for the tests that break one (failover, slot moves): bench's
LocalCluster (bench/local_redis.py), the one bench.failover breaks under load too. The shared
test cluster (7101-7106) is never touched."""

from bench.local_redis import NODE_TIMEOUT_MS, LocalCluster

__all__ = ["NODE_TIMEOUT_MS", "LocalCluster"]
