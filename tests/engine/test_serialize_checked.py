"""The checked load (issue 20): ``state_from_json`` refuses with ``ValueError`` every state that
is not one the engine reaches; whatever it accepts can be viewed and played on.

The property test takes real states of every preset (and of random option sets) at random points
of random games, corrupts their JSON in the ways a stored or sent state can be wrong, and checks
that the load either refuses it or gives a state that every view, ``legal_moves`` and ``apply``
handle without an error and without hanging. The regression tests are the examples of the issue,
each first shown to break the engine when loaded unchecked.
"""

from __future__ import annotations

import copy
import json
import random
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from app.engine import (
    PRESETS,
    GameState,
    Layout,
    Rules,
    apply,
    cards_of,
    legal_moves,
    make_rules,
    new_game,
    parse_card,
    seats_to_act,
    state_from_json,
    state_to_json,
    view,
)
from app.engine.state import PHASES

from .test_properties import Policy, any_rules, choose, examples, moon_layout, shooter_policy

JSON = dict[str, Any]
Path = tuple[str | int, ...]


class Hang(Exception):
    """Raised by the time guard: the engine did not come back."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"no answer in {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def blob_of(s: GameState) -> JSON:
    """The state's JSON as it comes back from storage or the wire."""
    out: JSON = json.loads(json.dumps(state_to_json(s)))
    return out


def play_to(
    rules: Rules,
    seed: int,
    rng_seed: int,
    steps: int,
    layouts: Sequence[Layout] = (),
    policy: Policy | None = None,
    stop: str = "over",
) -> GameState:
    """The state after ``steps`` random legal moves, or the policy's (or at the phase ``stop``,
    or the end of the game)."""
    rng = random.Random(rng_seed)
    s = new_game(rules, seed, layouts)
    for _ in range(steps):
        if s.phase in ("over", stop):
            break
        if policy is not None and s.phase != "pass":
            seat = rng.choice(seats_to_act(s))
            s = apply(s, seat, policy(s, seat, rng))
        else:
            s = apply(s, *choose(s, rng))
    return s


def exercise(s: GameState, rng: random.Random, reload: bool = True, play_on: int = 40) -> None:
    """What a server and its players do with a state: the legal moves of each seat to act and
    ``apply`` of each of them (a sample when passing offers very many), every seat's and the
    spectator's view, then a random continuation; with ``reload`` the state reached must load
    checked again."""
    for seat in seats_to_act(s):
        moves = legal_moves(s, seat)
        assert moves, f"seat {seat} is to act but has no legal move"
        for mv in moves if len(moves) <= 300 else rng.sample(moves, 300):
            apply(s, seat, mv)
    for seat in (None, *range(s.players)):
        view(s, seat)
    for _ in range(play_on):
        if s.phase == "over":
            break
        s = apply(s, *choose(s, rng))
        view(s, seats_to_act(s)[0] if seats_to_act(s) else None)
    if reload:
        assert state_from_json(blob_of(s)) == s


def outcome(blob: JSON, load: Callable[[JSON], GameState], limit: float = 5) -> str:
    """How the engine fares with a loaded state: ``ok``, ``refused`` (ValueError from the load),
    ``hang``, or the name of what went wrong. A trusted load is only played, not reloaded."""
    try:
        s = load(copy.deepcopy(blob))
    except ValueError:
        return "refused"
    try:
        with time_limit(limit):
            exercise(s, random.Random(0), reload=load is checked)
    except Hang:
        return "hang"
    except Exception as e:  # the point: anything the engine throws
        return type(e).__name__
    return "ok"


def checked(blob: JSON) -> GameState:
    return state_from_json(blob)


def trusted(blob: JSON) -> GameState:
    return state_from_json(blob, trusted=True)


# --- where things are in a state's JSON -------------------------------------------------------

MASK_LISTS = ("hands", "passes", "taken")


