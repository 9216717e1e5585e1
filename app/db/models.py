"""SQLModel tables for players, sessions, games, hands, scores, ratings, friends, reviews and
notifications (the competition's tables are in app.db.compete_models).

Families follow the house style: `XBase` holds the shared fields, `X(table=True)` the row, and
`XPublic` what the API returns. Every timestamp is UTC; SQLite hands them back naive, so readers
go through `as_utc`.
"""

from __future__ import annotations

from datetime import UTC, datetime
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


# Flags by keyword only, so that each column reads as what it is (index=True, not a bare
# True).
def foreign_key(
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


def timestamp(*, nullable: bool = False, index: bool = False) -> Any:
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
    created_at: datetime = timestamp()
    registered_at: datetime | None = timestamp(nullable=True)
    # The language the player last read the site in (app.i18n.LANGUAGES; None: not known yet):
    # what reaches them away from the page (e-mails, pushes) is written in it.
    language: str | None = Field(default=None, max_length=8)


class PlayerPublic(PlayerBase):
    id: str
    is_guest: bool


class AuthSession(SQLModel, table=True):
    """A login session; a token names one row, so deleting or revoking the row ends it."""

    __tablename__ = "auth_session"

    id: str = Field(primary_key=True, max_length=64)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", index=True)
    created_at: datetime = timestamp()
    expires_at: datetime = timestamp()
    revoked_at: datetime | None = timestamp(nullable=True)


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
    started_at: datetime | None = timestamp(nullable=True)
    ended_at: datetime | None = timestamp(nullable=True, index=True)
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

    game_id: int = foreign_key("game.id", ondelete="CASCADE", primary_key=True)
    seat: int = Field(primary_key=True)
    # None for a computer seat, or once the player deleted the account.
    player_id: str | None = foreign_key("player.id", ondelete="SET NULL", nullable=True, index=True)
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
    game_id: int = foreign_key("game.id", ondelete="CASCADE")
    hand_no: int
    pass_direction: str | None = Field(default=None, max_length=16)
    points: list[int] = Field(default_factory=list, sa_type=sa.JSON)  # per scorer
    moons: list[int] = Field(default_factory=list, sa_type=sa.JSON)  # scorers who shot the moon
    moves: list[Any] = Field(default_factory=list, sa_type=sa.JSON)  # this hand's [[seat, move]]
    recorded_at: datetime = timestamp()


class HandScore(SQLModel, table=True):
    """One scorer's result in one hand: the rows the profile statistics add up."""

    __tablename__ = "hand_score"

    hand_id: int = foreign_key("hand.id", ondelete="CASCADE", primary_key=True)
    scorer: int = Field(primary_key=True)
    player_id: str | None = foreign_key("player.id", ondelete="SET NULL", nullable=True, index=True)
    points: int
    shot_moon: bool = Field(default=False)
    by_bot: bool = Field(default=False)  # a computer played this seat for part of the hand


# --- ratings -------------------------------------------------------------------------------


class Rating(SQLModel, table=True):
    __tablename__ = "rating"
    __table_args__ = (sa.Index("ix_rating_variant_rating", "variant", "rating"),)

    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    variant: str = Field(primary_key=True, max_length=40)
    rating: float  # the skill's mean, on Elo's scale (app/db/ratings.py)
    # its uncertainty: provisional while above ratings.PROVISIONAL_DEVIATION
    deviation: float = Field(default=350.0, sa_column_kwargs={"server_default": "350"})
    games: int = Field(default=0)  # rated games
    updated_at: datetime = timestamp()


class RatingChange(SQLModel, table=True):
    __tablename__ = "rating_change"
    __table_args__ = (sa.UniqueConstraint("player_id", "game_id"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: str = foreign_key("player.id", ondelete="CASCADE")
    variant: str = Field(max_length=40)
    game_id: int = foreign_key("game.id", ondelete="CASCADE")
    before: float
    after: float
    deviation: float = Field(default=350.0, sa_column_kwargs={"server_default": "350"})  # after
    created_at: datetime = timestamp()


# --- deployment ----------------------------------------------------------------------------


class Deployment(SQLModel, table=True):
    """One row (id 1): this database's identity, a random id made by migration 0004. Each
    server records it in Redis under ``<namespace>:database`` at start (app.db.deployment), so
    two deployments that share a Redis namespace but not a database refuse to start instead of
    taking each other's results from the shared outbox stream."""

    __tablename__ = "deployment"

    id: int = Field(default=1, primary_key=True)
    database_id: str = Field(max_length=32)
    created_at: datetime = timestamp()


# --- friends (app/friends) --------------------------------------------------------


class Friendship(SQLModel, table=True):
    """One direction of a friendship: a friendship is two rows, (a, b) and (b, a), so each
    player's list is one indexed read."""

    __tablename__ = "friendship"

    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    friend_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True, index=True)
    created_at: datetime = timestamp()


class FriendRequest(SQLModel, table=True):
    """A request waiting for `to_id`'s answer."""

    __tablename__ = "friend_request"

    from_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    to_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True, index=True)
    created_at: datetime = timestamp()


# A block has a friendship's form (two players, a time) but stays its own table: each is
# its own relation, read, indexed and deleted on its own.
class PlayerBlock(SQLModel, table=True):
    """`player_id` blocked `blocked_id`: no request, invitation, chat or presence between them."""

    __tablename__ = "player_block"

    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    blocked_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True, index=True)
    created_at: datetime = timestamp()


