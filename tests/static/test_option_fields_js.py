"""static/js/option_fields.js under Node: the create form asks for every rule option it shows
with the value the player sees, including a value equal to the preset's (dropping those let
the server pick a player count's usual pass instead of the one chosen)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app import engine
from tests.static.node import JS_DIR, run_node

OPTION_FIELDS_JS = JS_DIR / "option_fields.js"

SCRIPT = r"""
const { chosenOptions } = await import(process.argv[2]);
const cases = JSON.parse(process.argv[3]);
console.log(JSON.stringify(cases.map((c) => chosenOptions(c.options, c.values, c.game))));
"""


def run_chosen(tmp_path: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = run_node(
        tmp_path, SCRIPT, OPTION_FIELDS_JS.as_uri(), json.dumps(cases)
    )
    return out


def form_values(preset: str, **chosen: Any) -> dict[str, Any]:
    """What the lobby's form holds for a preset (its /api/presets values) after the player
    chose ``chosen``."""
    rules = engine.PRESETS[preset]
    values = {k: v for k, v in rules.to_json().items() if k not in ("preset", "game")}
    values.update(chosen)
    return values


def test_the_form_sends_what_the_player_chose_even_the_presets_value(tmp_path: Path) -> None:
    options = engine.describe_options()
    picks = [
        ("classic", {"players": 5, "deck": "remove_2c_2d", "pass_count": 3}),
        ("classic-5", {"players": 4, "deck": "standard", "pass_count": 2}),
        ("classic", {"end": "hands", "hands": 3}),
        ("double-hearts", {"pass_count": 3}),
    ]
    cases = [
        {"options": options, "values": form_values(p, **c), "game": engine.PRESETS[p].game}
        for p, c in picks
    ]
    sent = run_chosen(tmp_path, cases)
    for (preset, chosen), body in zip(picks, sent, strict=True):
        game = engine.PRESETS[preset].game
        assert body["pass_count"] == chosen.get("pass_count", engine.PRESETS[preset].pass_count)
        shown = {str(o["name"]) for o in options if game in o["games"]}  # type: ignore[operator]
        assert set(body) <= shown
        rules = engine.make_rules(preset, body)
        for name, value in chosen.items():
            assert rules.to_json()[name] == value, (preset, name)
    # an option whose condition does not hold (a target score with a fixed number of hands) is
    # not asked for
    assert "target_score" not in sent[2]