def at(b: Any, path: Path) -> Any:
    """The value at ``path``, or None where an earlier corruption left no such place."""
    try:
        return get(b, path)
    except (KeyError, IndexError, TypeError):
        return None


def _places(b: JSON, path: Path) -> list[Path]:
    a = at(b, path)
    return [(*path, i) for i in range(len(a))] if isinstance(a, list) else []


def mask_paths(b: JSON) -> list[Path]:
    """Every card set (bit mask) in the JSON."""
    out: list[Path] = [("dead",), ("first_lead_mask",)]
    for name in MASK_LISTS:
        out += _places(b, (name,))
    for lay in _places(b, ("layouts",)):
        out += [*_places(b, (*lay, 0)), (*lay, 1)]
    out += [(*r, 6) for r in _places(b, ("history",))]
    return [p for p in out if type(at(b, p)) is int]


def card_paths(b: JSON) -> list[Path]:
    """Every single card (an index) in the JSON."""
    out = _places(b, ("trick_cards",))
    for name in ("tricks", "prev_tricks"):
        for tr in _places(b, (name,)):
            out += _places(b, (*tr, 0))
    return [p for p in out if type(at(b, p)) is int]


def all_paths(obj: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from all_paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from all_paths(v, (*path, i))


def get(b: Any, path: Path) -> Any:
    for k in path:
        b = b[k]
    return b


def put(b: Any, path: Path, value: Any) -> None:
    get(b, path[:-1])[path[-1]] = value


# --- mutations ---------------------------------------------------------------------------------

odd_ints = st.one_of(
    st.integers(-3, 60),
    st.sampled_from([-1, -(2**55), 2**55, 2**70, -(2**70), (1 << 55) - 1, 1 << 54, 1 << 52]),
    st.integers(-(2**64), 2**64),
)
odd_values = st.sampled_from(["x", "2C", "", 1.0, 3.5, True, False, None, [], {}, [1], {"a": 1}])


def set_bits(m: int) -> list[int]:
    return list(cards_of(m)) if m > 0 else []


@st.composite
def mutate(draw: st.DrawFn, b: JSON) -> str:
    """Corrupt ``b`` in place in one way; returns what was done (for the statistics)."""
    kind = draw(
        st.sampled_from(
            [
                "int",
                "int",
                "type",
                "list",
                "list",
                "move_card",
                "move_card",
                "swap_cards",
                "remove_card",
                "duplicate_card",
                "negative",
                "phase",
                "rules",
            ]
        )
    )
    ints = [p for p, v in all_paths(b) if type(v) is int and p[:1] != ("rules",)]
    lists = [p for p, v in all_paths(b) if isinstance(v, list) and p[:1] != ("rules",)]
    masks = mask_paths(b)
    if kind == "int":
        put(b, draw(st.sampled_from(ints)), draw(odd_ints))
    elif kind == "type":
        paths = [p for p, _ in all_paths(b) if p]
        put(b, draw(st.sampled_from(paths)), draw(odd_values))
    elif kind == "list":
        path = draw(st.sampled_from(lists))
        a = get(b, path)
        how = draw(st.sampled_from(["drop", "append", "clear", "double"]))
        if how == "drop" and a:
            del a[draw(st.integers(0, len(a) - 1))]
        elif how == "append":
            a.append(copy.deepcopy(draw(st.sampled_from(a))) if a else draw(odd_ints))
        elif how == "clear":
            a.clear()
        elif a:
            a.insert(0, copy.deepcopy(a[draw(st.integers(0, len(a) - 1))]))
        kind += "_" + how
    elif kind in ("move_card", "remove_card", "duplicate_card"):
        holding = [p for p in masks if set_bits(get(b, p))]
        cards_at = card_paths(b)
        if not holding:
            return "nothing"
        src = draw(st.sampled_from(holding))
        c = draw(st.sampled_from(set_bits(get(b, src))))
        if kind != "duplicate_card":
            put(b, src, get(b, src) & ~(1 << c))
        if kind != "remove_card":
            if len(cards_at) > 0 and draw(st.booleans()):
                put(b, draw(st.sampled_from(cards_at)), c)  # into a trick
            else:
                dst = draw(st.sampled_from(masks))
                put(b, dst, get(b, dst) | 1 << c)
    elif kind == "swap_cards":
        cards_at = card_paths(b)
        holding = [p for p in masks if set_bits(get(b, p))]
        if not holding:
            return "nothing"
        src = draw(st.sampled_from(holding))
        c = draw(st.sampled_from(set_bits(get(b, src))))
        if len(cards_at) > 0 and draw(st.booleans()):
            where = draw(st.sampled_from(cards_at))  # a trick's card for a card elsewhere
            d = get(b, where)
            put(b, where, c)
            put(b, src, (get(b, src) & ~(1 << c)) | (1 << d if 0 <= d < 64 else 0))
        else:
            dst = draw(st.sampled_from(holding))
            d = draw(st.sampled_from(set_bits(get(b, dst))))
            put(b, src, get(b, src) & ~(1 << c))
            put(b, dst, get(b, dst) & ~(1 << d))
            put(b, src, get(b, src) | 1 << d)
            put(b, dst, get(b, dst) | 1 << c)
    elif kind == "negative":
        path = draw(st.sampled_from(masks))
        m = get(b, path)
        put(b, path, draw(st.sampled_from([-m, ~m, -1, m | -(1 << 60), -(1 << 3)])))
    elif kind == "phase":
        if draw(st.booleans()):
            b["phase"] = draw(st.sampled_from([p for p in PHASES if p != b["phase"]]))
        else:
            b["broken"] = not b["broken"]
    else:
        other = draw(st.sampled_from(sorted(PRESETS)))
        b["rules"] = make_rules(other).to_json()
        kind += "_" + other
    return kind


@st.composite
def game_states(draw: st.DrawFn) -> GameState:
    """A real state at a random point of a random game: a preset played in full, a random option
    set ending soon, or a dealer's-choice game dealt for a moon that the shooter may score."""
    seed = draw(st.integers(0, 2**62))
    rng_seed = draw(st.integers(0, 2**32))
    steps = draw(st.one_of(st.integers(0, 60), st.integers(0, 400)))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        preset = draw(st.sampled_from(["classic", "classic-3", "classic-5-jokers", "omnibus"]))
        passing = draw(st.sampled_from(["none", "dealer"]))
        rules = make_rules(
            preset, {"passing": passing, "moon": "choice", "end": "hands", "hands": 2}
        )
        shooter = draw(st.integers(0, rules.players - 1))
        lay = moon_layout(rules, shooter, random.Random(seed))
        stop = draw(st.sampled_from(["moon", "over"]))
        return play_to(rules, seed, rng_seed, steps, [lay], shooter_policy(shooter), stop)
    rules = make_rules(draw(st.sampled_from(sorted(PRESETS)))) if kind == 1 else draw(any_rules)
    return play_to(rules, seed, rng_seed, steps)


@examples(400)  # HEARTS_EXPLORE=N: N times as many, from a fresh random start
@given(s=game_states(), data=st.data())
def test_a_corrupted_state_is_refused_or_plays(s: GameState, data: st.DataObject) -> None:
    b = blob_of(s)
    done = [data.draw(mutate(b)) for _ in range(data.draw(st.integers(1, 3)))]
    event(f"state: {s.rules.game} {s.phase}, hand {min(s.hand_no, 2)}")
    event(f"{s.phase}: {done[0]}")
    result = outcome(b, checked)
    assert result in ("refused", "ok"), f"{s.rules.preset} {s.phase} after {done}: {result}"
    if result == "ok":
        same = state_from_json(b) == s
        event(f"accepted: {'the same state' if same else 'another state'} after {done}")
    else:
        event(result)


# --- the examples of the issue, one by one -------------------------------------------------------


def find_state(preset: str, want: Callable[[GameState], bool], seed: int = 5) -> GameState:
    """The first state of a random game of ``preset`` that ``want`` accepts."""
    rules = make_rules(preset)
    for g in range(50):
        rng = random.Random(seed + g)
        s = new_game(rules, seed + g)
        while s.phase != "over":
            if want(s):
                return s
            s = apply(s, *choose(s, rng))
    raise AssertionError(f"no such state in {preset}")


def mid_trick(preset: str = "classic", played: int = 1) -> Callable[[], GameState]:
    return lambda: find_state(
        preset, lambda s: s.phase == "play" and s.trick_no > 1 and len(s.trick_cards) == played
    )


def last_passes() -> GameState:
    """Classic: every seat but one has passed, and 2C is in nobody's pass."""
    c2 = parse_card("2C")
    return find_state(
        "classic",
        lambda s: (
            s.phase == "pass"
            and sum(1 for p in s.passes if p) == 3
            and not any(p >> c2 & 1 for p in s.passes)
        ),
    )


def edit(b: JSON, change: Callable[[JSON], None]) -> JSON:
    b = copy.deepcopy(b)
    change(b)
    return b


def _holder_to_play(b: JSON) -> int:
    order: list[int] = b["order"]
    return order[len(b["trick_cards"])]


def _without_2c(b: JSON) -> None:
    b["hands"] = [h & ~(1 << parse_card("2C")) for h in b["hands"]]


def _2c_dead(b: JSON) -> None:
    _without_2c(b)
    b["dead"] = 1 << parse_card("2C")


Change = Callable[[JSON], None]
# name: (a real state, what is changed in its JSON, what the refusal says)
EXAMPLES: dict[str, tuple[Callable[[], GameState], Change, str]] = {
    "card 55 in the trick": (
        mid_trick(),
        lambda b: b["trick_cards"].__setitem__(0, 55),
        "trick_cards: 55 is not a card",
    ),
    "card 60 in a played trick": (
        mid_trick(),
        lambda b: b["tricks"][0][0].__setitem__(1, 60),
        r"tricks\[0\]: 60 is not a card",
    ),
    "card 55 in a hand": (
        mid_trick(played=0),
        lambda b: b["hands"].__setitem__(
            _holder_to_play(b), b["hands"][_holder_to_play(b)] | 1 << 55
        ),
        "has cards outside this game's deck: card 55",
    ),
    "bad led suit": (mid_trick(), lambda b: b.__setitem__("led_suit", 4), "led_suit"),
    "bad seat in the order": (mid_trick(), lambda b: b["order"].__setitem__(1, 7), "order"),
    "bad seat in the trick": (
        mid_trick(),
        lambda b: b["trick_holders"].__setitem__(0, 9),
        "playing order",
    ),
    "bad face": (
        mid_trick("double-hearts"),
        lambda b: b.__setitem__("lead_face", 2),
        "lead_face",
    ),
    "bad trick winner": (
        mid_trick(),
        lambda b: b["tricks"][0].__setitem__(2, 9),
        "the winner 9 did not play",
    ),
    "short taken list": (mid_trick(played=3), lambda b: b.__setitem__("taken", [0]), "taken"),
    "short won list": (mid_trick(played=3), lambda b: b.__setitem__("won", [0, 0]), "won"),
    "2C in no hand": (last_passes, _without_2c, "nowhere: 2C"),
    "negative hand in play": (
        mid_trick(played=0),
        lambda b: b["hands"].__setitem__(_holder_to_play(b), -b["hands"][_holder_to_play(b)]),
        "is not a set of cards",
    ),
    "negative hand while passing": (
        last_passes,
        lambda b: b["hands"].__setitem__(b["passes"].index(0), -1),
        "is not a set of cards",
    ),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_issue_examples_are_refused(name: str) -> None:
    make, change, says = EXAMPLES[name]
    good = blob_of(make())
    assert outcome(good, checked) == "ok"
    bad = edit(good, change)
    # the example does break the engine when it gets in (the trusted load takes it as it is)
    assert outcome(bad, trusted, limit=0.5) not in ("ok", "refused")
    with pytest.raises(ValueError, match=says):
        state_from_json(bad)


def _over() -> GameState:
    s = play_to(make_rules("classic", {"end": "hands", "hands": 1}), 3, 3, 200)
    assert s.phase == "over"
    return s


def _second_hand() -> GameState:
    return find_state("classic", lambda s: s.hand_no == 1 and s.phase == "play")


def _swap_hands(b: JSON) -> None:
    b["hands"][0], b["hands"][1] = b["hands"][1], b["hands"][0]


def _score_changed(b: JSON) -> None:
    """One more point for seat 0 in hand 0, in its points, its totals and the scores alike."""
    b["history"][0][3][0] += 1
    b["history"][0][5][0] += 1
    b["scores"][0] += 1


def _tricks_reordered(b: JSON) -> None:
    b["prev_tricks"][0], b["prev_tricks"][1] = b["prev_tricks"][1], b["prev_tricks"][0]


NOT_PLAYED = "not a game these rules play"
# wrong, though the engine may not trip on them at once
WRONG: dict[str, tuple[Callable[[], GameState], Change, str]] = {
    "game winner out of range": (_over, lambda b: b.__setitem__("winners", [9]), "winners"),
    "a game winner who did not win": (
        _over,
        lambda b: b.__setitem__("winners", [(b["winners"][0] + 1) % 4]),
        "winners",
    ),
    "dealer out of range": (last_passes, lambda b: b.__setitem__("dealer", 9), "dealer"),
    "negative hand number": (mid_trick(), lambda b: b.__setitem__("hand_no", -1), "hand_no"),
    "short history": (_over, lambda b: b["history"].clear(), "history"),
    "short scores": (mid_trick(), lambda b: b["scores"].pop(), "scores"),
    "card outside a 3-player deck": (
        mid_trick("classic-3"),
        lambda b: b.__setitem__("dead", b["dead"] | 1 << parse_card("2D")),
        "outside this game's deck: 2D",
    ),
    "2C dead in a 4-player game": (last_passes, _2c_dead, "0 cards are dead"),
    "a card in two places": (
        mid_trick(),
        lambda b: b["hands"].__setitem__(0, b["hands"][0] | 1 << b["trick_cards"][0]),
        "in two places",
    ),
    "a layout that deals nothing": (
        mid_trick(),
        lambda b: b.__setitem__("layouts", [[[0, 0, 0, 0], 0]]),
        r"layouts\[0\]",
    ),
    # every card in one place, every count right, yet not what this game dealt and played
    "hearts broken early": (
        lambda: find_state("classic", lambda s: s.phase == "play" and not s.broken),
        lambda b: b.__setitem__("broken", True),
        NOT_PLAYED,
    ),
    "two hands swapped": (mid_trick(played=0), _swap_hands, NOT_PLAYED),
    "another seed": (mid_trick(), lambda b: b.__setitem__("seed", b["seed"] + 1), NOT_PLAYED),
    "a score changed everywhere": (_second_hand, _score_changed, NOT_PLAYED),
    "the last hand's tricks reordered": (_second_hand, _tricks_reordered, NOT_PLAYED),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_states_the_engine_never_reaches_are_refused(name: str) -> None:
    make, change, says = WRONG[name]
    good = blob_of(make())
    assert outcome(good, checked) == "ok"
    with pytest.raises(ValueError, match=says):
        state_from_json(edit(good, change))


def test_a_negative_hand_made_legal_moves_loop_forever() -> None:
    make, change, _ = EXAMPLES["negative hand while passing"]
    bad = edit(blob_of(make()), change)
    assert outcome(bad, trusted, limit=0.5) == "hang"
    with pytest.raises(ValueError, match="hands"):
        state_from_json(bad)
