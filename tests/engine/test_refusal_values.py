"""Every refusal of a card carries what its words need as named values, never only inside the
English sentence: the page words a refusal from its code and values (static/js/api.js
valueWords), so a card the sentence names (the card that must lead, the one that scores) is a
value, and every catalog has the words the code and values pick, with no placeholder the values
do not fill. Found by trying every card of the seat to act in games of every preset."""

from __future__ import annotations

import json
import random
import re

import pytest

from app.engine import PRESETS, IllegalMove, PlayCard, apply, legal_moves, new_game
from app.engine.moves import PassCards
from app.i18n import CATALOG_DIR, LANGUAGES

_CARD = re.compile(r"\b(?:[2-9TJQKA][CDSH]|JK\d)\b")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# Refusals of a move the page never builds (its cards are the ones it was dealt, or shown).
NOT_WORDED = frozenset({"bad_move"})
SEEDS = 2  # games per preset, of at most 60 moves each


def catalogs() -> dict[str, dict[str, object]]:
    return {
        lang: json.loads((CATALOG_DIR / f"{lang}.error.json").read_text(encoding="utf-8"))
        for lang in LANGUAGES
    }


def refusals(preset: str, seed: int) -> list[IllegalMove]:
    """The refusals met trying every card (and face) of the seat to act, and a wrong number of
    cards to pass, along one game played by random legal moves."""
    rng = random.Random(seed)
    s = new_game(PRESETS[preset], seed)
    found: list[IllegalMove] = []
    for _ in range(60):
        if s.phase == "over":
            break
        seats = [seat for seat in range(s.t.n) if legal_moves(s, seat)]
        if not seats:
            break
        seat = seats[0]
        tries: list[object] = []
        if s.phase == "play":
            faces = (None, "light", "dark") if s.t.game == "double" else (None,)
            tries = [PlayCard(c, face) for c in range(55) for face in faces]
        elif s.phase == "pass":
            tries = [PassCards(frozenset({c})) for c in range(52)]
        for move in tries:
            try:
                apply(s, seat, move)  # type: ignore[arg-type]
            except IllegalMove as error:
                found.append(error)
        s = apply(s, seat, rng.choice(legal_moves(s, seat)))
    return found


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_refused_cards_words_come_from_its_code_and_values(preset: str) -> None:
    texts = catalogs()
    seen: set[str] = set()
    for seed in range(SEEDS):
        for error in refusals(preset, seed):
            if error.code in NOT_WORDED:
                continue
            seen.add(error.code)
            named = set(_CARD.findall(error.message))
            assert named <= {str(v) for v in error.values.values()}, (error.code, error.message)
            reason = error.values.get("reason")
            key = f"error.{error.code}.{reason}" if reason else f"error.{error.code}"
            for lang, catalog in texts.items():
                assert key in catalog, (lang, key)
                text = catalog[key]
                forms = text.values() if isinstance(text, dict) else [text]
                wanted = {name for form in forms for name in _PLACEHOLDER.findall(str(form))}
                assert wanted <= error.values.keys() - {"reason"}, (lang, key, error.values)
    assert seen, preset


def test_the_search_meets_the_refusals_that_name_a_card() -> None:
    """The games above do meet them: the first lead, a broken suit, points on the first trick,
    following suit, the half dummy's turn, Double Hearts' Dark lead."""
    codes = {
        (e.code, e.values.get("reason"))
        for preset in ("classic", "two-player-dummy", "double-hearts")
        for seed in range(SEEDS)
        for e in refusals(preset, seed)
    }
    for wanted in (
        ("must_lead_card", None),
        ("must_lead_card", "dark"),
        ("must_follow_suit", None),
        ("hearts_not_broken", None),
        ("wrong_hand", "half_dummy"),
        ("wrong_pass_count", None),
    ):
        assert wanted in codes, wanted
