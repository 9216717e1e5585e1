"""JSON logs (HEARTS_LOG_FORMAT=json, app/logs.py, issue 20): one object per line, with the
table and player a line was logged for."""

from __future__ import annotations

import asyncio
import io
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from app import logs
from app.settings import Settings
from app.tables.computer import ComputerPlayers
from app.tables.service import TableService
from tests.realtime.harness import Client, create_table, guest, in_process_server


@pytest.fixture
def saved_logging() -> Iterator[None]:
    """Put the logging configuration back as it was (JSON mode replaces the root's handlers)."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    servers = {
        name: (lg.handlers[:], lg.propagate, lg.level)
        for name in logs.SERVER_LOGGERS
        for lg in [logging.getLogger(name)]
    }
    yield
    root.handlers, level = saved
    root.setLevel(level)
    for name, (handlers, propagate, level) in servers.items():
        logger = logging.getLogger(name)
        logger.handlers, logger.propagate = handlers, propagate
        logger.setLevel(level)


def record(message: str, exc_info: Any = None) -> logging.LogRecord:
    return logging.LogRecord("app.somewhere", logging.WARNING, __file__, 1, message, (), exc_info)


def test_a_json_line_has_time_level_logger_and_message() -> None:
    line = orjson.loads(logs.JsonFormatter().format(record("one\ntwo")))
    assert set(line) == {"time", "level", "logger", "message"}
    assert line["level"] == "warning" and line["logger"] == "app.somewhere"
    assert line["message"] == "one\ntwo"
    assert line["time"].endswith("+00:00") and "T" in line["time"]


def test_the_ids_bound_in_a_context_are_on_its_lines_only() -> None:
    import contextvars

    def inside() -> str:
        logs.bind(table_id="T1", player_id="P1")
        return logs.JsonFormatter().format(record("in a table's task"))

    line = orjson.loads(contextvars.copy_context().run(inside))
    assert line["table_id"] == "T1" and line["player_id"] == "P1"
    outside = orjson.loads(logs.JsonFormatter().format(record("elsewhere")))
    assert "table_id" not in outside and "player_id" not in outside


def test_an_exception_goes_in_the_same_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        text = logs.JsonFormatter().format(record("failed", sys.exc_info()))
    assert "\n" not in text
    line = orjson.loads(text)
    assert "ValueError: boom" in line["exc_info"]


def test_configure_json_sends_the_server_loggers_to_one_json_handler(
    saved_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    uvicorn_error = logging.getLogger("uvicorn.error")
    uvicorn_error.addHandler(logging.StreamHandler(io.StringIO()))
    uvicorn_error.propagate = False
    uvicorn_error.setLevel(logging.INFO)  # (a server run earlier may have raised it)
    logs.configure("json", "info")
    logs.configure("json", "info")  # twice: still one handler
    assert len(logging.getLogger().handlers) == 1
    uvicorn_error.info("Started server process")
    logging.getLogger("app.x").debug("below the level")
    lines = [orjson.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert lines == [
        {
            "time": lines[0]["time"],
            "level": "info",
            "logger": "uvicorn.error",
            "message": "Started server process",
        }
    ]


@pytest.mark.asyncio
async def test_a_server_with_json_logs_names_the_table_and_player(
    tmp_path: Path,
    saved_logging: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line logged while a table socket's command runs names the table and the player; one
    logged by a computer's turn (the due loop) names the table."""
    chat = TableService.chat
    choose = ComputerPlayers.choose

    async def logged_chat(self: TableService, table_id: str, *args: Any, **kw: Any) -> Any:
        logging.getLogger("app.tables.service").warning("a chat line")
        return await chat(self, table_id, *args, **kw)

    async def logged_choose(self: ComputerPlayers, *args: Any, **kw: Any) -> Any:
        logging.getLogger("app.tables.computer").warning("a computer's turn")
        return await choose(self, *args, **kw)

    monkeypatch.setattr(TableService, "chat", logged_chat)
    monkeypatch.setattr(ComputerPlayers, "choose", logged_choose)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/hearts.sqlite3",
        log_format="json",
        bot_workers=0,
        bot_delay_min_ms=0,
        bot_delay_max_ms=0,
        turn_timer_seconds=0,
        due_poll_seconds=0.05,
    )
    async with in_process_server(settings) as address:
        token, player_id = await guest(address, "Ann")
        table_id = (await create_table(address, token, preset="classic"))["table"]["id"]
        ann = Client(address, table_id, token, "ann")
        await ann.connect()
        assert (await ann.command("chat", text="hello"))["type"] == "ack"
        for seat in (1, 2, 3):
            assert (await ann.command("add_bot", seat=seat))["type"] == "ack"
        assert (await ann.command("start"))["type"] == "ack"
        await ann.wait_state(lambda m: (m["view"] or {}).get("phase") == "pass")
        await asyncio.sleep(0.3)  # the computers pass
        await ann.close()
    err = capsys.readouterr().err
    lines = [orjson.loads(line) for line in err.splitlines() if line.strip()]
    assert {"time", "level", "logger", "message"} <= set(lines[0])
    chat_lines = [line for line in lines if line["message"] == "a chat line"]
    assert chat_lines and chat_lines[0]["table_id"] == table_id
    assert chat_lines[0]["player_id"] == player_id
    turns = [line for line in lines if line["message"] == "a computer's turn"]
    assert turns and all(line["table_id"] == table_id for line in turns)
    assert all("player_id" not in line for line in turns)
    assert any(line["message"].startswith("instance ") for line in lines)  # app.main's
