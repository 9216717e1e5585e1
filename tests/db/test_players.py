"""Guests, accounts, names, passwords, tokens."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.db import Database
from app.db.auth import issue_token, revoke_all, revoke_token, verify_token
from app.db.models import Player
from app.db.players import (
    AccountError,
    PlayerInfo,
    authenticate,
    create_guest,
    delete_player,
    get_player,
    register,
    rename_player,
    validate_display_name,
)

SECRET = "test-secret"


def test_create_guest_trims_and_stores(database: Database) -> None:
    guest = create_guest(database, "  Alice  ")
    assert guest == PlayerInfo(id=guest.id, name="Alice", is_guest=True)
    assert get_player(database, guest.id) == guest


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 25, "at most 24"),
        ("bad\nname", "control"),
        ("zero\u200bwidth", "invisible"),
        (None, "text"),
    ],
)
def test_bad_display_names_are_refused(name: object, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        validate_display_name(name)


def test_display_name_limits() -> None:
    assert validate_display_name("x" * 24) == "x" * 24
    assert validate_display_name("Zoë ♥") == "Zoë ♥"


def test_register_claims_the_guest(database: Database) -> None:
    guest = create_guest(database, "guest")
    account = register(database, "Alice", "correct horse battery", guest_id=guest.id)
    assert account == PlayerInfo(id=guest.id, name="Alice", is_guest=False)
    with pytest.raises(AccountError) as caught:
        register(database, "Other", "correct horse battery", guest_id=guest.id)
    assert caught.value.code == "already_registered"


def test_account_names_are_unique_case_insensitively(database: Database) -> None:
    register(database, "Alice", "correct horse battery")
    for name in ("alice", "ALICE", "Alice"):
        with pytest.raises(AccountError) as caught:
            register(database, name, "another good one")
        assert caught.value.code == "name_taken"


@pytest.mark.parametrize(
    ("name", "password", "code", "fragment"),
    [
        ("al", "correct horse", "bad_name", "3 to 24"),
        ("_alice", "correct horse", "bad_name", "start with"),
        ("ali ce", "correct horse", "bad_name", "only letters"),
        ("alice", "short", "weak_password", "at least 8"),
        ("alice", "password1", "weak_password", "too common"),
        ("alice", "aaaaaaaaaaaa", "weak_password", "different characters"),
        ("alice", "my-alice-pass", "weak_password", "account name"),
        ("alice", "x" * 129 + "yzw", "weak_password", "at most 128"),
    ],
)
def test_bad_names_and_weak_passwords(
    sqlite_database: Database, name: str, password: str, code: str, fragment: str
) -> None:
    with pytest.raises(AccountError, match=fragment) as caught:
        register(sqlite_database, name, password)
    assert caught.value.code == code


def test_login_and_wrong_passwords(database: Database) -> None:
    account = register(database, "Alice", "correct horse battery")
    assert authenticate(database, "aLiCe", "correct horse battery") == account
    for name, password in [("alice", "wrong password"), ("nobody", "correct horse battery")]:
        with pytest.raises(AccountError) as caught:
            authenticate(database, name, password)
        assert caught.value.code == "wrong_credentials"


def test_tokens_verify_and_revoke(database: Database) -> None:
    guest = create_guest(database, "Bob")
    token = issue_token(database, guest.id, SECRET)
    assert verify_token(database, token, SECRET) == guest
    assert verify_token(database, token, "other-secret") is None
    assert verify_token(database, token + "x", SECRET) is None
    assert verify_token(database, "", SECRET) is None
    assert verify_token(database, "garbage.token", SECRET) is None
    other = issue_token(database, guest.id, SECRET)
    assert revoke_token(database, token, SECRET)
    assert not revoke_token(database, token, SECRET)
    assert verify_token(database, token, SECRET) is None
    assert verify_token(database, other, SECRET) == guest
    assert revoke_all(database, guest.id) == 1
    assert verify_token(database, other, SECRET) is None


def test_expired_token(sqlite_database: Database) -> None:
    guest = create_guest(sqlite_database, "Bob")
    token = issue_token(sqlite_database, guest.id, SECRET, ttl=timedelta(seconds=-1))
    assert verify_token(sqlite_database, token, SECRET) is None


def test_delete_player_ends_sessions(database: Database) -> None:
    guest = create_guest(database, "Bob")
    token = issue_token(database, guest.id, SECRET)
    assert delete_player(database, guest.id)
    assert verify_token(database, token, SECRET) is None
    assert get_player(database, guest.id) is None
    assert not delete_player(database, guest.id)


def test_real_argon2_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.db import players

    monkeypatch.undo()  # the real hasher, not the tests' cheap one
    hasher = players.password_hasher()
    assert (hasher.time_cost, hasher.memory_cost) == (3, 65536)
    encoded = hasher.hash("correct horse battery")
    assert encoded.startswith("$argon2id$")
    assert hasher.verify(encoded, "correct horse battery")


# --- names that deceive (issue 18) ----------------------------------------------------------

INVISIBLE_NAMES = [
    "\u3164",  # HANGUL FILLER
    "\u3164\u3164\u3164",
    "\u2800",  # BRAILLE PATTERN BLANK
    "Bob\u2028Smith",  # LINE SEPARATOR
    "Z" + "\u0301" * 23,  # 23 stacked combining marks
    "al\u200bice",
]


def _players(database: Database) -> int:
    with database.session() as session:
        return session.query(Player).count()


@pytest.mark.parametrize("name", INVISIBLE_NAMES)
def test_invisible_names_are_refused_and_nothing_is_stored(database: Database, name: str) -> None:
    before = _players(database)
    for attempt in (
        lambda: create_guest(database, name),
        lambda: register(database, name, "correct horse battery"),
    ):
        with pytest.raises(AccountError) as caught:
            attempt()
        assert caught.value.code == "bad_name"
    assert _players(database) == before


def test_names_are_stored_nfkc(database: Database) -> None:
    assert create_guest(database, "  ｆｕｌｌ   name ").name == "full name"
    assert register(database, "ｂｏｂ", "correct horse battery").name == "bob"
    assert authenticate(database, "bob", "correct horse battery").name == "bob"


@pytest.mark.parametrize(
    "name", ["Computer", "Computer (Pro)", "Computer 2 (Expert)", "C0mputer", "\u0421omputer"]
)
def test_a_guest_cannot_take_a_computer_label(database: Database, name: str) -> None:
    with pytest.raises(AccountError) as caught:
        create_guest(database, name)
    assert caught.value.code == "name_confusable"
    assert "computer" in caught.value.message
    guest = create_guest(database, "Bob")
    with pytest.raises(AccountError) as renamed:
        rename_player(database, guest.id, name)
    assert renamed.value.code == "name_confusable"
    assert get_player(database, guest.id) == guest


def test_an_account_cannot_start_with_the_computer_word(database: Database) -> None:
    with pytest.raises(AccountError) as caught:
        register(database, "computer_1", "correct horse battery")
    assert caught.value.code == "name_confusable"
    assert register(database, "computerwiz", "correct horse battery").name == "computerwiz"


@pytest.mark.parametrize(
    "lookalike",
    [
        "\u0430lice",  # Cyrillic а
        "Alice",  # another case: account names are case-insensitive
        "ALICE",
        "AIice",  # capital i for l
        "\U0001d41alice",  # mathematical bold a
        "ａｌｉｃｅ",  # fullwidth: NFKC makes it "alice"
    ],
)
def test_a_name_confusable_with_an_account_is_refused(database: Database, lookalike: str) -> None:
    alice = register(database, "alice", "correct horse battery")
    before = _players(database)
    with pytest.raises(AccountError) as caught:
        create_guest(database, lookalike)
    assert caught.value.code == "name_confusable"
    assert "alice" not in caught.value.message.casefold()  # says nothing of which account
    guest = create_guest(database, "Bob")
    with pytest.raises(AccountError) as renamed:
        rename_player(database, guest.id, lookalike)
    assert renamed.value.code == "name_confusable"
    assert get_player(database, guest.id) == guest
    with pytest.raises(AccountError) as registered:
        register(database, lookalike, "another good one", guest_id=guest.id)
    assert registered.value.code in ("name_confusable", "name_taken")
    assert get_player(database, guest.id) == guest  # still a guest
    assert _players(database) == before + 1  # only Bob
    assert get_player(database, alice.id) == alice


def test_cyrillic_alice_is_refused_beside_alice(database: Database) -> None:
    register(database, "alice", "correct horse battery")
    with pytest.raises(AccountError) as caught:
        register(database, "\u0430lice", "correct horse battery")
    assert caught.value.code == "name_confusable"
    assert caught.value.message == "the name is too similar to an existing player's name"


def test_guests_may_share_names_and_an_account_may_take_a_guests_name(database: Database) -> None:
    first = create_guest(database, "Bob")
    second = create_guest(database, "Bob")
    assert first.name == second.name == "Bob"
    create_guest(database, "\u0412ob")  # Cyrillic В: like a guest's name, not an account's
    account = register(database, "Bob", "correct horse battery", guest_id=first.id)
    assert account == PlayerInfo(id=first.id, name="Bob", is_guest=False)
    with pytest.raises(AccountError) as caught:
        create_guest(database, "B\u043eb")  # Cyrillic о: now an account's name
    assert caught.value.code == "name_confusable"
    assert rename_player(database, second.id, "Robert").name == "Robert"


def test_ordinary_names_are_accepted(database: Database) -> None:
    register(database, "alice", "correct horse battery")
    for name in ("José", "Zoë", "Олег", "李雷", "Ann-Marie O'Neil", "Alicia", "Bob \U0001f44d"):
        assert create_guest(database, name).name == name
    for name in ("José", "Олег", "王小明", "Zoë"):  # account names: 3 or more
        assert register(database, name, "correct horse battery").name == name


def test_the_skeleton_is_stored_for_accounts_only(database: Database) -> None:
    from app.text import name_skeleton

    guest = create_guest(database, "Mallory")
    account = register(database, "Alice", "correct horse battery")
    claimed = register(database, "Carol", "correct horse battery", guest_id=guest.id)
    with database.session() as session:
        stored = {p.id: p.name_skeleton for p in session.query(Player).all()}
    assert stored == {account.id: name_skeleton("Alice"), claimed.id: name_skeleton("Carol")}
    assert stored[account.id] == "alice"
