"""Pro's and Expert's fast paths agree with the reference code, and Expert's inference is sound."""

from __future__ import annotations

import random

import pytest

from app.bots import choose_move
from app.bots.fast import standard_card, standard_rollout
from app.bots.flat import fast_tables, flat_ok
from app.bots.inference import Plausibility
from app.bots.knowledge import Knowledge
from app.bots.policy import policy_move, policy_ok, policy_rollout
from app.bots.standard import rollout, standard_play, standard_tables
from app.engine import (
    PRESETS,
    GameState,
    apply,
    make_rules,
    move_from_json,
    new_game,
    seats_to_act,
    view,
)
from app.engine.game import legal_mask
from app.engine.playout import Sim, policy_playout

from .test_bots import NO_CAP, _positions


def _tables(preset: str):  # type: ignore[no-untyped-def]
    from app.engine import tables_for

    return tables_for(make_rules(preset))


FLAT = sorted(p for p in PRESETS if flat_ok(_tables(p)))
POLICY = sorted(p for p in PRESETS if policy_ok(_tables(p)))


def _deals(preset: str, positions: int, per: int, base: int):  # type: ignore[no-untyped-def]
    for s in _positions(preset, positions, base=base):
        if s.phase != "play":
            continue
        seat = seats_to_act(s)[0]
        k = Knowledge(view(s, seat), s.rules)
        rng = random.Random(base)
        for _ in range(per):
            yield k, k.sample(rng)


