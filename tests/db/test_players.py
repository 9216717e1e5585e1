"""Guests, accounts, names, passwords, tokens."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.db import Database
from app.db.auth import issue_token, revoke_all, revoke_token, verify_token
from app.db.players import (
    AccountError,
    PlayerInfo,
    authenticate,
    create_guest,
    delete_player,
    get_player,
    register,
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
        ("zero\u200bwidth", "control"),
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
