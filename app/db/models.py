"""SQLModel tables for players, sessions, games, hands, scores and ratings.

Families follow the house style: `XBase` holds the shared fields, `X(table=True)` the row, and
`XPublic` what the API returns. Every timestamp is UTC; SQLite hands them back naive, so readers
go through `as_utc`.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

# Constraint names are fixed so that Alembic migrations name them the same way on every backend.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

GAME_STATUSES = ("playing", "finished", "abandoned")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """SQLite drops the zone of a stored datetime: every stored value is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _fk(
    target: str,
    *,
    ondelete: str,
    primary_key: bool = False,
    nullable: bool = False,
    index: bool = False,
) -> Any:
    """A foreign-key column; `target` is "table.column" (player ids are 32-char strings)."""
    column_type: Any = sa.String(32) if target.startswith("player.") else sa.Integer
    return Field(
        default=None if nullable else ...,
        sa_column=sa.Column(
            column_type,
            sa.ForeignKey(target, ondelete=ondelete),
            primary_key=primary_key,
            nullable=nullable,
            index=index,
        ),
    )


def _ts(*, nullable: bool = False, index: bool = False) -> Any:
    if not nullable:
        return Field(
            default_factory=utcnow,
            sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False, index=index),
        )
    return Field(
        default=None,
        sa_column=sa.Column(sa.DateTime(timezone=True), nullable=nullable, index=index),
    )


# --- players -------------------------------------------------------------------------------


class PlayerBase(SQLModel):
    name: str = Field(max_length=24)


class Player(PlayerBase, table=True):
    __tablename__ = "player"

    id: str = Field(primary_key=True, max_length=32)
    # Case-folded account name; None for guests. Unique, so account names are case-insensitive.
    name_key: str | None = Field(default=None, max_length=96, unique=True)
    # app.text.name_skeleton(name) of an account (UTS #39); None for guests. A new name whose
    # skeleton is an account's is refused. Text: a skeleton may be much longer than its name.
    name_skeleton: str | None = Field(default=None, sa_type=sa.Text, index=True)
    is_guest: bool = Field(default=True)
    password_hash: str | None = Field(default=None, max_length=255)
    created_at: datetime = _ts()
    registered_at: datetime | None = _ts(nullable=True)


class PlayerPublic(PlayerBase):
    id: str
    is_guest: bool


class AuthSession(SQLModel, table=True):
    """A login session; a token names one row, so deleting or revoking the row ends it."""

    __tablename__ = "auth_session"

    id: str = Field(primary_key=True, max_length=64)
    player_id: str = _fk("player.id", ondelete="CASCADE", index=True)
    created_at: datetime = _ts()
    expires_at: datetime = _ts()
    revoked_at: datetime | None = _ts(nullable=True)


# --- games ---------------------------------------------------------------------------------


class GameBase(SQLModel):
    table_id: str = Field(max_length=64)
    game_no: int
    variant: str = Field(max_length=40, index=True)  # the engine preset name
    players: int  # number of seats
    status: str = Field(default="playing", max_length=16)
    hands_played: int = Field(default=0)


class Game(GameBase, table=True):
    __tablename__ = "game"
    __table_args__ = (sa.UniqueConstraint("table_id", "game_no"),)

    id: int | None = Field(default=None, primary_key=True)
    options: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON)
    # Kept as text: an engine seed may be any int, wider than a SQL BIGINT.
    seed: str | None = Field(default=None, max_length=64)
    started_at: datetime | None = _ts(nullable=True)
    ended_at: datetime | None = _ts(nullable=True, index=True)
    totals: list[int] | None = Field(default=None, sa_type=sa.JSON)
    winners: list[int] | None = Field(default=None, sa_type=sa.JSON)
    # The whole game's moves as [[seat, move_json], ...]: with the seed, enough to replay it.
    moves: list[Any] | None = Field(default=None, sa_type=sa.JSON)
    rated: bool = Field(default=False)
    # Played at a rated table (docs/persistence.md "Ratings"): only such games are rated.
    rated_table: bool = Field(
        default=False, sa_column_kwargs={"server_default": sa.false(), "nullable": False}
    )
    # Played at a private table: only its players, and whoever holds `share_token`, may read it.
    private: bool = Field(
        default=False, sa_column_kwargs={"server_default": sa.false(), "nullable": False}
    )
    # 128 random bits (URL-safe base64) that a player of a private game can hand on as a link.
    share_token: str | None = Field(default=None, max_length=32)


