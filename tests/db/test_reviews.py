"""The review jobs' state in SQL (app/db/reviews.py): asked for once, claimed by one instance,
taken over once the lease runs out, handed back, given up after MAX_ATTEMPTS; on SQLite and
PostgreSQL."""

from __future__ import annotations

import time

from sqlmodel import select

from app.db import Database, reviews
from app.db.models import Game
from app.db.players import create_guest
from app.db.results import write_event
from tests.db.helpers import game_event, seats_of


def _game(database: Database) -> tuple[int, str]:
    alice = create_guest(database, "Alice")
    write_event(database, game_event(seats_of(alice.id, None), [10, 16], preset="two-player-28"))
    with database.session() as session:
        game_id = session.exec(select(Game.id)).one()
    assert game_id is not None
    return game_id, alice.id


def test_asked_once_claimed_once_and_taken_over_after_the_lease(database: Database) -> None:
    game_id, alice = _game(database)
    row, created = reviews.request(database, game_id, 0, alice, 500)
    assert created and row.status == "queued" and row.budget == 500
    again, created = reviews.request(database, game_id, 0, None, 900)
    assert not created and again.budget == 500 and again.requested_by == alice
    assert reviews.claimable(database) == [(game_id, 0)]

    # A lease long enough for the next three steps on a loaded machine.
    first = reviews.claim(database, game_id, 0, "A", lease_seconds=1.5)
    assert first is not None and first.attempts == 1 and first.budget == 500
    assert reviews.claim(database, game_id, 0, "B", lease_seconds=5) is None  # held
    assert reviews.claimable(database) == []
    assert reviews.renew(database, game_id, 0, "A", 1.5, progress=0.25)
    assert reviews.read(database, game_id, 0).progress == 0.25  # type: ignore[union-attr]

    time.sleep(1.6)  # A stops renewing (it died): the job is free again
    assert reviews.claimable(database) == [(game_id, 0)]
    second = reviews.claim(database, game_id, 0, "B", lease_seconds=5)
    assert second is not None and second.attempts == 2
    assert not reviews.renew(database, game_id, 0, "A", 5)  # A woke up: no longer its job
    assert not reviews.finish(database, game_id, 0, "A", {"stale": True})
    assert reviews.finish(database, game_id, 0, "B", {"seat": 0})
    done = reviews.read(database, game_id, 0)
    assert done is not None and done.status == "done" and done.result == {"seat": 0}
    assert done.progress == 1 and done.lease_owner is None and done.finished_at is not None
    assert reviews.public(done)["result"] == {"seat": 0}
    assert reviews.claimable(database) == []


def test_handed_back_failed_asked_again_and_given_up(database: Database) -> None:
    game_id, alice = _game(database)
    reviews.request(database, game_id, 1, alice, 500)
    assert reviews.claim(database, game_id, 1, "A", 5) is not None
    assert reviews.release(database, game_id, 1, "A")  # a clean stop: queued at once
    row = reviews.read(database, game_id, 1)
    assert row is not None and row.status == "queued" and row.attempts == 0
    assert reviews.claim(database, game_id, 1, "B", 5) is not None
    assert reviews.fail(database, game_id, 1, "B", "the record cannot be replayed")
    failed = reviews.read(database, game_id, 1)
    assert failed is not None and failed.status == "failed"
    assert reviews.public(failed)["result"] is None and failed.error
    # A failed review is asked for again from the start.
    row, created = reviews.request(database, game_id, 1, alice, 700)
    assert created and row.status == "queued" and row.budget == 700 and row.error is None
    # Each instance that takes it dies: after MAX_ATTEMPTS takeovers it is given up.
    for n in range(reviews.MAX_ATTEMPTS):
        assert reviews.claim(database, game_id, 1, f"I{n}", lease_seconds=0.05) is not None
        time.sleep(0.1)
    assert reviews.claim(database, game_id, 1, "last", lease_seconds=5) is None
    given_up = reviews.read(database, game_id, 1)
    assert given_up is not None and given_up.status == "failed"
    assert given_up.attempts == reviews.MAX_ATTEMPTS + 1
    assert reviews.claimable(database) == []
