"""What each page downloads of its language's words at start (bench.catalogs): at most 15 KB
gzip on every page in every language, and every section whose words a page's modules use is
among them, but the refusals' words, which load at the page's first refusal."""

from __future__ import annotations

import re

import pytest

from app.i18n import LANGUAGES, SERVER_SECTIONS
from bench.catalogs import BUDGET, JS, gzip_size, measure, page_files, pages, top_sections
from tests.test_catalogs import SECTIONS

# The words a module uses, by their prefix: t("table.title"), `option.${name}`, "replay.x".
_KEY = re.compile(r"""["'`]([a-z]\w*)\.(?:\w|\$\{)""")
LAZY = ("error",)  # loaded at a page's first refusal, not at start


def prefixes(module: str) -> set[str]:
    return set(_KEY.findall((JS / module).read_text(encoding="utf-8")))


def test_the_measure_sees_every_page_and_its_own_module() -> None:
    found = pages()
    assert {"lobby", "table", "replay", "events", "clubs", "daily", "player"} <= found.keys()
    assert "table/hand.js" in found["table"] and "table/hand.js" not in found["lobby"]
    assert "option_fields.js" in found["lobby"] and "i18n.js" in found["games"]
    assert top_sections("table.js") == {"table"}
    assert page_files("fr", found["table"])[0] == "fr.json"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_page_downloads_at_most_15_kb_of_words_at_start(lang: str) -> None:
    """The main catalog and the sections its modules load at their top, gzip as served."""
    for page, by_lang in measure().items():
        files, size = by_lang[lang]["files"], by_lang[lang]["gzip"]
        assert isinstance(size, int) and size <= BUDGET, f"{page} in {lang}: {size} B, {files}"


def test_the_budget_is_the_issues() -> None:
    """15 KB, read as 15,000 bytes (the stricter reading); the sum counts each file."""
    assert BUDGET == 15_000
    assert gzip_size("en.json") > 1000


def test_a_page_loads_the_sections_its_modules_use_and_no_server_section() -> None:
    """Each page's modules find their words at start: a module using a section's prefix is on
    a page that loads the section (the refusals' words: at the first refusal instead)."""
    owner = {prefix: section for section, names in SECTIONS.items() for prefix in names}
    for page, modules in pages().items():
        loaded = set().union(*(top_sections(module) for module in modules))
        assert not loaded & set(LAZY), f"{page} loads {loaded & set(LAZY)} at start"
        assert not loaded & set(SERVER_SECTIONS), page
        for module in sorted(modules):
            wanted = {owner[p] for p in prefixes(module) if p in owner} - set(LAZY)
            missing = wanted - loaded
            assert not missing, f"{page}: {module} uses the words of {missing}, not loaded"


def test_the_check_fails_for_a_page_that_forgets_a_section() -> None:
    """The check above can fail: the table's modules use the rules' words (rules_words.js loads
    them), and without that module's load the table page would lack them."""
    table = pages()["table"]
    without = set().union(*(top_sections(m) for m in table if m != "rules_words.js"))
    assert "rules" in prefixes("rules_words.js") and "rules" not in without


def test_app_js_asks_for_each_pages_words_with_its_modules() -> None:
    """app.js PAGE_SECTIONS (the sections it asks for as it imports a page) is what the page's
    modules load at their top, for every page but My games (no section)."""
    source = (JS / "app.js").read_text(encoding="utf-8")
    block = re.search(r"const PAGE_SECTIONS = \{(.*?)\n\};", source, re.S)
    assert block is not None
    listed = {
        page: set(re.findall(r'"(\w+)"', names))
        for page, names in re.findall(r"(\w+): \[([^\]]*)\]", block.group(1))
    }
    found = {
        page: set().union(*(top_sections(m) for m in modules)) for page, modules in pages().items()
    }
    assert listed == {page: sections for page, sections in found.items() if sections}
