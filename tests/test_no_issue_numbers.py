"""The code names what a part is and why, never the issue that made it: a reader of the code has
no issue tracker. No source file in app/, bench/, training/ or static/ says "issue N"."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("app", "bench", "training", "static")
SUFFIXES = {".py", ".js", ".css", ".html"}
ISSUE = re.compile(r"\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)


def test_no_source_file_names_an_issue_number() -> None:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            for no, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
                if ISSUE.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


def test_the_check_finds_what_it_looks_for() -> None:
    assert ISSUE.search('"""Friends (issue 14)."""')
    assert ISSUE.search("# see issues 30")
    assert not ISSUE.search("an issue with the socket")
