"""Text rules for what people show each other: display names, account names and chat lines.

One set of character rules for names and chat (docs/limits.md "Names and chat text"):

- Names are normalised to NFKC (``ｆｕｌｌ`` -> ``full``), chat to NFC (kept as typed).
- Refused anywhere: control characters, format characters (Cf: bidi controls, zero-width
  spaces, word joiners...), surrogates, private-use and unassigned code points, line and
  paragraph separators, spaces other than U+0020, and invisible fillers that are letters or
  symbols by category (U+3164 HANGUL FILLER, U+2800 BRAILLE PATTERN BLANK, U+115F/U+1160,
  U+FFA0, every Default_Ignorable_Code_Point).
- Allowed in context only, so emoji and scripts that need them still work: U+200D ZERO WIDTH
  JOINER between two emoji or after a virama, U+200C ZERO WIDTH NON-JOINER after a virama or
  between two letters of a joining script (Arabic, Syriac...; the contexts of RFC 5892's
  CONTEXTJ rules), and one variation selector 15/16 right after a symbol or a keycap digit.
- At most ``MAX_COMBINING_MARKS`` combining marks in a row, and only after a visible base.
- A name needs at least one letter or digit.

Confusable names are compared by skeleton, as Unicode's UTS #39 section 4 defines it
(``skeleton``), with the confusables data Unicode publishes (``app/data/confusables.txt``);
``name_skeleton`` adds case folding so that names compare as people read them.

Standard library only; the data file is read once, on first use.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from importlib import resources

# Combining marks in a row after one base character. Three keeps pointed Hebrew (shin + dagesh
# + shin dot + vowel) and Tibetan stacks; the "Zalgo" names this refuses pile up many more.
MAX_COMBINING_MARKS = 3

ZWNJ = "\u200c"
ZWJ = "\u200d"
_EMOJI_VARIATION = frozenset("\ufe0e\ufe0f")  # VS15 text style, VS16 emoji style
_KEYCAP_BASES = frozenset("0123456789#*")
# Whitespace controls a chat line may contain from typing or pasting: each becomes a space.
_CHAT_SPACES = str.maketrans(dict.fromkeys("\t\n\r\v\f", " "))
_SPACES = re.compile(" {2,}")

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 17.0): invisible when
# rendered. UTS #39 drops them from skeletons; names and chat refuse them (but see the
# context rules above).
_DEFAULT_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_DEFAULT_IGNORABLE = frozenset(
    chr(cp) for low, high in _DEFAULT_IGNORABLE_RANGES for cp in range(low, high + 1)
)
# Blank-looking characters that are not default-ignorable: a braille cell with no dots, a
# musical null notehead, the Khitan filler, the object replacement character.
_BLANKS = frozenset("\u2800\U0001d159\U00016fe4\ufffc")
# Scripts whose letters join, where U+200C ZERO WIDTH NON-JOINER is a spelling (Persian).
_JOINING_SCRIPTS = (
    "ARABIC",
    "SYRIAC",
    "NKO",
    "MANDAIC",
    "MONGOLIAN",
    "ADLAM",
    "HANIFI ROHINGYA",
    "SOGDIAN",
    "MANICHAEAN",
    "PSALTER PAHLAVI",
    "PHAGS-PA",
)
_VIRAMA = 9  # canonical combining class of a virama


class TextRuleError(ValueError):
    """Text that breaks a rule; ``rule`` is stable, the message names the rule and character."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


def _u(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def _is_joining_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L") and unicodedata.name(char, "").startswith(
        _JOINING_SCRIPTS
    )


def _joiner_allowed(text: str, i: int) -> bool:
    """RFC 5892 CONTEXTJ (approximately) for ZWJ/ZWNJ, plus ZWJ inside an emoji sequence."""
    if i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    if unicodedata.combining(before) == _VIRAMA:
        return True
    if text[i] == ZWJ:
        return (
            unicodedata.category(before) in ("So", "Sk") or before in _EMOJI_VARIATION
        ) and unicodedata.category(after) == "So"
    base = i - 1
    while base > 0 and unicodedata.category(text[base]).startswith("M"):
        base -= 1
    return _is_joining_letter(text[base]) and _is_joining_letter(after)