@pytest.mark.parametrize("preset", FLAT)
def test_flat_standard_rollout_is_the_standard_rollout(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flat rollout plays exactly the Standard policy (so Pro's decisions do not change)."""
    import app.bots.policy

    monkeypatch.setattr(app.bots.policy, "SHOOT_SHARE", 99.0)  # no moon runner either
    for k, deal in _deals(preset, 12, 4, 900):
        a, b = k.sim(deal), k.sim(deal)
        assert rollout(a) == standard_rollout(b)
        assert a.taken == b.taken and a.won == b.won and a.hands == b.hands
        # and the mixed rollout with no policy players is the Standard rollout too
        if policy_ok(k.t):
            assert policy_rollout(k.sim(deal), 0) == standard_rollout(k.sim(deal))


@pytest.mark.parametrize("preset", FLAT)
def test_standard_card_is_standard_play(preset: str) -> None:
    for k, deal in _deals(preset, 10, 3, 1300):
        p = Plausibility(k)
        ft = fast_tables(k.t)
        st = standard_tables(k.t)
        for h, _c, trick_no, pos, before, led, face, broken, idx, ctx in p.events:
            hand = deal[h] | p.later[idx][h]
            legal = legal_mask(k.t, hand, trick_no, pos, led, broken, 0)
            want = standard_play(st, legal, before, led, face, p.n_in_trick) & 63
            assert standard_card(ft, legal, led, *ctx) == want


@pytest.mark.parametrize("preset", POLICY)
def test_policy_rollout_plays_the_policy(preset: str) -> None:
    for k, deal in _deals(preset, 12, 3, 1700):
        a, b = k.sim(deal), k.sim(deal)
        assert policy_playout(a, policy_move) == policy_rollout(b)
        assert a.taken == b.taken and a.won == b.won


@pytest.mark.parametrize("preset", ["classic", "two-player-28", "hooligan"])
def test_true_deal_is_fully_plausible_among_standard_players(preset: str) -> None:
    """When everyone passes and plays by Standard, the true hidden hands explain every play and
    the pass: their weight is 1; deals are drawn with weights in (0, 1]."""
    rules = make_rules(preset, {"end": "hands", "hands": 1})
    for g in range(3):
        s = new_game(rules, 40 + g)
        k_moves = 0
        while s.phase != "over":
            for seat in seats_to_act(s):
                v = view(s, seat)
                if s.phase == "play" and k_moves % 5 == 0:
                    k = Knowledge(v, s.rules)
                    p = Plausibility(k)
                    truth = list(s.hands) + [s.dead]
                    assert p.weight(truth) == 1.0
                    rng = random.Random(k_moves)
                    for _ in range(3):
                        assert 0.0 < p.weight(p.draw(rng, 3)) <= 1.0
                s = apply(s, seat, move_from_json(choose_move("standard", v, seed=0)))
                k_moves += 1
                if s.phase != "pass":
                    break


def test_expert_replays_with_inference_and_pruning() -> None:
    for s in _positions("classic", 8, base=2100):
        if s.phase != "play":
            continue
        seat = seats_to_act(s)[0]
        v = view(s, seat)
        a = choose_move("expert", v, seed=4, budget_ms=8, hard_cap_ms=NO_CAP)
        b = choose_move("expert", v, seed=4, budget_ms=8, hard_cap_ms=NO_CAP)
        assert a == b
        apply(s, seat, move_from_json(a))


def test_sims_are_not_consumed_by_reference() -> None:
    """A rollout plays a copy: the sampled position is left as it was."""
    for k, deal in _deals("classic", 4, 2, 77):
        base = k.sim(deal)
        before = (base.hands[:], base.taken[:], base.trick_no)
        policy_rollout(base.copy())
        standard_rollout(base.copy())
        assert (base.hands, base.taken, base.trick_no) == before
        assert isinstance(base, Sim)


@pytest.mark.parametrize("preset", ["double-hearts", "double-hearts-3"])
def test_double_rollout_is_the_standard_rollout(preset: str) -> None:
    from app.bots.fast import double_rollout

    for k, deal in _deals(preset, 14, 4, 950):
        dead = deal[k.t.holders] if len(deal) > k.t.holders else 0
        if k.trick_no == 0 and dead & k.t.breakers:
            # the engine's Sim lets the face-down card break hearts; the rules (and apply) do
            # not, and neither does the flat rollout
            continue
        a, b = k.sim(deal), k.sim(deal)
        assert rollout(a) == double_rollout(b)
        assert a.taken == b.taken and a.won == b.won and a.hands == b.hands


@pytest.mark.parametrize("preset", FLAT)
def test_fast_score_is_the_sims_score(preset: str) -> None:
    from app.bots.flat import fast_score

    from .test_bots import _random_position

    opts: list[dict[str, object] | None] = [None]
    if make_rules(preset).game == "classic":
        opts += [{"no_trick_bonus": True}, {"moon": "self"}, {"omnibus": "JD"}]
    for extra in opts:
        for i in range(8):
            s = _random_position(preset, 321 + i, extra)
            if s.phase != "play":
                continue
            sim = Sim(s)
            rollout(sim)
            assert fast_score(sim) == sim.score()


def _brute(sim: Sim) -> tuple[int, ...]:
    """Max-n by plain enumeration (the solver's rule: lowest own score, then the most for the
    others)."""
    h = sim.order[len(sim.cards)]
    best: tuple[int, ...] | None = None
    m = sim.legal()
    while m:
        low = m & -m
        m ^= low
        s2 = sim.copy()
        v = tuple(s2.score()) if s2.play(low.bit_length() - 1) else _brute(s2)
        if best is None or (v[h], -(sum(v) - v[h])) < (best[h], -(sum(best) - best[h])):
            best = v
    assert best is not None
    return best


@pytest.mark.parametrize("preset", ["classic", "two-player-28", "omnibus", "classic-5-jokers"])
def test_endgame_solver_is_exact(preset: str) -> None:
    from app.bots.endgame import Solver
    from app.engine import legal_moves

    rules = make_rules(preset, {"passing": "none"})
    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        s = new_game(rules, seed)
        while s.phase == "play" and max(x.bit_count() for x in s.hands) > 3:
            seat = seats_to_act(s)[0]
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))
        if s.phase != "play":
            continue
        sim = Sim(s)
        assert Solver(sim.t, s.dead, sim.moon_choice).value(sim.copy()) == _brute(sim.copy())
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("preset", ["double-hearts", "double-hearts-3"])
def test_double_policy_plays_legal_cards(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import app.bots.fast as fast
    from app.bots.policy_double import double_policy_play

    def checked(dt, hand, legal, cards, led, face, n, forced, gone):  # type: ignore[no-untyped-def]
        d = double_policy_play(dt, hand, legal, cards, led, face, n, forced, gone)
        assert legal >> (d & 63) & 1
        assert not gone & hand
        return d

    monkeypatch.setattr(fast, "double_policy_play", checked)
    for k, deal in _deals(preset, 10, 3, 4242):
        sim = k.sim(deal)
        pts = fast.double_rollout(sim, -1)
        assert not any(sim.hands)
        assert sum(pts) in (52, 52 * (k.t.n - 1))


def _duel_positions(max_cards: int, count: int) -> list[tuple[GameState, int]]:
    """28-card positions with at most ``max_cards`` in each hand, both at the start of a trick
    and after its lead, with the seat to move."""
    from app.engine import legal_moves

    rules = make_rules("two-player-28")
    out = []
    for seed in range(count):
        rng = random.Random(seed)
        s = new_game(rules, seed)
        mid = seed % 2  # stop after a lead half of the time
        while s.phase == "play" and (
            max(x.bit_count() for x in s.hands) > max_cards or len(s.trick_cards) != mid
        ):
            seat = seats_to_act(s)[0]
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))
        if s.phase == "play":
            out.append((s, seats_to_act(s)[0]))
    return out


