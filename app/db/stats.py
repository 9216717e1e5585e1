"""Read side: profiles, leaderboards, game history, own-data export."""

from __future__ import annotations

import hmac
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from app.db.database import Database
from app.db.export import personal_records
from app.db.models import (
    Game,
    GameReview,
    GameSeat,
    Hand,
    HandScore,
    Player,
    PlayerPublic,
    Rating,
    RatingChange,
    as_utc,
)
from app.db.ratings import PROVISIONAL_DEVIATION, is_provisional
from app.db.schemas import (
    GameDetail,
    GameList,
    GameOut,
    HandOut,
    Leaderboard,
    LeaderboardEntry,
    Profile,
    RatingPoint,
    SeatOut,
    VariantStats,
)

RATING_HISTORY_LIMIT = 200
DEFAULT_MIN_GAMES = 5
ENDED = ("finished", "abandoned")


def _public(player: Player) -> PlayerPublic:
    return PlayerPublic(id=player.id, name=player.name, is_guest=player.is_guest)


# --- who may read a game --------------------------------------------------------------------
# A game played at a public table is public. A private table's game is readable by the people
# who sat in it (a seat's player_id) and by whoever holds its share token; to everyone else it
# does not exist (the routes answer 404 unknown_game, as for an id never used).


def is_participant(seats: list[GameSeat], viewer_id: str | None) -> bool:
    return viewer_id is not None and any(s.player_id == viewer_id for s in seats)


def can_read(
    game: Game, seats: list[GameSeat], viewer_id: str | None, share: str | None = None
) -> bool:
    if not game.private or is_participant(seats, viewer_id):
        return True
    return bool(
        share
        and game.share_token
        and hmac.compare_digest(share.encode(), game.share_token.encode())
    )


def _listable(viewer_id: str | None) -> Any:
    """A WHERE clause: the games whose existence ``viewer_id`` may learn from a list (public
    ones, and private ones the viewer sat in; a share token opens one page, not lists)."""
    public = col(Game.private).is_(False)
    if viewer_id is None:
        return public
    mine = select(GameSeat.game_id).where(GameSeat.player_id == viewer_id)
    return sa.or_(public, col(Game.id).in_(mine))


def profile(db: Database, player_id: str, viewer_id: str | None = None) -> Profile | None:
    """A player's statistics. Counts include every game; the rating history names a private
    game only to a viewer who sat in it (else its ``game_id`` is None)."""
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            return None
        games: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        rows = session.exec(
            select(Game.variant, Game.status, GameSeat.won, func.count())
            .join(GameSeat, col(GameSeat.game_id) == col(Game.id))
            .where(GameSeat.player_id == player_id, col(Game.status).in_(ENDED))
            .group_by(col(Game.variant), col(Game.status), col(GameSeat.won))
        ).all()
        for variant, status, won, count in rows:
            entry = games[variant]
            if status == "finished":
                entry[0] += count
                entry[1] += count if won else 0
            else:
                entry[2] += count
        hands = {
            variant: (count, avg, moons)
            for variant, count, avg, moons in session.exec(
                select(
                    Game.variant,
                    func.count(),
                    func.avg(HandScore.points),
                    func.sum(sa.cast(col(HandScore.shot_moon), sa.Integer)),
                )
                .select_from(HandScore)
                .join(Hand, col(Hand.id) == col(HandScore.hand_id))
                .join(Game, col(Game.id) == col(Hand.game_id))
                .where(HandScore.player_id == player_id)
                .group_by(col(Game.variant))
            ).all()
        }
        ratings = {
            r.variant: r
            for r in session.exec(select(Rating).where(Rating.player_id == player_id)).all()
        }
        hidden: set[int] = set()
        if viewer_id != player_id:
            hidden = {
                game_id
                for game_id in session.exec(
                    select(Game.id)
                    .join(RatingChange, col(RatingChange.game_id) == col(Game.id))
                    .where(RatingChange.player_id == player_id, sa.not_(_listable(viewer_id)))
                ).all()
                if game_id is not None
            }
        history: dict[str, list[RatingPoint]] = defaultdict(list)
        for change in session.exec(
            select(RatingChange)
            .where(RatingChange.player_id == player_id)
            .order_by(col(RatingChange.id).desc())
            .limit(RATING_HISTORY_LIMIT * 4)
        ).all():
            points = history[change.variant]
            if len(points) < RATING_HISTORY_LIMIT:
                points.append(
                    RatingPoint(
                        game_id=None if change.game_id in hidden else change.game_id,
                        before=change.before,
                        after=change.after,
                        deviation=change.deviation,
                        at=as_utc(change.created_at),
                    )
                )
        variants = []
        for variant in sorted(set(games) | set(hands) | set(ratings)):
            played, wins, abandoned = games.get(variant, [0, 0, 0])
            hand_count, average, moons = hands.get(variant, (0, None, 0))
            rating = ratings.get(variant)
            variants.append(
                VariantStats(
                    variant=variant,
                    games=played,
                    wins=wins,
                    abandoned=abandoned,
                    hands=hand_count,
                    average_points_per_hand=None if average is None else round(float(average), 2),
                    moons=int(moons or 0),
                    rating=None if rating is None else rating.rating,
                    deviation=None if rating is None else rating.deviation,
                    provisional=None if rating is None else is_provisional(rating.deviation),
                    rated_games=0 if rating is None else rating.games,
                    rating_history=list(reversed(history.get(variant, []))),
                )
            )
        return Profile(player=_public(player), variants=variants)


