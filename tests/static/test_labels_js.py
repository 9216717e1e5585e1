"""static/js/labels.js reasonWords under Node, in the page's language: a refusal that carries
named values (a refused claim's reason, the end of a ban from rated tables) is worded from the
catalog in every language, English too, never as the server's English sentence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.engine.claim import CLAIM_REASONS
from app.i18n import LANGUAGES
from tests.static.node import JS_DIR, run_node

# The page's catalogs are fetched by i18n.js: here read from the files, in the language of a
# stand-in <html lang>.
PRELUDE = r"""
import fs from "node:fs";
globalThis.document = { documentElement: { lang: process.argv[3] } };
globalThis.fetch = async (url) => {
  const text = fs.readFileSync(new URL(url), "utf-8");
  return { ok: true, status: 200, json: async () => JSON.parse(text) };
};
const { loadSection } = await import(new URL("i18n.js", process.argv[2]).href);
const { errorWords } = await import(new URL("api.js", process.argv[2]).href);
const { reasonWords } = await import(new URL("labels.js", process.argv[2]).href);
await loadSection("error");
"""
SCRIPT = (
    PRELUDE
    + r"""
const cases = JSON.parse(process.argv[4]);
console.log(JSON.stringify(cases.map((c) => reasonWords(c.code, { values: c.values }))));
"""
)

SENTENCE = "the others can still take a trick: a claim needs every remaining trick"


def words(tmp_path: Path, lang: str, cases: list[dict[str, Any]]) -> list[str]:
    out: list[str] = run_node(tmp_path, SCRIPT, JS_DIR.as_uri() + "/", lang, json.dumps(cases))
    return out


def catalog(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((JS_DIR.parent / "i18n" / f"{lang}.error.json").read_text())
    return data


def test_a_refused_claim_says_why_in_every_language(tmp_path: Path) -> None:
    claims = [
        {"code": "claim_refused", "message": SENTENCE, "values": {"reason": reason}}
        for reason in CLAIM_REASONS
    ]
    for lang in LANGUAGES:
        shown = words(tmp_path, lang, claims)
        texts = catalog(lang)
        assert shown == [texts[f"error.claim_refused.{reason}"] for reason in CLAIM_REASONS]
        assert len(set(shown)) == len(CLAIM_REASONS), lang  # each reason in its own words
        assert not any(SENTENCE in text for text in shown), lang


def test_a_bans_end_is_shown_in_the_players_language(tmp_path: Path) -> None:
    ban = {
        "code": "rated_banned",
        "message": "after leaving rated games you may join a rated table from 2027-01-15 08:00 UTC",
        "values": {"until": 1_800_000_000_000},  # 2027-01-15 08:00 UTC
    }
    french, german = (words(tmp_path, lang, [ban])[0] for lang in ("fr", "de"))
    assert "{until}" not in french and "2027" in french and "janv." in french, french
    assert "{until}" not in german and "15.01.2027" in german, german


def test_a_refusal_without_values_keeps_its_words(tmp_path: Path) -> None:
    plain = {"code": "not_your_turn", "message": "it is not your turn"}
    assert words(tmp_path, "fr", [plain]) == [catalog("fr")["error.not_your_turn"]]


def card_words(lang: str, code: str) -> str:
    """A card's name as cards.js says it, from the main catalog's card.* words."""
    main = json.loads((JS_DIR.parent / "i18n" / f"{lang}.json").read_text())
    rank, suit = main[f"card.rank.{code[0]}"], main[f"card.suit.{code[1]}"]
    return str(main["card.face"]).replace("{rank}", rank).replace("{suit}", suit)


def test_a_refused_card_is_worded_from_its_values_not_the_sentence(tmp_path: Path) -> None:
    """The card that must lead, the suit led, the half dummy's turn: from the named values in
    every language, whatever English sentence comes with them (the page once read the card out
    of 'the first trick must be led with 2C' and the half dummy out of the word 'dummy')."""
    cases = [
        {"code": "must_lead_card", "message": "no card here", "values": {"card": "2C"}},
        {
            "code": "must_lead_card",
            "message": "no card here",
            "values": {"reason": "dark", "card": "3H"},
        },
        {"code": "must_follow_suit", "message": "x", "values": {"card": "QS", "suit": "H"}},
        {"code": "wrong_hand", "message": "x", "values": {"reason": "half_dummy"}},
        {"code": "hearts_not_broken", "message": "x", "values": {"card": "QH"}},
    ]
    for lang in LANGUAGES:
        texts = catalog(lang)
        main = json.loads((JS_DIR.parent / "i18n" / f"{lang}.json").read_text())
        hearts = str(main["card.suit.H"])
        expected = [
            texts["error.must_lead_card"].replace("{card}", card_words(lang, "2C")),
            texts["error.must_lead_card.dark"].replace("{card}", card_words(lang, "3H")),
            texts["error.must_follow_suit"].replace("{suit}", hearts),
            texts["error.wrong_hand.half_dummy"],
            texts["error.hearts_not_broken"].replace("{card}", card_words(lang, "QH")),
        ]
        assert words(tmp_path, lang, cases) == expected, lang


# Both doors of a refusal's words: api.js errorWords (the API's, a socket's last error) and
# labels.js reasonWords (the table's refused commands), for each code in turn.
BOTH_SCRIPT = (
    PRELUDE
    + r"""
const codes = JSON.parse(process.argv[4]);
console.log(JSON.stringify(codes.map((code) => [errorWords(code), reasonWords(code)])));
"""
)


def test_every_refusal_reads_its_catalog_words_in_every_language_english_too(
    tmp_path: Path,
) -> None:
    """A code without values is worded from error.<code> in every language, English too (an
    English page showed the server's sentence, a French one the catalog's): both doors
    answer the catalog's text for every code the server sends, and a code with no words
    (the protocol's own) reads the catalog's general refusal, never the code itself."""
    from tests.test_catalogs import PROTOCOL_CODES, placeholders, refusal_codes

    # (A text with placeholders comes with its values: test_catalogs checks those.)
    english = catalog("en")
    worded = sorted(
        code
        for code in set(refusal_codes()) - PROTOCOL_CODES
        if not placeholders(english[f"error.{code}"])
    )
    codes = [*worded, "no_such_code"]
    for lang in LANGUAGES:
        texts = catalog(lang)
        shown = run_node(tmp_path, BOTH_SCRIPT, JS_DIR.as_uri() + "/", lang, json.dumps(codes))
        for code, (api_words, table_words) in zip(codes, shown, strict=True):
            if code == "no_such_code":
                assert api_words == texts["error.refused"], lang
                assert table_words == texts["reason.not_allowed"], lang
                continue
            assert api_words == texts[f"error.{code}"], (lang, code, api_words)
            if code not in ("busy", "not_your_turn"):  # labels.js's own words for these
                assert table_words == texts[f"error.{code}"], (lang, code, table_words)
