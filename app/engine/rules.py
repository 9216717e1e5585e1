"""Every variant as data: one frozen ``Rules`` value, named presets, validated option sets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from typing import Final

from .errors import RulesError

GAMES: Final = ("classic", "dummy", "twentyeight", "double")

# passing cycles; with 3 or 5 players "across" has no seat and is skipped
PASSING: Final = ("none", "left", "right", "lr", "lra", "lrah", "dealer")
DECKS: Final = {
    3: ("remove_2d", "remove_2c", "jokers"),
    4: ("standard",),
    5: ("remove_2c_2d", "jokers"),
}
FIRST_LEADS: Final = ("low_club", "any_club", "left_of_dealer")
MOONS: Final = ("others", "self", "choice")
ENDS: Final = ("score", "hands")
PASS_LIMIT_CARDS: Final = ("AS", "KS", "QS")
SPADE_PENALTY_CARDS: Final = ("AS", "KS", "TS")


@dataclass(frozen=True)
class Rules:
    """One table's rules.  Defaults are the standard 4-player game of RULES.md section 1."""

    preset: str = "classic"
    # which game of the family: classic, dummy (2 players + dummy), twentyeight, double
    game: str = "classic"
    # number of seats (people or computers); the dummy is not a seat
    players: int = 4
    # deck adjustment for 3 or 5 players (see DECKS)
    deck: str = "standard"
    # passing cycle (PASSING); the dummy game uses "lr" to mean "exchange with the other player"
    passing: str = "lrah"
    # cards passed each hand
    pass_count: int = 3
    # cards that may not be passed (any of AS, KS, QS)
    pass_forbidden: tuple[str, ...] = ()
    # who leads the first trick: holder of the lowest club leads it, leads any club, or the
    # player left of the dealer leads any card
    first_lead: str = "low_club"
    # no card that scores positive on the first trick unless the hand holds nothing else
    no_points_first_trick: bool = True
    # the queen of spades breaks hearts as well as a heart does
    queen_breaks_hearts: bool = True
    # a player who cannot follow suit must play a penalty card if holding one
    must_discard: bool = False
    # Omnibus: "JD" or "TD" scores -10 ("none": off)
    omnibus: str = "none"
    # Hooligan: the seven of clubs scores 7
    hooligan: bool = False
    # extra penalty spades and their values, e.g. (("AS", 7), ("KS", 5))
    spade_penalties: tuple[tuple[str, int], ...] = ()
    # graded hearts: A=5, K=4, Q=3, J=2, others 1
    graded_hearts: bool = False
    # a total of exactly 50 or 100 drops by 50
    exact_reset: bool = False
    # a player who takes no trick scores -5
    no_trick_bonus: bool = False
    # the hand ends by itself once no remaining trick can change a score (no card that scores is
    # left in a hand; with no_trick_bonus, every player has also taken a trick)
    auto_end: bool = False
    # shooting the moon: others add the moon total, the shooter subtracts it, or the shooter chooses
    moon: str = "others"
    # the game ends at a target score, or after a fixed number of hands
    end: str = "score"
    target_score: int = 100
    hands: int = 0

    @property
    def hand_size(self) -> int:
        if self.game == "classic":
            if self.players == 3:
                return 18 if self.deck == "jokers" else 17
            if self.players == 5:
                return 11 if self.deck == "jokers" else 10
            return 13
        if self.game == "dummy":
            return 17
        if self.game == "twentyeight":
            return 13
        return 17 if self.players == 3 else 13

    def to_options(self) -> dict[str, object]:
        """The options that differ from the preset, as JSON values (a fresh dict)."""
        return dict(_rules_options(self))

    def _options(self) -> dict[str, object]:
        base = PRESETS.get(self.preset, Rules())
        out: dict[str, object] = {}
        for f in fields(self):
            if f.name in ("preset", "game"):
                continue
            v = getattr(self, f.name)
            if v != getattr(base, f.name):
                out[f.name] = _option_json(f.name, v)
        # a player count change brings its own deck and pass count (make_rules): one the player
        # chose that equals the preset's value is kept, so that the options build these rules
        # again (classic with 5 players and a pass of 3, not the 5-player default of 2)
        if "players" in out:
            again = make_rules(self.preset, out)
            for name in ("deck", "pass_count"):
                if getattr(again, name) != getattr(self, name):
                    out[name] = _option_json(name, getattr(self, name))
        return out

    def to_json(self) -> dict[str, object]:
        """Every field, as JSON values (a fresh dict; the work is cached per rule set)."""
        return dict(_rules_json(self))


