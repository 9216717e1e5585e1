"""bench.load's Redis nodes: every node a cluster reports, and a node away is left out of a
reading instead of failing the run."""

from __future__ import annotations

from typing import Any

import redis

from bench.load_redis import INFO_FIELDS, Node, parse_cluster_nodes, redis_deltas, redis_info
from bench.local_redis import LocalRedis


def test_the_cluster_nodes_reply_names_every_live_node_masters_first() -> None:
    reply: dict[str, Any] = {
        "127.0.0.1:7104": {"flags": "slave"},
        "127.0.0.1:7101": {"flags": "master,fail"},  # killed: its replica took over
        "127.0.0.1:7103": {"flags": "myself,master"},
        ":7102": {"flags": "master"},  # no announced address: the one asked
        "127.0.0.1:0": {"flags": "master,noaddr"},
    }
    assert parse_cluster_nodes(reply, "10.0.0.9") == [
        ("10.0.0.9", 7102, True),
        ("127.0.0.1", 7103, True),
        ("127.0.0.1", 7104, False),
    ]


def test_a_node_that_does_not_answer_is_left_out_of_the_reading() -> None:
    server = LocalRedis(appendonly=False).start()
    try:
        nodes = [
            Node("127.0.0.1", server.port, server.client()),
            Node("127.0.0.1", 1, redis.Redis(port=1, socket_connect_timeout=0.5)),  # nobody
        ]
        before = redis_info(nodes)
        assert before[0] is not None and before[1] is None
        server.client().set("k", "v")
        after = redis_info(nodes)
        deltas = redis_deltas(before, after)
        assert deltas[0]["total_commands_processed"] >= 1
        assert set(deltas[1].values()) == {0.0}
        assert nodes[0].master
    finally:
        server.stop()


def test_a_node_restarted_meanwhile_counts_from_its_start() -> None:
    before: list[dict[str, float] | None] = [dict.fromkeys(INFO_FIELDS, 100.0)]
    after: list[dict[str, float] | None] = [
        {**dict.fromkeys(INFO_FIELDS, 2.0), "total_commands_processed": 30.0}
    ]
    delta = redis_deltas(before, after)[0]
    assert delta["total_commands_processed"] == 30.0 and delta["used_cpu_sys"] == 2.0
