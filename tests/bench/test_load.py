"""bench.load's bookkeeping: a client process with no table ends, a soak forgets what it has
measured, every move's answer is waited for before the acks are counted."""

from __future__ import annotations

import asyncio
import queue
import random
import threading
import time

import pytest

from bench.load import Seat, TableRun, answered, client_main, delivered, harvest

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


async def test_the_acks_that_come_after_the_last_view_are_counted() -> None:
    # The table is over when one socket has the last view; the mover's ack for the last move
    # can come after it (on two instances the other one has the published view first). The
    # acks used to be counted at that moment: 22,387 of 22,400 moves on the cluster.
    run = TableRun("t")
    over = asyncio.Event()
    seat = Seat(run, 0, random.Random(1), over.set, think_ms=0.0)
    seat.playing = True
    seat.pending[b"0-9"] = (time.perf_counter(), False)
    seat.on_text(b'{"type":"state","version":12,"view":{"status":"over"}}')
    assert over.is_set() and run.moves == 0
    loop = asyncio.get_running_loop()
    loop.call_later(0.05, seat.on_text, b'{"type":"ack","id":"0-9","version":12}')
    assert await answered([seat], 5.0) == 0
    assert run.moves == 1 and list(run.sent) == [12]


async def test_a_move_never_answered_is_reported() -> None:
    run = TableRun("t")
    seat = Seat(run, 1, random.Random(1), lambda: None, think_ms=0.0)
    seat.pending[b"1-3"] = (time.perf_counter(), False)
    assert await answered([seat], 0.05) == 1
    assert run.moves == 0
