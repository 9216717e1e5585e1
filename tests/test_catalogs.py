"""The message catalogs (static/i18n/<lang>.json): every key the pages and the server use is in
every catalog, no key is unused, every translation has the same placeholders and the plural
forms its language needs, and each catalog stays small (gzip at most 15 KB).

The words of one page (or of the few modules that use them) are in section files,
``<lang>.<section>.json`` (the table's ``table.*`` keys in ``<lang>.table.json``, loaded by
i18n.js ``loadSection``): checked the same way, each holding its prefixes only, which the main
catalog does not hold. What each page downloads at start: tests/bench/test_catalogs.py."""

from __future__ import annotations

import ast
import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import engine
from app.i18n import CATALOG_DIR, DEFAULT, LANGUAGES, PLURAL_FORMS, SERVER_SECTIONS, catalog
from app.tables import BOT_LEVELS

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "static"
# Keys the code builds from a value: a card's rank and suit, and a server error code
# (error.<code>: each must be a code the server or the page's API client can send).
RANKS = "23456789TJQKA"
SUITS = "CDSH"
PASS_CYCLES = ("left", "right", "lr", "lra", "lrah", "lrh", "dealer")  # rules_words.js
DIRECTIONS = ("left", "right", "across", "hold", "other", "none")  # labels.js directionWords
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# t("key"...), plural("key"...), translate(lang, "key"...), data-i18n(-attr)="key"
_JS_KEY = re.compile(r"""(?<![\w.$])(?:t|plural|has)\(\s*["'`]([\w.]+)["'`]""")
_PY_KEY = re.compile(r"""\btranslate\(\s*\w+,\s*["']([\w.]+)["']""")
_HTML_KEY = re.compile(r'\sdata-i18n(?:-[a-z-]+)?="([\w.]+)"')


# The section files: section -> the key prefixes it holds (and the main catalog does not).
SECTIONS = {
    "table": ("table",),
    # The server's refusals (error.<code>, and reason.* for the table's cards): loaded at a
    # page's first refusal, by whatever words one (api.js for the API's).
    "error": ("error", "reason"),
    "rules": ("rules",),
    "create": ("create", "option"),
    "lobby": ("lobby", "identity", "friends"),
    "events": ("events",),
    "review": ("review",),
    "replay": ("replay",),
    "room": ("room",),
    "daily": ("daily",),
    "clubs": ("clubs",),
    "player": ("player",),
    # The server's own (app.i18n SERVER_SECTIONS): e-mails' and pushes' words (notify.*) and
    # the offline page's (offline.*); no page module uses them, so no page downloads them.
    "notify": ("notify",),
    "offline": ("offline",),
}
FILES = ("", *(f".{section}" for section in SECTIONS))  # "" is the main catalog


