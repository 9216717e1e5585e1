"""Players: guests, registered accounts, names, passwords, and account deletion.

Every bad input raises `AccountError` (a `ValueError`) with a stable `code` and a message a
person can act on.
"""

from __future__ import annotations

import functools
import unicodedata
import uuid
from dataclasses import dataclass

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlmodel import Session, col, select

from app.db.database import Database
from app.db.models import AuthSession, GameSeat, HandScore, Player, Rating, RatingChange, utcnow
from app.text import TextRuleError, clean_name, looks_like_computer_label, name_skeleton

DISPLAY_NAME_MAX = 24
ACCOUNT_NAME_MIN = 3
ACCOUNT_NAME_MAX = 24
PASSWORD_MIN = 8
PASSWORD_MAX = 128
_ACCOUNT_NAME_PUNCTUATION = "_-."
# Passwords too common to allow, whatever their length.
_COMMON_PASSWORDS = frozenset(
    {
        "password",
        "password1",
        "password123",
        "12345678",
        "123456789",
        "1234567890",
        "qwertyuiop",
        "qwerty123",
        "iloveyou",
        "11111111",
        "00000000",
        "abcdefgh",
        "abc12345",
        "letmein1",
        "welcome1",
        "sunshine",
        "princess",
        "football",
        "baseball",
        "trustno1",
        "passw0rd",
        "hearts123",
        "queenofspades",
    }
)


