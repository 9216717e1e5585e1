"""bench.failover's bookkeeping, and one short run on a private Redis restarted mid-run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench import failover
from bench.load import main


def test_moves_fall_before_during_or_after_the_fault() -> None:
    assert failover.windows([1.0, 2.0, 5.0, 5.5, 9.0, 12.0], 5.0, 9.0) == (2, 2, 2)
    assert failover.windows([], 5.0, 9.0) == (0, 0, 0)


def test_the_error_lines_of_the_logs_are_counted(tmp_path: Path) -> None:
    lines = [
        {"level": "warning", "message": "pub/sub connection lost; reconnecting"},
        {
            "level": "error",
            "message": "Exception in ASGI application",
            "exc_info": "Traceback ...\nAttributeError: 'NoneType' object has no attribute 'x'",
        },
        {"level": "info", "message": "instance up"},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\nTraceback (most recent call last):\n"
    (tmp_path / "server0.log").write_text(text)
    (tmp_path / "server1.log").write_text(json.dumps({"level": "critical", "message": "down"}))
    errors, warnings = failover.log_errors(tmp_path)
    assert warnings == 1
    assert errors == [
        "server0.log: Exception in ASGI application [AttributeError: 'NoneType' object has no"
        " attribute 'x']",
        "server0.log: Traceback (most recent call last):",
        "server1.log: down",
    ]


def test_the_options_say_which_fault() -> None:
    parser = argparse.ArgumentParser()
    failover.add_arguments(parser)
    args = parser.parse_args(["--failover", "12", "--failover-mode", "pause"])
    assert failover.wanted(args) and args.failover == 12 and args.failover_mode == "pause"
    assert not failover.wanted(parser.parse_args([]))
    args = parser.parse_args(["--restart-redis", "3", "--no-aof"])
    assert failover.wanted(args) and not args.aof
    with pytest.raises(SystemExit):
        parser.parse_args(["--failover", "5", "--failover-mode", "unplug"])


def test_a_short_run_with_redis_restarted_from_its_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two tables on one instance, Redis killed one second into play and started again on
    its append-only file: every move is answered, the servers log no error, the client
    processes live through it, and the report says so."""
    monkeypatch.setattr(
        "sys.argv",
        [
            "bench.load",
            "--instances",
            "1",
            "--tables",
            "2",
            "--spectators",
            "1",
            "--clients",
            "1",
            "--think-ms",
            "50",
            "--restart-redis",
            "1",
            "--down-seconds",
            "1",
            "--timeout",
            "240",
        ],
    )
    main()
    out = capsys.readouterr().out
    assert "unanswered moves 0;" in out, out
    assert "server errors in the logs 0 " in out, out
    assert "tables stuck 0, gone 0" in out, out
