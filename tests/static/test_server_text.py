"""The page words the server's refusals from their codes and named values, never from the
English sentence (``message``) that comes with them for API clients and logs: no module of
static/js reads that sentence with a pattern or a string search, or hands it on to be shown."""

from __future__ import annotations

import re

from tests.static.node import JS_DIR

# A regular expression run on a message (/led with (.+)$/.exec(message), /dummy/.test(msg.message))
# or a string search in one (message.includes("dummy"), error.message.match(...)).
_READS = re.compile(
    r"""\.(?:exec|test)\(\s*\(?\s*[\w.]*message\b"""
    r"""|\bmessage\s*(?:\|\|\s*["'`]{2}\s*\)?)?\s*\.\s*(?:match|matchAll|includes|startsWith|endsWith|indexOf|search|split|replace)\("""
)


# The sentence handed on to be shown: the server's payload's `message` given to the words of
# a refusal (errorWords(error.code, error.message, ...), new ApiError(status, detail.code,
# detail.message), reasonWords(msg.code, msg.message)): they word the code and its values.
_PASSES = re.compile(
    r"""\b(?:errorWords|reasonWords|ApiError)\([^)]*\b(?:msg|detail|data|error|err)\.message\b"""
)


def reads_of_sentences(text: str) -> list[str]:
    return [
        line.strip() for line in text.splitlines() if _READS.search(line) or _PASSES.search(line)
    ]


def test_no_module_reads_the_servers_sentence() -> None:
    found = {
        module.relative_to(JS_DIR).as_posix(): reads
        for module in sorted(JS_DIR.rglob("*.js"))
        if (reads := reads_of_sentences(module.read_text(encoding="utf-8")))
    }
    assert not found, found


def test_the_scan_finds_the_old_readings() -> None:
    """What labels.js did before the card and the half dummy came as values."""
    old = [
        'const want = /led with (.+)$/.exec(message || "");',
        'return /dummy/.test(message || "") ? t("reason.from_dummy") : t("error.wrong_hand");',
        "if (msg.message.includes('dummy')) return 1;",
        "const m = error.message.match(/(\\w\\w)$/);",
    ]
    assert [bool(reads_of_sentences(line)) for line in old] == [True] * len(old)
    # What api.js, lobby.js and table.js did before every language read the catalog.
    passed = [
        "if (detail.code) throw new ApiError(response.status, detail.code, detail.message || '');",
        "}[code] || (error && errorWords(error.code, error.message, error.values)) || t('x');",
        "const words = reasonWords(msg.code, msg.message, { ...ctx, values: msg.values });",
    ]
    assert all(reads_of_sentences(line) for line in passed)
    assert not reads_of_sentences("toast(error.message, 'error');")  # showing is not reading
