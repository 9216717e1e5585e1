"""Text rules for names and chat (app/text.py): invisible and format characters, mark stacks,
NFKC, UTS #39 skeletons, computer labels."""

from __future__ import annotations

import unicodedata
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.text import (
    MAX_COMBINING_MARKS,
    TextRuleError,
    _confusables,
    check_characters,
    clean_chat,
    clean_name,
    looks_like_computer_label,
    name_skeleton,
    skeleton,
)

# The names issue 18 found accepted, and their relatives.
REFUSED_NAMES = [
    ("\u3164", "invisible"),  # HANGUL FILLER (NFKC: U+1160, also a filler)
    ("\u3164\u3164\u3164", "invisible"),
    ("\u2800", "invisible"),  # BRAILLE PATTERN BLANK
    ("Bob\u2800", "invisible"),
    ("\u115f", "invisible"),
    ("\u1160", "invisible"),
    ("\uffa0", "invisible"),
    ("a\u180eb", "invisible"),
    ("a\u200bb", "invisible"),
    ("a\u200eb", "invisible"),  # LEFT-TO-RIGHT MARK
    ("\u202eevil", "invisible"),  # RIGHT-TO-LEFT OVERRIDE
    ("a\u2060b", "invisible"),
    ("a\u2064b", "invisible"),
    ("\ufeffbob", "invisible"),
    ("bo\u00adb", "invisible"),  # SOFT HYPHEN
    ("al\u200cice", "invisible"),  # ZWNJ between Latin letters: no joining context
    ("al\u200dice", "invisible"),
    ("a\u2028b", "separator"),  # LINE SEPARATOR
    ("a\u2029b", "separator"),
    ("Z" + "\u0301" * 23, "mark_stack"),
    ("x" + "\u0301\u0302\u0303\u0304", "mark_stack"),
    ("\u0301bob", "stray_mark"),
    ("bob \u0301", "stray_mark"),
    ("bad\nname", "control"),
    ("tab\tname", "control"),
    ("a\x00b", "control"),
    ("b\u1680c", "space"),  # OGHAM SPACE MARK: not turned into a space by NFKC
    ("a\U000e0041b", "invisible"),  # TAG LATIN CAPITAL LETTER A
    ("a\U000f0000b", "private_use"),
    ("a\ue000b", "private_use"),
    ("a\U000e0080b", "unassigned"),  # reserved (and default-ignorable)
    ("a\u0378b", "unassigned"),
    ("a\ud800b", "surrogate"),
    ("a\u0600b", "format"),  # ARABIC NUMBER SIGN (Cf)
    ("", "empty"),
    ("   ", "empty"),
    ("!!!", "no_letter"),
    ("\u2665 \u2665", "no_letter"),
    ("\U0001f44d", "no_letter"),  # an emoji alone is no name
    (None, "not_text"),
    (42, "not_text"),
]


@pytest.mark.parametrize(("name", "rule"), REFUSED_NAMES)
def test_deceptive_names_are_refused_by_rule(name: object, rule: str) -> None:
    with pytest.raises(TextRuleError) as caught:
        clean_name(name)
    assert caught.value.rule == rule


def test_the_message_names_the_character() -> None:
    with pytest.raises(TextRuleError, match="U\\+2800 BRAILLE PATTERN BLANK"):
        clean_name("\u2800")
    with pytest.raises(TextRuleError, match=f"at most {MAX_COMBINING_MARKS} combining marks"):
        clean_name("Z" + "\u0301" * 23)


@pytest.mark.parametrize(
    "name",
    [
        "José",
        "Zoë",
        "Олег",
        "李雷",
        "Ann-Marie O'Neil",
        "Nguyễn Văn An",
        "محمد",
        "Ελένη",
        "다은",
        "שָּׁלוֹם",  # shin + dagesh + shin dot + qamats: three marks on one letter
        "སྒྲུབ",  # a Tibetan stack
        "अर्जुन",
        "می\u200cخواهم",  # Persian: ZWNJ between joining letters is spelling
        "क्\u200dष",  # ZWJ after a virama
        # Emoji policy: allowed beside a letter or digit, sequences included.
        "Bob \U0001f44d\U0001f3fd",
        "\u2764\ufe0f Ana",
        "\U0001f468\u200d\U0001f469\u200d\U0001f467 Dad",
        "1\ufe0f\u20e3 one",
        "Zoë \u2665",
    ],
)
def test_ordinary_international_names_are_kept(name: str) -> None:
    assert clean_name(name) == unicodedata.normalize("NFKC", name)


def test_names_are_nfkc_and_spaces_collapsed() -> None:
    assert clean_name("ｆｕｌｌ") == "full"
    assert clean_name("  Bob \u00a0  Smith\u3000") == "Bob Smith"
    assert clean_name("Zoe\u0308") == "Zoë"  # composed
    assert clean_name("ﬁsh") == "fish"
    assert clean_name("x²") == "x2"
    assert clean_name("x" + "\u0301\u0302\u0303") == "x\u0301\u0302\u0303"  # three: allowed


