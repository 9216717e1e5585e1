"""bench.load's bookkeeping: a client process with no table ends, a soak forgets what it has
measured."""

from __future__ import annotations

import asyncio
import queue
import threading

import pytest

from bench.load import TableRun, client_main, delivered, harvest

pytestmark = pytest.mark.asyncio


async def test_a_client_process_without_a_table_ends() -> None:
    # More client processes than tables (--tables 1, --clients 2): the one with no table used
    # to wait for an end that never came, and the parent for its result.
    results: queue.Queue[dict[str, object]] = queue.Queue()
    job = {
        "tables": [],
        "tokens": [],
        "compact": True,
        "timeout": 10**6,
        "think_ms": 0.0,
        "stagger_ms": 0.0,
        "soak_s": 0,
    }
    await asyncio.wait_for(client_main(job, threading.Barrier(1), results), 30)
    got = results.get_nowait()
    assert got["moves"] == 0 and got["latencies"] == []


def run_of_three_moves() -> TableRun:
    run = TableRun("t")
    run.sent = {5: 10.0, 6: 11.0, 7: 20.0}
    run.passes = {5}
    # Two sockets: the first saw every version, the second missed 6 (coalesced into 7).
    run.arrivals = [{5: 10.001, 6: 11.002, 7: 20.001}, {5: 10.003, 7: 20.004}]
    return run


async def test_delivered_waits_for_the_last_socket() -> None:
    run = run_of_three_moves()
    got = {round(latency): play for _, latency, play in delivered(run, [5, 6, 7])}
    # 5: the slower socket (3 ms); 6: only the next version reached the second socket (9 s).
    assert got == {3: False, 9004: True, 4: True}


async def test_harvest_takes_the_moves_sent_before_the_cut_and_forgets_them() -> None:
    run = run_of_three_moves()
    taken = harvest(run, before=15.0)
    assert sorted(round(latency) for latency, _ in taken) == [3, 9004]
    assert run.sent == {7: 20.0} and run.passes == set()
    # Arrivals older than the oldest move still to measure are gone; 7's are kept.
    assert run.arrivals == [{7: 20.001}, {7: 20.004}]
    assert [round(latency) for latency, _ in harvest(run, before=30.0)] == [4]
    assert run.sent == {} and run.arrivals == [{}, {}]