def leaderboard(
    db: Database,
    variant: str,
    *,
    min_games: int = DEFAULT_MIN_GAMES,
    limit: int = 50,
    offset: int = 0,
    include_guests: bool = False,
) -> Leaderboard:
    """The best established ratings of a variant (deviation at most
    ratings.PROVISIONAL_DEVIATION) among players with at least `min_games` rated games."""
    query = (
        select(Rating, Player)
        .join(Player, col(Player.id) == col(Rating.player_id))
        .where(
            Rating.variant == variant,
            col(Rating.games) >= min_games,
            col(Rating.deviation) <= PROVISIONAL_DEVIATION,
        )
    )
    if not include_guests:
        query = query.where(col(Player.is_guest).is_(False))
    query = (
        query.order_by(col(Rating.rating).desc(), col(Rating.games).desc(), col(Player.id))
        .offset(offset)
        .limit(limit)
    )
    with db.session() as session:
        rows = session.exec(query).all()
    return Leaderboard(
        variant=variant,
        min_games=min_games,
        entries=[
            LeaderboardEntry(
                rank=offset + i + 1,
                player=_public(player),
                rating=rating.rating,
                deviation=rating.deviation,
                rated_games=rating.games,
            )
            for i, (rating, player) in enumerate(rows)
        ],
    )


# A row's fields copied into its response type by name, as settings are copied into a
# config elsewhere: alike in form, each its own fields.
def _seat_out(seat: GameSeat) -> SeatOut:
    return SeatOut(
        seat=seat.seat,
        player_id=seat.player_id,
        name=seat.name,
        bot_level=seat.bot_level,
        replaced_by_bot=seat.replaced_by_bot,
        total=seat.total,
        won=seat.won,
    )


def _game_out(game: Game, seats: list[GameSeat], viewer_id: str | None = None) -> GameOut:
    """A game as the API shows it; the share token only to a player of a private game."""
    assert game.id is not None
    return GameOut(
        id=game.id,
        table_id=game.table_id,
        game_no=game.game_no,
        variant=game.variant,
        options=game.options,
        players=game.players,
        status=game.status,
        started_at=None if game.started_at is None else as_utc(game.started_at),
        ended_at=None if game.ended_at is None else as_utc(game.ended_at),
        hands_played=game.hands_played,
        totals=game.totals,
        winners=game.winners,
        rated=game.rated,
        private=game.private,
        share_token=(
            game.share_token if game.private and is_participant(seats, viewer_id) else None
        ),
        seats=[_seat_out(s) for s in seats],
    )


def _seats_by_game(session: Session, game_ids: list[int]) -> dict[int, list[GameSeat]]:
    seats: dict[int, list[GameSeat]] = defaultdict(list)
    if game_ids:
        for seat in session.exec(
            select(GameSeat)
            .where(col(GameSeat.game_id).in_(game_ids))
            .order_by(col(GameSeat.game_id), col(GameSeat.seat))
        ).all():
            seats[seat.game_id].append(seat)
    return seats


def game_history(
    db: Database,
    player_id: str,
    *,
    variant: str | None = None,
    limit: int = 20,
    offset: int = 0,
    viewer_id: str | None = None,
) -> GameList:
    """A player's ended games, newest first; private games only to a viewer who sat in them."""
    query = (
        select(Game)
        .join(GameSeat, col(GameSeat.game_id) == col(Game.id))
        .where(GameSeat.player_id == player_id, col(Game.status).in_(ENDED))
    )
    if viewer_id != player_id:
        query = query.where(_listable(viewer_id))
    if variant:
        query = query.where(Game.variant == variant)
    query = query.order_by(col(Game.ended_at).desc(), col(Game.id).desc())
    with db.session() as session:
        games = list(session.exec(query.offset(offset).limit(limit + 1)).all())
        more = len(games) > limit
        games = games[:limit]
        seats = _seats_by_game(session, [g.id for g in games if g.id is not None])
    return GameList(
        games=[_game_out(g, seats[g.id or 0], viewer_id) for g in games],
        next_offset=offset + limit if more else None,
    )