# Each module has its own error type, caught by name, with the same code-and-message form
# as the others (a lobby's, a socket's, a table limit's): alike in form only.
class AccountError(ValueError):
    """A bad name or password, a taken name, wrong credentials: `code` is stable."""

    def __init__(self, code: str, message: str, values: dict[str, str | int] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.values = dict(values or {})  # the named values the page words the code with


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    id: str
    name: str
    is_guest: bool

    @classmethod
    def of(cls, player: Player) -> PlayerInfo:
        return cls(id=player.id, name=player.name, is_guest=player.is_guest)


@functools.cache
def password_hasher() -> PasswordHasher:
    """Argon2id with the library's recommended parameters (RFC 9106 low-memory profile)."""
    return PasswordHasher()


# --- names and passwords ---------------------------------------------------------------------


def _clean(name: object) -> str:
    """`app.text.clean_name` (NFKC, no invisible, format or control characters, no mark
    stacks, a letter or digit), its refusals as `bad_name`."""
    try:
        return clean_name(name)
    except TextRuleError as error:
        raise AccountError("bad_name", error.message) from None


def validate_display_name(name: object) -> str:
    """A display name: `app.text.clean_name`'s rules, 1 to 24 characters."""
    name = _clean(name)
    if len(name) > DISPLAY_NAME_MAX:
        raise AccountError(
            "bad_name",
            f"the name must be at most {DISPLAY_NAME_MAX} characters",
            {"reason": "too_long", "limit": DISPLAY_NAME_MAX},
        )
    return name


def account_name_key(name: str) -> str:
    """The case-insensitive key that makes account names unique."""
    return unicodedata.normalize("NFKC", name).casefold()


def validate_account_name(name: object) -> str:
    """An account name: 3 to 24 letters, digits, '_', '-' or '.', starting with a letter/digit."""
    if not isinstance(name, str):
        raise AccountError("bad_name", "the account name must be text")
    name = _clean(name)
    if not ACCOUNT_NAME_MIN <= len(name) <= ACCOUNT_NAME_MAX:
        raise AccountError(
            "bad_name",
            f"the account name must be {ACCOUNT_NAME_MIN} to {ACCOUNT_NAME_MAX} characters",
            {"reason": "account_length", "low": ACCOUNT_NAME_MIN, "high": ACCOUNT_NAME_MAX},
        )
    if not name[0].isalnum():
        raise AccountError("bad_name", "the account name must start with a letter or a digit")
    for char in name:
        if not (char.isalnum() or char in _ACCOUNT_NAME_PUNCTUATION):
            raise AccountError(
                "bad_name",
                f"the account name may hold only letters, digits, '_', '-' and '.' (not {char!r})",
                {"reason": "account_chars", "char": char},
            )
    return name


def check_password_strength(password: object, account_name: str = "") -> str:
    if not isinstance(password, str):
        raise AccountError("weak_password", "the password must be text")
    if len(password) < PASSWORD_MIN:
        raise AccountError(
            "weak_password",
            f"the password must be at least {PASSWORD_MIN} characters",
            {"reason": "too_short", "limit": PASSWORD_MIN},
        )
    if len(password) > PASSWORD_MAX:
        raise AccountError(
            "weak_password",
            f"the password must be at most {PASSWORD_MAX} characters",
            {"reason": "too_long", "limit": PASSWORD_MAX},
        )
    lowered = password.casefold()
    if lowered in _COMMON_PASSWORDS:
        raise AccountError("weak_password", "this password is too common; choose another")
    if len(set(password)) < 4:
        raise AccountError("weak_password", "the password must use at least 4 different characters")
    if account_name and account_name_key(account_name) in lowered:
        raise AccountError("weak_password", "the password must not contain the account name")
    return password


def check_not_confusable(session: Session, name: str, exclude_id: str | None = None) -> None:
    """Refuse (`name_confusable`) a name that reads as a computer seat's label, or as an
    account's name (UTS #39 skeleton, or the same name in another case) other than
    `exclude_id`'s. Guests may share names with guests. The message names no account."""
    if looks_like_computer_label(name):
        raise AccountError(
            "name_confusable", "the name is too similar to a computer player's label"
        )
    query = select(Player.id).where(
        sa.or_(
            col(Player.name_skeleton) == name_skeleton(name),
            col(Player.name_key) == account_name_key(name),
        )
    )
    if exclude_id is not None:
        query = query.where(col(Player.id) != exclude_id)
    if session.exec(query).first() is not None:
        raise AccountError(
            "name_confusable", "the name is too similar to an existing player's name"
        )


# --- players -------------------------------------------------------------------------------


def new_player_id() -> str:
    return uuid.uuid4().hex


def create_guest(db: Database, name: str) -> PlayerInfo:
    """Store a guest player (kept, so the guest can later claim its games by registering)."""
    player = Player(id=new_player_id(), name=validate_display_name(name), is_guest=True)
    with db.session() as session:
        check_not_confusable(session, player.name)
        session.add(player)
        session.commit()
    return PlayerInfo.of(player)


def get_player(db: Database, player_id: str) -> PlayerInfo | None:
    with db.session() as session:
        player = session.get(Player, player_id)
        return None if player is None else PlayerInfo.of(player)


def language_of(db: Database, player_id: str) -> str | None:
    """The language the player last read the site in (None: not known, or no such player)."""
    with db.engine.connect() as connection:
        found = connection.execute(
            sa.select(col(Player.language)).where(col(Player.id) == player_id)
        ).first()
    return None if found is None else found[0]


def set_language(db: Database, player_id: str, language: str) -> None:
    """Remember the player's language (one of app.i18n.LANGUAGES: the caller checks)."""
    with db.session() as session:
        session.execute(
            sa.update(Player).where(col(Player.id) == player_id).values(language=language)
        )
        session.commit()


def rename_player(db: Database, player_id: str, name: str) -> PlayerInfo:
    """Change a guest's display name (an account's display name is its account name)."""
    name = validate_display_name(name)
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise AccountError("unknown_player", "no such player")
        if not player.is_guest:
            raise AccountError("not_a_guest", "an account's name is its account name")
        check_not_confusable(session, name)
        player.name = name
        session.add(player)
        session.commit()
        return PlayerInfo.of(player)


def register(db: Database, name: str, password: str, guest_id: str | None = None) -> PlayerInfo:
    """Create an account; when `guest_id` names a guest, that guest becomes the account and keeps
    its games and ratings (the guest claims its history)."""
    name = validate_account_name(name)
    check_password_strength(password, name)
    key = account_name_key(name)
    password_hash = password_hasher().hash(password)
    with db.session() as session:
        if session.exec(select(Player.id).where(Player.name_key == key)).first() is not None:
            raise AccountError("name_taken", f"the account name {name!r} is taken", {"name": name})
        player = session.get(Player, guest_id) if guest_id else None
        if player is not None and not player.is_guest:
            raise AccountError("already_registered", "this player already has an account")
        check_not_confusable(session, name, exclude_id=guest_id)
        if player is None:
            player = Player(id=new_player_id(), name=name)
        player.name = name
        player.name_key = key
        player.name_skeleton = name_skeleton(name)
        player.is_guest = False
        player.password_hash = password_hash
        player.registered_at = utcnow()
        session.add(player)
        try:
            session.commit()
        except sa.exc.IntegrityError as error:  # a concurrent registration won the name
            raise AccountError(
                "name_taken", f"the account name {name!r} is taken", {"name": name}
            ) from error
        return PlayerInfo.of(player)


def authenticate(db: Database, name: str, password: str) -> PlayerInfo:
    """The account with this name and password, or `AccountError("wrong_credentials")`."""
    wrong = AccountError("wrong_credentials", "wrong account name or password")
    if not isinstance(name, str) or not isinstance(password, str) or len(password) > PASSWORD_MAX:
        raise wrong
    hasher = password_hasher()
    with db.session() as session:
        player = session.exec(
            select(Player).where(Player.name_key == account_name_key(name.strip()))
        ).first()
        if player is None or player.password_hash is None:
            hasher.hash(password)  # as slow as a check, so timing tells no names apart
            raise wrong
        try:
            hasher.verify(player.password_hash, password)
        except (VerificationError, InvalidHashError):
            raise wrong from None
        if hasher.check_needs_rehash(player.password_hash):
            player.password_hash = hasher.hash(password)
            session.add(player)
            session.commit()
        return PlayerInfo.of(player)


def change_password(db: Database, player_id: str, old: str, new: str) -> None:
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None or player.password_hash is None:
            raise AccountError("not_registered", "only an account has a password")
        try:
            password_hasher().verify(player.password_hash, old)
        except (VerificationError, InvalidHashError):
            raise AccountError("wrong_credentials", "wrong password") from None
        player.password_hash = password_hasher().hash(check_password_strength(new, player.name))
        session.add(player)
        session.commit()


def verify_password(db: Database, player_id: str, password: str) -> bool:
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None or player.password_hash is None:
            return False
        try:
            return password_hasher().verify(player.password_hash, password)
        except (VerificationError, InvalidHashError):
            return False


def delete_player(db: Database, player_id: str) -> bool:
    """Delete a player and everything personal: sessions, ratings and rating history. Finished
    games stay for the other players, with this seat shown as a deleted player."""
    with db.session() as session:
        _delete_player_rows(session, player_id)
        deleted = session.get(Player, player_id)
        if deleted is None:
            return False
        session.delete(deleted)
        session.commit()
        return True


def _delete_player_rows(session: Session, player_id: str) -> None:
    # Done explicitly, not only by ON DELETE, so it holds on SQLite without the pragma too.
    session.execute(
        sa.update(GameSeat)
        .where(col(GameSeat.player_id) == player_id)
        .values(player_id=None, name=None)
    )
    session.execute(
        sa.update(HandScore).where(col(HandScore.player_id) == player_id).values(player_id=None)
    )
    session.execute(sa.delete(AuthSession).where(col(AuthSession.player_id) == player_id))
    session.execute(sa.delete(RatingChange).where(col(RatingChange.player_id) == player_id))
    session.execute(sa.delete(Rating).where(col(Rating.player_id) == player_id))
