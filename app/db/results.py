"""Writing finished hands and games to SQL, each exactly once.

Idempotent by natural keys: a game is (table_id, game_no), a hand is (game, hand_no), and a game
is completed once (its status leaves "playing"). A record delivered twice finds its row and is
reported as a duplicate; two writers racing on one record meet a unique constraint, and the loser
retries and finds the row. Ratings change in the same transaction that completes the game, so
they are applied exactly once too.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.db.database import Database
from app.db.events import GameRecord, HandRecord, SeatRecord, parse_event
from app.db.models import Game, GameSeat, Hand, HandScore, Player, Rating, RatingChange, utcnow
from app.db.ratings import INITIAL_RATING, Contestant, bot_rating, pairwise_elo

Outcome = Literal["written", "duplicate"]


def write_event(db: Database, event: Mapping[str, Any]) -> Outcome:
    """Write one outbox event in one transaction. Raises `BadEvent` for a record that can never
    be written, and SQLAlchemy errors (retry them) when the database fails."""
    record = parse_event(event)
    with db.session() as session:
        if isinstance(record, HandRecord):
            outcome = _write_hand(session, record)
        else:
            outcome = _write_game(session, record)
        if outcome == "written":
            session.commit()
        else:
            session.rollback()
    return outcome


def _game_for(session: Session, record: HandRecord | GameRecord) -> Game:
    """The game row of a record, created by whichever record comes first; a later record fills
    in what an earlier one lacked (a hand record may come without the preset or the seats)."""
    game = session.exec(
        select(Game).where(Game.table_id == record.table_id, Game.game_no == record.game_no)
    ).first()
    if game is None:
        scorers = len(record.points) if isinstance(record, HandRecord) else 0
        game = Game(
            table_id=record.table_id,
            game_no=record.game_no,
            variant=record.preset or "",
            options=record.options,
            players=len(record.seats) or scorers,
            seed=record.seed,
            started_at=record.started_at,
        )
        _make_private(game, record.private)
        session.add(game)
        session.flush()
    else:
        _make_private(game, record.private)
        if game.seed is None and record.seed is not None:
            game.seed = record.seed
        if not game.variant and record.preset:
            game.variant = record.preset
            game.options = record.options
        if game.started_at is None and record.started_at is not None:
            game.started_at = record.started_at
    if record.seats and not _seats_of(session, _id(game)):
        _add_seats(session, game, record.seats)
    return game


def _make_private(game: Game, private: bool) -> None:
    """A game is private once any of its records says so (never the other way): its readers
    are its players and whoever holds the share token made here."""
    if private and not game.private:
        game.private = True
    if game.private and game.share_token is None:
        game.share_token = new_share_token()


def new_share_token() -> str:
    """128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


def _id(game: Game) -> int:
    assert game.id is not None
    return game.id


def _add_seats(session: Session, game: Game, seats: tuple[SeatRecord, ...]) -> None:
    game_id = _id(game)
    game.players = len(seats)
    wanted = {seat.player_id for seat in seats if seat.player_id}
    names = (
        dict(session.exec(select(Player.id, Player.name).where(col(Player.id).in_(wanted))).all())
        if wanted
        else {}
    )
    for number, seat in enumerate(seats):
        # An unknown player (e.g. an account deleted mid-game) is stored as an anonymous seat.
        player_id = seat.player_id if seat.player_id in names else None
        session.add(
            GameSeat(
                game_id=game_id,
                seat=number,
                player_id=player_id,
                name=seat.name or (names.get(player_id) if player_id else None),
                bot_level=seat.bot_level,
                replaced_by_bot=seat.replaced_by_bot,
            )
        )
        if player_id:  # hands recorded before the seats were known
            session.execute(
                sa.update(HandScore)
                .where(
                    col(HandScore.hand_id).in_(select(Hand.id).where(Hand.game_id == game_id)),
                    col(HandScore.scorer) == number,
                    col(HandScore.player_id).is_(None),
                )
                .values(player_id=player_id)
            )
    session.flush()


def _seats_of(session: Session, game_id: int) -> list[GameSeat]:
    return list(
        session.exec(
            select(GameSeat).where(GameSeat.game_id == game_id).order_by(col(GameSeat.seat))
        ).all()
    )


