"""A batch of records written in one transaction stores exactly what the same records written
one by one store: games, seats, hands, scores, ratings and rating changes."""

from __future__ import annotations

import uuid
from typing import Any

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col

from app.db import Database
from app.db.events import parse_event
from app.db.models import Game, GameSeat, Hand, HandScore, Rating, RatingChange
from app.db.players import create_guest
from app.db.results import write_records

# A game's seats name people by their place in the run's players (each run has its own, so
# their ratings do not meet), computers, and a player who never existed.
PEOPLE = 3
SEAT_CHOICES: list[Any] = [0, 1, 2, "bot", "ghost"]


@st.composite
def scripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Records of one to three games, interleaved, some sent again, as the outbox may."""
    games = draw(st.integers(1, 3))
    queues: list[list[dict[str, Any]]] = []
    for number in range(games):
        size = draw(st.sampled_from([2, 3, 4]))
        seats = draw(st.lists(st.sampled_from(SEAT_CHOICES), min_size=size, max_size=size))
        rated = draw(st.booleans())
        private = draw(st.booleans())
        hands = draw(st.integers(0, 3))
        queue: list[dict[str, Any]] = []
        for hand_no in range(hands):
            points = draw(st.lists(st.integers(0, 26), min_size=size, max_size=size))
            queue.append(
                {
                    "kind": "hand",
                    "game": number,
                    "hand_no": hand_no,
                    "seats": seats if draw(st.booleans()) else None,  # may come without
                    "preset": "classic" if draw(st.booleans()) else None,
                    "points": points,
                    "moons": draw(st.sampled_from([[], [0]])),
                    "replaced": draw(st.lists(st.booleans(), min_size=size, max_size=size)),
                    "private": private and draw(st.booleans()),
                    "rated": rated,
                    "moves": [[s, {"type": "play", "card": "2C"}] for s in range(size)],
                }
            )
        if draw(st.booleans()):
            totals = draw(st.lists(st.integers(0, 120), min_size=size, max_size=size))
            queue.append(
                {
                    "kind": "game",
                    "game": number,
                    "seats": seats,
                    "totals": totals,
                    "ended": draw(st.sampled_from(["finished", "abandoned"])),
                    "left": draw(st.lists(st.booleans(), min_size=size, max_size=size)),
                    "replaced": [False] * size,
                    "private": private,
                    "rated": rated,
                    "hands": hands,
                }
            )
        queues.append(queue)
    script: list[dict[str, Any]] = []
    while any(queues):
        queue = draw(st.sampled_from([q for q in queues if q]))
        script.append(queue.pop(0))
        if draw(st.integers(0, 4)) == 0:  # an earlier record delivered again
            script.append(draw(st.sampled_from(script)))
    return script


def _seat(choice: Any, people: list[str], replaced: bool, left: bool) -> dict[str, Any]:
    if choice == "bot":
        return {"player_id": None, "bot_level": "easy", "replaced_by_bot": False}
    player_id = "ghost-" + "0" * 26 if choice == "ghost" else people[choice]
    return {"player_id": player_id, "replaced_by_bot": replaced, "left": left}


def _event(step: dict[str, Any], prefix: str, people: list[str]) -> dict[str, Any]:
    """A script step as the outbox event of one run (its own table ids and players)."""
    size = len(step["replaced"])
    seats = (
        [
            _seat(c, people, step["replaced"][i], step.get("left", [False] * size)[i])
            for i, c in enumerate(step["seats"])
        ]
        if step["seats"]
        else None
    )
    event: dict[str, Any] = {
        "kind": step["kind"],
        "table_id": f"{prefix}{step['game']}",
        "game_no": 1,
        "seed": 7,
        "options": {},
        "seats": seats,
        "private": step["private"],
        "rated": step["rated"],
        "ended_at": "2026-01-01T12:00:00Z",
        "started_at": "2026-01-01T11:00:00Z",
    }
    if step["kind"] == "hand":
        event.update(
            hand_no=step["hand_no"],
            preset=step["preset"],
            points=step["points"],
            moons=step["moons"],
            pass_direction="left",
            moves=step["moves"],
        )
    else:
        low = min(step["totals"])
        event.update(
            preset="classic",
            totals=step["totals"],
            winners=[i for i, t in enumerate(step["totals"]) if t == low],
            ended=step["ended"],
            hands=step["hands"],
        )
    return event


def _stored(db: Database, prefix: str, people: list[str]) -> dict[str, Any]:
    """Everything the run with ``prefix`` stored, with its own ids and players replaced by
    names the two runs share."""
    who = {p: f"person{i}" for i, p in enumerate(people)}
    with db.session() as session:
        games = {
            g.id: g
            for g in session.execute(
                sa.select(Game).where(col(Game.table_id).startswith(prefix))
            ).scalars()
        }
        key = {gid: g.table_id.removeprefix(prefix) for gid, g in games.items()}
        ids = list(games)
        seats = session.execute(sa.select(GameSeat).where(col(GameSeat.game_id).in_(ids))).scalars()
        hands = {
            h.id: h
            for h in session.execute(sa.select(Hand).where(col(Hand.game_id).in_(ids))).scalars()
        }
        scores = session.execute(
            sa.select(HandScore).where(col(HandScore.hand_id).in_(list(hands)))
        ).scalars()
        ratings = session.execute(
            sa.select(Rating).where(col(Rating.player_id).in_(people))
        ).scalars()
        changes = session.execute(
            sa.select(RatingChange).where(col(RatingChange.game_id).in_(ids))
        ).scalars()

        def row(obj: Any, *skip: str) -> dict[str, Any]:
            values: dict[str, Any] = obj.model_dump(exclude={"id", *skip})
            if values.get("player_id") is not None:
                values["player_id"] = who.get(values["player_id"], values["player_id"])
            return values

        return {
            "games": sorted(
                (
                    key[gid],
                    repr(row(g, "table_id", "share_token")),
                    g.share_token is not None,
                )
                for gid, g in games.items()
            ),
            "seats": sorted((key[s.game_id], repr(row(s, "game_id"))) for s in seats),
            "hands": sorted(
                (key[h.game_id], h.hand_no, repr(row(h, "game_id"))) for h in hands.values()
            ),
            "scores": sorted(
                (
                    key[hands[s.hand_id].game_id],
                    hands[s.hand_id].hand_no,
                    repr(row(s, "hand_id")),
                )
                for s in scores
            ),
            "ratings": sorted(repr(row(r)) for r in ratings),
            "changes": sorted((key[c.game_id], repr(row(c, "game_id"))) for c in changes),
        }


# The database is shared by the examples: each run writes its own tables and players.
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(scripts())
def test_a_batch_equals_its_records_one_by_one(
    database: Database, script: list[dict[str, Any]]
) -> None:
    runs = {}
    for how in ("batch", "single"):
        prefix = f"{how}-{uuid.uuid4().hex[:8]}-"
        people = [create_guest(database, f"P{i}").id for i in range(PEOPLE)]
        records = [parse_event(_event(step, prefix, people)) for step in script]
        if how == "batch":
            outcomes = write_records(database, records)
        else:
            outcomes = [o for r in records for o in write_records(database, [r])]
        runs[how] = (outcomes, _stored(database, prefix, people))
    assert runs["batch"] == runs["single"]
    outcomes, stored = runs["batch"]
    # The script's games and hands are all there (the comparison is not of two empty sets).
    assert len(stored["games"]) == len({step["game"] for step in script})
    assert outcomes.count("written") == len(
        {(s["kind"], s["game"], s.get("hand_no")) for s in script}
    )
