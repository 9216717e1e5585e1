"""Writing finished hands and games to SQL, each exactly once.

Idempotent by natural keys: a game is (table_id, game_no), a hand is (game, hand_no), and a game
is completed once (its status leaves "playing"). A record delivered twice finds its row and is
reported as a duplicate; two writers racing on one record meet a unique constraint, and the loser
retries and finds the row. Ratings change in the same transaction that completes the game, so
they are applied exactly once too.

A batch of records costs a fixed number of statements, not a few per record: its games, their
seats and the numbers of their stored hands are read in one SELECT each; the records are then
applied in order to those rows held in memory (`_Batch`), as each would have been alone; and
what changed is written with one multi-row INSERT per table (new games and hands with
RETURNING, for their ids) and one UPDATE per changed game and seat. The rating rows of every
game the batch rates are read and locked in one SELECT ... FOR UPDATE, in a fixed order.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import Session

from app.db.database import Database
from app.db.events import GameRecord, HandRecord, SeatRecord, parse_event
from app.db.models import Game, GameSeat, Hand, HandScore, Player, Rating, RatingChange, utcnow
from app.db.ratings import SeatResult, Skill, game_updates

Outcome = Literal["written", "duplicate"]

_GAME: sa.Table = Game.__table__  # type: ignore[attr-defined]
_SEAT: sa.Table = GameSeat.__table__  # type: ignore[attr-defined]
_HAND: sa.Table = Hand.__table__  # type: ignore[attr-defined]
_SCORE: sa.Table = HandScore.__table__  # type: ignore[attr-defined]
_PLAYER: sa.Table = Player.__table__  # type: ignore[attr-defined]
_RATING: sa.Table = Rating.__table__  # type: ignore[attr-defined]
_CHANGE: sa.Table = RatingChange.__table__  # type: ignore[attr-defined]

# The seat columns a later record may change (the rest are written once, with the seat).
_SEAT_CHANGES = ("replaced_by_bot", "left_early", "total", "won")


def write_event(db: Database, event: Mapping[str, Any]) -> Outcome:
    """Write one outbox event in one transaction. Raises `BadEvent` for a record that can never
    be written, and SQLAlchemy errors (retry them) when the database fails."""
    [outcome] = write_records(db, [parse_event(event)])
    return outcome


def write_records(db: Database, records: Sequence[HandRecord | GameRecord]) -> list[Outcome]:
    """Write parsed records, in order, in ONE transaction: all their effects commit together
    or, if any raises, none does (the error is raised; retry the records, one by one to find
    a record that fails alone). A record may follow another of its game in the same batch (it
    sees what the earlier one did). Nothing is committed when every record was a duplicate;
    when some were written, a duplicate's fill-ins of its game (what an earlier record lacked,
    as the first delivery made them) commit with them."""
    with db.session() as session:
        # What the batch reads (games, hands, ratings) decides what it writes: one writer.
        db.lock_for_writing(session)
        batch = _Batch.load(session, records)
        outcomes: list[Outcome] = [
            _write_hand(batch, record)
            if isinstance(record, HandRecord)
            else _write_game(batch, record)
            for record in records
        ]
        if "written" in outcomes:
            batch.rate()
            batch.flush()
            session.commit()
        else:
            session.rollback()
    return outcomes


@dataclass
class _GameRows:
    """One game of a batch: its row, seats and hands as they will be once the batch is
    written, and what of them is new or changed."""

    row: dict[str, Any]  # the game's columns; "id" is None until a new game is inserted
    new: bool
    seats: list[dict[str, Any]]  # by seat number
    stored_seats: int  # how many of `seats` are rows already
    stored_hands: bool  # has hands in SQL from before the batch
    hand_nos: set[int]
    changed: set[str] = field(default_factory=set)  # columns of a stored game to update
    changed_seats: set[int] = field(default_factory=set)  # stored seats to update
    hands: list[tuple[dict[str, Any], list[dict[str, Any]]]] = field(default_factory=list)
    late_seats: list[dict[str, Any]] = field(default_factory=list)  # see `_add_seats`

    def set(self, column: str, value: Any) -> None:
        if self.row[column] != value:
            self.row[column] = value
            self.changed.add(column)

    def set_seat(self, number: int, column: str, value: Any) -> None:
        seat = self.seats[number]
        if seat[column] != value:
            seat[column] = value
            if number < self.stored_seats:
                self.changed_seats.add(number)


@dataclass
class _Rating:
    """A game to rate once the batch's games are known (`_Batch.rate`)."""

    game: _GameRows
    results: list[SeatResult]
    people: list[str]
    abandoned: bool


