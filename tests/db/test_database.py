"""The connection: a read that decides a write is not undone by a concurrent writer, on
SQLite as on PostgreSQL (FOR UPDATE, and `Database.lock_for_writing`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.db import Database
from app.db.models import Rating
from app.db.players import create_guest

Read = Callable[[Database, Session, str], int]


def _read_for_update(_db: Database, session: Session, player_id: str) -> int:
    row = session.exec(
        select(Rating).where(col(Rating.player_id) == player_id).with_for_update()
    ).one()
    return row.games


def _read_after_lock(db: Database, session: Session, player_id: str) -> int:
    db.lock_for_writing(session)
    row = session.exec(select(Rating).where(col(Rating.player_id) == player_id)).one()
    return row.games


def test_two_writers_reading_for_update_lose_no_update(database: Database) -> None:
    """Two sessions each read a counter FOR UPDATE and write it plus one; the first holds its
    read a moment before writing. The second must wait for it: the counter ends at 2, not 1."""
    _race(database, _read_for_update)


def test_a_session_locked_for_writing_loses_no_update(sqlite_database: Database) -> None:
    """The same after `lock_for_writing` and a plain read (SQLite: on PostgreSQL a plain read
    takes no lock, and the code that needs one reads FOR UPDATE)."""
    _race(sqlite_database, _read_after_lock)


def _race(database: Database, read: Read) -> None:
    player = create_guest(database, "Counter")
    with database.session() as session:
        session.add(Rating(player_id=player.id, variant="classic", rating=0.0, games=0))
        session.commit()
    first_read = threading.Event()
    errors: list[BaseException] = []

    def add_one(hold: float, wait: threading.Event | None) -> None:
        try:
            if wait is not None:
                assert wait.wait(10)
            with database.session() as session:
                games = read(database, session, player.id)
                if wait is None:
                    first_read.set()
                time.sleep(hold)
                session.execute(
                    sa.update(Rating)
                    .where(col(Rating.player_id) == player.id)
                    .values(games=games + 1)
                )
                session.commit()
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [
        threading.Thread(target=add_one, args=(0.3, None)),
        threading.Thread(target=add_one, args=(0.0, first_read)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors, errors
    with database.session() as session:
        games = session.exec(select(Rating.games).where(col(Rating.player_id) == player.id)).one()
    assert games == 2


def test_a_plain_read_takes_no_write_lock(sqlite_database: Database) -> None:
    """Only a read that will write locks: a plain read leaves another writer free."""
    player = create_guest(sqlite_database, "Reader")
    with sqlite_database.session() as reader:
        reader.exec(select(Rating).where(col(Rating.player_id) == player.id)).all()
        with sqlite_database.session() as writer:
            writer.add(Rating(player_id=player.id, variant="classic", rating=0.0, games=1))
            writer.commit()
