"""Expert's and Pro's decisions (plays and passes) on fixed positions, beliefs off, are those
pinned in ``expert_pins.json`` (written by ``make_expert_pins.py`` before the deal-drawing code
was shared with the learned beliefs): the same moves, the same candidates, the same expected
points."""

from __future__ import annotations

import json

import pytest

from app.bots import inference

from .make_expert_pins import PATH, decisions


def test_the_pinned_decisions_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inference, "BELIEFS", False)
    want = json.loads(PATH.read_text())
    assert len(want) >= 20
    got = decisions()
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g == w, f"{w['preset']} position {w['position']} seat {w['seat']}"