@lru_cache(maxsize=512)
def _rules_options(r: Rules) -> dict[str, object]:
    return r._options()


@lru_cache(maxsize=512)
def _rules_json(r: Rules) -> dict[str, object]:
    return {k: _option_json(k, v) for k, v in asdict(r).items()}


def _option_json(name: str, value: object) -> object:
    if name == "spade_penalties":
        return {c: v for c, v in value}  # type: ignore[attr-defined]
    if name == "pass_forbidden":
        return list(value)  # type: ignore[call-overload]
    return value


PRESETS: Final[dict[str, Rules]] = {
    "classic": Rules(preset="classic"),
    "classic-3": Rules(preset="classic-3", players=3, deck="remove_2d"),
    "classic-3-jokers": Rules(preset="classic-3-jokers", players=3, deck="jokers"),
    "classic-5": Rules(preset="classic-5", players=5, deck="remove_2c_2d", pass_count=2),
    "classic-5-jokers": Rules(preset="classic-5-jokers", players=5, deck="jokers", pass_count=2),
    "omnibus": Rules(preset="omnibus", omnibus="JD"),
    "hooligan": Rules(preset="hooligan", hooligan=True),
    "spot-hearts": Rules(preset="spot-hearts", graded_hearts=True),
    "two-player-dummy": Rules(
        preset="two-player-dummy",
        game="dummy",
        players=2,
        passing="lr",
        moon="self",
        no_points_first_trick=False,
    ),
    "two-player-28": Rules(
        preset="two-player-28",
        game="twentyeight",
        players=2,
        passing="none",
        no_points_first_trick=False,
        queen_breaks_hearts=False,
    ),
    "double-hearts": Rules(preset="double-hearts", game="double", target_score=250),
    "double-hearts-3": Rules(preset="double-hearts-3", game="double", players=3, target_score=250),
}

PRESET_LABELS: Final = {
    "classic": "Hearts, 4 players",
    "classic-3": "Hearts, 3 players (2D removed)",
    "classic-3-jokers": "Hearts, 3 players (2 jokers added)",
    "classic-5": "Hearts, 5 players (2C and 2D removed)",
    "classic-5-jokers": "Hearts, 5 players (3 jokers added)",
    "omnibus": "Omnibus Hearts (JD scores -10)",
    "hooligan": "Hooligan Hearts (7C scores 7)",
    "spot-hearts": "Spot Hearts (graded hearts)",
    "two-player-dummy": "Two players with a dummy",
    "two-player-28": "Two players, 28 cards, hearts trump",
    "double-hearts": "Double Hearts, 4 players",
    "double-hearts-3": "Double Hearts, 3 players",
}

# options a custom table may change, per game (the rest is fixed by the game's rules)
_TUNABLE: Final = {
    "classic": frozenset(f.name for f in fields(Rules)) - {"preset", "game"},
    "dummy": frozenset({"passing", "auto_end", "end", "target_score", "hands"}),
    "twentyeight": frozenset({"auto_end", "end", "target_score", "hands"}),
    "double": frozenset({"passing", "pass_count", "auto_end", "end", "target_score", "hands"}),
}

OPTION_LABELS: Final = {
    "players": "Number of players",
    "deck": "Deck for 3 or 5 players",
    "passing": "Passing cycle",
    "pass_count": "Cards passed",
    "pass_forbidden": "Cards that may not be passed",
    "first_lead": "First lead",
    "no_points_first_trick": "No points on the first trick",
    "queen_breaks_hearts": "The queen of spades breaks hearts",
    "must_discard": "A player who cannot follow must discard a penalty card",
    "omnibus": "Omnibus: this diamond scores -10",
    "hooligan": "Hooligan: the seven of clubs scores 7",
    "spade_penalties": "Penalty spades and their points",
    "graded_hearts": "Graded hearts (A=5, K=4, Q=3, J=2)",
    "exact_reset": "Exactly 50 or 100 drops by 50",
    "no_trick_bonus": "No tricks taken scores -5",
    "auto_end": "The hand ends by itself when no card that scores is left",
    "moon": "Shooting the moon",
    "end": "The game ends",
    "target_score": "Target score",
    "hands": "Number of hands",
}

_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "players": (2, 3, 4, 5),
    "deck": ("standard", "remove_2d", "remove_2c", "jokers", "remove_2c_2d"),
    "passing": PASSING,
    "first_lead": FIRST_LEADS,
    "omnibus": ("none", "JD", "TD"),
    "moon": MOONS,
    "end": ENDS,
}


