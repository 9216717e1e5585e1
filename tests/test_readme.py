"""The README's first screen: the two commands first, the second the very test command
`.ci/run` runs; every docs page is linked from it, and every page it links to exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.match(r"```sh\n(.*?)\n```", text, re.S)
    assert block, "README.md must start with the two commands in a ```sh block"
    return block.group(1).splitlines()


def test_the_readme_starts_with_the_two_commands() -> None:
    install_and_run, test = _commands()
    assert install_and_run.endswith("hearts-server")
    assert "pytest" in test


def test_ci_runs_the_readmes_test_command() -> None:
    test = _commands()[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test in ci.replace(' "$@"', ""), "README's test command and .ci/run differ"


def test_every_docs_page_is_one_click_from_the_readme() -> None:
    links = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", (ROOT / "README.md").read_text()))
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert pages <= links, f"docs pages missing from the README's table: {sorted(pages - links)}"


def test_every_page_the_readme_links_to_exists() -> None:
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert len(links) >= 10
    for link in links:
        if not link.startswith("http"):
            assert (ROOT / link).exists(), link
    for page in (ROOT / "docs").glob("*.md"):
        for link in re.findall(r"\]\(([^)#:]+\.md)\)", page.read_text()):
            assert (page.parent / link).exists(), f"{page.name} links to {link}"
