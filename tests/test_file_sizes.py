"""No source file in app/, static/ or bench/ runs over 600 lines.

A longer file is split by what its parts do (the engine's claim solver beside the game, the load
benchmark's client beside its driver), so that a reader finds one thing in one place. Data is
not source: the message catalogs (JSON), the confusable-characters table, recorded results.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 600
SOURCE = {".py", ".js", ".css", ".html"}


def too_long(folder: Path, limit: int = LIMIT) -> dict[str, int]:
    """The source files below ``folder`` over ``limit`` lines, with their line counts."""
    out: dict[str, int] = {}
    for path in sorted(folder.rglob("*")):
        if path.suffix in SOURCE and path.is_file() and "__pycache__" not in path.parts:
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > limit:
                out[str(path.relative_to(ROOT))] = n
    return out


def test_the_reader_finds_a_long_file() -> None:
    assert "app/engine/game.py" in too_long(ROOT / "app", limit=100)
    assert not too_long(ROOT / "app" / "engine", limit=10**6)


def test_no_source_file_over_the_limit() -> None:
    found = {k: v for d in ("app", "static", "bench") for k, v in too_long(ROOT / d).items()}
    assert not found, f"split these by what their parts do (over {LIMIT} lines): {found}"
