"""SQLModel tables of the competition (app.compete): the daily challenge's attempts, results,
boards and streaks, clubs and their members, and events with their entries and seats.

They register on SQLModel.metadata when this module is imported: the migrations' environment
and the data export import it beside app.db.models.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel, col

from app.db.models import foreign_key, timestamp

# --- the daily challenge (app/compete) --------------------------------------------------------


class CompeteSecret(SQLModel, table=True):
    """One row (id 1): the secret every day's deals are derived from, made once by the first
    server that needs it (unless HEARTS_DAILY_SECRET sets one), so every instance deals alike."""

    __tablename__ = "compete_secret"

    id: int = Field(default=1, primary_key=True)
    secret: str = Field(max_length=128)
    created_at: datetime = timestamp()


class DailyAttempt(SQLModel, table=True):
    """A player's one attempt at one day's challenge of one preset, played at ``table_id``.
    ``percent`` (matchpoints over the deals played, as a percentage) is what the day's
    leaderboard orders by; it is set when the attempt is complete and refreshed as others play."""

    __tablename__ = "daily_attempt"
    __table_args__ = (
        sa.UniqueConstraint("day", "preset", "player_id"),
        sa.Index("ix_daily_attempt_day_preset_percent_id", "day", "preset", "percent", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    day: date = Field(sa_type=sa.Date)
    preset: str = Field(max_length=40)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", index=True)
    name: str = Field(max_length=24)  # display name at the start
    version: int  # the version of the day's deals this player got
    table_id: str = Field(max_length=64, index=True)
    started_at: datetime = timestamp()
    finished_at: datetime | None = timestamp(nullable=True)
    deals_done: int = Field(default=0)
    points: int = Field(default=0)  # the player's points over the deals played
    percent: float | None = Field(default=None)


class DailyResult(SQLModel, table=True):
    """One deal of an attempt as the player played it: their points and the hand's moves."""

    __tablename__ = "daily_result"
    __table_args__ = (
        sa.Index(
            "ix_daily_result_day_preset_deal_no_version_points",
            "day",
            "preset",
            "deal_no",
            "version",
            "points",
        ),
    )

    attempt_id: int = foreign_key("daily_attempt.id", ondelete="CASCADE", primary_key=True)
    deal_no: int = Field(primary_key=True)
    day: date = Field(sa_type=sa.Date)
    preset: str = Field(max_length=40)
    version: int
    points: int
    moves: list[Any] = Field(default_factory=list, sa_type=sa.JSON)  # [[seat, move], ...]
    recorded_at: datetime = timestamp()


class DailyScoreCount(SQLModel, table=True):
    """How many players scored ``points`` on one version of one deal: matchpoints and the
    score spread are read from these few rows, whatever the number of players."""

    __tablename__ = "daily_score_count"

    day: date = Field(sa_type=sa.Date, primary_key=True)
    preset: str = Field(max_length=40, primary_key=True)
    deal_no: int = Field(primary_key=True)
    version: int = Field(primary_key=True)
    points: int = Field(primary_key=True)
    count: int = Field(default=0)


class DailyBoard(SQLModel, table=True):
    """One day's challenge of one preset: results recorded, and how many of them the stored
    percentages were computed from (a refresh is due when they differ), with its lease."""

    __tablename__ = "daily_board"

    day: date = Field(sa_type=sa.Date, primary_key=True)
    preset: str = Field(max_length=40, primary_key=True)
    results: int = Field(default=0)
    players: int = Field(default=0)  # attempts finished
    ranked_results: int = Field(default=0)
    ranked_at: datetime | None = timestamp(nullable=True)
    lease_until: datetime | None = timestamp(nullable=True)


class DailyPar(SQLModel, table=True):
    """The Expert's own score on one version of one deal, playing the human's seat with three
    Experts around it (computed once, in the computer players' workers; leased like a review)."""

    __tablename__ = "daily_par"

    day: date = Field(sa_type=sa.Date, primary_key=True)
    preset: str = Field(max_length=40, primary_key=True)
    deal_no: int = Field(primary_key=True)
    version: int = Field(primary_key=True)
    status: str = Field(default="queued", max_length=16)
    points: int | None = None
    moves: list[Any] | None = Field(default=None, sa_type=sa.JSON)
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = timestamp(nullable=True)


class DailyMonth(SQLModel, table=True):
    """A player's month: the sum of their daily percentages (the month's leaderboard order)."""

    __tablename__ = "daily_month"
    __table_args__ = (
        sa.Index(
            "ix_daily_month_month_preset_total_player_id", "month", "preset", "total", "player_id"
        ),
    )

    month: str = Field(max_length=7, primary_key=True)  # "2026-11"
    preset: str = Field(max_length=40, primary_key=True)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    name: str = Field(max_length=24)
    days: int = Field(default=0)
    total: float = Field(default=0.0)


class DailyStreak(SQLModel, table=True):
    """A registered player's run of consecutive days with a finished challenge."""

    __tablename__ = "daily_streak"

    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    current: int = Field(default=0)
    best: int = Field(default=0)
    last_day: date | None = Field(default=None, sa_type=sa.Date)


# --- clubs (app/compete/clubs.py) -------------------------------------------------------------

CLUB_ROLES = ("owner", "admin", "member")


