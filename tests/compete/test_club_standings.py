"""A club's standings over its events (app.compete.club_standings), on SQLite and PostgreSQL:
each running or finished event of the club that started in the month scores its players by
place (1 for each player below, 1/2 for each level), summed per member; players level share a
rank; withdrawn players, other months, events not begun and other clubs' events count for
nothing; a closed club's standings are for its members."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import col, select

from app.compete import club_standings, clubs
from app.compete import events_store as ev
from app.compete.clubs import ClubError, ClubLimits
from app.compete.events import EventLimits
from app.db import Database
from app.db.compete_models import ClubMember, Event, EventEntry
from tests.compete.standins import add_players

LIMITS = ClubLimits(clubs_per_player=3, owned_per_player=2, members_per_club=10, post_max_chars=50)
NOV = datetime(2026, 11, 10, 18, 0, tzinfo=UTC)
OCT = datetime(2026, 10, 31, 23, 0, tzinfo=UTC)


def _event(
    db: Database,
    club_id: int,
    state: str,
    starts_at: datetime,
    field: list[tuple[str, float, int, bool]],
) -> None:
    """An event of the club in ``state`` with its standings: (player, table points, Hearts
    points, withdrawn) per entry."""
    with db.session() as session:
        maker = session.exec(
            select(ClubMember.player_id).where(ClubMember.club_id == club_id)
        ).first()
    made = ev.create_event(
        db,
        str(maker),
        name="Cup",
        format="swiss",
        preset="classic",
        rounds=2,
        starts_at=starts_at,
        grace_seconds=60,
        points_by_place=None,
        club_id=club_id,
        limits=EventLimits(),
        now=starts_at - timedelta(hours=1),
    )
    with db.session() as session:
        session.execute(sa.update(Event).where(col(Event.id) == made["id"]).values(state=state))
        session.execute(
            sa.insert(EventEntry),
            [
                {
                    "event_id": made["id"],
                    "player_id": pid,
                    "table_points": tp,
                    "game_points": gp,
                    "rounds": 1,
                    "tie": n,
                    "withdrawn": gone,
                    "last_seen_round": 1,
                    "registered_at": starts_at,
                }
                for n, (pid, tp, gp, gone) in enumerate(field)
            ],
        )
        session.commit()


@pytest.fixture
def club(database: Database) -> tuple[Database, int, int]:
    add_players(database, ("ann", "bob", "cat", "dan", "eve", "fay"))
    cid = clubs.create_club(database, "ann", "Spades Out", False, LIMITS)["id"]
    for pid in ("bob", "cat", "dan", "eve"):
        clubs.invite(database, cid, "ann", pid)
        clubs.join(database, cid, pid, None, LIMITS)
    other = clubs.create_club(database, "fay", "Elsewhere", True, LIMITS)["id"]
    return database, cid, other


def test_members_score_by_place_in_each_event(club: tuple[Database, int, int]) -> None:
    db, cid, other = club
    # ann and bob level (2.5 each: cat and eve below, each other level), cat 1, eve 0
    _event(db, cid, "finished", NOV, [
        ("ann", 6.0, 10, False), ("bob", 6.0, 10, False), ("cat", 2.0, 5, False),
        ("eve", 0.0, 0, False),
    ])  # fmt: skip
    # running: cat above ann (1 and 0); dan withdrew: out, counts for nobody
    _event(db, cid, "running", NOV, [
        ("ann", 2.0, 3, False), ("cat", 4.0, 8, False), ("dan", 8.0, 0, True),
    ])  # fmt: skip
    _event(db, cid, "finished", OCT, [("bob", 6.0, 0, False), ("dan", 0.0, 9, False)])
    _event(db, cid, "registering", NOV.replace(day=30), [("cat", 0.0, 0, False)])
    _event(db, other, "finished", NOV, [("bob", 0.0, 9, False), ("fay", 6.0, 0, False)])
    clubs.kick(db, cid, "ann", "eve", ban=False)  # eve left: not listed
    got = club_standings.over_events(db, cid, "dan", "2026-11")
    assert got["events"] == 2
    assert [(e["name"], e["state"]) for e in got["counted"]] == [
        ("Cup", "finished"),
        ("Cup", "running"),
    ]
    assert [(x["rank"], x["player_id"], x["points"], x["events"]) for x in got["lines"]] == [
        (1, "bob", 2.5, 1),  # level with ann: one rank (fewer events listed first)
        (1, "ann", 2.5, 2),
        (3, "cat", 2.0, 2),
    ]
    assert got["lines"][0]["name"] == "Bob"
    october = club_standings.over_events(db, cid, "ann", "2026-10")
    assert [(x["player_id"], x["points"]) for x in october["lines"]] == [
        ("bob", 1.0),
        ("dan", 0.0),
    ]
    december = club_standings.over_events(db, cid, "ann", "2026-12")
    assert december == {"events": 0, "counted": [], "lines": []}


def test_a_closed_clubs_event_standings_are_for_its_members(
    club: tuple[Database, int, int],
) -> None:
    db, cid, other = club
    for viewer in ("fay", None):
        with pytest.raises(ClubError) as err:
            club_standings.over_events(db, cid, viewer, "2026-11")
        assert err.value.code == "not_member"
    with pytest.raises(ClubError) as err:
        club_standings.over_events(db, 999_999, "ann", "2026-11")
    assert err.value.code == "unknown_club"
    assert club_standings.over_events(db, other, None, "2026-11")["lines"] == []  # open