def test_chat_keeps_text_as_typed_but_refuses_invisible_characters() -> None:
    assert clean_chat("  hello   there  ") == "hello   there"
    assert clean_chat("ｆｕｌｌ x²") == "ｆｕｌｌ x²"  # NFC only: chat is not an identity
    assert clean_chat("line one\nline two\tend\r\n") == "line one line two\tend".replace("\t", " ")
    assert clean_chat("\U0001f44d") == "\U0001f44d"
    assert clean_chat("gg \U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f") == (
        "gg \U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f"
    )
    assert clean_chat("!!!") == "!!!"
    for bad, rule in [
        ("hi\u200bthere", "invisible"),
        ("\u3164", "invisible"),
        ("\u2800\u2800", "invisible"),
        ("\u202ereversed", "invisible"),
        ("a\u2028b", "separator"),
        ("Z" + "\u0301" * 23, "mark_stack"),
        ("bell\x07", "control"),
        ("a\U000e0041", "invisible"),
        ("   ", "empty"),
        ("\n\t", "empty"),
        (None, "not_text"),
    ]:
        with pytest.raises(TextRuleError) as caught:
            clean_chat(bad)
        assert caught.value.rule == rule, bad


def test_skeleton_follows_uts39() -> None:
    # Cyrillic а (U+0430) is confusable with Latin a in Unicode's data.
    assert skeleton("\u0430lice") == skeleton("alice") == "alice"
    # confusables.txt: 0031 DIGIT ONE -> 006C, 0049 LATIN CAPITAL I -> 006C, 0030 -> 004F.
    assert _confusables()[ord("1")] == "l" and _confusables()[ord("I")] == "l"
    assert skeleton("paypa1") == skeleton("paypal")
    assert skeleton("b0b") == "bOb"
    # Step 2 of the definition: default-ignorable characters are dropped.
    assert skeleton("pay\u200bpal") == skeleton("paypal")
    assert skeleton("\U0001d41a\U0001d425\U0001d422\U0001d41c\U0001d41e") == "alice"  # bold
    # Case-sensitive, as the standard defines it; name_skeleton folds case.
    assert skeleton("Alice") != skeleton("alice")
    assert name_skeleton("Alice") == name_skeleton("alice") == name_skeleton("\u0430lice")
    assert name_skeleton("AIice") == name_skeleton("alice")  # capital i for l
    assert name_skeleton("Bob") != name_skeleton("Rob")
    assert name_skeleton("Олег") != name_skeleton("Oleg")  # not confusable: not equal


def test_the_confusables_data_is_whole() -> None:
    text = resources.files("app").joinpath("data", "confusables.txt").read_text("utf-8-sig")
    assert "# Version: 17.0.0" in text and "terms_of_use" in text
    total = next(line for line in text.splitlines() if line.startswith("# total:"))
    assert len(_confusables()) == int(total.split(":")[1])


@pytest.mark.parametrize(
    "name",
    [
        "Computer",
        "computer",
        "Computer (Pro)",
        "Computer (Easy)",
        "Computer (Standard)",
        "Computer (Expert)",
        "Computer 3",
        "Computer 3 (Pro)",
        "Computer \u00b7 Pro",
        "Computer: Expert",
        "C0mputer (Pro)",
        "\u0421\u043emputer",  # Cyrillic С and о
        "ＣＯＭＰＵＴＥＲ",
        "Computer-2",
    ],
)
def test_computer_labels_are_recognised(name: str) -> None:
    assert looks_like_computer_label(clean_name(name))


@pytest.mark.parametrize("name", ["Computerwiz", "My Computer", "Compute", "Bob"])
def test_other_names_are_not_computer_labels(name: str) -> None:
    assert not looks_like_computer_label(name)


# --- properties --------------------------------------------------------------------------

_TRICKY = (
    list("aAlI1|0Oo \u00a0\u3000\t\n-'.")
    + ["\u0301", "\u0302", "\u0308", "\u093f", "\u094d", "\u05bc"]
    + ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\u00ad", "\u034f"]
    + ["\ufe0f", "\ufe0e", "\u20e3", "\U0001f3fd", "\U0001f468", "\u2764"]
    + ["\u3164", "\u2800", "\u115f", "\u1160", "\uffa0", "\u2028", "\u2029", "\u1680"]
    + ["\u0430", "\u0441", "\u0628", "\u0645", "\u0915", "\u0937", "\u05e9", "ｆ", "ﬁ", "²"]
)
_names = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(_TRICKY), max_size=30).map("".join),
)
_ALLOWED_INVISIBLE = frozenset("\u200c\u200d\ufe0e\ufe0f")


def _refused(char: str) -> bool:
    category = unicodedata.category(char)
    if char in _ALLOWED_INVISIBLE:
        return False
    return (
        category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
        or (category == "Zs" and char != " ")
        or char in "\u3164\u2800\u115f\u1160\uffa0\u034f\u180b\u17b4"
    )


@settings(max_examples=400, deadline=None)
@given(_names)
def test_clean_name_is_idempotent_and_never_returns_a_refused_character(text: str) -> None:
    try:
        name = clean_name(text)
    except TextRuleError:
        return
    assert clean_name(name) == name
    assert name == unicodedata.normalize("NFKC", name) and name == name.strip()
    assert "  " not in name
    assert not any(_refused(char) for char in name), ascii(name)
    run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char).startswith("M") else 0
        assert run <= MAX_COMBINING_MARKS
    check_characters(name)


@settings(max_examples=300, deadline=None)
@given(_names)
def test_clean_chat_is_idempotent_and_never_returns_a_refused_character(text: str) -> None:
    try:
        line = clean_chat(text)
    except TextRuleError:
        return
    assert clean_chat(line) == line
    assert not any(_refused(char) for char in line), ascii(line)


@settings(max_examples=300, deadline=None)
@given(_names)
def test_skeleton_is_idempotent(text: str) -> None:
    assert skeleton(skeleton(text)) == skeleton(text)