def load(lang: str, suffix: str = "") -> dict[str, object]:
    data = json.loads((CATALOG_DIR / f"{lang}{suffix}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def load_all(lang: str) -> dict[str, object]:
    """The main catalog and every section of ``lang``, which share no key."""
    everything: dict[str, object] = {}
    for suffix in FILES:
        part = load(lang, suffix)
        assert not part.keys() & everything.keys(), (lang, suffix, part.keys() & everything.keys())
        everything.update(part)
    return everything


def used_keys() -> set[str]:
    keys: set[str] = set()
    for module in (STATIC / "js").rglob("*.js"):
        keys.update(_JS_KEY.findall(module.read_text(encoding="utf-8")))
    for source in (ROOT / "app").rglob("*.py"):
        keys.update(_PY_KEY.findall(source.read_text(encoding="utf-8")))
    for page in ("index.html", "offline.html"):  # pages the server writes in each language
        keys.update(_HTML_KEY.findall((STATIC / page).read_text(encoding="utf-8")))
    keys.update(f"card.rank.{rank}" for rank in RANKS)
    keys.update(f"card.suit.{suit}" for suit in SUITS)
    keys.update(f"rules.pass.{cycle}" for cycle in PASS_CYCLES)
    keys.update(f"direction.{direction}" for direction in DIRECTIONS)
    keys.update(f"bot.{level}" for level in BOT_LEVELS)  # labels.js botLabel
    games = {rules.game for rules in engine.PRESETS.values()}
    keys.update(f"alerts.game.{game}" for game in games)  # alerts.js tableName
    keys.update(form_keys())
    return keys


def form_keys() -> set[str]:
    """The create form's words (option_fields.js), built from what /api/presets sends: each
    rule option's label and hint, each named choice, each preset and game."""
    keys: set[str] = set()
    for option in engine.describe_options():
        name = option["name"]
        keys.update((f"option.{name}", f"option.{name}.hint"))
        choices = option.get("choices") if option["kind"] == "choice" else None
        if isinstance(choices, list):
            keys.update(f"option.{name}.{c}" for c in choices if isinstance(c, str))
    keys.update(f"preset.{name}" for name in engine.PRESETS)
    keys.update(f"game.{rules.game}" for rules in engine.PRESETS.values())
    return keys


_JS_LITERAL = re.compile(r"""["'`]([a-z]\w*\.[\w.]+)["'`]""")


def named_in_js(keys: set[str]) -> set[str]:
    """Those of ``keys`` quoted anywhere in the page's modules: a key chosen before the call,
    ``t(dark ? "replay.dark_face" : "replay.light_face")``, is used too. (Only for the unused
    check: a quoted "hearts.player" is a storage key, not a missing catalog key.)"""
    found: set[str] = set()
    for module in (STATIC / "js").rglob("*.js"):
        found.update(_JS_LITERAL.findall(module.read_text(encoding="utf-8")))
    return found & keys


def sent_codes() -> set[str]:
    """Every quoted word of the server's code and of the page's API client: the codes the
    server can answer with (and 'network', the page's own)."""
    words: set[str] = set()
    for source in (ROOT / "app").rglob("*.py"):
        if source.name != "i18n.py":
            words.update(re.findall(r"""["']([a-z][a-z_]+)["']""", source.read_text()))
    api_js = (STATIC / "js" / "api.js").read_text()
    words.update(re.findall(r'ApiError\([\w.]+, "([a-z_]+)"', api_js))
    return words


# Where a code and a sentence side by side are no refusal a player can meet: metric names and
# their help, a setting's validation, and the rules of app/text.py (a refusal's detail: the
# code sent is bad_name or bad_chat).
NOT_REFUSALS = ("metrics.py", "settings.py", "text.py")
# Calls whose first word names a rule option, not a code (app/engine/rules.py: _bad("deck",
# "...") is RulesError("bad_option", "deck: ...")).
OPTION_CALLS = frozenset({"_bad"})
# Codes only a client other than the page meets (the page never sends what they refuse, and
# never shows what a socket it reads only for progress answers), or that the page words by its
# own keys (table.gone.*, lobby.off_*): none of them reaches a player as the server's sentence.
PROTOCOL_CODES = frozenset(
    {
        "bad_compete",  # a competition's table made by the server itself
        "bad_cursor",  # the lobby's and standings' paging cursors come from the server
        "bad_filter",  # the lobby's filter is a <select> of the server's values
        "bad_game_id",  # the review socket: the page reads only its progress messages
        "bad_hello",  # the page's hello sends the version it holds, a whole number
        "bad_hints",  # booleans and ids the form sends as such
        "bad_json",  # the page sends JSON.stringify's
        "bad_limit",  # the page's page size is its own constant
        "bad_message",  # the page's socket messages have every field
        "bad_move",  # a move the page never builds
        "bad_rated",  # as bad_hints
        "bad_request",  # the friend form sends exactly one of name, link or player id
        "bad_scores",  # an arena's results, from the server's own tables
        "bad_share",  # the review socket, as bad_game_id
        "bad_table_id",  # a table socket closed 4400: table.gone.protocol
        "bad_tables",  # the lobby opens its socket with tables=0 or 1 only
        "csrf_header_missing",  # api.js always sends the header
        "duplicate_card",  # the pass picks each card once
        "no_hello",  # the page says hello first, at once
        "no_tables",  # a socket with tables=0 never subscribes
        "policy",  # table.gone.policy, lobby.off_policy
        "unknown_kind",  # the notification settings list the server's kinds
        "unknown_type",  # the page sends only the protocol's types
    }
)
_CODE = re.compile(r"[a-z][a-z0-9_]*")


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):  # f"...": its words, a {} for each value
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def _constants(module: ast.Module) -> dict[str, ast.expr]:
    """A module's top-level names bound to text (``BUSY = "too many claims ..."``)."""
    return {
        node.targets[0].id: node.value
        for node in module.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and _text(node.value) is not None
    }


def _code_and_sentence(
    code: ast.expr, message: ast.expr, constants: dict[str, ast.expr] | None = None
) -> str | None:
    """``code`` when it is a code ("not_your_turn") and ``message`` a sentence beside it,
    written there or named (a module's constant, ``TableError("claims_busy", BUSY)``)."""
    if isinstance(message, ast.Name) and constants and message.id in constants:
        message = constants[message.id]
    said = _text(message)
    if isinstance(code, ast.Constant) and isinstance(code.value, str) and said and " " in said:
        return code.value if _CODE.fullmatch(code.value) else None
    return None


def refusal_codes() -> dict[str, str]:
    """Every refusal the server can send a player, by what all its doors share: a code and its
    English sentence side by side (``fail(404, "no_such", "...")``, ``TableError("code",
    f"...")``, ``{"code": ..., "message": ...}``, ``code=..., message=...``, an attempt limit's
    ``code=..., what=...``, a ``return "code", "..."`` handed to an error later), the sentence
    written there or a module's constant -> where first."""
    found: dict[str, str] = {}
    for source in sorted((ROOT / "app").rglob("*.py")):
        if source.name in NOT_REFUSALS:
            continue
        module = ast.parse(source.read_text(encoding="utf-8"))
        constants = _constants(module)
        for node in ast.walk(module):
            pairs: list[tuple[ast.expr, ast.expr]] = []
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                pairs += zip(node.value.elts, node.value.elts[1:], strict=False)
            elif isinstance(node, ast.Call) and ast.unparse(node.func) not in OPTION_CALLS:
                pairs += zip(node.args, node.args[1:], strict=False)
                named = {k.arg: k.value for k in node.keywords}
                if "code" in named and "message" in named:
                    pairs.append((named["code"], named["message"]))
                # limit_or_refuse(..., code="too_many_x", what="x"): "too many x; try again ..."
                if "code" in named and "what" in named:
                    pairs.append((named["code"], ast.Constant(f"too many {_text(named['what'])}")))
            elif isinstance(node, ast.Dict):
                keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
                named_values = dict(zip(keys, node.values, strict=True))
                if "code" in named_values and "message" in named_values:
                    pairs.append((named_values["code"], named_values["message"]))
            for code_node, message in pairs:
                code = _code_and_sentence(code_node, message, constants)
                if code is not None:
                    where = f"{source.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                    found.setdefault(code, where)
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_the_server_sends_has_its_words(lang: str) -> None:
    """A player reads the server's refusals in their language: each code the server can send
    (api.js errorWords, labels.js reasonWords) has its error.<code> text in every catalog,
    but the protocol's own (PROTOCOL_CODES, each with its reason)."""
    catalog = load(lang, ".error")
    codes = refusal_codes()
    missing = sorted(
        f"{code} ({where})"
        for code, where in codes.items()
        if code not in PROTOCOL_CODES and f"error.{code}" not in catalog
    )
    assert not missing, f"{lang}.json has no error.<code> for {missing}"
    assert not PROTOCOL_CODES - codes.keys(), "a protocol code the server no longer sends"


def test_the_refusal_scan_finds_every_door() -> None:
    """The scan reads each way a refusal is written (one example of each)."""
    codes = refusal_codes()
    assert codes["not_your_turn"].startswith("app/engine")  # EngineError("code", "...")
    assert "unknown_club" in codes  # fail(...)
    assert "too_many_emails" in codes  # limit_or_refuse(code=..., what=...)
    assert "bad_origin" in codes  # {"code": ..., "message": ...}
    assert "hearts_commands" not in codes  # a metric's name and help are no refusal
    assert "claims_busy" in codes  # TableError("claims_busy", BUSY): a module's constant
    assert "rated_guest" in codes  # return "rated_guest", "...": raised by the caller


def refusals_in(module: ast.Module) -> Iterator[tuple[str, ast.expr, ast.expr | None]]:
    """Each refusal of ``module`` with its values: (code, its sentence, the dict of named
    values after the sentence, a status or a wait may come between, or ``values=``), where a
    call or a ``return "code", "...", {...}`` (raised by the caller) has a code and a
    sentence side by side."""
    for node in ast.walk(module):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            given, named = node.value.elts, {}
        elif isinstance(node, ast.Call) and ast.unparse(node.func) not in OPTION_CALLS:
            given, named = node.args, {k.arg: k.value for k in node.keywords}
        else:
            continue
        for i, (code_node, message) in enumerate(zip(given, given[1:], strict=False)):
            code = _code_and_sentence(code_node, message)
            if code is not None:
                after = [value for value in given[i + 2 :] if isinstance(value, ast.Dict)]
                yield code, message, after[0] if after else named.get("values")


def refusal_values() -> dict[str, list[dict[str, str | None]]]:
    """The named values a refusal carries beside its code and sentence (app/engine/errors.py:
    ``IllegalMove("claim_refused", "...", {"reason": "too_long"})``): code -> each literal
    set of values, name -> its text when a constant (a reason), else None."""
    found: dict[str, list[dict[str, str | None]]] = {}
    for source in sorted((ROOT / "app").rglob("*.py")):
        if source.name in NOT_REFUSALS:
            continue
        for code, _, values in refusals_in(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(values, ast.Dict):
                continue
            named: dict[str, str | None] = {}
            for key, value in zip(values.keys, values.values, strict=True):
                assert isinstance(key, ast.Constant) and isinstance(key.value, str), source
                named[key.value] = _text(value)
            found.setdefault(code, []).append(named)
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_refusals_named_values_have_their_words(lang: str) -> None:
    """A refusal with named values is worded from them (api.js valueWords): its reason picks
    error.<code>.<reason>, its other values fill that text's placeholders, and the text asks
    for no value the server does not send."""
    catalog = load(lang, ".error")
    for code, each in refusal_values().items():
        for values in each:
            reason = values.get("reason")
            key = f"error.{code}.{reason}" if reason else f"error.{code}"
            assert key in catalog, f"{lang}: no words for {code} {values}"
            assert placeholders(catalog[key]) <= values.keys() - {"reason"}, (lang, key)


def test_the_value_scan_finds_the_claims_reasons_and_the_bans_end() -> None:
    """Every reason a claim is refused for (app.engine.claim.CLAIM_REASONS) is found, and the
    end of a ban from rated tables."""
    from app.engine.claim import CLAIM_REASONS

    found = refusal_values()
    assert {values["reason"] for values in found["claim_refused"]} == set(CLAIM_REASONS)
    assert [set(values) for values in found["rated_banned"]] == [{"until"}]


def _carried(said: ast.expr, values: ast.expr | None) -> bool:
    """Whether a value a sentence says (``{said}`` in its f-string) is among the refusal's
    named values: the same expression, or a value named as it is (``{"until": ...}`` for
    ``{until}``, ``{"limit": ...}`` for ``{limit}`` or ``{self.limit}``)."""
    if not isinstance(values, ast.Dict):
        return False
    text = ast.unparse(said)
    name = (
        said.attr
        if isinstance(said, ast.Attribute)
        else said.id
        if isinstance(said, ast.Name)
        else None
    )
    pairs = list(zip(values.keys, values.values, strict=True))
    if any(
        ast.unparse(value) == text or (isinstance(key, ast.Constant) and key.value == name)
        for key, value in pairs
    ):
        return True
    # Words made from a carried value ({'s' if more != 1 else ''}, {_duration(window)}), or a
    # value carried made from it ({key!r} and {"seat": str(key)}).
    carried = {ast.unparse(value) for _, value in pairs}
    inside = {ast.unparse(part) for _, value in pairs for part in ast.walk(value)}
    return text in inside or any(ast.unparse(part) in carried for part in ast.walk(said))


def unnamed_in(module: ast.Module, where: str) -> set[str]:
    """The refusals of ``module`` whose English sentence says a value (a limit, a count, a
    seat, a time) that their named values do not carry, as "code where"."""
    return {
        f"{code} {where}"
        for code, message, values in refusals_in(module)
        if code not in PROTOCOL_CODES
        and isinstance(message, ast.JoinedStr)
        and not all(
            _carried(part.value, values)
            for part in message.values
            if isinstance(part, ast.FormattedValue)
        )
    }


def unnamed_values() -> set[str]:
    found: set[str] = set()
    for source in sorted((ROOT / "app").rglob("*.py")):
        if source.name not in NOT_REFUSALS:
            module = ast.parse(source.read_text(encoding="utf-8"))
            found |= unnamed_in(module, str(source.relative_to(ROOT)))
    return found


# Refusals whose sentence still says values their named values do not carry: each wants them
# as values and the five catalogs' words to use them (docs/frontend.md "Languages"). The list
# only shrinks: a refusal converted must leave it, a new one may not join it.
NOT_YET_NAMED = frozenset(
    {
        "bad_direction app/engine/game.py",
        "bad_format app/compete/events_store.py",
        "bad_language app/api/routes.py",
        "bad_move_time app/tables/pace.py",
        "bad_name app/compete/errors.py",
        "bad_option app/engine/rules.py",
        "bad_pace app/tables/pace.py",
        "bad_position app/api/replay_rooms.py",
        "bad_seat app/api/replay_rooms.py",
        "bad_seat app/api/reviews.py",
        "bad_seat app/engine/claim.py",
        "bad_seat app/engine/game.py",
        "bad_text app/realtime/socket_input.py",
        "bad_time_zone app/tables/pace.py",
        "card_not_in_hand app/engine/game.py",
        "not_allowed app/compete/clubs.py",
        "not_your_seat app/realtime/table_commands.py",
        "option_not_available app/engine/rules.py",
        "pass_forbidden_card app/engine/game.py",
        "too_large app/realtime/endpoint.py",
        "too_large app/realtime/lobby.py",
        "too_large app/realtime/messages.py",
        "too_many_tables app/tables/limits.py",
        "unknown_option app/engine/rules.py",
        "unknown_preset app/engine/rules.py",
        "unknown_variant app/api/accounts.py",
        "wrong_phase app/engine/game.py",
    }
)


def test_a_refusal_carries_the_values_its_sentence_says() -> None:
    """A refusal's English sentence may say a limit, a count or a time only if its named
    values carry it (the page words the code from them, never from the sentence)."""
    found = unnamed_values()
    assert not found - NOT_YET_NAMED, sorted(found - NOT_YET_NAMED)
    assert not NOT_YET_NAMED - found, f"named now, take off NOT_YET_NAMED: {NOT_YET_NAMED - found}"


def test_the_unnamed_value_scan_tells_a_value_said_from_one_carried() -> None:
    said = 'raise ClubError(409, "club_full", f"a club has {limits.members_per_club} members")'
    carried = said[:-1] + ', {"limit": limits.members_per_club})'
    by_name = 'raise TableError("too_many_games", f"at most {limit} games", {"limit": limit})'
    returned = 'return "rated_games_needed", f"finish {more} more games", {}'
    assert unnamed_in(ast.parse(said), "x") == {"club_full x"}
    assert unnamed_in(ast.parse(carried), "x") == set()
    assert unnamed_in(ast.parse(by_name), "x") == set()
    assert unnamed_in(ast.parse(returned), "x") == {"rated_games_needed x"}


def placeholders(text: object) -> set[str]:
    if isinstance(text, dict):
        return set().union(*(placeholders(form) for form in text.values()))
    assert isinstance(text, str)
    return set(_PLACEHOLDER.findall(text))


def test_every_language_has_a_catalog_and_english_is_the_default() -> None:
    assert DEFAULT == "en"
    names = sorted(p.name for p in CATALOG_DIR.glob("*.json"))
    assert names == sorted(f"{lang}{suffix}.json" for lang in LANGUAGES for suffix in FILES)


def test_the_servers_own_texts_are_no_pages_download() -> None:
    """The server's own sections (e-mails, pushes, the offline page): app.i18n reads them with
    the main catalog, no page asks for them (i18n.js loadSection) and no module uses them."""
    asked = set()
    for module in (STATIC / "js").rglob("*.js"):
        text = module.read_text()
        for args in re.findall(r"""loadSection\(([^)]*)\)""", text):
            asked.update(re.findall(r"""["'](\w+)["']""", args))
        for section in SERVER_SECTIONS:
            assert not [k for k in _JS_KEY.findall(text) if k.startswith(f"{section}.")], module
    assert asked and not asked & set(SERVER_SECTIONS), asked
    assert asked <= SECTIONS.keys(), asked - SECTIONS.keys()
    for key in ("notify.your_turn.title", "offline.title"):
        assert key in catalog(DEFAULT) and key not in load(DEFAULT), key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_section_holds_its_prefixes_and_the_main_catalog_none_of_them(lang: str) -> None:
    main = load(lang)
    for section, prefixes in SECTIONS.items():
        starts = tuple(f"{prefix}." for prefix in prefixes)
        strays = [key for key in load(lang, f".{section}") if not key.startswith(starts)]
        assert not strays, f"{lang}.{section}.json holds {strays}: only {prefixes}"
        misplaced = [key for key in main if key.startswith(starts)]
        assert not misplaced, f"{misplaced} belong in {lang}.{section}.json, not {lang}.json"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_used_key_is_in_the_catalog_and_no_key_is_unused(lang: str) -> None:
    catalog = load_all(lang)
    used = used_keys()
    missing = sorted(used - catalog.keys())
    assert not missing, f"{lang}.json lacks {missing}"
    errors = {key for key in catalog if key.startswith("error.")}
    unused = sorted(catalog.keys() - used - errors - named_in_js(set(catalog)))
    assert not unused, f"{lang}.json has keys no code uses: {unused}"
    codes = sent_codes()
    reasons = {
        f"{code}.{values['reason']}"
        for code, each in refusal_values().items()
        for values in each
        if values.get("reason")
    }
    unknown = sorted(
        key
        for key in errors
        if key.removeprefix("error.") not in codes and key.removeprefix("error.") not in reasons
    )
    assert not unknown, f"{lang}.json names error codes (or reasons) nothing sends: {unknown}"


@pytest.mark.parametrize("suffix", FILES)
@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != DEFAULT])
def test_translations_have_the_same_keys_placeholders_and_their_plural_forms(
    lang: str, suffix: str
) -> None:
    english, catalog = load(DEFAULT, suffix), load(lang, suffix)
    assert catalog.keys() == english.keys()
    for key, source in english.items():
        text = catalog[key]
        assert placeholders(text) == placeholders(source), (lang, key)
        assert isinstance(text, dict) == isinstance(source, dict), (lang, key)
        if isinstance(text, dict):
            assert tuple(sorted(text)) == tuple(sorted(PLURAL_FORMS[lang])), (lang, key)
        else:
            assert isinstance(text, str) and text.strip(), (lang, key)


