"""bench.commit_bytes counts what the commit script receives: one game's parts add up, and the
state's share is the blob the service wrote."""

from __future__ import annotations

import asyncio

from bench.commit_bytes import run


def test_one_game_is_counted_whole() -> None:
    result = asyncio.run(run(1, "classic", 1))
    assert result["moves"] >= 52 and result["commits"] > result["moves"]
    per_move = result["bytes_per_move"]
    parts = sum(v for k, v in per_move.items() if k != "all")
    assert abs(per_move["all"] - parts) < 1e-6
    assert per_move["state"] > 500 and per_move["moves"] > 0 and per_move["records"] > 0
    # The state's fields are the table's keys, the engine's own inside "game".
    assert {"game", "seats", "recent_moves"} <= set(result["state_fields"])
    assert {"rules", "tricks", "hands"} <= set(result["game_fields"])
