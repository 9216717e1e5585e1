"""The browser tests' own checks find what they look for (a check that finds nothing on a
broken page would pass every journey), and screenshots are taken only when asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import axe_problems, snap

BROKEN = (
    "<html lang=en><head><title>t</title></head><body><button></button><img src=x></body></html>"
)
FIXED = (
    "<html lang=en><head><title>t</title></head>"
    "<body><main><button>Play</button><img src=x alt='A card'></main></body></html>"
)


def test_axe_finds_nameless_controls_again_after_a_new_document(browser: Any) -> None:
    page = browser.new_page()
    try:
        for _ in range(2):  # axe is put in once per document, and found again after a load
            page.set_content(BROKEN)
            found = axe_problems(page)
            assert any(p.startswith("button-name (critical)") for p in found), found
            assert any(p.startswith("image-alt (critical)") for p in found), found
            assert axe_problems(page) == found  # a second run on the same document
        page.set_content(FIXED)
        assert axe_problems(page) == []
    finally:
        page.close()


def test_screenshots_only_when_asked(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = browser.new_page()
    try:
        page.set_content(FIXED)
        monkeypatch.delenv("HEARTS_TEST_SHOTS", raising=False)
        assert snap(page, tmp_path / "unused", "a") is None
        assert not (tmp_path / "unused").exists()
        monkeypatch.setenv("HEARTS_TEST_SHOTS", str(tmp_path / "shots"))
        taken = snap(page, None, "b")
        assert taken == tmp_path / "shots" / "b.png" and taken.stat().st_size > 0
    finally:
        page.close()