def check_characters(text: str) -> None:
    """Raise `TextRuleError` for the first character the rules above refuse."""
    marks = 0  # combining marks since the last base character
    base_ok = False  # the previous character can carry a combining mark
    for i, char in enumerate(text):
        category = unicodedata.category(char)
        if char == " ":
            marks, base_ok = 0, False
            continue
        if category == "Cc":
            raise TextRuleError("control", f"control characters are not allowed ({_u(char)})")
        if category in ("Zl", "Zp"):
            raise TextRuleError(
                "separator", f"line and paragraph separators are not allowed ({_u(char)})"
            )
        if category == "Zs":
            raise TextRuleError("space", f"only ordinary spaces are allowed ({_u(char)})")
        if category == "Cs":
            raise TextRuleError("surrogate", "unpaired surrogates are not allowed")
        if category == "Co":
            raise TextRuleError(
                "private_use", f"private-use characters are not allowed ({_u(char)})"
            )
        if category == "Cn":
            raise TextRuleError(
                "unassigned", f"unassigned code points are not allowed (U+{ord(char):04X})"
            )
        if char in (ZWJ, ZWNJ):
            if not _joiner_allowed(text, i):
                raise TextRuleError(
                    "invisible", f"invisible characters are not allowed here ({_u(char)})"
                )
            marks, base_ok = 0, False
            continue
        if char in _EMOJI_VARIATION:
            before = text[i - 1] if i else ""
            if (
                marks
                or not before
                or not (before in _KEYCAP_BASES or unicodedata.category(before)[0] in "SP")
            ):
                raise TextRuleError(
                    "invisible", f"a variation selector must follow a symbol ({_u(char)})"
                )
            marks += 1
            continue
        if char in _DEFAULT_IGNORABLE or char in _BLANKS:
            raise TextRuleError("invisible", f"invisible characters are not allowed ({_u(char)})")
        if category == "Cf":
            raise TextRuleError("format", f"format characters are not allowed ({_u(char)})")
        if category.startswith("M"):
            if not base_ok:
                raise TextRuleError(
                    "stray_mark", f"a combining mark must follow a letter or symbol ({_u(char)})"
                )
            marks += 1
            if marks > MAX_COMBINING_MARKS:
                raise TextRuleError(
                    "mark_stack",
                    f"at most {MAX_COMBINING_MARKS} combining marks may follow one character",
                )
            continue
        marks, base_ok = 0, True


def clean_name(text: object) -> str:
    """A display or account name as stored and shown: NFKC, spaces trimmed and collapsed, and
    every character rule checked. Raises `TextRuleError`; idempotent on what it returns."""
    if not isinstance(text, str):
        raise TextRuleError("not_text", "the name must be text")
    name = unicodedata.normalize("NFKC", text)
    check_characters(name)
    name = unicodedata.normalize("NFKC", _SPACES.sub(" ", name).strip(" "))
    if not name:
        raise TextRuleError("empty", "the name must not be empty")
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise TextRuleError("no_letter", "the name needs at least one letter or digit")
    return name


def clean_chat(text: object) -> str:
    """A chat line as sent to the table: NFC, tabs and line breaks as spaces, trimmed, every
    character rule checked (refused, not silently dropped). Length is the caller's limit."""
    if not isinstance(text, str):
        raise TextRuleError("not_text", "the message must be text")
    line = unicodedata.normalize("NFC", text).translate(_CHAT_SPACES).strip(" ")
    if not line:
        raise TextRuleError("empty", "empty message")
    check_characters(line)
    return line


# --- confusables (UTS #39) ------------------------------------------------------------------


@functools.cache
def _confusables() -> dict[int, str]:
    """confusables.txt as a str.translate table: source code point -> prototype string."""
    data = resources.files("app").joinpath("data", "confusables.txt").read_text("utf-8-sig")
    table: dict[int, str] = {}
    for line in data.splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source, target = fields[0].strip(), fields[1].split()
        table[int(source, 16)] = "".join(chr(int(cp, 16)) for cp in target)
    return table


def skeleton(text: str) -> str:
    """UTS #39 section 4: NFD, drop Default_Ignorable_Code_Point characters, map each character
    by confusables.txt, NFD again. Equal skeletons mean confusable strings. Case-sensitive, as
    the standard defines it; not for display."""
    decomposed = unicodedata.normalize("NFD", text)
    visible = "".join(char for char in decomposed if char not in _DEFAULT_IGNORABLE)
    return unicodedata.normalize("NFD", visible.translate(_confusables()))


def name_skeleton(name: str) -> str:
    """The key two names are compared by: skeleton, case-folded, skeleton again. Folding after
    the first skeleton keeps "AIice" (capital i, which the data maps to l) confusable with
    "alice"; the second skeleton maps what folding produced ("Ѕ" -> "ѕ" -> "s")."""
    return skeleton(skeleton(name).casefold())


# How the pages label a computer seat: "Computer", "Computer 3", "Computer (Pro)",
# "Computer 3 (Pro)", "Computer · Pro", "Computer: Pro" (static/js/table.js, lobby.js, replay.js).
COMPUTER_WORD = "Computer"


def looks_like_computer_label(name: str) -> bool:
    """True for a name that reads as a computer seat's label in any of its forms: the word
    "Computer" (or a confusable of it) alone or followed by anything but a letter."""
    word = name_skeleton(COMPUTER_WORD)
    key = name_skeleton(name)
    return key == word or (key.startswith(word) and not key[len(word)].isalpha())