def test_duel_is_exact() -> None:
    """The two-player alpha-beta search gives every seat the value of best play by both."""
    from app.bots.endgame import Duel

    checked = 0
    for s, _ in _duel_positions(3, 30):
        sim = Sim(s)
        truth = _brute(sim.copy())
        for me in (0, 1):
            assert Duel(sim.t, s.dead, me).value(sim.copy()) == truth[me]
            checked += 1
    assert checked > 40


def test_duel_agrees_with_the_max_n_solver() -> None:
    """Deeper positions (7 cards each, moons possible): the same values as the general solver,
    and the same candidate values through ``solve_candidates``."""
    from app.bots.endgame import Duel, Solver, solve_candidates

    checked = 0
    for s, seat in _duel_positions(7, 16):
        sim = Sim(s)
        full = Solver(sim.t, s.dead, sim.moon_choice)
        assert Duel(sim.t, s.dead, seat).value(sim.copy()) == full.value(sim.copy())[seat]
        cands = [c for c in range(52) if sim.legal() >> c & 1]
        got, nodes = solve_candidates(sim.copy(), seat, cands, s.dead)
        want = []
        for c in cands:
            sm = sim.copy()
            want.append(float(sm.score()[seat] if sm.play(c) else full.value(sm)[seat]))
        assert got == want and nodes > 0
        checked += 1
    assert checked > 10


def test_policy_half_dummy_takes_the_trick_when_it_can() -> None:
    """The dummy game: a half dummy that follows a player's lead plays its highest card of the
    suit when that takes the trick (the points go to the dummy), else its highest card under."""
    from app.engine import legal_moves

    rules = make_rules("two-player-dummy", {"passing": "none"})
    seen = {"over": 0, "under": 0}
    for seed in range(40):
        rng = random.Random(seed)
        s = new_game(rules, seed)
        while s.phase == "play":
            sim = Sim(s)
            h = sim.order[len(sim.cards)]
            legal = sim.legal()
            if h >= 2 and len(sim.cards) == 1 and legal & (legal - 1):
                lead = sim.cards[0]
                follow = legal & (0x1FFF << (13 * (lead // 13)))
                if follow:
                    over = follow & ~((2 << lead) - 1)
                    want = over.bit_length() - 1 if over else follow.bit_length() - 1
                    assert policy_move(sim, h, legal) == want
                    seen["over" if over else "under"] += 1
            seat = seats_to_act(s)[0]
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    assert seen["over"] > 20 and seen["under"] > 20