class GameSeat(SQLModel, table=True):
    __tablename__ = "game_seat"

    game_id: int = _fk("game.id", ondelete="CASCADE", primary_key=True)
    seat: int = Field(primary_key=True)
    # None for a computer seat, or once the player deleted the account.
    player_id: str | None = _fk("player.id", ondelete="SET NULL", nullable=True, index=True)
    name: str | None = Field(default=None, max_length=24)  # display name at the time
    bot_level: str | None = Field(default=None, max_length=16)
    replaced_by_bot: bool = Field(default=False)
    total: int | None = None
    won: bool | None = None
    # The player left this game before its end (a computer finished it for them).
    left_early: bool = Field(
        default=False, sa_column_kwargs={"server_default": sa.false(), "nullable": False}
    )


class Hand(SQLModel, table=True):
    __tablename__ = "hand"
    __table_args__ = (sa.UniqueConstraint("game_id", "hand_no"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = _fk("game.id", ondelete="CASCADE")
    hand_no: int
    pass_direction: str | None = Field(default=None, max_length=16)
    points: list[int] = Field(default_factory=list, sa_type=sa.JSON)  # per scorer
    moons: list[int] = Field(default_factory=list, sa_type=sa.JSON)  # scorers who shot the moon
    moves: list[Any] = Field(default_factory=list, sa_type=sa.JSON)  # this hand's [[seat, move]]
    recorded_at: datetime = _ts()


class HandScore(SQLModel, table=True):
    """One scorer's result in one hand: the rows the profile statistics add up."""

    __tablename__ = "hand_score"

    hand_id: int = _fk("hand.id", ondelete="CASCADE", primary_key=True)
    scorer: int = Field(primary_key=True)
    player_id: str | None = _fk("player.id", ondelete="SET NULL", nullable=True, index=True)
    points: int
    shot_moon: bool = Field(default=False)
    by_bot: bool = Field(default=False)  # a computer played this seat for part of the hand


# --- ratings -------------------------------------------------------------------------------


class Rating(SQLModel, table=True):
    __tablename__ = "rating"
    __table_args__ = (sa.Index("ix_rating_variant_rating", "variant", "rating"),)

    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    variant: str = Field(primary_key=True, max_length=40)
    rating: float  # the skill's mean, on Elo's scale (app/db/ratings.py)
    # its uncertainty: provisional while above ratings.PROVISIONAL_DEVIATION
    deviation: float = Field(default=350.0, sa_column_kwargs={"server_default": "350"})
    games: int = Field(default=0)  # rated games
    updated_at: datetime = _ts()


class RatingChange(SQLModel, table=True):
    __tablename__ = "rating_change"
    __table_args__ = (sa.UniqueConstraint("player_id", "game_id"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: str = _fk("player.id", ondelete="CASCADE")
    variant: str = Field(max_length=40)
    game_id: int = _fk("game.id", ondelete="CASCADE")
    before: float
    after: float
    deviation: float = Field(default=350.0, sa_column_kwargs={"server_default": "350"})  # after
    created_at: datetime = _ts()


# --- deployment ----------------------------------------------------------------------------


class Deployment(SQLModel, table=True):
    """One row (id 1): this database's identity, a random id made by migration 0004. Each
    server records it in Redis under ``<namespace>:database`` at start (app.db.deployment), so
    two deployments that share a Redis namespace but not a database refuse to start instead of
    taking each other's results from the shared outbox stream."""

    __tablename__ = "deployment"

    id: int = Field(default=1, primary_key=True)
    database_id: str = Field(max_length=32)
    created_at: datetime = _ts()


# --- friends (app/friends) --------------------------------------------------------


class Friendship(SQLModel, table=True):
    """One direction of a friendship: a friendship is two rows, (a, b) and (b, a), so each
    player's list is one indexed read."""

    __tablename__ = "friendship"

    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    friend_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True, index=True)
    created_at: datetime = _ts()


class FriendRequest(SQLModel, table=True):
    """A request waiting for `to_id`'s answer."""

    __tablename__ = "friend_request"

    from_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    to_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True, index=True)
    created_at: datetime = _ts()


class PlayerBlock(SQLModel, table=True):
    """`player_id` blocked `blocked_id`: no request, invitation, chat or presence between them."""

    __tablename__ = "player_block"

    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    blocked_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True, index=True)
    created_at: datetime = _ts()


class FriendSettings(SQLModel, table=True):
    """A player's friend link (128 random bits, URL-safe) and "appear offline" choice."""

    __tablename__ = "friend_settings"

    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    link_token: str | None = Field(default=None, max_length=32, unique=True)
    appear_offline: bool = Field(default=False)


# --- game reviews (app/db/reviews.py, app/jobs/review.py) -------------------------

REVIEW_STATUSES = ("queued", "running", "done", "failed")


class GameReview(SQLModel, table=True):
    """The Expert's review of one seat of one finished game: computed once, read by anyone
    who may read the game. It is also the job's state: an instance holds ``lease_owner``
    until ``lease_until`` and renews it while it works; once the lease runs out (the instance
    died), any instance takes the job over and computes it again."""

    __tablename__ = "game_review"
    __table_args__ = (sa.Index("ix_game_review_status_lease_until", "status", "lease_until"),)

    game_id: int = _fk("game.id", ondelete="CASCADE", primary_key=True)
    seat: int = Field(primary_key=True)
    status: str = Field(default="queued", max_length=16)
    progress: float = Field(default=0.0)  # 0 to 1: decisions reviewed / decisions to review
    budget: int  # the review budget it was computed at (HEARTS_REVIEW_UNITS)
    result: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    error: str | None = Field(default=None, max_length=200)
    requested_by: str | None = _fk("player.id", ondelete="SET NULL", nullable=True)
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = _ts(nullable=True)
    attempts: int = Field(default=0)  # times an instance took the job (a takeover adds one)
    created_at: datetime = _ts()
    started_at: datetime | None = _ts(nullable=True)
    finished_at: datetime | None = _ts(nullable=True)


# --- the daily challenge (app/compete) --------------------------------------------------------


class ServerSecret(SQLModel, table=True):
    """One row (id 1): the key that signs session tokens (and the links in e-mails) when the
    server is given none (``HEARTS_SECRET_KEY`` empty: the embedded single-process default),
    made at random by its first start and kept, so a restart signs nobody out."""

    __tablename__ = "server_secret"

    id: int = Field(default=1, primary_key=True)
    secret: str = Field(max_length=128)
    created_at: datetime = _ts()


class CompeteSecret(SQLModel, table=True):
    """One row (id 1): the secret every day's deals are derived from, made once by the first
    server that needs it (unless HEARTS_DAILY_SECRET sets one), so every instance deals alike."""

    __tablename__ = "compete_secret"

    id: int = Field(default=1, primary_key=True)
    secret: str = Field(max_length=128)
    created_at: datetime = _ts()


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
    player_id: str = _fk("player.id", ondelete="CASCADE", index=True)
    name: str = Field(max_length=24)  # display name at the start
    version: int  # the version of the day's deals this player got
    table_id: str = Field(max_length=64, index=True)
    started_at: datetime = _ts()
    finished_at: datetime | None = _ts(nullable=True)
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

    attempt_id: int = _fk("daily_attempt.id", ondelete="CASCADE", primary_key=True)
    deal_no: int = Field(primary_key=True)
    day: date = Field(sa_type=sa.Date)
    preset: str = Field(max_length=40)
    version: int
    points: int
    moves: list[Any] = Field(default_factory=list, sa_type=sa.JSON)  # [[seat, move], ...]
    recorded_at: datetime = _ts()


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
    ranked_at: datetime | None = _ts(nullable=True)
    lease_until: datetime | None = _ts(nullable=True)


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
    lease_until: datetime | None = _ts(nullable=True)


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
    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    name: str = Field(max_length=24)
    days: int = Field(default=0)
    total: float = Field(default=0.0)


class DailyStreak(SQLModel, table=True):
    """A registered player's run of consecutive days with a finished challenge."""

    __tablename__ = "daily_streak"

    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    current: int = Field(default=0)
    best: int = Field(default=0)
    last_day: date | None = Field(default=None, sa_type=sa.Date)


# --- notifications (app/notify) --------------------------------------------------------------


class NotifySetting(SQLModel, table=True):
    """A player's choice for one kind of notice (app.notify.service.KINDS) on each channel; a
    kind without a row has the defaults of app.notify.prefs."""

    __tablename__ = "notify_setting"

    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    kind: str = Field(max_length=24, primary_key=True)
    push: bool
    email: bool


class PushSubscription(SQLModel, table=True):
    """One device's Web Push subscription (the browser's PushSubscription JSON): where to post
    and the keys to encrypt for. Dropped when the push service answers 404 or 410."""

    __tablename__ = "push_subscription"

    id: int | None = Field(default=None, primary_key=True)
    player_id: str = _fk("player.id", ondelete="CASCADE", index=True)
    endpoint: str = Field(max_length=2048, unique=True)
    p256dh: str = Field(max_length=128)  # the device's P-256 public key, base64url
    auth: str = Field(max_length=64)  # the 16-byte auth secret, base64url
    created_at: datetime = _ts()
    last_sent_at: datetime | None = _ts(nullable=True)


class VapidKey(SQLModel, table=True):
    """One row (id 1): the server's VAPID key pair when HEARTS_VAPID_PRIVATE_KEY is not set,
    made once by the first instance that needs it, shared by every instance."""

    __tablename__ = "vapid_key"

    id: int = Field(default=1, primary_key=True)
    private_key: str = Field(sa_type=sa.Text)  # PEM
    public_key: str = Field(max_length=128)  # uncompressed point, base64url (applicationServerKey)
    created_at: datetime = _ts()


class PlayerEmail(SQLModel, table=True):
    """A registered player's e-mail address; ``verified_at`` once they opened the link sent to
    it. Nothing but the verification e-mail goes to an unverified address."""

    __tablename__ = "player_email"

    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    address: str = Field(max_length=254)
    address_key: str = Field(max_length=254, index=True)  # case-folded, for "forgot password"
    verified_at: datetime | None = _ts(nullable=True)
    changed_at: datetime = _ts()


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
    created_by: str | None = _fk("player.id", ondelete="SET NULL", nullable=True)
    created_at: datetime = _ts()


class ClubMember(SQLModel, table=True):
    __tablename__ = "club_member"

    club_id: int = _fk("club.id", ondelete="CASCADE", primary_key=True)
    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True, index=True)
    role: str = Field(default="member", max_length=8)  # CLUB_ROLES
    joined_at: datetime = _ts()


