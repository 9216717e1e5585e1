"""The beliefs training: the self-play file resumes, the samples carry the true holders, and a
stopped fit resumes to the very weights of a fit never stopped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from app.bots.beliefs import Model
from training import beliefs_data, beliefs_train, selfplay


@pytest.fixture(scope="module")
def hands() -> list[str]:
    return [json.dumps(selfplay.play(i, "standard", None)) for i in range(3)]


def test_a_torn_last_hand_is_dropped_and_the_run_resumes_after_it(tmp_path: Path) -> None:
    path = tmp_path / "sp.jsonl"
    rec = selfplay.play(0, "standard", None)
    path.write_text(json.dumps(rec) + "\n" + json.dumps(rec)[:40])
    assert selfplay.done_hands(str(path)) == 1
    assert path.read_text() == json.dumps(rec) + "\n"


def test_every_sample_is_labelled_with_the_true_holder(hands: list[str]) -> None:
    d = beliefs_data.build(hands)
    n = len(d["y"])
    assert n > 100 and d["x"].shape[0] == n and d["held"].sum() > 0
    # the label is a seat that can hold the card, and at least two can
    assert np.isfinite(d["off"][np.arange(n), d["y"]]).all()
    assert (np.isfinite(d["off"]).sum(axis=1) >= 2).all()
    # and it is the truth: replay the first hand and check its first view's cards
    rec = json.loads(hands[0])
    s, k = next(beliefs_data.positions(rec, every_seat=False))
    rows = beliefs_data.samples(s, beliefs_data.features(k))
    for c, hs, _f, _o, y in rows:
        assert s.hands[hs[y]] >> c & 1
        assert not k.own_hands[k.seat] >> c & 1


def _fit(data: Path, out: Path, ck: Path, epochs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["x", "--data", str(data), "--out", str(out), "--checkpoint", str(ck)]
    argv += ["--epochs", str(epochs), "--batch", "512", "--hidden", "4"]
    monkeypatch.setattr(sys, "argv", argv)
    beliefs_train.main()


def test_a_stopped_fit_resumes_to_the_same_weights(
    hands: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "samples.npz"
    np.savez(data, **beliefs_data.build(hands))  # type: ignore[arg-type]
    _fit(data, tmp_path / "a.json", tmp_path / "a.npz", 3, monkeypatch)
    _fit(data, tmp_path / "b.json", tmp_path / "b.npz", 1, monkeypatch)
    _fit(data, tmp_path / "b.json", tmp_path / "b.npz", 3, monkeypatch)
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    for key in ("w", "passer", "receiver", "w1", "b1", "w2"):
        assert a[key] == b[key]
    assert a["made_by"]["epochs"] == 3
    m = Model.load(tmp_path / "a.json")  # what the trainer writes, the bots read
    assert len(m.w1) == 4
    # it learned something on the samples it saw (below the uniform deal's loss)
    train = beliefs_train.split(dict(np.load(data)), False)
    p = {k: np.array(a[k], dtype=float) for k in ("w", "passer", "receiver", "w1", "b1", "w2")}
    zero = beliefs_train.init(4, 34)
    assert beliefs_train.loss_grad(p, train, 0.0)[0] < beliefs_train.loss_grad(zero, train, 0.0)[0]
