"""A club's standings over its events: each of the club's events that started in the month
(running or finished) gives each player in its standings a score by their place there, and a
member's club points are the sum over the events they played.

The score of a place is the daily challenge's matchpoints (app.compete.scoring): 1 for each
player of the event ranked below, 1/2 for each level with them (the same table points and
Hearts points: players level share a place, however the event's drawn tie-break orders
them). So winning an event of 8 is worth 7, and of 4 is worth 3: beating more players counts
more. Withdrawn players and no-shows are out of an event's standings and score nothing there
(nor count for the others). A running event's points move as it is played.

Only the club's members are listed (a player who left is not; the players they beat keep
those points). The cost is the month's events' entries: a club has at most
``HEARTS_CLUB_MEMBERS_MAX`` members, so a month's reading is bounded.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from sqlmodel import col, select

from app.compete.clubs import may_see_standings
from app.compete.scoring import matchpoints, places
from app.db import Database
from app.db.compete_models import ClubMember, Event, EventEntry
from app.db.models import Player


def over_events(db: Database, club_id: int, viewer: str | None, month: str) -> dict[str, Any]:
    """The club's members ranked by their points over the club's events of ``month``
    (``YYYY-MM``): ``events`` (how many counted), ``counted`` (each one's ``id``, ``name``
    and ``state``) and ``lines`` (``rank``, shared by equal points; ``player_id``, ``name``,
    ``points``, ``events`` played), best first."""
    start = datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)
    end = (
        start.replace(year=start.year + 1, month=1)
        if start.month == 12
        else start.replace(month=start.month + 1)
    )
    with db.session() as session:
        may_see_standings(session, club_id, viewer)
        counted = session.exec(
            select(Event.id, Event.name, Event.state)
            .where(
                Event.club_id == club_id,
                col(Event.state).in_(("running", "finished")),
                col(Event.starts_at) >= start,
                col(Event.starts_at) < end,
            )
            .order_by(col(Event.starts_at), col(Event.id))
        ).all()
        events = [event_id for event_id, _, _ in counted]
        rows = session.exec(
            select(
                EventEntry.event_id,
                EventEntry.player_id,
                EventEntry.table_points,
                EventEntry.game_points,
            ).where(col(EventEntry.event_id).in_(events), col(EventEntry.withdrawn).is_(False))
        ).all()
        members = dict(
            session.exec(
                select(ClubMember.player_id, Player.name)
                .join(Player, col(Player.id) == col(ClubMember.player_id))
                .where(ClubMember.club_id == club_id)
            ).all()
        )
    fields: dict[int, list[tuple[str, float, int]]] = defaultdict(list)
    for event_id, player_id, table_points, game_points in rows:
        fields[event_id].append((player_id, table_points, game_points))
    points: dict[str, float] = defaultdict(float)
    played: dict[str, int] = defaultdict(int)
    for field in fields.values():
        # a place as a number where fewer is better, as the daily's points are
        levels = sorted({(-tp, gp) for _, tp, gp in field})
        place_of = {level: n for n, level in enumerate(levels)}
        scores = matchpoints([place_of[(-tp, gp)] for _, tp, gp in field])
        for (player_id, _, _), score in zip(field, scores, strict=True):
            points[player_id] += score
            played[player_id] += 1
    ranked = sorted((p for p in points if p in members), key=lambda p: (-points[p], played[p], p))
    ranks = places([points[p] for p in ranked])
    return {
        "events": len(events),
        # the events counted, first begun first: the page links to their own standings
        "counted": [{"id": i, "name": n, "state": state} for i, n, state in counted],
        "lines": [
            {
                "rank": rank,
                "player_id": p,
                "name": members[p],
                "points": points[p],
                "events": played[p],
            }
            for rank, p in zip(ranks, ranked, strict=True)
        ],
    }
