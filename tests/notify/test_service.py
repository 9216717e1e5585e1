"""The notifier: kinds checked, each channel called once per notice, presence decided once,
a failing channel does not stop the others, and queued notices are delivered before stop."""

from __future__ import annotations

import asyncio

import pytest

from app.notify.service import KINDS, Notice, Notifier

pytestmark = pytest.mark.asyncio


class Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.got: list[tuple[Notice, bool]] = []

    async def deliver(self, notice: Notice, *, away: bool) -> None:
        self.got.append((notice, away))


class Broken:
    name = "broken"

    async def deliver(self, notice: Notice, *, away: bool) -> None:
        raise RuntimeError("peer down")


async def test_unknown_kind_and_empty_player_are_refused() -> None:
    recorder = Recorder()
    notifier = Notifier([recorder])
    with pytest.raises(ValueError, match="unknown notice kind"):
        await notifier.send("p1", "nope")
    with pytest.raises(ValueError, match="player_id"):
        await notifier.send("", "your_turn")
    assert recorder.got == []


async def test_presence_decides_away_and_failures_stay_contained() -> None:
    open_tables = {("p1", "t1")}

    async def has_socket(player_id: str, table_id: str) -> bool:
        return (player_id, table_id) in open_tables

    recorder = Recorder()
    notifier = Notifier([Broken(), recorder], has_socket=has_socket)
    await notifier.start()
    await notifier.send("p1", "your_turn", table_id="t1")
    await notifier.send("p2", "your_turn", table_id="t1", data={"table": "Friday"})
    await notifier.send("p1", "friend_request", data={"from": "Ann"})
    await notifier.stop()
    got = {(n.player_id, n.kind): away for n, away in recorder.got}
    assert got == {
        ("p1", "your_turn"): False,
        ("p2", "your_turn"): True,
        ("p1", "friend_request"): True,
    }
    assert len(recorder.got) == 3


async def test_presence_failure_counts_as_away() -> None:
    async def has_socket(player_id: str, table_id: str) -> bool:
        raise ConnectionError("redis down")

    recorder = Recorder()
    notifier = Notifier([recorder], has_socket=has_socket)
    await notifier.send("p1", "time_almost_up", table_id="t1")
    assert [away for _, away in recorder.got] == [True]


async def test_every_kind_is_accepted_while_started() -> None:
    recorder = Recorder()
    notifier = Notifier([recorder])
    await notifier.start()
    for kind in KINDS:
        await notifier.send("p1", kind)
    await asyncio.sleep(0)
    await notifier.stop()
    assert sorted(n.kind for n, _ in recorder.got) == sorted(KINDS)


async def test_stop_ends_in_bounded_time_when_a_channel_swallows_cancellation() -> None:
    """A channel stuck in a library that swallows the cancellation (as the Redis and SMTP
    clients did on the shutdown path), and whose close hangs: stop() still returns, within
    its bounds (app/stopping.py), instead of hanging the server's shutdown."""

    class Stuck:
        name = "stuck"

        def __init__(self) -> None:
            self.entered = asyncio.Event()

        async def deliver(self, notice: Notice, *, away: bool) -> None:
            self.entered.set()
            while True:
                try:
                    await asyncio.sleep(60)
                except asyncio.CancelledError:
                    await asyncio.sleep(0)  # swallowed, and on it goes
                    return

        async def close(self) -> None:
            await asyncio.Event().wait()  # never returns by itself

    stuck = Stuck()
    notifier = Notifier([stuck])
    await notifier.start()
    await notifier.send("p1", "your_turn", table_id="t1")
    await asyncio.wait_for(stuck.entered.wait(), 5)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.wait_for(notifier.stop(seconds=0.5), 30)
    assert loop.time() - started < 5
