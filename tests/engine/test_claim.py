"""Claims: the exact check against brute force over real play, and the claim's result against
every line the others can play (every preset, with and without the auto-end option)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import (
    PRESETS,
    GameState,
    IllegalMove,
    apply,
    legal_moves,
    make_rules,
    move_from_json,
    move_to_json,
    new_game,
    replay,
    seats_to_act,
    state_from_json,
    state_to_json,
)
from app.engine.claim import _Search, _targets, claim_wins_all, claimed_tricks, position
from app.engine.moves import Claim, PlayCard

from .helpers import code_of


def _endgame(preset: str, auto_end: bool, seed: int, left: int) -> GameState:
    """A real position of a random game with about ``left`` cards in each hand (maybe mid-trick)."""
    rules = make_rules(preset, {"auto_end": True} if auto_end else None)
    rng = random.Random(seed)
    s = new_game(rules, seed)
    while True:
        if s.phase == "play" and max(h.bit_count() for h in s.hands[: s.t.n]) <= left:
            return s
        if s.phase == "over":  # every hand ended by itself before: another game
            seed += 1
            s = new_game(rules, seed)
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))


def _points(s: GameState) -> tuple[int, ...]:
    """The finished hand's points per scorer (before a pending moon choice: points + bonus)."""
    if s.phase == "moon":
        k = s.t.scorers
        return tuple(a + b for a, b in zip(s.pending[:k], s.pending[k:], strict=True))
    return s.history[-1].points


def _brute(s: GameState, seat: int) -> bool:
    """Exists a claimant strategy taking every trick with one fixed hand result, against every
    line of the others: tried for each result the hand can end with."""
    hand_no = s.hand_no

    def forces(x: GameState, goal: tuple[int, ...] | None) -> bool:
        if x.hand_no != hand_no or x.phase in ("moon", "over"):
            return goal is None or _points(x) == goal
        mover = seats_to_act(x)[0]
        for mv in legal_moves(x, mover):
            n = apply(x, mover, mv)
            if len(n.tricks) > len(x.tricks) or n.hand_no != hand_no:
                last = n.tricks[-1] if n.hand_no == hand_no else n.prev_tricks[len(x.tricks)]
                ok = last.winner == seat and forces(n, goal)
            else:
                ok = forces(n, goal)
            if mover == seat and ok:
                return True
            if mover != seat and not ok:
                return False
        return mover != seat

    if not forces(s, None):
        return False
    if s.t.game != "dummy":
        return True  # every card left goes to the claimant: one result
    goals: set[tuple[int, ...]] = set()

    def ends(x: GameState) -> None:
        if x.hand_no != hand_no or x.phase in ("moon", "over"):
            goals.add(_points(x))
            return
        mover = seats_to_act(x)[0]
        for mv in legal_moves(x, mover):
            ends(apply(x, mover, mv))

    ends(s)
    return any(forces(s, g) for g in goals)


def _all_lines(search: _Search, s: GameState, seat: int, hand_no: int) -> set[tuple[int, ...]]:
    """The hand results of every line of the others while the claimant plays the search's
    winning card at each of its turns."""
    if s.hand_no != hand_no or s.phase in ("moon", "over"):
        return {_points(s)}
    mover = seats_to_act(s)[0]
    if mover == seat:
        _, (c, f) = search.keep(*position(s))
        face = ("light", "dark")[f] if s.t.game == "double" and not s.trick_cards else None
        n = apply(s, seat, PlayCard(c, face))
        assert (
            len(n.tricks) <= len(s.tricks) or n.hand_no != hand_no or (n.tricks[-1].winner == seat)
        )
        return _all_lines(search, n, seat, hand_no)
    out: set[tuple[int, ...]] = set()
    for mv in legal_moves(s, mover):
        n = apply(s, mover, mv)
        if n.hand_no == hand_no and len(n.tricks) > len(s.tricks):
            assert n.tricks[-1].winner == seat, "the winning line lost a trick"
        elif n.hand_no != hand_no:
            assert n.prev_tricks[len(s.tricks)].winner == seat
        out |= _all_lines(search, n, seat, hand_no)
    return out


@settings(max_examples=160, deadline=None)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    auto_end=st.booleans(),
    seed=st.integers(0, 10**6),
    left=st.integers(1, 3),
)
def test_claim_check_agrees_with_brute_force(
    preset: str, auto_end: bool, seed: int, left: int
) -> None:
    s = _endgame(preset, auto_end, seed, left)
    for seat in range(s.t.n):
        want = _brute(s, seat)
        assert claim_wins_all(s, seat) == want, (preset, seed, seat)
        if not want:
            assert code_of(s, seat, Claim()) == "claim_refused"
            with pytest.raises(IllegalMove) as refused:
                apply(s, seat, Claim())
            reason = "dummy" if s.t.game == "dummy" else "tricks"
            assert refused.value.values == {"reason": reason}, (preset, seed, seat)
            continue
        after = apply(s, seat, Claim())
        got = _points(after) if after.hand_no == s.hand_no else after.history[-1].points
        if after.phase == "moon":
            got = _points(after)
        # the claim's result is what play gives against every line of the others, when the
        # claimant plays the winning line for the target the claim chose
        lines: set[tuple[int, ...]] = set()
        for target in _targets(s):
            search = _Search(s, seat, target)
            if search.root(s):
                res = _all_lines(search, s, seat, s.hand_no)
                assert len(res) == 1, "an accepted claim's result depends on the others' play"
                lines |= res
        assert got in lines
        # every remaining trick went to the claimant
        tricks = after.tricks if after.hand_no == s.hand_no else after.prev_tricks
        assert all(tr.winner == seat for tr in tricks[len(s.tricks) :])


