"""How many bytes of message catalogs each page downloads before it first draws, per language.

    python -m bench.catalogs            # a table: page x language, gzip KB (and the files)
    python -m bench.catalogs --json     # the same as JSON

A page is what ``static/js/app.js`` routes to: the modules every page imports (app.js's static
imports, followed) and the page's own module (each ``import("./x.js")`` of app.js, its static
imports followed). Its catalogs are the language's main one (``static/i18n/<lang>.json``, which
``i18n.js`` fetches before any page module runs) and every section a module of the page loads
at its top level (``await loadSection("name")`` or ``loadSection("name")`` on a line of its
own, not inside a function): ``static/i18n/<lang>.<name>.json``. A section a module asks for
only inside a function (the refusals' words, at a first refusal) is no part of the start.

Sizes are the files' gzip at level 9, as the server sends them (app/api/static.py compresses
each file once, so the bytes on the wire are these plus headers).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from functools import cache
from pathlib import Path

from app.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "static" / "js"
CATALOGS = ROOT / "static" / "i18n"
ENTRY = "app.js"
BUDGET = 15_000  # bytes a page may download of its language's words at start (gzip: "15 KB")

_STATIC_IMPORT = re.compile(r"""^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.[^"']+)["']""", re.M)
_BARE_IMPORT = re.compile(r"""^\s*import\s+["'](\.[^"']+)["']""", re.M)
_DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["'](\.[^"']+)["']\s*\)""")
_TOP_SECTION = re.compile(r"""^(?:await\s+)?loadSections?\(([^)]*)\)""", re.M)
_NAME = re.compile(r"""["'](\w+)["']""")


def _normal(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


@cache
def _source(module: str) -> str:
    return (JS / module).read_text(encoding="utf-8")


def static_imports(module: str) -> set[str]:
    """The modules ``module`` imports statically, followed to the end (itself included)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        text = _source(name)
        for spec in _STATIC_IMPORT.findall(text) + _BARE_IMPORT.findall(text):
            todo.append(_normal(str(Path(name).parent / spec)))
    return seen


def pages() -> dict[str, set[str]]:
    """Each page app.js routes to (named by its module) -> the modules it runs at start."""
    base = static_imports(ENTRY)
    out = {"games": base}  # My games: a module every page imports (mygames.js)
    for spec in _DYNAMIC_IMPORT.findall(_source(ENTRY)):
        module = _normal(spec)
        out[module.removesuffix(".js")] = base | static_imports(module)
    return out


def top_sections(module: str) -> set[str]:
    """The sections ``module`` loads at its top level (before the page first draws)."""
    found: set[str] = set()
    for args in _TOP_SECTION.findall(_source(module)):
        found.update(_NAME.findall(args))
    return found


def page_files(lang: str, modules: set[str]) -> list[str]:
    """The catalog files a page of ``modules`` downloads at start in ``lang``."""
    sections = sorted(set().union(*(top_sections(m) for m in modules)))
    return [f"{lang}.json", *(f"{lang}.{section}.json" for section in sections)]


def gzip_size(name: str) -> int:
    return len(gzip.compress((CATALOGS / name).read_bytes(), compresslevel=9, mtime=0))


def measure() -> dict[str, dict[str, dict[str, object]]]:
    """page -> language -> {"files": [...], "gzip": bytes}."""
    out: dict[str, dict[str, dict[str, object]]] = {}
    for page, modules in sorted(pages().items()):
        out[page] = {}
        for lang in LANGUAGES:
            files = page_files(lang, modules)
            out[page][lang] = {"files": files, "gzip": sum(gzip_size(f) for f in files)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure()
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print("page      " + "".join(f"{lang:>8}" for lang in LANGUAGES) + "   files (gzip kB)")
    for page, by_lang in result.items():
        sizes = "".join(f"{int(str(by_lang[lang]['gzip'])) / 1000:8.1f}" for lang in LANGUAGES)
        files = by_lang["en"]["files"]
        assert isinstance(files, list)
        names = " ".join(str(f).removeprefix("en").removesuffix(".json") or "main" for f in files)
        print(f"{page:10}{sizes}   {names}")
    worst = max(int(str(v["gzip"])) for by_lang in result.values() for v in by_lang.values())
    print(f"largest: {worst / 1000:.1f} kB (budget {BUDGET / 1000:.0f} kB)")


if __name__ == "__main__":
    main()