def test_english_plurals_have_their_forms() -> None:
    for key, text in load_all(DEFAULT).items():
        if isinstance(text, dict):
            assert sorted(text) == sorted(PLURAL_FORMS[DEFAULT]), key
            assert all("{count}" in form for form in text.values()), key


@pytest.mark.parametrize("suffix", FILES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_catalog_is_at_most_15_kb_compressed(lang: str, suffix: str) -> None:
    body = (CATALOG_DIR / f"{lang}{suffix}.json").read_bytes()
    assert len(gzip.compress(body, compresslevel=9)) <= 15 * 1024


@pytest.mark.parametrize("suffix", FILES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_catalog_is_written_sorted(lang: str, suffix: str) -> None:
    text = (CATALOG_DIR / f"{lang}{suffix}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def test_the_checks_find_keys_in_code() -> None:
    """The scan itself: it sees the keys of i18n.js's callers and of the page."""
    used = used_keys()
    assert {"who.sign_out", "page.skip", "card.face", "notify.your_turn.title"} <= used
    # a key picked by a condition inside the call (replay.js) counts as used
    assert {"replay.dark_face", "replay.light_face"} <= named_in_js(set(load_all(DEFAULT)))
    assert "hearts.player" not in named_in_js(set(load_all(DEFAULT)))  # a storage key, no text


def test_the_lobby_lists_every_game() -> None:
    """labels.js GAMES (the lobby's game filter, a name each from game.<code>) is the engine's."""
    source = (STATIC / "js" / "labels.js").read_text(encoding="utf-8")
    listed = re.search(r"export const GAMES = \[([^\]]*)\]", source)
    assert listed is not None
    games = set(re.findall(r'"(\w+)"', listed.group(1)))
    assert games == {rules.game for rules in engine.PRESETS.values()}
