"""bench.load's view of Redis: one server, or every node a Redis Cluster reports.

The nodes of a cluster come from CLUSTER NODES, asked of any node of the URL that answers (then
of the nodes it named): never from the first node alone, which may be the master a failover
run kills. INFO is read from each node with a short timeout, and a node that does not answer
(killed, paused) is left out of that reading instead of failing the run; a node's role is
read again with its INFO, so a replica promoted during the run counts among the masters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from app.settings import is_cluster_url, parse_cluster_url

# A node that does not answer INFO within this long is taken as away (a paused master
# would otherwise hold the benchmark for the client's default, forever).
NODE_TIMEOUT_S = 2.0

INFO_FIELDS = (
    "cmdstat_evalsha",  # the calls of EVALSHA (INFO commandstats)
    "used_cpu_sys",
    "used_cpu_user",
    "total_commands_processed",
    "total_net_input_bytes",
    "total_net_output_bytes",
    "used_memory",
)


@dataclass
class Node:
    """One Redis server: its address, a client, and whether it was a master when last read."""

    host: str
    port: int
    client: Any
    master: bool = True

    @property
    def name(self) -> str:
        return f"{self.host}:{self.port}" + ("" if self.master else " (replica)")


def _client(host: str, port: int, tls: bool = False) -> redis.Redis:
    return redis.Redis(
        host=host,
        port=port,
        ssl=tls,
        socket_timeout=NODE_TIMEOUT_S,
        socket_connect_timeout=NODE_TIMEOUT_S,
    )


def parse_cluster_nodes(nodes: dict[str, Any], asked_host: str) -> list[tuple[str, int, bool]]:
    """(host, port, is master) of each node of a CLUSTER NODES reply (as redis-py parses it:
    address -> fields) that is neither failed nor without an address; an empty host is the
    one the question was asked of. Masters first."""
    out = []
    for address, fields in nodes.items():
        flags = set(str(fields.get("flags", "")).split(","))
        if flags & {"fail", "noaddr", "handshake"}:
            continue
        host, _, port = address.split("@", 1)[0].rpartition(":")
        if not port.isdigit() or int(port) == 0:
            continue
        out.append((host or asked_host, int(port), "master" in flags))
    return sorted(out, key=lambda n: (not n[2], n[1]))


def redis_nodes(url: str) -> list[Node]:
    """Each Redis server of ``url``: the one of ``redis://``, or every master and replica a
    Redis Cluster reports (asked of the URL's nodes in turn until one answers)."""
    if not is_cluster_url(url):
        client = redis.Redis.from_url(
            url, socket_timeout=NODE_TIMEOUT_S, socket_connect_timeout=NODE_TIMEOUT_S
        )
        kwargs = client.connection_pool.connection_kwargs
        return [Node(str(kwargs.get("host", "?")), int(kwargs.get("port", 0)), client)]
    parsed = parse_cluster_url(url)
    error: Exception | None = None
    for host, port in parsed.nodes:
        asked = _client(host, port, parsed.tls)
        try:
            reply = asked.execute_command("CLUSTER NODES")  # type: ignore[no-untyped-call]
        except redis.RedisError as exc:
            error = exc
            continue
        finally:
            asked.close()
        return [
            Node(h, p, _client(h, p, parsed.tls), master)
            for h, p, master in parse_cluster_nodes(reply, host)
        ]
    raise SystemExit(f"no node of {url} answers CLUSTER NODES: {error}")


def redis_client(url: str) -> Any:
    """A client that routes each key to its node (a Cluster client on a cluster URL)."""
    if not is_cluster_url(url):
        return redis.Redis.from_url(url)
    from redis.cluster import ClusterNode, RedisCluster

    parsed = parse_cluster_url(url)
    return RedisCluster(
        startup_nodes=[ClusterNode(h, p) for h, p in parsed.nodes],  # type: ignore[no-untyped-call]
        ssl=parsed.tls,
        username=parsed.username,
        password=parsed.password,
    )


def redis_info(nodes: list[Node]) -> list[dict[str, float] | None]:
    """The INFO counters bench.load reports, per node (None: the node did not answer). Each
    node's role is read again (a replica promoted meanwhile is a master now)."""
    out: list[dict[str, float] | None] = []
    for node in nodes:
        try:
            info = node.client.info("all")
        except redis.RedisError:
            out.append(None)
            continue
        node.master = info.get("role") == "master"
        info["cmdstat_evalsha"] = (info.get("cmdstat_evalsha") or {}).get("calls", 0)
        out.append({name: float(info.get(name, 0)) for name in INFO_FIELDS})
    return out


def redis_deltas(
    before: list[dict[str, float] | None], after: list[dict[str, float] | None]
) -> list[dict[str, float]]:
    """Per node, what its counters grew by: zeros for a node that was away at either end,
    and what it counted since it started for one restarted meanwhile (its counters began
    again from zero: the figures then leave out what it did before the restart)."""
    out = []
    for b, a in zip(before, after, strict=True):
        if a is None or b is None:
            out.append(dict.fromkeys(INFO_FIELDS, 0.0))
        elif a["total_commands_processed"] < b["total_commands_processed"]:  # restarted
            out.append({k: a[k] for k in INFO_FIELDS})
        else:
            out.append({k: a[k] - b[k] for k in INFO_FIELDS})
    return out


def namespace_keys(nodes: list[Node], namespace: str) -> list[tuple[Any, bytes]]:
    """Every key whose name holds ``namespace`` (the run's own global and per-shard keys),
    with the node that holds it (masters that answer only: a replica refuses the delete)."""
    found = []
    for node in nodes:
        if not node.master:
            continue
        try:
            for key in node.client.scan_iter(match=f"*{namespace}*", count=1000):
                found.append((node.client, key))
        except redis.RedisError:
            continue
    return found


def results_streams(nodes: list[Node], namespace: str) -> list[tuple[Any, bytes]]:
    """The run's results streams (one, or one per shard), once records were written."""
    return [
        (client, key)
        for client, key in namespace_keys(nodes, namespace)
        if key.endswith(b":results") and client.type(key) == b"stream"
    ]


def close_all(nodes: list[Node]) -> None:
    for node in nodes:
        node.client.close()