def load_game(session: Session, game_id: int) -> tuple[Game, list[GameSeat], list[Hand]] | None:
    game = session.get(Game, game_id)
    if game is None:
        return None
    seats = _seats_by_game(session, [game_id])[game_id]
    hands = list(
        session.exec(select(Hand).where(Hand.game_id == game_id).order_by(col(Hand.hand_no))).all()
    )
    return game, seats, hands


def ended_game_id(db: Database, table_id: str, game_no: int) -> int | None:
    """The id (as ``/api/games/{id}`` and its replay take it) of a live table's game once its
    game record is stored, else None."""
    with db.session() as session:
        game_id: int | None = session.exec(
            select(Game.id).where(
                Game.table_id == table_id, Game.game_no == game_no, col(Game.status).in_(ENDED)
            )
        ).first()
    return game_id


def readable_game(
    session: Session, game_id: int, viewer_id: str | None, share: str | None = None
) -> tuple[Game, list[GameSeat], list[Hand]] | None:
    """``load_game`` for a reader: None when there is no such game or the reader may not see
    it (the same answer, so that a private game's existence does not leak)."""
    loaded = load_game(session, game_id)
    if loaded is None or not can_read(loaded[0], loaded[1], viewer_id, share):
        return None
    return loaded


def game_detail(
    db: Database, game_id: int, viewer_id: str | None = None, share: str | None = None
) -> GameDetail | None:
    """A game's page; None when unknown or not readable by this viewer (see ``can_read``)."""
    with db.session() as session:
        loaded = readable_game(session, game_id, viewer_id, share)
    if loaded is None:
        return None
    game, seats, hands = loaded
    return GameDetail(
        **_game_out(game, seats, viewer_id).model_dump(),
        hands=[
            HandOut(
                hand_no=h.hand_no, pass_direction=h.pass_direction, points=h.points, moons=h.moons
            )
            for h in hands
        ],
    )


def export_player(db: Database, player_id: str) -> dict[str, Any] | None:
    """Everything stored about a player, as JSON (the "download my data" file)."""
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            return None
        game_ids = list(
            session.exec(
                select(GameSeat.game_id)
                .where(GameSeat.player_id == player_id)
                .order_by(col(GameSeat.game_id))
            ).all()
        )
        games = []
        for game_id in game_ids:
            loaded = load_game(session, game_id)
            if loaded is None:
                continue
            game, seats, hands = loaded
            entry = _game_out(game, seats, player_id).model_dump(mode="json")
            # The seed deals every hand, and a hand's moves name the cards others passed: both
            # stay on the server until the game has ended.
            ended = game.status in ENDED
            entry["seed"] = game.seed if ended else None
            entry["hands"] = [
                {
                    "hand_no": h.hand_no,
                    "pass_direction": h.pass_direction,
                    "points": h.points,
                    "moons": h.moons,
                    "moves": h.moves if ended else None,
                }
                for h in hands
            ]
            entry["moves"] = game.moves if ended else None
            games.append(entry)
        ratings = [
            {
                "variant": r.variant,
                "rating": r.rating,
                "deviation": r.deviation,
                "rated_games": r.games,
            }
            for r in session.exec(select(Rating).where(Rating.player_id == player_id)).all()
        ]
        changes = [
            {
                "variant": c.variant,
                "game_id": c.game_id,
                "before": c.before,
                "after": c.after,
                "deviation": c.deviation,
                "at": as_utc(c.created_at).isoformat(),
            }
            for c in session.exec(
                select(RatingChange)
                .where(RatingChange.player_id == player_id)
                .order_by(col(RatingChange.id))
            ).all()
        ]
        # The game reviews this player asked for (the reviews themselves are the
        # game's, shared with everyone who may read it), listed as the rating changes are:
        # alike in form, another table and its own fields.
        requested = [
            {
                "game_id": r.game_id,
                "seat": r.seat,
                "status": r.status,
                "created_at": as_utc(r.created_at).isoformat(),
            }
            for r in session.exec(
                select(GameReview)
                .where(GameReview.requested_by == player_id)
                .order_by(col(GameReview.created_at))
            ).all()
        ]
        records = personal_records(session, player_id)
    return {
        "format": "hearts-online-export",
        "version": 1,
        "player": {
            "id": player.id,
            "name": player.name,
            "is_guest": player.is_guest,
            "created_at": as_utc(player.created_at).isoformat(),
            "registered_at": None
            if player.registered_at is None
            else as_utc(player.registered_at).isoformat(),
        },
        "ratings": ratings,
        "rating_history": changes,
        "games": games,
        "reviews_requested": requested,
        # every other row naming the player (friends, blocks, e-mail, devices, notification
        # choices, daily challenge, clubs, ...): app/db/export.py
        "records": records,
    }
