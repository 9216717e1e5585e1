"""The rules engine: the one package that knows the rules of every game in RULES.md.

Pure: standard library only, no I/O, no clock, no global random.  See docs/engine-api.md.
"""

from .cards import (
    DARK_FACE,
    card_name,
    card_str,
    cards_of,
    dark_face,
    double_card_str,
    mask_of,
    mask_str,
    parse_card,
)
from .errors import EngineError, IllegalMove, RulesError
from .game import legal_mask, new_game, passable_cards, playable_mask, seats_to_act
from .moves import (
    ChooseDirection,
    ChooseMoon,
    Claim,
    Move,
    PassCards,
    PlayCard,
    move_from_json,
    move_str,
    move_to_json,
)
from .play import apply, legal_moves, replay
from .rules import PRESET_LABELS, PRESETS, Rules, describe_options, make_rules
from .serialize import STATE_SCHEMA, state_from_json, state_to_json
from .state import GameState, HandResult, Layout, Trick, layout_from_json, layout_to_json
from .tables import Tables, tables_for
from .view import all_views, legal_json, seat_view, view

__all__ = [
    "DARK_FACE",
    "PRESETS",
    "PRESET_LABELS",
    "STATE_SCHEMA",
    "ChooseDirection",
    "ChooseMoon",
    "Claim",
    "EngineError",
    "GameState",
    "HandResult",
    "IllegalMove",
    "Layout",
    "Move",
    "PassCards",
    "PlayCard",
    "Rules",
    "RulesError",
    "Tables",
    "Trick",
    "all_views",
    "apply",
    "card_name",
    "card_str",
    "cards_of",
    "dark_face",
    "describe_options",
    "double_card_str",
    "layout_from_json",
    "layout_to_json",
    "legal_json",
    "legal_mask",
    "legal_moves",
    "make_rules",
    "mask_of",
    "mask_str",
    "move_from_json",
    "move_str",
    "move_to_json",
    "new_game",
    "parse_card",
    "passable_cards",
    "playable_mask",
    "replay",
    "seat_view",
    "seats_to_act",
    "state_from_json",
    "state_to_json",
    "tables_for",
    "view",
]
