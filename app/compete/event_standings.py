"""An event's standings read a page at a time (``GET /api/events/{id}/standings``): best
first, withdrawn players and no-shows left out, keyset-paged by a cursor along the standings
index (``ix_event_entry_standing``: table points descending, then game points, tie-break and
player ascending), so a page costs the same at 100 or 100,000 players
(``python -m bench.compete`` measures it). The standings themselves are kept by
app.compete.events_store."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from app.compete.events import EventError
from app.compete.events_store import visible
from app.compete.scoring import places
from app.db import Database
from app.db.compete_models import EventEntry
from app.db.models import Player

PAGE_MAX = 100


def _standing_order() -> list[Any]:
    return [
        col(EventEntry.table_points).desc(),
        col(EventEntry.game_points),
        col(EventEntry.tie),
        col(EventEntry.player_id),
    ]


def standings(
    db: Database, event_id: int, viewer: str | None, cursor: str | None, limit: int
) -> dict[str, Any]:
    """A page of the standings (withdrawn players and no-shows left out), best first; the
    page's ``next`` is the cursor of the one after (range scans of the standings index
    ``ix_event_entry_standing``, in its order: the same cost at 100 or 100,000 players)."""
    limit = max(1, min(limit, PAGE_MAX))
    count, before = 0, None
    with db.session() as session:
        visible(session, event_id, viewer)
        query = (
            select(EventEntry, Player.name)
            .join(Player, col(Player.id) == col(EventEntry.player_id))
            .where(EventEntry.event_id == event_id, col(EventEntry.withdrawn).is_(False))
            .order_by(*_standing_order())
        )
        ranges: list[list[Any]] = [[]]
        if cursor is not None:
            count, place, tp, gp, tie, pid = _parse_cursor(cursor)
            before = ((tp, gp), place)
            points, game, drawn, who = (
                col(EventEntry.table_points),
                col(EventEntry.game_points),
                col(EventEntry.tie),
                col(EventEntry.player_id),
            )
            # The entries after the cursor in the standings' order are up to four ranges of
            # the index, read one after the other: the same points and tie-break (a later id),
            # the same points (a later tie-break), the same table points (more game points),
            # fewer table points. Each is an equality prefix and one bound, a range scan on
            # PostgreSQL and SQLite alike; one OR of them was a filter over a scan from the
            # event's best entry, costing more the deeper the page.
            ranges = [
                [points == tp, game == gp, drawn == tie, who > pid],
                [points == tp, game == gp, drawn > tie],
                [points == tp, game > gp],
                [points < tp],
            ]
        rows: list[Any] = []
        for bounds in ranges:
            rows += session.exec(query.where(*bounds).limit(limit + 1 - len(rows))).all()
            if len(rows) > limit:
                break
    # Players level on table points and Hearts points share a place (1, 1, 3); the drawn
    # tie-break only orders them on the page.
    shown = rows[:limit]
    ranks = places([(e.table_points, e.game_points) for e, _ in shown], count, before)
    lines = [
        {
            "place": rank,
            "player_id": e.player_id,
            "name": name,
            "table_points": e.table_points,
            "game_points": e.game_points,
            "rounds": e.rounds,
        }
        for rank, (e, name) in zip(ranks, shown, strict=True)
    ]
    nxt = None
    if len(rows) > limit:
        last = rows[limit - 1][0]
        nxt = (
            f"{count + limit}_{ranks[-1]}_{last.table_points!r}_{last.game_points}_{last.tie}"
            f"_{last.player_id}"
        )
    return {"lines": lines, "next": nxt}


def _parse_cursor(cursor: str) -> tuple[int, int, float, int, int, str]:
    """A page cursor: the lines before the next page, the last line's place, its table
    points, Hearts points, tie-break and player."""
    try:
        count, place, tp, gp, tie, pid = cursor.split("_", 5)
        out = (int(count), int(place), float(tp), int(gp), int(tie), pid)
    except ValueError:
        raise EventError(422, "bad_cursor", "that cursor is not one this server gave") from None
    if not 0 < out[1] <= out[0] or not pid or len(pid) > 32:
        raise EventError(422, "bad_cursor", "that cursor is not one this server gave")
    return out
