"""Game reviews as jobs: asked for by the API, computed off the move path, survive a dead
instance.

Every instance runs one ``ReviewRunner`` (unless ``HEARTS_RUN_REVIEW_JOBS`` is off). It takes
jobs nobody holds from SQL (``app.db.reviews``: queued ones, and running ones whose lease ran
out because their instance died), one at a time, and computes each with ``app.review`` in a
worker process of its own (``HEARTS_REVIEW_WORKERS``, spawned like the computer players'
workers, ending with the server, at nice +10): a review takes seconds to minutes of CPU and
must never wait in front of a computer player's move, nor take the CPU from the event loop.

While the worker computes, the runner renews the job's lease and stores its progress about
once a second, and publishes each change (read five times a second) on the review's shard channel
(``keys.review_channel``, SPUBLISH), which the review sockets of every instance follow
(app/api/reviews.py). The worker tells the runner its progress through a small file: a pool
task cannot carry a pipe, and a multiprocessing manager would cost one more process.

An instance that dies stops renewing: once the lease has run out, another instance's runner
claims the job and computes it again from the start (``attempts`` counts the takeovers; after
``app.db.reviews.MAX_ATTEMPTS`` it is marked failed). An instance that stops cleanly hands its
job back at once (queued again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import orjson

from app.db import reviews
from app.db.database import Database
from app.store import keys
from app.workers import worker_pool

log = logging.getLogger(__name__)

REVIEW_NICE = 10  # the review workers' niceness, above the server's and its bot workers'
# Progress is written by the worker at most this often (seconds).
PROGRESS_EVERY = 0.2
# A progress change smaller than this is stored but not published.
PUBLISH_STEP = 0.01
# A review's CPU cap is its seat's decisions times HEARTS_REVIEW_CPU_SECONDS_PER_DECISION, and
# never under this (the deal's setup, a game of few decisions).
CPU_FLOOR_SECONDS = 10.0


class ReviewTooLong(Exception):
    """The review used its CPU cap: it stops, and the job fails."""


def write_progress(path: str, fraction: float) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as out:
        out.write(f"{fraction:.6f}")
    os.replace(tmp, path)


def read_progress(path: str) -> float | None:
    try:
        return float(Path(path).read_text())
    except (OSError, ValueError):
        return None


def load_record(database: Database, game_id: int) -> dict[str, Any] | None:
    """What the review needs of a stored game: its rules, seed and every move."""
    from app.db.replay import stored_moves
    from app.db.stats import load_game

    with database.session() as session:
        loaded = load_game(session, game_id)
    if loaded is None:
        return None
    game, seats, hands = loaded
    return {
        "game_id": game.id,
        "preset": game.variant,
        "options": dict(game.options),
        "players": game.players,
        "seed": game.seed,
        "moves": stored_moves(game, hands),
        "bots": {s.seat: s.bot_level for s in seats if s.bot_level},
    }


def decisions_of(record: dict[str, Any], seat: int) -> int:
    """The moves ``seat`` made in the game (what its review goes through)."""
    return sum(1 for move in record.get("moves") or [] if move and move[0] == seat)


def compute_review(
    record: dict[str, Any], seat: int, budget: int, progress_path: str | None
) -> dict[str, Any]:
    """The review of ``seat`` (``app.review.review_seat``), in a worker; progress goes to
    ``progress_path`` as a fraction. Past ``record["cpu_cap_seconds"]`` of this thread's CPU
    (when given), ``ReviewTooLong`` at the next decision."""
    from app.review import ReviewBudget, review_seat

    last = [0.0]
    cap = record.get("cpu_cap_seconds")
    started = time.thread_time()

    def progress(fraction: float) -> None:
        used = time.thread_time() - started
        if isinstance(cap, int | float) and used > cap:
            raise ReviewTooLong(f"the review used its CPU cap ({cap:.0f} s for this game)")
        now = time.monotonic()
        if progress_path is None or (now - last[0] < PROGRESS_EVERY and fraction < 1.0):
            return
        last[0] = now
        write_progress(progress_path, fraction)

    # ``budget``: rollouts per play; a pass weighs three times as many (the Expert's ratio).
    units = ReviewBudget(play_units=budget, pass_units=3 * budget)
    result: dict[str, Any] = review_seat(record, seat, budget=units, progress=progress)
    return result


Compute = Callable[[dict[str, Any], int, int, str | None], dict[str, Any]]


class ReviewRunner:
    """Claims review jobs from SQL and computes them in worker processes; see the module."""

    def __init__(
        self,
        database: Database,
        redis: Any,
        namespace: str,
        *,
        owner: str | None = None,
        workers: int = 1,
        lease_seconds: float = 30.0,
        poll_seconds: float = 2.0,
        cpu_seconds_per_decision: float | None = None,
        compute: Compute = compute_review,
    ) -> None:
        self.database = database
        self.redis = redis
        self.namespace = namespace
        self.owner = owner or f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.workers = workers
        self.lease_seconds = lease_seconds
        self.poll_seconds = poll_seconds
        # The computation (a picklable top-level function); a test may give its own.
        self.compute = compute
        self.cpu_seconds_per_decision = cpu_seconds_per_decision  # None: no cap
        # Progress is read (and published) every beat; the lease renewed, with the progress
        # stored, every renew_seconds.
        self.beat_seconds = PROGRESS_EVERY
        self.renew_seconds = min(1.0, lease_seconds / 3)
        self.finished = 0  # jobs this runner completed
        self._executor: Executor | None = None
        self._wake = asyncio.Event()
        self._folder = Path(tempfile.mkdtemp(prefix="hearts-review-"))

    def cpu_cap(self, record: dict[str, Any], seat: int) -> float:
        """The CPU seconds the review of ``seat`` may take: scaled to the game's length."""
        per_decision = self.cpu_seconds_per_decision or 0.0
        return max(CPU_FLOOR_SECONDS, per_decision * decisions_of(record, seat))

    def wake(self) -> None:
        """Look for jobs now (a job was just asked for on this instance)."""
        self._wake.set()

    def _pool(self) -> Executor:
        if self._executor is None:
            # A review worker runs at a low priority: moves and computers' turns come first.
            self._executor = worker_pool(self.workers, "review", "app.review", REVIEW_NICE)
        return self._executor

    def close(self) -> None:
        old, self._executor = self._executor, None
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)
        with contextlib.suppress(OSError):
            for item in self._folder.iterdir():
                item.unlink()
            self._folder.rmdir()

    async def publish(self, game_id: int, seat: int, status: str, progress: float) -> None:
        message = {
            "type": "review",
            "game_id": game_id,
            "seat": seat,
            "status": status,
            "progress": round(progress, 4),
        }
        try:
            # A shard channel (in the review's hash tag): SPUBLISH, as the table channels.
            await self.redis.spublish(
                keys.review_channel(self.namespace, game_id, seat), orjson.dumps(message)
            )
        except Exception as error:  # the sockets fall back on the stored state
            log.warning("review %s/%s: cannot publish: %s", game_id, seat, error)

    async def run(self, stop: asyncio.Event) -> None:
        """Work until ``stop`` is set: every ``poll_seconds`` (or when woken), the jobs
        nobody holds, one at a time."""
        log.info("review runner %s started", self.owner)
        try:
            while not stop.is_set():
                self._wake.clear()
                try:
                    await self.step(stop)
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # database or Redis down: try again later
                    log.warning("review runner %s: %s", self.owner, error)
                if stop.is_set():
                    break
                waits = [
                    asyncio.ensure_future(stop.wait()),
                    asyncio.ensure_future(self._wake.wait()),
                ]
                try:
                    await asyncio.wait(
                        waits, timeout=self.poll_seconds, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    for waiter in waits:
                        waiter.cancel()
        finally:
            self.close()
            log.info("review runner %s stopped", self.owner)

    async def step(self, stop: asyncio.Event | None = None) -> int:
        """Claim and compute the jobs nobody holds now; the number finished."""
        stop = stop or asyncio.Event()
        done = 0
        for game_id, seat in await asyncio.to_thread(reviews.claimable, self.database):
            if stop.is_set():
                break
            claimed = await asyncio.to_thread(
                reviews.claim, self.database, game_id, seat, self.owner, self.lease_seconds
            )
            if claimed is None:  # another instance was quicker, or it was given up
                row = await asyncio.to_thread(reviews.read, self.database, game_id, seat)
                if row is not None and row.status == "failed":
                    await self.publish(game_id, seat, "failed", row.progress)
                continue
            if await self.work(claimed, stop):
                done += 1
        return done

    async def work(self, job: reviews.Claimed, stop: asyncio.Event) -> bool:
        """Compute one claimed job, renewing its lease; True once its result is stored."""
        game_id, seat = job.game_id, job.seat
        log.info("review %s/%s: taken by %s (attempt %d)", game_id, seat, self.owner, job.attempts)
        await self.publish(game_id, seat, "running", 0.0)
        record = await asyncio.to_thread(load_record, self.database, game_id)
        if record is None:  # the game was deleted meanwhile (the row goes with it)
            return False
        if self.cpu_seconds_per_decision is not None:
            record["cpu_cap_seconds"] = self.cpu_cap(record, seat)
        path = str(self._folder / f"{game_id}-{seat}-{uuid.uuid4().hex[:6]}")
        loop = asyncio.get_running_loop()
        try:
            future: asyncio.Future[dict[str, Any]] = loop.run_in_executor(
                self._pool(), self.compute, record, seat, job.budget, path
            )
        except BrokenProcessPool:
            self._reset()
            return False
        published = 0.0
        renewed = loop.time()
        try:
            while True:
                finished, _ = await asyncio.wait({future}, timeout=self.beat_seconds)
                if finished:
                    break
                if stop.is_set():  # shutting down: hand the job back to the others
                    await asyncio.to_thread(
                        reviews.release, self.database, game_id, seat, self.owner
                    )
                    await self.publish(game_id, seat, "queued", 0.0)
                    return False
                progress = read_progress(path) or 0.0
                if loop.time() - renewed >= self.renew_seconds:
                    renewed = loop.time()
                    held = await asyncio.to_thread(
                        reviews.renew,
                        self.database,
                        game_id,
                        seat,
                        self.owner,
                        self.lease_seconds,
                        progress=progress,
                    )
                    if not held:  # the lease ran out (a stalled instance), another took it
                        log.warning("review %s/%s: lost its lease; left to another", game_id, seat)
                        return False
                if progress - published >= PUBLISH_STEP:
                    published = progress
                    await self.publish(game_id, seat, "running", progress)
            try:
                result = future.result()
            except BrokenProcessPool:
                # The worker died (killed, out of memory): the lease runs out and the job is
                # taken again, up to MAX_ATTEMPTS times.
                log.error("review %s/%s: its worker died", game_id, seat)
                self._reset()
                return False
            except Exception as error:
                log.exception("review %s/%s failed", game_id, seat)
                if await asyncio.to_thread(
                    reviews.fail, self.database, game_id, seat, self.owner, str(error) or "error"
                ):
                    await self.publish(game_id, seat, "failed", published)
                return False
            if not await asyncio.to_thread(
                reviews.finish, self.database, game_id, seat, self.owner, result
            ):
                return False
            self.finished += 1
            log.info("review %s/%s: done", game_id, seat)
            await self.publish(game_id, seat, "done", 1.0)
            return True
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)

    def _reset(self) -> None:
        old, self._executor = self._executor, None
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)
