"""What the persistence API returns (the OpenAPI schema is built from these)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.db.models import PlayerPublic


class Credentials(BaseModel):
    model_config = ConfigDict(strict=True)  # "yes" is not true, 5 is not "5"

    name: str = Field(max_length=200)
    password: str = Field(max_length=1000)


class PasswordChange(BaseModel):
    model_config = ConfigDict(strict=True)  # "yes" is not true, 5 is not "5"

    old_password: str = Field(max_length=1000)
    new_password: str = Field(max_length=1000)


class DeleteRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # "yes" is not true, 5 is not "5"

    # Required for an account; a guest may leave it out.
    password: str | None = Field(default=None, max_length=1000)


class TokenOut(BaseModel):
    token: str
    player: PlayerPublic


class RatingPoint(BaseModel):
    game_id: int | None  # None: a private game the reader did not play in
    before: float
    after: float
    deviation: float  # after the game
    at: datetime


class VariantStats(BaseModel):
    variant: str
    games: int  # finished games
    wins: int  # finished games won (shared wins count)
    abandoned: int
    hands: int
    average_points_per_hand: float | None
    moons: int
    rating: float | None
    deviation: float | None  # the rating's uncertainty (app/db/ratings.py)
    provisional: bool | None  # True while the deviation is above ratings.PROVISIONAL_DEVIATION
    rated_games: int
    rating_history: list[RatingPoint]


class Profile(BaseModel):
    player: PlayerPublic
    variants: list[VariantStats]


class LeaderboardEntry(BaseModel):
    rank: int
    player: PlayerPublic
    rating: float
    deviation: float
    rated_games: int


class Leaderboard(BaseModel):
    variant: str
    min_games: int
    entries: list[LeaderboardEntry]


class SeatOut(BaseModel):
    seat: int
    player_id: str | None
    name: str | None  # None for a computer or a deleted account
    bot_level: str | None
    replaced_by_bot: bool
    total: int | None
    won: bool | None


class HandOut(BaseModel):
    hand_no: int
    pass_direction: str | None
    points: list[int]
    moons: list[int]


class GameOut(BaseModel):
    id: int
    table_id: str
    game_no: int
    variant: str
    options: dict[str, Any]
    players: int
    status: str
    started_at: datetime | None
    ended_at: datetime | None
    hands_played: int
    totals: list[int] | None
    winners: list[int] | None
    rated: bool
    private: bool  # played at a private table: readable by its players and a share link
    # Only for a player of a private game: `?share=TOKEN` lets anyone holding it read the game.
    share_token: str | None = None
    seats: list[SeatOut]


class GameDetail(GameOut):
    hands: list[HandOut]


class GameList(BaseModel):
    games: list[GameOut]
    next_offset: int | None