class _Batch:
    """The rows a batch of records touches, read at once, changed in memory, written at once."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.games: dict[tuple[str, int], _GameRows] = {}
        self.names: dict[str, str] = {}  # the known players a new seat may name
        self.ratings: list[_Rating] = []
        self.rating_rows: dict[tuple[str, str], dict[str, Any]] = {}  # (player, variant)
        self.changes: list[tuple[_GameRows, dict[str, Any]]] = []  # rating changes

    @classmethod
    def load(cls, session: Session, records: Sequence[HandRecord | GameRecord]) -> _Batch:
        batch = cls(session)
        wanted = {(r.table_id, r.game_no) for r in records}
        if not wanted:
            return batch
        table_ids = sorted({table_id for table_id, _ in wanted})
        stored = {
            (row["table_id"], row["game_no"]): dict(row)
            for row in session.execute(
                sa.select(_GAME).where(_GAME.c.table_id.in_(table_ids))
            ).mappings()
            if (row["table_id"], row["game_no"]) in wanted
        }
        by_id = {row["id"]: key for key, row in stored.items()}
        seats: dict[int, list[dict[str, Any]]] = {game_id: [] for game_id in by_id}
        hands: dict[int, set[int]] = {game_id: set() for game_id in by_id}
        if by_id:
            ids = sorted(by_id)
            for seat in session.execute(
                sa.select(_SEAT).where(_SEAT.c.game_id.in_(ids)).order_by(_SEAT.c.seat)
            ).mappings():
                seats[seat["game_id"]].append(dict(seat))
            for game_id, hand_no in session.execute(
                sa.select(_HAND.c.game_id, _HAND.c.hand_no).where(_HAND.c.game_id.in_(ids))
            ):
                hands[game_id].add(hand_no)
        for key, row in stored.items():
            game_id = row["id"]
            batch.games[key] = _GameRows(
                row=row,
                new=False,
                seats=seats[game_id],
                stored_seats=len(seats[game_id]),
                stored_hands=bool(hands[game_id]),
                hand_nos=hands[game_id],
            )
        # The players that seats not yet stored may name: one read for the batch.
        players: set[str] = set()
        for record in records:
            game = batch.games.get((record.table_id, record.game_no))
            if game is None or not game.seats:
                players.update(seat.player_id for seat in record.seats if seat.player_id)
        if players:
            batch.names = {
                player_id: name
                for player_id, name in session.execute(
                    sa.select(_PLAYER.c.id, _PLAYER.c.name).where(_PLAYER.c.id.in_(sorted(players)))
                )
            }
        return batch

    def game_for(self, record: HandRecord | GameRecord) -> _GameRows:
        """The game of a record, created by whichever record comes first; a later record fills
        in what an earlier one lacked (a hand record may come without the preset or the
        seats)."""
        key = (record.table_id, record.game_no)
        game = self.games.get(key)
        if game is None:
            scorers = len(record.points) if isinstance(record, HandRecord) else 0
            game = _GameRows(
                row={
                    "id": None,
                    "table_id": record.table_id,
                    "game_no": record.game_no,
                    "variant": record.preset or "",
                    "options": record.options,
                    "players": len(record.seats) or scorers,
                    "status": "playing",
                    "hands_played": 0,
                    "seed": record.seed,
                    "started_at": record.started_at,
                    "ended_at": None,
                    "totals": None,
                    "winners": None,
                    "moves": None,
                    "rated": False,
                    "rated_table": record.rated,
                    "private": False,
                    "share_token": None,
                },
                new=True,
                seats=[],
                stored_seats=0,
                stored_hands=False,
                hand_nos=set(),
            )
            self.games[key] = game
            _make_private(game, record.private)
        else:
            _make_private(game, record.private)
            game.set("rated_table", game.row["rated_table"] or record.rated)
            if game.row["seed"] is None and record.seed is not None:
                game.set("seed", record.seed)
            if not game.row["variant"] and record.preset:
                game.set("variant", record.preset)
                game.set("options", record.options)
            if game.row["started_at"] is None and record.started_at is not None:
                game.set("started_at", record.started_at)
        if record.seats and not game.seats:
            self._add_seats(game, record.seats)
        return game

    def _add_seats(self, game: _GameRows, seats: tuple[SeatRecord, ...]) -> None:
        game.set("players", len(seats))
        for number, seat in enumerate(seats):
            # An unknown player (e.g. an account deleted mid-game) is stored as an anonymous
            # seat.
            player_id = seat.player_id if seat.player_id in self.names else None
            game.seats.append(
                {
                    "game_id": game.row["id"],
                    "seat": number,
                    "player_id": player_id,
                    "name": seat.name or (self.names.get(player_id) if player_id else None),
                    "bot_level": seat.bot_level,
                    "replaced_by_bot": seat.replaced_by_bot,
                    "total": None,
                    "won": None,
                    "left_early": seat.left,
                }
            )
            if player_id:  # hands recorded before the seats were known
                for _, scores in game.hands:
                    for score in scores:
                        if score["scorer"] == number and score["player_id"] is None:
                            score["player_id"] = player_id
                if game.stored_hands:
                    game.late_seats.append({"scorer": number, "player_id": player_id})

    def rate(self) -> None:
        """Rate the batch's rated games in order, their players' rating rows read and locked
        in one statement, in a fixed order, so concurrent writers neither lose an update nor
        deadlock (on SQLite the whole batch holds the write lock: `lock_for_writing`)."""
        if not self.ratings:
            return
        wanted = {(p, job.game.row["variant"]) for job in self.ratings for p in job.people}
        rows = self.rating_rows
        for row in self.session.execute(
            sa.select(_RATING)
            .where(
                _RATING.c.player_id.in_(sorted({p for p, _ in wanted})),
                _RATING.c.variant.in_(sorted({v for _, v in wanted})),
            )
            .order_by(_RATING.c.player_id, _RATING.c.variant)
            .with_for_update()
        ).mappings():
            rows[(row["player_id"], row["variant"])] = dict(row, new=False)
        for job in self.ratings:
            job.game.set("rated", self._rate(job))

    def _rate(self, job: _Rating) -> bool:
        variant = job.game.row["variant"]
        existing = {
            p: self.rating_rows[(p, variant)]
            for p in job.people
            if (p, variant) in self.rating_rows
        }
        skills = {p: Skill(r["rating"], r["deviation"]) for p, r in existing.items()}
        updates = game_updates(job.results, skills, only_leavers=job.abandoned)
        if not updates:
            return False
        now = job.game.row["ended_at"] or utcnow()
        for u in updates:
            row = existing.get(u.player_id)
            if row is None:
                row = {
                    "player_id": u.player_id,
                    "variant": variant,
                    "rating": 0.0,
                    "deviation": 350.0,
                    "games": 0,
                    "new": True,
                }
                self.rating_rows[(u.player_id, variant)] = row
            row["rating"], row["deviation"] = u.after.rating, u.after.deviation
            row["games"] += 1
            row["updated_at"] = now
            row["changed"] = True
            self.changes.append(
                (
                    job.game,
                    {
                        "player_id": u.player_id,
                        "variant": variant,
                        "before": u.before.rating,
                        "after": u.after.rating,
                        "deviation": u.after.deviation,
                        "created_at": now,
                    },
                )
            )
        return True

    def flush(self) -> None:
        """Write what the batch's records changed: a fixed number of statements."""
        execute = self.session.execute
        games = list(self.games.values())
        new = [g for g in games if g.new]
        if new:
            rows = [{k: v for k, v in g.row.items() if k != "id"} for g in new]
            ids = execute(
                sa.insert(_GAME).returning(_GAME.c.id, sort_by_parameter_order=True), rows
            ).scalars()
            for game, game_id in zip(new, ids, strict=True):
                game.row["id"] = game_id
        for game in games:
            if game.changed and not game.new:
                execute(
                    sa.update(_GAME)
                    .where(_GAME.c.id == game.row["id"])
                    .values({c: game.row[c] for c in sorted(game.changed)})
                )
            for late in game.late_seats:
                execute(
                    sa.update(_SCORE)
                    .where(
                        _SCORE.c.hand_id.in_(
                            sa.select(_HAND.c.id).where(_HAND.c.game_id == game.row["id"])
                        ),
                        _SCORE.c.scorer == late["scorer"],
                        _SCORE.c.player_id.is_(None),
                    )
                    .values(player_id=late["player_id"])
                )
        seats = [
            dict(seat, game_id=game.row["id"])
            for game in games
            for seat in game.seats[game.stored_seats :]
        ]
        if seats:
            _insert_many(self.session, _SEAT, seats)
        changed_seats = [
            {"g": game.row["id"], "s": n, **{c: game.seats[n][c] for c in _SEAT_CHANGES}}
            for game in games
            for n in sorted(game.changed_seats)
        ]
        if changed_seats:
            execute(
                sa.update(_SEAT)
                .where(_SEAT.c.game_id == sa.bindparam("g"), _SEAT.c.seat == sa.bindparam("s"))
                .values({c: sa.bindparam(c) for c in _SEAT_CHANGES}),
                changed_seats,
            )
        hands = [(game, hand, scores) for game in games for hand, scores in game.hands]
        if hands:
            ids = execute(
                sa.insert(_HAND).returning(_HAND.c.id, sort_by_parameter_order=True),
                [dict(hand, game_id=game.row["id"]) for game, hand, _ in hands],
            ).scalars()
            _insert_many(
                self.session,
                _SCORE,
                [
                    dict(score, hand_id=hand_id)
                    for (_, _, scores), hand_id in zip(hands, ids, strict=True)
                    for score in scores
                ],
            )
        self._flush_ratings()

    def _flush_ratings(self) -> None:
        columns = ("rating", "deviation", "games", "updated_at")
        changed = [r for r in self.rating_rows.values() if r.get("changed")]
        created = [
            {k: r[k] for k in ("player_id", "variant", *columns)} for r in changed if r["new"]
        ]
        if created:
            self.session.execute(sa.insert(_RATING), created)
        updated = [
            {"p": r["player_id"], "v": r["variant"], **{k: r[k] for k in columns}}
            for r in changed
            if not r["new"]
        ]
        if updated:
            self.session.execute(
                sa.update(_RATING)
                .where(
                    _RATING.c.player_id == sa.bindparam("p"),
                    _RATING.c.variant == sa.bindparam("v"),
                )
                .values({c: sa.bindparam(c) for c in columns}),
                updated,
            )
        if self.changes:
            self.session.execute(
                sa.insert(_CHANGE),
                [dict(change, game_id=game.row["id"]) for game, change in self.changes],
            )