def test_claim_is_a_move_that_replays() -> None:
    """A claim goes through apply like any move: JSON, replay, the checked load."""
    assert move_from_json({"type": "claim"}) == Claim()
    assert move_to_json(Claim()) == {"type": "claim"}
    # find an accepted claim in a real game, then replay its moves
    for seed in range(200):
        rules = PRESETS["classic"]
        rng = random.Random(seed)
        s = new_game(rules, seed)
        moves: list[tuple[int, object]] = []
        while s.phase != "over" and s.hand_no == 0:
            if s.phase == "play":
                for seat in range(4):
                    if claim_wins_all(s, seat):
                        n = apply(s, seat, Claim())
                        assert replay(rules, seed, [*moves, (seat, Claim())]) == n  # type: ignore[list-item]
                        assert state_from_json(state_to_json(n)) == n
                        assert n.hand_no == 1 and sum(n.history[0].tricks_won) == 13
                        return
            seat = seats_to_act(s)[0]
            mv = rng.choice(legal_moves(s, seat))
            moves.append((seat, mv))
            s = apply(s, seat, mv)
    pytest.fail("no claim in 200 games")


def test_refused_claim_changes_nothing() -> None:
    s = new_game(PRESETS["classic"], 3)
    while s.phase != "play":
        seat = seats_to_act(s)[0]
        s = apply(s, seat, legal_moves(s, seat)[0])
    assert code_of(s, 0, Claim()) == "claim_refused"  # 13 cards each: nobody has them all
    with pytest.raises(IllegalMove) as refused:
        apply(s, 0, Claim())
    assert refused.value.values == {"reason": "tricks"}
    assert refused.value.to_json()["values"] == {"reason": "tricks"}
    p = new_game(PRESETS["classic"], 3)
    assert p.phase == "pass"
    assert code_of(p, 0, Claim()) == "wrong_phase"
    assert code_of(p, 7, Claim()) == "bad_seat"


def test_dummy_claim_counts_only_the_claimants_hand() -> None:
    """In the dummy game a trick taken by a half dummy, even the claimant's, fails a claim."""
    for seed in range(400):
        s = _endgame("two-player-dummy", False, seed, 2)
        for seat in (0, 1):
            if claim_wins_all(s, seat):
                n = apply(s, seat, Claim())
                tricks = n.tricks if n.hand_no == s.hand_no else n.prev_tricks
                assert all(tr.winner == seat for tr in tricks[len(s.tricks) :])
                return
    pytest.fail("no dummy-game claim found")


def test_claim_raises_for_a_game_over() -> None:
    s = new_game(make_rules("classic", {"end": "hands", "hands": 1}), 1)
    rng = random.Random(1)
    while s.phase != "over":
        seat = seats_to_act(s)[0]
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    with pytest.raises(IllegalMove) as e:
        apply(s, 0, Claim())
    assert e.value.code == "game_over"


def test_claimed_tricks_stop_where_auto_end_ends_the_hand() -> None:
    """With auto_end a claim plays out only the tricks play would: the hand ends once no card
    that scores is left (the rest is not played)."""
    rules = make_rules("classic", {"auto_end": True})
    for seed in range(300):
        rng = random.Random(seed)
        s = new_game(rules, seed)
        while s.hand_no == 0:
            seat = seats_to_act(s)[0]
            if s.phase == "play" and claim_wins_all(s, seat):
                after = apply(s, seat, Claim())
                got = claimed_tricks(s, after)
                left = s.t.hand_size - s.trick_no
                assert 0 < got <= left
                assert len(after.prev_tricks) == len(s.tricks) + got
                if got < left:  # the hand ended by itself before its last trick
                    played = sum(after.history[-1].tricks_won)
                    assert played == len(after.prev_tricks) < s.t.hand_size
                    return
                break
            s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    pytest.fail("no claim cut short by auto_end in 300 games")


def test_a_claim_past_the_budget_is_refused_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget counts every search of a claim together (the dummy game runs one for every
    trick, then one per value of the left-over card): one position less than an accepted claim
    needs, and it is refused as too long."""
    from app.engine import claim

    for seed in range(400):
        s = _endgame("two-player-dummy", False, seed, 3)
        seat = seats_to_act(s)[0]
        if len(_targets(s)) > 1 and claim_wins_all(s, seat):
            break
    else:
        pytest.fail("no accepted dummy-game claim")
    full = claim.claim_nodes(s, seat)
    first = _Search(s, seat, None)
    assert first.root(s) and 0 < first.nodes < full  # more than one search
    monkeypatch.setattr(claim, "NODE_BUDGET", full)
    assert claim_wins_all(s, seat)
    monkeypatch.setattr(claim, "NODE_BUDGET", full - 1)
    assert claim.claim_nodes(s, seat) == full - 1
    with pytest.raises(claim.ClaimTooLong):
        claim_wins_all(s, seat)
    with pytest.raises(IllegalMove) as e:
        apply(s, seat, Claim())
    assert e.value.code == "claim_refused" and "too long" in e.value.message
    assert e.value.values == {"reason": "too_long"}  # the page words it (error.claim_refused.*)
    assert claim.claim_outcome(state_to_json(s), seat)[1:] == (
        "claim_refused",
        e.value.message,
        {"reason": "too_long"},
    )