_INT_RANGES: Final = {"pass_count": (1, 5), "target_score": (10, 1000), "hands": (0, 100)}


def describe_options() -> list[dict[str, object]]:
    """Every option with its label, kind, allowed values, default and the games it applies to."""
    base = Rules()
    out: list[dict[str, object]] = []
    for f in fields(Rules):
        if f.name in ("preset", "game"):
            continue
        entry: dict[str, object] = {
            "name": f.name,
            "label": OPTION_LABELS[f.name],
            "default": _option_json(f.name, getattr(base, f.name)),
            "games": [g for g in GAMES if f.name in _TUNABLE[g]],
        }
        if f.name in _CHOICES:
            entry["kind"] = "choice"
            entry["choices"] = list(_CHOICES[f.name])
        elif f.name == "pass_forbidden":
            entry["kind"] = "set"
            entry["choices"] = list(PASS_LIMIT_CARDS)
        elif f.name == "spade_penalties":
            entry["kind"] = "card_values"
            entry["choices"] = list(SPADE_PENALTY_CARDS)
        elif isinstance(getattr(base, f.name), bool):
            entry["kind"] = "bool"
        else:
            entry["kind"] = "int"
            entry["min"], entry["max"] = _INT_RANGES[f.name]
        if f.name == "players":
            # the one game whose player count is an option (classic) takes 3, 4 or 5
            entry["choices"] = sorted(DECKS)
        if f.name == "deck":
            entry["choices_by_players"] = {str(n): list(d) for n, d in DECKS.items()}
            # what make_rules picks when only the player count changes
            entry["default_by_players"] = {str(n): d[0] for n, d in DECKS.items()}
        if f.name == "passing":
            # validate(): each game's cycles, and no "across" without a seat across
            entry["choices_by_game"] = {
                "classic": list(PASSING),
                "dummy": ["none", "lr"],
                "double": [p for p in PASSING if p != "dealer"],
            }
            entry["choices_by_players"] = {
                str(n): [p for p in PASSING if n == 4 or p != "lra"] for n in (2, 3, 4, 5)
            }
        if f.name == "pass_count":
            entry["default_by_players"] = {str(n): 2 if n == 5 else 3 for n in sorted(DECKS)}
        if f.name == "spade_penalties":
            entry["min"], entry["max"] = 1, 50
        if f.name == "target_score":
            entry["only_with"] = {"end": "score"}  # a game of fixed hands has no target
        if f.name == "hands":
            # 0 is the default of a game played to a score; a game of fixed hands needs 1+,
            # and that is what a form asking for the number of hands may offer.
            entry["min"] = 1
            entry["only_with"] = {"end": "hands"}
        out.append(entry)
    return out


def _bad(name: str, message: str) -> RulesError:
    return RulesError("bad_option", f"{name}: {message}")


def _parse_bool(name: str, v: object) -> bool:
    if not isinstance(v, bool):
        raise _bad(name, f"must be true or false, not {v!r}")
    return v


