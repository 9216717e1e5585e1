"""The learned beliefs: the shipped model loads, gives each unseen card a distribution over the
seats that can hold it, and its deals respect every hard fact; games without a model fall back."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bots import choose_move, inference
from app.bots.beliefs import MODELS, Beliefs, Model, card_class, model_for
from app.bots.knowledge import Knowledge
from app.engine import PRESETS, make_rules

from .test_knowledge import assert_hard_facts, seat_knowledge


def _views(preset: str, seed: int) -> list[Knowledge]:
    return seat_knowledge(preset, 1, seed)


def test_the_classic_model_loads_and_is_trained() -> None:
    m = model_for(make_rules("classic"))
    assert m is not None
    assert any(v != 0.0 for row in m.w for v in row)  # not the zero (uniform) model
    assert len({card_class(c) for c in range(52)}) == len(m.w)


def test_a_malformed_weights_file_is_refused() -> None:
    with pytest.raises(ValueError):
        Model([[0.0]], [0.0] * 52, [0.0] * 52)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_probabilities_are_a_distribution_over_the_seats_that_can_hold_the_card(seed: int) -> None:
    model = model_for(make_rules("classic"))
    assert model is not None
    for k in _views("classic", seed):
        b = Beliefs(k, model)
        known = {c: h for h, m in k.known.items() for c in range(52) if m >> c & 1}
        free = [c for c in range(52) if k.unseen >> c & 1]
        assert sorted(b.probs) == free
        for c, ps in b.probs.items():
            assert math.isclose(sum(ps.values()), 1.0, rel_tol=1e-9)
            assert all(p > 0 for p in ps.values())
            for h in k.hidden:
                if k.void[h] >> c & 1 or (c in known and known[c] != h):
                    assert ps.get(h, 0.0) == 0.0
            if c in known:
                assert ps == {known[c]: 1.0}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), draw_seed=st.integers(0, 10**6))
def test_deals_drawn_from_the_beliefs_respect_every_hard_fact(seed: int, draw_seed: int) -> None:
    model = model_for(make_rules("classic"))
    assert model is not None
    rng = random.Random(draw_seed)
    for k in _views("classic", seed):
        b = Beliefs(k, model)
        for _ in range(3):
            assert_hard_facts(k, b.draw(rng))


def test_the_draw_follows_the_model() -> None:
    """A model sure that the passer kept a card puts it there far more often than uniform deals
    do (the hand sizes never move)."""
    ks = [k for seed in range(30) for k in _views("classic", seed) if k.received and k.played]
    assert ks
    k = ks[0]
    passer = (k.seat - k.pass_offset) % k.n
    u = Beliefs(k, Model.zero())
    c = next(c for c, ps in u.probs.items() if passer in ps and len(ps) > 1)
    strong = Model.zero()
    strong.passer = [3.0 if x == c else 0.0 for x in range(52)]  # sure of this one card
    s = Beliefs(k, strong)
    assert s.probs[c][passer] > u.probs[c][passer]
    rng = random.Random(1)
    hits_u = sum(u.draw(rng)[passer] >> c & 1 for _ in range(300))
    hits_s = sum(s.draw(rng)[passer] >> c & 1 for _ in range(300))
    assert hits_s > hits_u + 20


NO_MODEL = [p for p in PRESETS if p != "classic"]


@pytest.mark.parametrize("preset", NO_MODEL)
def test_a_game_without_a_model_falls_back_to_uniform_deals(preset: str) -> None:
    rules = make_rules(preset)
    assert model_for(rules) is None
    ks = [k for seed in range(8) for k in _views(preset, 400 + seed)]
    assert ks
    for k in ks[:4]:
        assert inference.Plausibility(k).beliefs is None
        if k.legal_cards:
            mv = choose_move("expert", k.view, seed=3, budget_ms=5)
            assert mv["type"] == "play"


def test_classic_uses_the_model_unless_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    ks = _views("classic", 77)
    assert ks and ("classic", 4) in MODELS
    assert inference.Plausibility(ks[0]).beliefs is not None
    monkeypatch.setattr(inference, "BELIEFS", False)
    assert inference.Plausibility(ks[0]).beliefs is None


def test_the_beliefs_read_the_view_only() -> None:
    """The model's inputs come from a seat's view (``Knowledge``), never from a game state."""
    import inspect

    from app.bots import beliefs

    assert "GameState" not in inspect.getsource(beliefs)
    assert "app.engine.state" not in inspect.getsource(beliefs)