def _insert_many(session: Session, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    """Insert rows that nothing reads back: by COPY on PostgreSQL (one round trip, and the
    server parses no statement per row, which an executemany would make it do), by an
    executemany elsewhere (SQLite runs it in process)."""
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        session.execute(sa.insert(table), rows)
        return
    columns = list(rows[0])
    raw: Any = connection.connection.driver_connection
    with (
        raw.cursor() as cursor,
        cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row([row[c] for c in columns])


def _make_private(game: _GameRows, private: bool) -> None:
    """A game is private once any of its records says so (never the other way): its readers
    are its players and whoever holds the share token made here."""
    if private and not game.row["private"]:
        game.set("private", True)
    if game.row["private"] and game.row["share_token"] is None:
        game.set("share_token", new_share_token())


def new_share_token() -> str:
    """128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


def _mark_replaced(game: _GameRows, records: tuple[SeatRecord, ...]) -> None:
    for number, seat in zip(range(len(game.seats)), records, strict=False):
        if seat.replaced_by_bot and not game.seats[number]["replaced_by_bot"]:
            game.set_seat(number, "replaced_by_bot", True)
        if seat.left and not game.seats[number]["left_early"]:
            game.set_seat(number, "left_early", True)


def _write_hand(batch: _Batch, record: HandRecord) -> Outcome:
    game = batch.game_for(record)
    if record.hand_no in game.hand_nos:
        return "duplicate"
    game.hand_nos.add(record.hand_no)
    seats = game.seats
    game.hands.append(
        (
            {
                "hand_no": record.hand_no,
                "pass_direction": record.pass_direction,
                "points": list(record.points),
                "moons": list(record.moons),
                "moves": record.moves,
                "recorded_at": record.recorded_at or utcnow(),
            },
            [
                {
                    "scorer": scorer,
                    # the dummy has no seat
                    "player_id": seats[scorer]["player_id"] if scorer < len(seats) else None,
                    "points": points,
                    "shot_moon": scorer in record.moons,
                    "by_bot": scorer < len(record.seats) and record.seats[scorer].replaced_by_bot,
                }
                for scorer, points in enumerate(record.points)
            ],
        )
    )
    _mark_replaced(game, record.seats)
    game.set("hands_played", game.row["hands_played"] + 1)
    return "written"


def _write_game(batch: _Batch, record: GameRecord) -> Outcome:
    game = batch.game_for(record)
    if game.row["status"] != "playing":
        return "duplicate"
    game.set("status", record.ended)
    game.set("totals", list(record.totals))
    game.set("winners", list(record.winners))
    game.set("ended_at", record.ended_at or utcnow())
    if game.row["started_at"] is None:
        game.set("started_at", record.started_at)
    if record.moves:
        game.set("moves", record.moves)
    if record.hands is not None:
        game.set("hands_played", max(game.row["hands_played"], record.hands))
    _mark_replaced(game, record.seats)
    for number in range(len(game.seats)):
        if number < len(record.totals):
            game.set_seat(number, "total", record.totals[number])
            game.set_seat(number, "won", number in record.winners)
    # Only a rated table's games are rated: a finished one for everyone, an abandoned one for
    # the players who left it (leaving does not escape the rating).
    if game.row["rated_table"] and record.ended in ("finished", "abandoned"):
        _queue_rating(batch, game, abandoned=record.ended == "abandoned")
    return "written"


def _queue_rating(batch: _Batch, game: _GameRows, *, abandoned: bool) -> None:
    """Rate the game with the batch (app.db.ratings), unless it cannot be rated."""
    results = [
        SeatResult(s["player_id"], s["bot_level"], s["total"], s["left_early"]) for s in game.seats
    ]
    if abandoned and not any(r.left for r in results):
        return
    people = sorted({r.player_id for r in results if r.player_id and r.total is not None})
    if people:
        batch.ratings.append(_Rating(game, results, people, abandoned))
