"""Running a front-end module's check under Node.js: a script written to a file, run with its
arguments, its standard output read as JSON (skipped where Node.js is missing)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

JS_DIR = Path(__file__).resolve().parents[2] / "static" / "js"


def run_node(tmp_path: Path, script: str, *args: str) -> Any:
    """Run ``script`` (an ES module) with ``args`` and return what it printed, as JSON."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js to run the front end's modules")
    path = tmp_path / "run.mjs"
    path.write_text(script)
    done = subprocess.run([node, str(path), *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