class ClubPending(SQLModel, table=True):
    """A join request waiting for an admin (``kind`` "request") or an invitation waiting for
    the player ("invite")."""

    __tablename__ = "club_pending"

    club_id: int = _fk("club.id", ondelete="CASCADE", primary_key=True)
    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True, index=True)
    kind: str = Field(max_length=8)
    created_at: datetime = _ts()


class ClubBan(SQLModel, table=True):
    __tablename__ = "club_ban"

    club_id: int = _fk("club.id", ondelete="CASCADE", primary_key=True)
    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True)
    created_at: datetime = _ts()


class ClubPost(SQLModel, table=True):
    """A line of the club's chat, or an announcement (admins only)."""

    __tablename__ = "club_post"
    __table_args__ = (sa.Index("ix_club_post_club_id_id", "club_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: int = _fk("club.id", ondelete="CASCADE")
    player_id: str | None = _fk("player.id", ondelete="SET NULL", nullable=True)
    name: str = Field(max_length=24)
    text: str = Field(sa_type=sa.Text)
    announcement: bool = Field(default=False)
    created_at: datetime = _ts()


class TurnBasedCopy(SQLModel, table=True):
    """The newest committed version of a turn-based table (app.tables.durable): written before
    a move is answered, read back when Redis lost the table or paged it out. Never goes back."""

    __tablename__ = "turn_based_copy"

    table_id: str = Field(max_length=64, primary_key=True)
    version: int
    state: str = Field(sa_type=sa.Text)  # the table's JSON, as Redis holds it
    moves: str = Field(sa_type=sa.Text)  # the current game's moves, a JSON list
    saved_at: datetime = _ts()


class Event(SQLModel, table=True):
    """An event (app.compete.events): Swiss by standings or duplicate, for a club or open to
    all; registration until ``starts_at``, then ``rounds`` rounds at tables of ``table_size``."""

    __tablename__ = "event"
    __table_args__ = (sa.Index("ix_event_state_starts_at", "state", "starts_at"),)

    id: int | None = Field(default=None, primary_key=True)
    club_id: int | None = _fk("club.id", ondelete="CASCADE", nullable=True, index=True)
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
    created_by: str | None = _fk("player.id", ondelete="SET NULL", nullable=True)
    created_at: datetime = _ts()


class EventEntry(SQLModel, table=True):
    """A registered player and their standing; ``tie`` is the event's drawn tie-break."""

    __tablename__ = "event_entry"
    __table_args__ = (
        sa.Index(
            "ix_event_entry_standing", "event_id", "withdrawn", "table_points", "game_points", "tie"
        ),
    )

    event_id: int = _fk("event.id", ondelete="CASCADE", primary_key=True)
    player_id: str = _fk("player.id", ondelete="CASCADE", primary_key=True, index=True)
    table_points: float = Field(default=0.0)
    game_points: int = Field(default=0)
    rounds: int = Field(default=0)
    tie: int = Field(sa_type=sa.BigInteger)
    withdrawn: bool = Field(default=False)
    last_seen_round: int = Field(default=0)  # the last round they sat down in (or came late to)
    registered_at: datetime = _ts()


class EventSeat(SQLModel, table=True):
    """A seat of a round's table: its player (None: a computer, or a latecomer's seat taken
    by one, ``late``) and the seat's final score once the table is over."""

    __tablename__ = "event_seat"
    __table_args__ = (sa.Index("ix_event_seat_player", "event_id", "player_id", "round"),)

    event_id: int = _fk("event.id", ondelete="CASCADE", primary_key=True)
    round: int = Field(primary_key=True)
    table_no: int = Field(primary_key=True)
    seat: int = Field(primary_key=True)
    player_id: str | None = Field(default=None, max_length=32)
    late: bool = Field(default=False)
    table_id: str | None = Field(default=None, max_length=64)
    score: int | None = Field(default=None)