class Club(SQLModel, table=True):
    """A club: open (anyone joins) or closed (join by request, its link, or an invitation)."""

    __tablename__ = "club"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=40)
    name_key: str = Field(max_length=160, unique=True)  # case-folded: one club per name
    open: bool = Field(default=True)
    # 128 random bits (URL-safe): whoever holds /?club=ID&link=TOKEN joins a closed club.
    link_token: str = Field(max_length=32, unique=True)
    members: int = Field(default=0)
    created_by: str | None = foreign_key("player.id", ondelete="SET NULL", nullable=True)
    created_at: datetime = timestamp()


class ClubMember(SQLModel, table=True):
    __tablename__ = "club_member"

    club_id: int = foreign_key("club.id", ondelete="CASCADE", primary_key=True)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True, index=True)
    role: str = Field(default="member", max_length=8)  # CLUB_ROLES
    joined_at: datetime = timestamp()


class ClubPending(SQLModel, table=True):
    """A join request waiting for an admin (``kind`` "request") or an invitation waiting for
    the player ("invite")."""

    __tablename__ = "club_pending"

    club_id: int = foreign_key("club.id", ondelete="CASCADE", primary_key=True)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True, index=True)
    kind: str = Field(max_length=8)
    created_at: datetime = timestamp()


class ClubBan(SQLModel, table=True):
    __tablename__ = "club_ban"

    club_id: int = foreign_key("club.id", ondelete="CASCADE", primary_key=True)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    created_at: datetime = timestamp()


class ClubPost(SQLModel, table=True):
    """A line of the club's chat, or an announcement (admins only)."""

    __tablename__ = "club_post"
    __table_args__ = (sa.Index("ix_club_post_club_id_id", "club_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: int = foreign_key("club.id", ondelete="CASCADE")
    player_id: str | None = foreign_key("player.id", ondelete="SET NULL", nullable=True)
    name: str = Field(max_length=24)
    text: str = Field(sa_type=sa.Text)
    announcement: bool = Field(default=False)
    created_at: datetime = timestamp()


class Event(SQLModel, table=True):
    """An event (app.compete.events): Swiss by standings, duplicate or arena, for a club or
    open to all; registration until ``starts_at``, then ``rounds`` rounds at tables of
    ``table_size`` (an arena: games until ``ends_at``, each its own "round" of one table)."""

    __tablename__ = "event"
    __table_args__ = (sa.Index("ix_event_state_starts_at", "state", "starts_at"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: int | None = foreign_key("club.id", ondelete="CASCADE", nullable=True, index=True)
    name: str = Field(max_length=40)
    format: str = Field(max_length=12)  # EVENT_FORMATS
    preset: str = Field(max_length=40)
    rounds: int
    table_size: int
    points_by_place: str = Field(max_length=64)  # comma list, best place first
    grace_seconds: int
    seed: str = Field(max_length=32)  # the tie-break's and the duplicate deals' seed
    state: str = Field(default="registering", max_length=12)  # registering, running, finished
    current_round: int = Field(default=0)
    entries: int = Field(default=0)
    starts_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))
    # When the registered players were reminded that it starts soon (set once, by the one
    # instance whose compare-and-set took it; None: not yet).
    reminded_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    # An arena's end of the time window (None for the other formats).
    ends_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    created_by: str | None = foreign_key("player.id", ondelete="SET NULL", nullable=True)
    created_at: datetime = timestamp()


# An event, like a club, records who made it and when: two columns of each table (SQLModel
# maps a table class's own fields), alike in form only.
class EventEntry(SQLModel, table=True):
    """A registered player and their standing; ``tie`` is the event's drawn tie-break."""

    __tablename__ = "event_entry"

    event_id: int = foreign_key("event.id", ondelete="CASCADE", primary_key=True)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True, index=True)
    table_points: float = Field(default=0.0)
    game_points: int = Field(default=0)
    rounds: int = Field(default=0)
    tie: int = Field(sa_type=sa.BigInteger)
    withdrawn: bool = Field(default=False)
    last_seen_round: int = Field(default=0)  # the last round they sat down in (or came late to)
    # Arena: not seated again while paused; free since: when they last became free to sit
    # down (the start, their last game's end, their return from a pause).
    paused: bool = Field(default=False)
    free_since: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    registered_at: datetime = timestamp()


# The standings' order, best first (most table points, then fewest game points, the drawn
# tie-break, the id): a page of the standings is a range scan of it whatever the field's size.
sa.Index(
    "ix_event_entry_standing",
    col(EventEntry.event_id),
    col(EventEntry.withdrawn),
    col(EventEntry.table_points).desc(),
    col(EventEntry.game_points),
    col(EventEntry.tie),
    col(EventEntry.player_id),
)


class EventSeat(SQLModel, table=True):
    """A seat of a round's table: its player (None: a computer, or a latecomer's seat taken
    by one, ``late``) and the seat's final score once the table is over."""

    __tablename__ = "event_seat"
    __table_args__ = (sa.Index("ix_event_seat_player", "event_id", "player_id", "round"),)

    event_id: int = foreign_key("event.id", ondelete="CASCADE", primary_key=True)
    round: int = Field(primary_key=True)
    table_no: int = Field(primary_key=True)
    seat: int = Field(primary_key=True)
    player_id: str | None = Field(default=None, max_length=32)
    late: bool = Field(default=False)
    table_id: str | None = Field(default=None, max_length=64)
    score: int | None = Field(default=None)
