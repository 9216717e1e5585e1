"""The "download my data" file holds every row that names the player, found from the schema
(app/db/export.py), and no secret: a player with friends, a block, a request, an e-mail
address, a device, notification choices, a daily attempt and a club gets each in the file;
the device's keys, link tokens and session ids are not in it; who blocked the player is not
in the blocked player's file. A table or a column added later that names a player, or looks
like a secret, fails here until the export says what to do with it."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import orjson
from sqlmodel import SQLModel

from app.db import Database
from app.db.compete_models import DailyStreak
from app.db.export import ONLY, SECRET, SHAPED, personal_tables, player_columns
from app.db.models import (
    FriendRequest,
    FriendSettings,
    Friendship,
    NotifySetting,
    PlayerBlock,
    PlayerEmail,
    PushSubscription,
)
from app.db.players import create_guest, register
from app.db.stats import export_player

# Column names that hold a player's id, whatever their foreign keys say.
PLAYERISH = re.compile(
    r"^(player_id|friend_id|blocked_id|from_id|to_id|created_by|requested_by"
    r"|owner_id|member_id|host_id|user_id|account_id)$"
)
# Column names of a secret, and the ones that only look like it.
SECRETISH = re.compile(r"token|secret|hash|password|auth|p256dh|private|key")
NOT_SECRET = {
    ("player_email", "address_key"),  # the address case-folded, for "forgot password"
    ("club", "name_key"),
}


def test_every_column_that_names_a_player_is_exported_or_said_why_not() -> None:
    exported = personal_tables()
    for table in SQLModel.metadata.sorted_tables:
        if table.name == "player":
            continue
        named = {c.name for c in table.columns if PLAYERISH.match(c.name)}
        named |= set(player_columns(table))
        if not named:
            continue
        if table.name in SHAPED:
            continue  # export_player writes it in a shape of its own
        assert table.name in exported, f"{table.name} names a player but is not exported"
        left_out = named - set(exported[table.name])
        assert left_out <= set(table.columns.keys()) and (not left_out or table.name in ONLY), (
            f"{table.name}: {left_out} name a player and are not searched"
        )


def test_no_column_that_looks_like_a_secret_is_exported_unless_said_so() -> None:
    for name in personal_tables():
        table = SQLModel.metadata.tables[name]
        for column in table.columns:
            key = (name, column.name)
            if SECRETISH.search(column.name) and key not in NOT_SECRET:
                assert key in SECRET, f"{key} looks like a secret: add it to SECRET or NOT_SECRET"


def test_the_file_holds_every_row_of_the_player_and_no_secret(database: Database) -> None:
    ann = register(database, "Ann", "correct horse battery").id
    bob = create_guest(database, "Bob").id
    cat = create_guest(database, "Cat").id
    now = datetime.now(UTC)
    with database.session() as session:
        session.add(Friendship(player_id=ann, friend_id=bob, created_at=now))
        session.add(Friendship(player_id=bob, friend_id=ann, created_at=now))
        session.add(FriendRequest(from_id=cat, to_id=ann, created_at=now))
        session.add(PlayerBlock(player_id=ann, blocked_id=cat, created_at=now))
        session.add(PlayerBlock(player_id=bob, blocked_id=ann, created_at=now))
        session.add(
            FriendSettings(player_id=ann, link_token="LINKTOKENSECRET1", appear_offline=True)
        )
        session.add(
            PlayerEmail(player_id=ann, address="Ann@Example.org", address_key="ann@example.org")
        )
        session.add(
            PushSubscription(
                player_id=ann,
                endpoint="https://push.example/device-1",
                p256dh="P256DHSECRETKEY",
                auth="AUTHSECRET16BYTE",
                created_at=now,
            )
        )
        session.add(NotifySetting(player_id=ann, kind="your_turn", push=True, email=False))
        session.add(DailyStreak(player_id=ann, current=3, best=5, last_day=date(2026, 11, 27)))
        session.commit()
    data = export_player(database, ann)
    assert data is not None
    records = data["records"]
    assert {r["friend_id"] for r in records["friendship"]} >= {bob}
    assert [r["from_id"] for r in records["friend_request"]] == [cat]
    assert [r["blocked_id"] for r in records["player_block"]] == [cat]  # not Bob's block of Ann
    assert records["player_email"][0]["address"] == "Ann@Example.org"
    assert records["push_subscription"][0]["endpoint"] == "https://push.example/device-1"
    assert records["notify_setting"] == [
        {"player_id": ann, "kind": "your_turn", "push": True, "email": False}
    ]
    assert records["daily_streak"][0]["last_day"] == "2026-11-27"
    assert records["friend_settings"][0]["appear_offline"] is True
    raw = orjson.dumps(data).decode()
    for secret in ("LINKTOKENSECRET1", "P256DHSECRETKEY", "AUTHSECRET16BYTE"):
        assert secret not in raw
    assert all("id" not in r for r in records["auth_session"])
    # Bob's file: his block of Ann, nothing of who blocked him
    bob_data = export_player(database, bob)
    assert bob_data is not None
    assert [r["blocked_id"] for r in bob_data["records"]["player_block"]] == [ann]
