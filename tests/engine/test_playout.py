"""The bots' in-place playouts follow exactly the rules of ``apply``."""

from __future__ import annotations

import random

import pytest

from app.engine import PRESETS, PlayCard, apply, legal_moves, make_rules, new_game, seats_to_act
from app.engine.playout import Sim, random_card, random_playout
from app.engine.tables import DARK, LIGHT


def _play_phase(preset: str, seed: int, extra_moves: int) -> object:
    s = new_game(make_rules(preset), seed)
    rng = random.Random(seed)
    while s.phase != "play":
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    for _ in range(extra_moves):
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    return s


@pytest.mark.parametrize("preset", list(PRESETS))
def test_playout_matches_the_public_api(preset: str) -> None:
    """Replaying a playout's cards through ``apply`` gives the same hand result."""
    for seed in range(12):
        s = _play_phase(preset, seed, extra_moves=seed % 5)
        sim = Sim(s)  # type: ignore[arg-type]
        rnd = random.Random(seed).random
        ref = sim.copy()
        state = s
        ref_rnd = random.Random(seed).random
        while True:
            holder = ref.turn
            c = random_card(ref.legal(), ref_rnd)
            face = LIGHT
            if ref.t.game == "double" and not ref.cards:
                forced = ref.trick_no == 0 and ref.first_lead_mask
                face = DARK if forced or ref_rnd() < 0.5 else LIGHT
            seat = ref.t.owner[holder]
            fname = ("light", "dark")[face] if ref.t.game == "double" and not ref.cards else None
            state = apply(state, seat, PlayCard(c, fname))  # type: ignore[arg-type]
            if ref.play(c, face):
                break
        points = random_playout(sim, rnd)
        assert points == ref.score()
        # the public API reached the same hand end (or a moon choice)
        result = state.history[-1].points if state.history else None  # type: ignore[attr-defined]
        if state.phase != "moon":  # type: ignore[attr-defined]
            assert list(result) == points  # type: ignore[arg-type]
