"""bench.turn_based runs on the local Redis (SQL copies in a SQLite file of its own), prints
its figures, before and after page-out, and leaves no key behind."""

from __future__ import annotations

import asyncio

import pytest
import redis

from bench.turn_based import run


def test_the_turn_based_bench_measures_and_cleans_up(capsys: pytest.CaptureFixture[str]) -> None:
    url = "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url).ping()
    except redis.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    asyncio.run(run(3, 2, url, None))
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("redis_bytes_per_idle"))
    mean = float(line.split("mean=")[1].split()[0])
    assert mean > 0  # MEMORY USAGE of the table's keys
    assert "my_games_read_ms (3 tables read" in out
    paged = next(x for x in out.splitlines() if x.startswith("redis_bytes_per_paged_out"))
    assert "(3 of 3 paged out" in paged
    assert float(paged.split("mean=")[1].split()[0]) < mean  # page-out frees Redis
    assert "sql_reads_per_page_in=1.00" in out
    assert not redis.Redis.from_url(url).keys("*bench-tb-*")