def _parse_int(name: str, v: object, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad(name, f"must be a whole number, not {v!r}")
    if not lo <= v <= hi:
        raise _bad(name, f"must be between {lo} and {hi}, not {v}")
    return v


def _parse_choice(name: str, v: object, choices: tuple[object, ...]) -> object:
    # By type as well as value: 3.0 == 3 and True == 1 in Python, but neither is the choice 3.
    for choice in choices:
        if type(v) is type(choice) and v == choice:
            return choice
    allowed = ", ".join(str(c) for c in choices)
    raise _bad(name, f"{v!r} is not one of {allowed}")


def _parse_value(name: str, v: object) -> object:
    if name in _CHOICES:
        return _parse_choice(name, v, _CHOICES[name])
    if name == "pass_forbidden":
        if not isinstance(v, list | tuple):
            raise _bad(name, "must be a list of cards among AS, KS, QS")
        out: list[str] = []
        for c in v:
            if not isinstance(c, str) or c.upper() not in PASS_LIMIT_CARDS:
                raise _bad(name, f"{c!r} is not one of AS, KS, QS")
            if c.upper() not in out:
                out.append(c.upper())
        return tuple(sorted(out, key=PASS_LIMIT_CARDS.index))
    if name == "spade_penalties":
        if not isinstance(v, Mapping):
            raise _bad(name, 'must map cards to points, like {"AS": 7, "KS": 5}')
        pairs: list[tuple[str, int]] = []
        for c, p in v.items():
            if not isinstance(c, str) or c.upper() not in SPADE_PENALTY_CARDS:
                raise _bad(name, f"{c!r} is not one of AS, KS, TS")
            if any(card == c.upper() for card, _ in pairs):
                raise _bad(name, f"{c.upper()} is given twice")
            pairs.append((c.upper(), _parse_int(f"{name}.{c}", p, 1, 50)))
        return tuple(sorted(pairs, key=lambda cp: SPADE_PENALTY_CARDS.index(cp[0])))
    if name in _INT_RANGES:
        return _parse_int(name, v, *_INT_RANGES[name])
    return _parse_bool(name, v)


def make_rules(preset: str, options: Mapping[str, object] | None = None) -> Rules:
    """A preset with option overrides (JSON values), validated as a whole."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(
            "unknown_preset", f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}"
        )
    base = PRESETS[preset]
    if options is None:
        return base
    if not isinstance(options, Mapping):
        raise RulesError("bad_option", "options must be an object of name: value")
    known = {f.name for f in fields(Rules)} - {"preset", "game"}
    changes: dict[str, object] = {}
    for name, value in options.items():
        if name not in known:
            raise RulesError("unknown_option", f"unknown option {name!r}")
        parsed = _parse_value(name, value)
        if parsed == getattr(base, name):
            continue  # what the preset has already (options given explicitly still count below)
        if name not in _TUNABLE[base.game]:
            raise RulesError(
                "option_not_available",
                f"{name}: cannot be changed in {PRESET_LABELS[preset]}",
            )
        changes[name] = parsed
    # a player count change brings that count's usual deck and pass count unless they are given
    # (what the host gave is what the table plays, even when it equals the preset's value)
    if "players" in changes:
        n = changes["players"]
        if "deck" not in options:
            changes["deck"] = DECKS.get(n, ("standard",))[0]  # type: ignore[call-overload]
        if "pass_count" not in options and base.game == "classic":
            changes["pass_count"] = 2 if n == 5 else 3
    rules = replace(base, **changes)  # type: ignore[arg-type]
    validate(rules)
    return rules


def validate(r: Rules) -> None:
    """Raise ``RulesError`` for an impossible combination."""
    if r.game not in GAMES:
        raise RulesError("bad_option", f"game: unknown game {r.game!r}")
    if r.game == "classic":
        if r.players not in DECKS:
            raise _bad("players", "classic Hearts is for 3, 4 or 5 players")
        if r.deck not in DECKS[r.players]:
            raise _bad(
                "deck",
                f"with {r.players} players the deck is one of {', '.join(DECKS[r.players])}",
            )
        if r.players != 4 and r.passing == "lra":
            raise _bad(
                "passing",
                f"with {r.players} players no seat is across; choose lr or lrah",
            )
    elif r.game in ("dummy", "twentyeight"):
        if r.players != 2:
            raise _bad("players", "this game is for 2 players")
        if r.game == "dummy" and r.passing not in ("none", "lr"):
            raise _bad("passing", "in the dummy game passing is none or lr (an exchange)")
        if r.game == "twentyeight" and r.passing != "none":
            raise _bad("passing", "the 28-card game has no passing")
    else:
        if r.players not in (3, 4):
            raise _bad("players", "Double Hearts is for 3 or 4 players")
        if r.passing == "dealer":
            raise _bad("passing", "Double Hearts has no dealer's choice")
        if r.players == 3 and r.passing == "lra":
            raise _bad("passing", "with 3 players no seat is across; choose lr or lrah")
    if r.passing != "none" and r.pass_count >= r.hand_size:
        raise _bad("pass_count", "must be smaller than a hand")
    if r.end == "hands" and r.hands < 1:
        raise _bad("hands", "a fixed number of hands needs hands of 1 or more")


def rules_from_json(obj: Mapping[str, object]) -> Rules:
    """Every field as written by ``Rules.to_json`` (used for stored states)."""
    preset = obj.get("preset")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError("unknown_preset", f"unknown preset {preset!r}")
    base = PRESETS[preset]
    game = obj.get("game", base.game)
    if game != base.game:
        raise RulesError("bad_option", f"preset {preset} is not a {game} game")
    opts = {k: v for k, v in obj.items() if k not in ("preset", "game")}
    known = {f.name for f in fields(Rules)}
    changes = {}
    for k, v in opts.items():
        if k not in known:
            raise RulesError("unknown_option", f"unknown option {k!r}")
        changes[k] = _parse_value(k, v)
    r = replace(base, **changes)  # type: ignore[arg-type]
    validate(r)
    return r
