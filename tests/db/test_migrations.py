"""Migrations: empty to head and back, on SQLite and PostgreSQL; models and migrations agree."""

from __future__ import annotations

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import app.db.compete_models  # noqa: F401  (registers the tables on SQLModel.metadata)
import app.db.models  # noqa: F401
from app.db import downgrade_to_base, upgrade_to_head

TABLES = {
    "player",
    "auth_session",
    "game",
    "game_seat",
    "hand",
    "hand_score",
    "rating",
    "rating_change",
    "deployment",
    "friendship",
    "friend_request",
    "player_block",
    "friend_settings",
    "game_review",
    "compete_secret",
    "daily_attempt",
    "daily_result",
    "daily_score_count",
    "daily_board",
    "daily_par",
    "daily_month",
    "daily_streak",
    "notify_setting",
    "push_subscription",
    "vapid_key",
    "player_email",
    "club",
    "club_member",
    "club_pending",
    "club_ban",
    "club_post",
    "turn_based_copy",
    "server_secret",
    "event",
    "event_entry",
    "event_seat",
}


def _tables(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_then_downgrade_then_upgrade(db_url: str) -> None:
    assert _tables(db_url) <= {"alembic_version"}
    upgrade_to_head(db_url)
    assert _tables(db_url) == TABLES | {"alembic_version"}
    downgrade_to_base(db_url)
    assert _tables(db_url) <= {"alembic_version"}
    upgrade_to_head(db_url)
    assert _tables(db_url) >= TABLES


def test_models_and_migrations_agree(db_url: str) -> None:
    upgrade_to_head(db_url)
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            diff = compare_metadata(context, SQLModel.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_0003_fills_the_name_skeleton_of_existing_accounts(db_url: str) -> None:
    from alembic import command

    from app.db.database import _alembic_config, make_engine
    from app.text import name_skeleton

    make_engine(db_url).dispose()
    command.upgrade(_alembic_config(db_url), "0002")
    engine = sa.create_engine(db_url)
    rows = [
        ("a" * 32, "Alice", "alice", False),
        ("b" * 32, "\u0430lice", "\u0430lice", False),  # accounts already confusable stay
        ("c" * 32, "Guest", None, True),
    ]
    try:
        with engine.begin() as connection:
            for player_id, name, key, is_guest in rows:
                connection.execute(
                    sa.text(
                        "INSERT INTO player (id, name, name_key, is_guest, created_at)"
                        " VALUES (:id, :name, :key, :guest, CURRENT_TIMESTAMP)"
                    ),
                    {"id": player_id, "name": name, "key": key, "guest": is_guest},
                )
        upgrade_to_head(db_url)
        with engine.connect() as connection:
            stored = dict(connection.execute(sa.text("SELECT id, name_skeleton FROM player")).all())
        assert stored == {"a" * 32: "alice", "b" * 32: name_skeleton("\u0430lice"), "c" * 32: None}
        assert stored["b" * 32] == "alice"
        indexes = {i["name"] for i in sa.inspect(engine).get_indexes("player")}
        assert "ix_player_name_skeleton" in indexes
        command.downgrade(_alembic_config(db_url), "0002")
        columns = {c["name"] for c in sa.inspect(engine).get_columns("player")}
        assert "name_skeleton" not in columns
    finally:
        engine.dispose()
