"""The standings' pages (app.compete.event_standings) on SQLite and PostgreSQL: read a page at
a time with any page size, a field full of ties (equal table points, game points, even equal
tie-breaks) comes out whole, once each, in the standings' order, players level on points
sharing a place (across pages too); withdrawn players are left out; a bad cursor is
refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col

from app.compete import event_standings
from app.compete import events_store as ev
from app.compete.events import EventError, EventLimits
from app.db import Database
from app.db.compete_models import EventEntry
from app.db.models import Player

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PEOPLE = [f"p{i:02d}" for i in range(30)]

entries = st.lists(
    st.tuples(
        st.sampled_from([0.0, 2.0, 3.0, 6.0]),  # table points: few values, many ties
        st.integers(0, 3),  # game points
        st.integers(-2, 2),  # tie-breaks that collide
        st.booleans(),  # withdrawn
    ),
    min_size=0,
    max_size=len(PEOPLE),
)


@pytest.fixture
def event(database: Database) -> tuple[Database, int]:
    with database.session() as session:
        for pid in PEOPLE:
            session.add(Player(id=pid, name=pid.upper(), is_guest=False))
        session.commit()
    made = ev.create_event(
        database,
        PEOPLE[0],
        name="Ties",
        format="swiss",
        preset="classic",
        rounds=3,
        starts_at=NOW + timedelta(hours=1),
        grace_seconds=60,
        points_by_place=None,
        club_id=None,
        limits=EventLimits(),
        now=NOW,
    )
    return database, int(made["id"])


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(field=entries, size=st.integers(1, 7))
def test_pages_read_the_whole_field_in_order(
    event: tuple[Database, int], field: list[tuple[float, int, int, bool]], size: int
) -> None:
    db, event_id = event
    with db.session() as session:
        session.execute(sa.delete(EventEntry).where(col(EventEntry.event_id) == event_id))
        if field:
            session.execute(
                sa.insert(EventEntry),
                [
                    {
                        "event_id": event_id,
                        "player_id": PEOPLE[n],
                        "table_points": tp,
                        "game_points": gp,
                        "rounds": 1,
                        "tie": tie,
                        "withdrawn": gone,
                        "last_seen_round": 1,
                        "registered_at": NOW,
                    }
                    for n, (tp, gp, tie, gone) in enumerate(field)
                ],
            )
        session.commit()
    want = sorted(
        ((-tp, gp, tie, PEOPLE[n]) for n, (tp, gp, tie, gone) in enumerate(field) if not gone)
    )
    got: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = event_standings.standings(db, event_id, None, cursor, size)
        assert len(page["lines"]) <= size
        got += page["lines"]
        cursor = page["next"]
        if cursor is None:
            break
        assert len(page["lines"]) == size
    assert [x["player_id"] for x in got] == [w[3] for w in want]
    # Players level on table and Hearts points share a place, even across pages (1, 1, 3):
    # one more than the players ahead of them.
    ahead = [sum((v[0], v[1]) < (w[0], w[1]) for v in want) for w in want]
    assert [x["place"] for x in got] == [n + 1 for n in ahead]
    assert [(x["table_points"], x["game_points"]) for x in got] == [(-w[0], w[1]) for w in want]


def test_a_bad_cursor_is_refused(event: tuple[Database, int]) -> None:
    db, event_id = event
    for bad in (
        "x",
        "1_1_a_2_3_p",
        "-1_1_1.0_2_3_p",
        "1_0_1.0_2_3_p",  # place 0
        "1_2_1.0_2_3_p",  # a place after the lines so far
        "1_1_1.0_2_3_" + "p" * 33,
    ):
        with pytest.raises(EventError) as err:
            event_standings.standings(db, event_id, None, bad, 2)
        assert err.value.code == "bad_cursor"