def _mark_replaced(seats: list[GameSeat], records: tuple[SeatRecord, ...]) -> None:
    for row, seat in zip(seats, records, strict=False):
        if seat.replaced_by_bot and not row.replaced_by_bot:
            row.replaced_by_bot = True


def _write_hand(session: Session, record: HandRecord) -> Outcome:
    game = _game_for(session, record)
    assert game.id is not None
    duplicate = session.exec(
        select(Hand.id).where(Hand.game_id == game.id, Hand.hand_no == record.hand_no)
    ).first()
    if duplicate is not None:
        return "duplicate"
    hand = Hand(
        game_id=game.id,
        hand_no=record.hand_no,
        pass_direction=record.pass_direction,
        points=list(record.points),
        moons=list(record.moons),
        moves=record.moves,
        recorded_at=record.recorded_at or utcnow(),
    )
    session.add(hand)
    session.flush()
    assert hand.id is not None
    seats = _seats_of(session, game.id)
    for scorer, points in enumerate(record.points):
        row = seats[scorer] if scorer < len(seats) else None  # the dummy has no seat
        replaced = scorer < len(record.seats) and record.seats[scorer].replaced_by_bot
        session.add(
            HandScore(
                hand_id=hand.id,
                scorer=scorer,
                player_id=row.player_id if row else None,
                points=points,
                shot_moon=scorer in record.moons,
                by_bot=replaced,
            )
        )
    _mark_replaced(seats, record.seats)
    game.hands_played += 1
    session.add(game)
    return "written"


def _write_game(session: Session, record: GameRecord) -> Outcome:
    game = _game_for(session, record)
    assert game.id is not None
    if game.status != "playing":
        return "duplicate"
    game.status = record.ended
    game.totals = list(record.totals)
    game.winners = list(record.winners)
    game.ended_at = record.ended_at or utcnow()
    if game.started_at is None:
        game.started_at = record.started_at
    if record.moves:
        game.moves = record.moves
    if record.hands is not None:
        game.hands_played = max(game.hands_played, record.hands)
    seats = _seats_of(session, game.id)
    _mark_replaced(seats, record.seats)
    for row in seats:
        if row.seat < len(record.totals):
            row.total = record.totals[row.seat]
            row.won = row.seat in record.winners
        session.add(row)
    if record.ended == "finished":
        game.rated = _rate(session, game, seats)
    session.add(game)
    return "written"


def _rate(session: Session, game: Game, seats: list[GameSeat]) -> bool:
    """Apply pairwise Elo to the seats of a finished game; False when the game is not rated."""
    assert game.id is not None
    # Seats that take part: people, and computers as fixed anchors. Anonymous seats (a deleted
    # account) and seats without a total do not.
    seated = [s for s in seats if s.total is not None and (s.player_id or s.bot_level)]
    people = [s.player_id for s in seated if s.player_id]
    if not people or len(seated) < 2 or len(set(people)) != len(people):
        return False
    # Lock the rating rows in a fixed order, so concurrent writers neither lose an update nor
    # deadlock (FOR UPDATE is ignored by SQLite, whose writers are serialised anyway).
    existing = {
        r.player_id: r
        for r in session.exec(
            select(Rating)
            .where(col(Rating.player_id).in_(people), Rating.variant == game.variant)
            .order_by(col(Rating.player_id))
            .with_for_update()
        ).all()
    }
    now = game.ended_at or utcnow()
    for player_id in sorted(set(people) - set(existing)):
        row = Rating(player_id=player_id, variant=game.variant, rating=INITIAL_RATING, games=0)
        session.add(row)
        existing[player_id] = row
    session.flush()
    contestants = []
    for s in seated:
        assert s.total is not None
        if s.player_id:
            r = existing[s.player_id]
            contestants.append(Contestant(r.rating, s.total, False, r.games))
        else:
            contestants.append(Contestant(bot_rating(s.bot_level), s.total, True))
    for s, delta in zip(seated, pairwise_elo(contestants), strict=True):
        if not s.player_id:
            continue
        r = existing[s.player_id]
        before = r.rating
        r.rating = round(before + delta, 2)
        r.games += 1
        r.updated_at = now
        session.add(r)
        session.add(
            RatingChange(
                player_id=s.player_id,
                variant=game.variant,
                game_id=game.id,
                before=before,
                after=r.rating,
                created_at=now,
            )
        )
    return True
