"""The duplicate tournament's bookkeeping: deals, per-deal files, merging and compaction."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from bench import tournament


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    monkeypatch.setattr(sys, "argv", ["tournament", *argv])
    tournament.main()
    return capsys.readouterr().out


def _rows(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_a_deal_is_played_from_every_seat_against_the_same_baseline() -> None:
    job = ("classic", "easy", "standard", 3, None, None, None, None, True)
    r = tournament.run_deal(job)
    assert len(r.tested_points) == len(r.base_points) == 4
    # the baseline is one hand of the field: 26 points dealt, or 78 when someone shot the moon
    assert sum(r.base_points) == (78 if r.base_moons else 26)
    assert all(0 <= p <= 26 for p in r.tested_points)
    assert len(r.play_ms) == 4 * 13  # the tested player's every play, from each seat
    # deals are seeded: the same job gives the same points
    again = tournament.run_deal(job)
    assert (again.tested_points, again.base_points) == (r.tested_points, r.base_points)


def test_parts_of_a_run_merge_and_other_settings_stay_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    part = str(tmp_path / "part.jsonl")
    other = str(tmp_path / "other.jsonl")
    common = ["--tested", "easy", "--field", "standard", "--workers", "1", "--progress", "0"]
    _run(monkeypatch, capsys, *common, "--deals", "2", "--per-deal", part)
    _run(monkeypatch, capsys, *common, "--first-deal", "1", "--deals", "2", "--per-deal", part)
    _run(
        monkeypatch,
        capsys,
        *common,
        "--deals",
        "2",
        "--tested-budget-ms",
        "7",
        "--per-deal",
        other,
    )
    rows = _rows(_run(monkeypatch, capsys, "--summarize", part, other))
    assert sorted((r["tested_budget_ms"] or 0, r["deals"]) for r in rows) == [(0, 3), (7, 2)]
    merged = next(r for r in rows if r["tested_budget_ms"] is None)
    assert merged["deal_ranges"] == "0-2"
    # a range of deals of the same files
    some = _rows(
        _run(monkeypatch, capsys, "--summarize", part, other, "--first-deal", "1", "--deals", "5")
    )
    assert sorted(r["deal_ranges"] for r in some) == ["1", "1-2"]

    # Compaction keeps the points and the tested player's times, and summarizes the same.
    kept = str(tmp_path / "kept.jsonl.gz")
    out = _run(monkeypatch, capsys, "--summarize", part, "--compact", kept)
    with gzip.open(kept, "rt") as f:
        lines = [json.loads(line) for line in f]
    assert [d["deal"] for d in lines] == [0, 1, 2]
    assert all(set(d["times"]) == {"easy"} for d in lines)
    before = _rows(out)[0]
    after = _rows(_run(monkeypatch, capsys, "--summarize", kept))[0]
    for key in ("deals", "diff", "diff_ci", "tested_pts", "play_ms_p50", "play_ms_p99"):
        assert after[key] == pytest.approx(before[key], abs=0.01), key


def test_compact_needs_files_to_summarize(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _run(monkeypatch, capsys, "--compact", "x.jsonl.gz")
    assert "need --summarize" in capsys.readouterr().err


def test_a_summary_as_a_row_of_the_docs_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    part = str(tmp_path / "part.jsonl")
    argv = ["--tested", "easy", "--field", "standard", "--workers", "1", "--progress", "0"]
    _run(monkeypatch, capsys, *argv, "--deals", "2", "--per-deal", part)
    out = _run(monkeypatch, capsys, "--summarize", part, "--markdown")
    row = _rows(out)[0]
    line = next(x for x in out.splitlines() if x.startswith("| "))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[:4] == ["classic", "easy", "standard", "2"]
    assert cells[6] == f"{row['diff']:.2f} ± {row['diff_ci']:.2f}"
    assert cells[-1] == "default budget; deals 0-1"
    assert (row["first_deal"], row["last_deal"], row["deal_ranges"]) == (0, 1, "0-1")


def test_compact_refuses_to_overwrite_its_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    part = tmp_path / "part.jsonl"
    argv = ["--tested", "easy", "--field", "standard", "--workers", "1", "--progress", "0"]
    _run(monkeypatch, capsys, *argv, "--deals", "1", "--per-deal", str(part))
    before = part.read_text()
    with pytest.raises(SystemExit):
        _run(monkeypatch, capsys, "--summarize", str(part), "--compact", str(part))
    assert "is one of the files to summarize" in capsys.readouterr().err
    assert part.read_text() == before


def test_deal_ranges_name_the_gaps() -> None:
    assert tournament._ranges([0, 1, 2, 5, 6, 9]) == "0-2, 5-6, 9"
    assert tournament._ranges([4]) == "4"


def test_tested_settings_apply_to_the_tested_seat_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """--tested-set: a setting changed around the tested player's decisions only, and restored
    (a paired comparison of two versions of one level on the same deals)."""
    from app.bots import inference

    seen: list[tuple[int, bool]] = []
    real = tournament.choose_move

    def recording(level: str, v: dict[str, object], **kw: object) -> dict[str, object]:
        seen.append((int(v["seat"]), inference.BELIEFS))  # type: ignore[call-overload]
        return real(level, v, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament, "choose_move", recording)
    monkeypatch.setattr(tournament, "TESTED_SET", [tournament._knob("inference.BELIEFS=false")])
    assert inference.BELIEFS is True
    tournament.play_hand("classic", 5, ["standard"] * 4, [None] * 4, 2, None)
    assert {b for s, b in seen if s == 2} == {False}
    assert {b for s, b in seen if s != 2} == {True}
    assert inference.BELIEFS is True
    seen.clear()
    tournament.play_hand("classic", 5, ["standard"] * 4, [None] * 4, -1, None)  # the baseline
    assert {b for _s, b in seen} == {True}