class FriendSettings(SQLModel, table=True):
    """A player's friend link (128 random bits, URL-safe) and "appear offline" choice."""

    __tablename__ = "friend_settings"

    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
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

    game_id: int = foreign_key("game.id", ondelete="CASCADE", primary_key=True)
    seat: int = Field(primary_key=True)
    status: str = Field(default="queued", max_length=16)
    progress: float = Field(default=0.0)  # 0 to 1: decisions reviewed / decisions to review
    budget: int  # the review budget it was computed at (HEARTS_REVIEW_UNITS)
    result: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    error: str | None = Field(default=None, max_length=200)
    requested_by: str | None = foreign_key("player.id", ondelete="SET NULL", nullable=True)
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = timestamp(nullable=True)
    attempts: int = Field(default=0)  # times an instance took the job (a takeover adds one)
    created_at: datetime = timestamp()
    started_at: datetime | None = timestamp(nullable=True)
    finished_at: datetime | None = timestamp(nullable=True)


# --- the server's own secret --------------------------------------------------------------


class ServerSecret(SQLModel, table=True):
    """One row (id 1): the key that signs session tokens (and the links in e-mails) when the
    server is given none (``HEARTS_SECRET_KEY`` empty: the embedded single-process default),
    made at random by its first start and kept, so a restart signs nobody out."""

    __tablename__ = "server_secret"

    id: int = Field(default=1, primary_key=True)
    secret: str = Field(max_length=128)
    created_at: datetime = timestamp()


# --- notifications (app/notify) --------------------------------------------------------------


class NotifySetting(SQLModel, table=True):
    """A player's choice for one kind of notice (app.notify.service.KINDS) on each channel; a
    kind without a row has the defaults of app.notify.prefs."""

    __tablename__ = "notify_setting"

    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    kind: str = Field(max_length=24, primary_key=True)
    push: bool
    email: bool


class PushSubscription(SQLModel, table=True):
    """One device's Web Push subscription (the browser's PushSubscription JSON): where to post
    and the keys to encrypt for. Dropped when the push service answers 404 or 410."""

    __tablename__ = "push_subscription"

    id: int | None = Field(default=None, primary_key=True)
    player_id: str = foreign_key("player.id", ondelete="CASCADE", index=True)
    endpoint: str = Field(max_length=2048, unique=True)
    p256dh: str = Field(max_length=128)  # the device's P-256 public key, base64url
    auth: str = Field(max_length=64)  # the 16-byte auth secret, base64url
    created_at: datetime = timestamp()
    last_sent_at: datetime | None = timestamp(nullable=True)


class VapidKey(SQLModel, table=True):
    """One row (id 1): the server's VAPID key pair when HEARTS_VAPID_PRIVATE_KEY is not set,
    made once by the first instance that needs it, shared by every instance."""

    __tablename__ = "vapid_key"

    id: int = Field(default=1, primary_key=True)
    private_key: str = Field(sa_type=sa.Text)  # PEM
    public_key: str = Field(max_length=128)  # uncompressed point, base64url (applicationServerKey)
    created_at: datetime = timestamp()


class PlayerEmail(SQLModel, table=True):
    """A registered player's e-mail address; ``verified_at`` once they opened the link sent to
    it. Nothing but the verification e-mail goes to an unverified address."""

    __tablename__ = "player_email"

    player_id: str = foreign_key("player.id", ondelete="CASCADE", primary_key=True)
    address: str = Field(max_length=254)
    address_key: str = Field(max_length=254, index=True)  # case-folded, for "forgot password"
    verified_at: datetime | None = timestamp(nullable=True)
    changed_at: datetime = timestamp()


# --- turn-based tables (app/tables/durable.py) ------------------------------------------------


class TurnBasedCopy(SQLModel, table=True):
    """The newest committed version of a turn-based table (app.tables.durable): written before
    a move is answered, read back when Redis lost the table or paged it out. Never goes back."""

    __tablename__ = "turn_based_copy"

    table_id: str = Field(max_length=64, primary_key=True)
    version: int
    state: str = Field(sa_type=sa.Text)  # the table's JSON, as Redis holds it
    moves: str = Field(sa_type=sa.Text)  # the current game's moves, a JSON list
    saved_at: datetime = timestamp()
