"""bench.load's client processes: a client process with no table ends, a soak forgets what it
has measured, every move's answer is waited for before the acks are counted, and a socket the
server closed comes back as the page's does."""

from __future__ import annotations

import asyncio
import queue
import random
import threading
import time

import orjson
import pytest

from bench.load_client import (
    STORE_RETRIES,
    Seat,
    TableRun,
    answered,
    client_main,
    delivered,
    harvest,
    reconnect_delay,
)

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


async def test_a_closed_socket_comes_back_as_the_page_does() -> None:
    rng = random.Random(1)
    assert reconnect_delay(4404, 0, rng) is None  # "do not come back" codes
    assert reconnect_delay(4429, 3, rng) is None
    assert 0 <= (reconnect_delay(1012, 7, rng) or 0) <= 0.5  # a restart: at once, spread
    first = reconnect_delay(1013, 0, rng) or 0
    assert 0.3 <= first <= 0.5
    assert 0.6 <= (reconnect_delay(None, 1, rng) or 0) <= 0.8  # doubling...
    assert 5.0 <= (reconnect_delay(1006, 12, rng) or 0) <= 5.2  # ... to 5 s


class FakeSocket:
    """A socket whose frames are kept (open) or refused (closed)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, object]] = []
        self.open = True

    def send(self, payload: bytes) -> bool:
        if self.open:
            self.sent.append(orjson.loads(payload))
        return self.open


async def test_a_move_sent_on_a_closed_socket_goes_out_when_welcomed_back() -> None:
    # The client process died on "the handler is closed" when it wrote to a socket the server
    # had closed; now the move stays pending and is sent again, same id, after the welcome.
    run = TableRun("t")
    seat = Seat(run, 2, random.Random(1), lambda: None, think_ms=0.0)
    socket = FakeSocket()
    socket.open = False
    seat.ws = socket  # type: ignore[assignment]
    seat.playing = True
    seat.on_text(b'{"type":"state","version":4,"view":{"legal":{"type":"play","cards":["2C"]}}}')
    assert list(seat.pending) == [b"2-1"] and socket.sent == []
    socket.open = True
    seat.on_text(b'{"type":"welcome","version":4}')
    assert [m["id"] for m in socket.sent] == ["2-1"] and seat.resent == 1
    seat.on_text(b'{"type":"ack","id":"2-1","version":5}')
    assert seat.pending == {} and seat.payloads == {} and run.moves == 1


async def test_store_unavailable_is_tried_again_then_given_up() -> None:
    run = TableRun("t")
    seat = Seat(run, 1, random.Random(1), lambda: None, think_ms=0.0)
    socket = FakeSocket()
    seat.ws = socket  # type: ignore[assignment]
    seat.send_move("1-1", b'{"type":"move","id":"1-1","move":{}}', False)
    error = b'{"type":"error","id":"1-1","code":"store_unavailable","retry_after":0.5}'
    for tries in range(1, STORE_RETRIES + 1):
        seat.on_text(error)
        assert seat.retries[b"1-1"] == tries and b"1-1" in seat.pending
    seat.on_text(error)  # one more: the page gives up, the move is no longer waited for
    assert seat.gave_up == 1 and seat.pending == {} and seat.unavailable == STORE_RETRIES + 1


async def test_an_acknowledged_move_the_table_went_back_over_is_lost() -> None:
    run = TableRun("t")
    run.started_at = run.top_at = time.perf_counter()
    watcher = Seat(run, None, random.Random(1), lambda: None, think_ms=0.0)
    for version in (7, 8, 9):
        watcher.on_text(b'{"type":"state","version":%d,"view":{}}' % version)
    run.sent = {8: 1.0, 9: 2.0}  # acknowledged at 8 and 9
    # A promoted replica had only version 7: the table is back there, 8 and 9 are lost.
    watcher.on_text(b'{"type":"state","version":7,"view":{}}')
    assert run.lost == {8, 9}
    watcher.on_text(b'{"type":"state","version":8,"view":{}}')  # play goes on from 7
    assert run.lost == {8, 9} and run.top == 8


async def test_a_table_its_redis_lost_ends_as_gone() -> None:
    # Redis restarted without its file: the hub tells the sockets "unknown_table" (no id).
    ended: list[bool] = []
    run = TableRun("t")
    seat = Seat(run, 0, random.Random(1), lambda: ended.append(True), think_ms=0.0)
    seat.on_text(b'{"type":"error","code":"unknown_table","message":"no such table"}')
    seat.on_text(b'{"type":"error","code":"unknown_table","message":"no such table"}')
    assert run.gone and run.over and ended == [True]
