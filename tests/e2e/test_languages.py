"""A visitor in their own language (static/js/i18n.js, app/i18n.py): with Accept-Language
French at 1280x800 and German at 390x844 (long words), the first page comes in that language
(lang, the top bar, the settings, the lobby's create form, and once signed in the friends
panel), the table's Rules, the action bar's status line, a seat and a refused card's reason
too, and at the end of a one-hand game in German on a phone, the game-over panel; the
picker in Settings switches the language without a reload; the game is played on in the new
language. axe, clipped text, overlaps and layout shift at each step (but for the switch's own
change of words, which the player asked for)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from app.i18n import CATALOG_DIR, LANGUAGES
from bench.catalogs import page_files, pages
from tests.e2e.helpers import (
    DESKTOP,
    PHONE,
    ServerInfo,
    check_page,
    layout_problems,
    mark_loaded,
    page_version,
    play_until,
    settle,
    still_same_document,
    text_problems,
    view_state,
    wait_for,
)
from tests.e2e.test_newcomer import (
    checked,
    guest_token,
    my_turn,
    new_table,
    open_page,
    pass_first_cards,
    start_at_table,
    visible_text,
)
from tests.e2e.test_topbar import TARGETS_JS

# (window, the visitor's language, the picker's next language, words each shows)
JOURNEYS = [
    pytest.param(DESKTOP, "fr", "de", id="1280x800-fr"),
    pytest.param(PHONE, "de", "fr", id="390x844-de"),
]
WORDS = {
    "fr": {
        "settings": "Réglages",
        "skip": "Aller au jeu",
        "rules": "Fournissez la couleur demandée",
        "reason": ("Vous devez", "Le premier pli", "Les cœurs", "Pas de points"),
        "create": ("Créer une table", "Créer la table", "Jeu"),
        "friends": ("Amis", "Ajouter un ami par son nom de compte", "Pas encore d'amis"),
        "turn": "À vous",
        "seat": ("Ordinateur", "pli"),
    },
    "de": {
        "settings": "Einstellungen",
        "skip": "Zum Spiel springen",
        "rules": "Bediene die ausgespielte Farbe",
        "reason": ("Du musst", "Der erste Stich", "Herz ist noch", "Keine Punkte"),
        "create": ("Tisch erstellen", "Tisch erstellen", "Spiel"),
        "friends": ("Freunde", "Freund per Kontoname hinzufügen", "Noch keine Freunde"),
        "turn": "Du bist dran",
        "seat": ("Computer", "Stich"),
    },
}


def in_language(page: Any, lang: str) -> None:
    assert page.evaluate("document.documentElement.lang") == lang
    assert visible_text(page, "#prefs-button") == WORDS[lang]["settings"]
    assert page.text_content(".skip-link") == WORDS[lang]["skip"]


def lobby_in_language(page: Any, lang: str) -> None:
    """The create form's heading, button and first label in the language."""
    title, button, game = WORDS[lang]["create"]
    assert page.text_content("#create-title") == title
    assert visible_text(page, "#create-go") == button
    assert page.text_content("label[for=create-preset]") == game


def friends_in_language(page: Any, lang: str) -> None:
    """Signed in, the lobby's friends panel (long German words at 390 px: check_page finds
    clipped text)."""
    title, label, none = WORDS[lang]["friends"]
    page.goto("/")
    wait_for(lambda: none in (page.text_content(".panel.friends") or ""), what="the friends")
    assert page.text_content("#friends-title") == title
    assert page.text_content("label[for=friend-name]") == label
    check_page(page, f"languages-friends-{lang}")


def top_bar_fits(page: Any) -> None:
    """The top bar in longer words: the player's name, Sign out, Settings (and My games on a
    desktop) all shown, each a 44 px target (layout_check.js finds overlaps and overflow)."""
    page.wait_for_selector(".topbar .who-name")
    page.wait_for_timeout(1000)  # My games' first answer (its badge; a phone has only the strip)
    targets = page.evaluate(TARGETS_JS)
    assert len(targets) >= 3, targets
    small = [t for t in targets if t["h"] < 44 or t["w"] < 44]
    assert not small, small


def table_in_language(page: Any, lang: str) -> None:
    """On my turn: the action bar's status line and a computer's seat (its tag and its count
    of tricks) in the language."""
    status = visible_text(page, "#status-line")
    assert status.startswith(WORDS[lang]["turn"]), status
    tag, tricks = WORDS[lang]["seat"]
    seat = page.locator('.seat[data-seat="1"]')
    assert (seat.locator(".tag.bot").text_content() or "").startswith(tag)
    assert tricks in (seat.locator(".i-tricks").text_content() or "")


def catalogs_fetched(page: Any) -> set[str]:
    """The catalog files this document has fetched (static/i18n/<lang>[.<section>].json)."""
    names: list[str] = page.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => n.includes('/i18n/')).map(n => n.split('/').pop())"
    )
    return set(names)


def rules_read(page: Any, lang: str, state: str) -> None:
    page.click("#rules-button")
    page.locator("#rules-dialog[open]").wait_for()
    text = page.text_content("#rules-dialog .rules-text") or ""
    assert WORDS[lang]["rules"] in text, text
    checked(page, f"languages-rules-{state}")
    page.click("#rules-close")


@pytest.mark.parametrize(("viewport", "first", "then"), JOURNEYS)
def test_a_visitor_plays_in_their_language_and_switches_without_a_reload(
    browser: Any, server: ServerInfo, viewport: dict[str, int], first: str, then: str
) -> None:
    page = open_page(browser, server, viewport, None)
    page.context.set_extra_http_headers({"Accept-Language": f"{first}-XX,{first};q=0.9,en;q=0.5"})
    try:
        page.goto("/")
        page.wait_for_selector("#create-preset option", state="attached")
        in_language(page, first)
        lobby_in_language(page, first)
        checked(page, f"languages-lobby-{first}")

        # A guest at a table of computers: the rules, then a refused card's reason.
        with httpx.Client(base_url=server.url, timeout=10) as client:
            guest = client.post("/api/guest", json={"name": "Zoé"}).json()
        token = str(guest["token"])
        page.context.add_cookies([{"name": "hearts_token", "value": token, "url": server.url}])
        # Signed in as the page would be: the top bar shows the name, Sign out, My games.
        player = json.dumps(json.dumps(guest["player"]))
        page.context.add_init_script(f"localStorage.setItem('hearts.player', {player})")
        friends_in_language(page, first)
        table = new_table(server, token, "classic", bots={"1": "easy", "2": "easy", "3": "easy"})
        start_at_table(page, table["id"])
        in_language(page, first)
        top_bar_fits(page)
        rules_read(page, first, first)
        pass_first_cards(page)
        wait_for(lambda: my_turn(page), what="the first turn")
        table_in_language(page, first)
        # The table's words came in the files bench.catalogs counts for it (within the 15 KB
        # budget), the refusals' words not before the first refusal.
        assert catalogs_fetched(page) == set(page_files(first, pages()["table"]))
        illegal = [c["card"] for c in view_state(page)["hand"] if not c["legal"]]
        before = page_version(page)
        page.click(
            f'.hand-cards .card[data-card="{illegal[0]}"]', position={"x": 8, "y": 24}, force=True
        )
        settle(page, before)
        reason = wait_for(lambda: visible_text(page, "#move-error"), what="the refusal")
        assert reason.startswith(WORDS[first]["reason"]), reason
        assert f"{first}.error.json" in catalogs_fetched(page)
        checked(page, f"languages-refused-{first}")
        # A claim at the first trick: refused, and why, in the language (the server sends the
        # reason as a named value, never a sentence for the page to show).
        before = page_version(page)
        page.click("#claim-button")
        page.click("#claim-confirm")
        settle(page, before, timeout=20_000)
        claim = wait_for(lambda: visible_text(page, "#move-error"), what="the claim's refusal")
        words = json.loads((CATALOG_DIR / f"{first}.error.json").read_text(encoding="utf-8"))
        assert claim == words["error.claim_refused.tricks"], claim
        checked(page, f"languages-claim-refused-{first}")

        # The picker: the other language at once, the same document (no reload).
        mark_loaded(page)
        page.click("#prefs-button")
        page.select_option("#pref-lang", then)
        wait_for(
            lambda: page.evaluate("document.documentElement.lang") == then, what="the new language"
        )
        page.click("#prefs-dialog button[value=close]")
        page.wait_for_selector(".table-page:not(.loading)")
        # The switch itself changes the words the player is reading (the open Settings dialog
        # takes the new words' room): that shift is the player's asking and is not counted;
        # from here on, nothing may move.
        page.wait_for_timeout(500)
        page.evaluate("() => { window.__shifts = []; }")
        assert still_same_document(page)
        in_language(page, then)
        # The new language's words: the same files as the first's, the refusals' too.
        wanted = {
            f"{then}{name[len(first) :]}"
            for name in catalogs_fetched(page)
            if name.startswith(f"{first}.")
        }
        assert wanted <= catalogs_fetched(page), wanted - catalogs_fetched(page)
        rules_read(page, then, f"{first}-{then}")
        cookies = {c["name"]: c["value"] for c in page.context.cookies()}
        assert cookies.get("hearts_lang") == then

        # The game goes on: a card refused, then one played, in the new language.
        wait_for(lambda: my_turn(page), what="a turn after the switch")
        table_in_language(page, then)
        illegal = [c["card"] for c in view_state(page)["hand"] if not c["legal"]]
        if illegal:  # (none when every card in hand may be played)
            before = page_version(page)
            page.click(
                f'.hand-cards .card[data-card="{illegal[0]}"]',
                position={"x": 8, "y": 24},
                force=True,
            )
            settle(page, before)
            reason = wait_for(lambda: visible_text(page, "#move-error"), what="the refusal")
            assert reason.startswith(WORDS[then]["reason"]), reason
        legal = [c["card"] for c in view_state(page)["hand"] if c["legal"]]
        before = page_version(page)
        page.click(f'.hand-cards .card[data-card="{legal[0]}"]')
        settle(page, before)
        assert legal[0] not in [c["card"] for c in view_state(page)["hand"]]
        checked(page, f"languages-played-{then}")
        # A new visit keeps the chosen language (the cookie beats Accept-Language).
        page.goto("/")
        page.wait_for_selector("#create-preset option", state="attached")
        in_language(page, then)
        top_bar_fits(page)
        # Not checked(): My games' strip comes in above the lobby when its answer arrives, a
        # layout shift of its own (the same in English), not the languages'.
        check_page(page, f"languages-lobby-again-{then}")
        assert not page.js_errors, page.js_errors
    finally:
        page.context.close()


CLUB_WORDS = {
    "fr": ("Mes clubs", "Club fermé · 1 membre", "Programmer le tournoi"),
    "de": ("Meine Clubs", "Geschlossener Club · 1 Mitglied", "Turnier ansetzen"),
}


# The controls of a form that reach past the right edge of the panel holding it.
OUTSIDE_PANEL_JS = """(selector) => {
  const form = document.querySelector(selector);
  const panel = form.closest('section') || form.parentElement;
  const right = panel.getBoundingClientRect().right;
  return [...form.querySelectorAll('input, select, button')]
    .filter(e => e.offsetParent !== null && e.getBoundingClientRect().right > right + 0.5)
    .map(e => `${e.id}: ${e.getBoundingClientRect().right} > ${right}`);
}"""


@pytest.mark.parametrize(("viewport", "lang"), [(DESKTOP, "fr"), (PHONE, "de")], ids=["fr", "de"])
def test_the_clubs_and_the_event_form_in_the_language(
    browser: Any, server: ServerInfo, viewport: dict[str, int], lang: str
) -> None:
    """My clubs, then a new closed club with its event form (German at 390x844: clipped
    text, axe) in the player's language (static/js/clubs.js, events.js)."""
    mine, about, schedule = CLUB_WORDS[lang]
    with httpx.Client(base_url=server.url, timeout=10) as client:
        guest = client.post("/api/guest", json={"name": f"Clubber {lang}"}).json()
    page = open_page(browser, server, viewport, str(guest["token"]))
    page.context.add_cookies([{"name": "hearts_lang", "value": lang, "url": server.url}])
    player = json.dumps(json.dumps(guest["player"]))
    page.context.add_init_script(f"localStorage.setItem('hearts.player', {player})")
    try:
        page.goto("/?clubs=1")
        page.wait_for_selector("#club-create")
        assert mine in (page.text_content("main") or "")
        page.fill("#club-name", f"Club {lang}")
        page.check("#club-closed")
        page.click("#club-create")
        page.wait_for_selector("#event-create")
        assert about in (page.text_content("main") or "")
        assert visible_text(page, "#event-create") == schedule
        # Each format (the German arena's long name was wider than a phone's panel): every
        # field of the form stays inside its panel.
        for fmt in page.locator("#event-format option").evaluate_all(
            "options => options.map(o => o.value)"
        ):
            page.select_option("#event-format", fmt)
            outside = page.evaluate(OUTSIDE_PANEL_JS, ".event-form")
            assert not outside, (fmt, outside)
        check_page(page, f"languages-club-{lang}")
        assert not page.js_errors, page.js_errors
    finally:
        page.context.close()


# The game-over panel's words (static/js/table/center.js, table.center.*), and English that
# must not show on it.
OVER_WORDS = {
    "de": {
        "title": "Spiel vorbei",
        "won": ("Du gewinnst!", "gewinnt!", "teilen sich den Sieg!"),
        "buttons": ("Revanche", "Wiederholung ansehen", "Zurück zur Lobby"),
    },
}
ENGLISH_ON_PANEL = ("Game over", "Rematch", " wins", "You win", "Watch the replay", "Back to")


def test_a_german_guest_reads_the_end_of_a_game_on_a_phone(
    browser: Any, server: ServerInfo
) -> None:
    """A one-hand game against computers to its end in German at 390x844: the game-over
    panel (its title, who won, the final scores, Revanche, the replay once it is saved, back
    to the lobby) in German and in no English; axe, clipped text, overlaps and no layout
    shift from the first byte, when the panel comes and when the replay's link replaces its
    'being saved' note."""
    words = OVER_WORDS["de"]
    with httpx.Client(base_url=server.url, timeout=10) as client:
        guest = client.post("/api/guest", json={"name": "Jürgen"}).json()
    token = str(guest["token"])
    page = open_page(browser, server, PHONE, token)
    page.context.add_cookies([{"name": "hearts_lang", "value": "de", "url": server.url}])
    try:
        table = new_table(
            server,
            token,
            "classic",
            bots={"1": "easy", "2": "easy", "3": "easy"},
            options={"end": "hands", "hands": 1, "passing": "none"},
        )
        start_at_table(page, table["id"])
        in_language(page, "de")
        panel = page.locator(".center-panel.game-over")
        play_until([page], lambda: panel.count() > 0 and panel.is_visible())
        title = panel.locator("h2").inner_text()
        assert title == words["title"], title
        won = panel.locator(".winners").inner_text()
        assert won.endswith(words["won"]), won
        assert panel.locator(".final-scores li").count() == 4
        checked(page, "languages-over-de")
        # The replay's link comes a moment after the end (the game is saved first).
        page.locator("#watch-replay").wait_for()
        text = panel.inner_text()
        for button in words["buttons"]:
            assert button in text, (button, text)
        english = [w for w in ENGLISH_ON_PANEL if w in text]
        assert not english, (english, text)
        checked(page, "languages-over-replay-de")
    finally:
        page.context.close()


# The <select>s whose chosen words do not fit in them: a closed select shows only its chosen
# option, cut at its edge with no sign (text_check.js sees no overflow: the browser draws it).
# Measured with the select's own font against its width less its padding and arrow (16 px).
CLIPPED_SELECTS_JS = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  const out = [];
  for (const s of document.querySelectorAll('select')) {
    const st = getComputedStyle(s);
    if (!s.getClientRects().length || st.visibility !== 'visible' || s.selectedIndex < 0) continue;
    ctx.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
    const words = s.options[s.selectedIndex].text;
    const room = s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 16;
    const need = ctx.measureText(words).width;
    if (need > room) out.push(`${s.id}: "${words}" ${Math.round(need)} px in ${Math.round(room)}`);
  }
  return out;
}"""


# The form's labels that begin with a small letter ("as de pique compte": a card's name put
# first by the catalog's text).
LOWER_LABELS_JS = """() => [...document.querySelectorAll('.create label')]
  .filter((l) => l.getClientRects().length)
  .map((l) => l.textContent.trim())
  .filter((text) => /^\\p{Ll}/u.test(text))"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_lobbys_choices_show_their_whole_words_in_every_language(
    browser: Any, server: ServerInfo, viewport: dict[str, int]
) -> None:
    """The lobby's filters and the create form with its rule options open, as each language
    first shows them: no label starting with a small letter ('ace of spades scores'), no
    chosen option cut short (French 'En direct et au tour par tou' at 1280 px; 'Quand
    quelqu'un atteint le score à atteindre' and German, Spanish and Dutch first leads and
    ends at 390 px)."""
    page = open_page(browser, server, viewport, None)
    try:
        clipped = {}
        for lang in LANGUAGES:
            page.context.add_cookies([{"name": "hearts_lang", "value": lang, "url": server.url}])
            page.goto("/")
            page.wait_for_selector("#create-preset option", state="attached")
            page.locator("details:has(#opt-end) > summary").click()
            page.locator("#opt-end").wait_for()
            assert page.evaluate("document.documentElement.lang") == lang
            clipped[lang] = page.evaluate(CLIPPED_SELECTS_JS) + page.evaluate(LOWER_LABELS_JS)
        assert not any(clipped.values()), clipped
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_hand_says_whole_what_to_pass_on_a_phone(
    browser: Any, server: ServerInfo, lang: str
) -> None:
    """The hand's one-line label while passing ("Deine Hand (13 Karten) – ...") ends in an
    ellipsis when too long for a phone: it must fit in every language (the German and Dutch
    ones did not)."""
    token = guest_token(server, f"Pass {lang}")
    page = open_page(browser, server, PHONE, token)
    page.context.add_cookies([{"name": "hearts_lang", "value": lang, "url": server.url}])
    try:
        table = new_table(server, token, "classic", bots={"1": "easy", "2": "easy", "3": "easy"})
        start_at_table(page, table["id"])
        page.wait_for_selector("#pass-button")
        label = page.locator("#hand-label")
        assert " – " in (label.text_content() or "")  # the passing note is there
        fits = page.evaluate("(el) => el.scrollWidth <= el.clientWidth", label.element_handle())
        assert fits, label.text_content()
    finally:
        page.context.close()


# Between hands the previous hand's result stays in words under the trick, in a box of fixed
# size (static/js/table/trick.js): each player count, with the computers' names and with five
# long names (24 letters, the most a name may have).
BETWEEN_PRESETS = {
    "classic-3": 3,
    "classic": 4,
    "classic-5": 5,
    "two-player-dummy": 2,
    "two-player-28": 2,
}
LONG_NAMES = [
    "Wolfgang-Maximilian Wein",
    "Marie-Charlotte Dubois-L",
    "Bartholomäus Wunderlich",
    "Guillemette Beauregardes",
    "Ottokar Schwarzenberger",
]

# The page's state as the server sent it last (kept in window.__base), handed to the page
# again as the next version: with `names`, the seats renamed; with `ended`, as the server sends
# it once a hand is over (hand 12 over with 26 points each, the next hand's pause under way)
# while the page waits for this player's move. Its last trick is not on the felt (by default
# it is gathered to its winner before the hand's result shows).
BETWEEN_HANDS_JS = """([names, ended]) => {
  const p = window.__hearts;
  window.__base = window.__base
    || { view: structuredClone(p.view), table: structuredClone(p.table) };
  const v = structuredClone(window.__base.view);
  const table = structuredClone(window.__base.table);
  if (names) table.seats.forEach((seat, i) => { if (seat) seat.name = names[i]; });
  if (ended) {
    v.history = [{ hand_no: 11, dealer: 0, direction: "left", moon: null, ended_early: false,
      points: v.scores.map(() => 26), totals: v.scores.map(() => 126),
      tricks_won: v.scores.map(() => 0), dead: ["2C", "3D"].slice(0, v.dead_count || 0) }];
    Object.assign(v, { hand_no: 12, hands_played: 12, tricks: [], trick: [] });
    v.scores = v.scores.map(() => 126);
    table.pause_until_ms = Date.now() + 600000;
  }
  p.onMessage({ type: "state", version: p.shownVersion + 1, seat: p.seat, table, view: v });
}"""
WORDS_BOX_JS = """() => {
  const box = document.querySelector('.trick-info').getBoundingClientRect();
  const trick = document.querySelector('.trick').getBoundingClientRect();
  const names = [...document.querySelectorAll('.trick-info .recap-name')].map((e) => e.title);
  const recap = document.querySelector('.trick-info .last-hand');
  // Where the box is under the trick and its height; its width is the trick's.
  const place = [box.x - trick.x, box.y - trick.y, box.width - trick.width, box.height];
  return { box: place.map(Math.round), names,
           recap: recap && recap.offsetParent ? recap.textContent : null };
}"""


def between_hands(page: Any, names: list[str] | None) -> dict[str, Any]:
    """Hand the page the end of a hand (BETWEEN_HANDS_JS); the words box as it then is."""
    page.evaluate(BETWEEN_HANDS_JS, [names, True])
    close = page.locator(".center-panel.hand-result button")
    if close.count():
        close.click()
    wait_for(lambda: page.evaluate(WORDS_BOX_JS)["recap"], what="the hand's result")
    return dict(page.evaluate(WORDS_BOX_JS))


def _settled_box(page: Any) -> Any:
    """The words box as the page leaves it once its layout has settled: the same twice, 0.3 s
    apart (a loaded page may still be laying the felt out when the move is first awaited)."""
    last = page.evaluate(WORDS_BOX_JS)
    for _ in range(50):
        page.wait_for_timeout(300)
        now = page.evaluate(WORDS_BOX_JS)
        if now == last:
            return now
        last = now
    return last


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_hands_result_under_the_trick_fits_every_table(
    browser: Any, server: ServerInfo, viewport: dict[str, int]
) -> None:
    """Between hands, in French and German, for three, four and five players and the two
    two-player games: the previous hand's points under the trick are whole in their box (the
    French 'Main 1 : Amélie +2, Ordinateur 2 +4, ...' was cut at 1280x800), each player named
    as the score sheet does, long names (whole in their title) too; the box keeps its place
    and size in the trick's place, nothing moves (layout shift), axe and overlaps."""
    page = open_page(browser, server, viewport, None, reduced_motion=True)
    try:
        for preset, players in BETWEEN_PRESETS.items():
            token = guest_token(server, "Amélie")
            page.context.add_cookies([{"name": "hearts_token", "value": token, "url": server.url}])
            bots = {str(seat): "easy" for seat in range(1, players)}
            table = new_table(server, token, preset, bots=bots)
            for lang in ("fr", "de"):
                page.context.add_cookies(
                    [{"name": "hearts_lang", "value": lang, "url": server.url}]
                )
                if lang == "fr":
                    start_at_table(page, table["id"])
                else:
                    page.goto(f"/?table={table['id']}")
                # The server has nothing more to send until this player moves.
                wait_for(
                    lambda: page.evaluate(
                        "() => { const p = window.__hearts; return !!p && !!p.view"
                        " && p.view.phase !== 'deal'"
                        " && JSON.stringify(p.view.to_act) === JSON.stringify([p.seat]); }"
                    ),
                    what="this player's move",
                )
                state = f"between-{preset}-{lang}"
                before = _settled_box(page)
                # From here the shifts counted are the hand's end's (this test's subject; a
                # page's load is the visitor journeys' above). The hand's end below is the
                # 12th: its "Runde 13" badge, a digit wider than "Runde 1", used to wrap a
                # German phone's head and move the table down by 0.10 (the hand's number now
                # keeps the room of two digits, layout.js renderHead).
                page.evaluate("() => { window.__shifts = []; }")
                after = between_hands(page, None)
                assert after["box"] == before["box"], (state, before, after)
                assert "12" in after["recap"] and after["recap"].count("+26") == len(
                    after["names"]
                ), (state, after)
                assert after["names"][0] == "Amélie", (state, after)
                checked(page, state)
                # Everyone with a long name: the seats first (their plaques may grow, the
                # dummy game's seat column too), then the hand's end: the box stays as it was.
                page.evaluate(BETWEEN_HANDS_JS, [LONG_NAMES, False])
                wait_for(
                    lambda: LONG_NAMES[1] in (page.text_content(".seats") or ""),
                    what="the long names",
                )
                seated = page.evaluate(WORDS_BOX_JS)
                long = between_hands(page, LONG_NAMES)
                assert long["box"] == seated["box"], (state, seated, long)
                assert long["names"][:players] == LONG_NAMES[:players], (state, long)
                # The words box's own text (a seat's plaque, a name under a card and the
                # scores panel have long names' problems of their own, not this box's).
                words = [p for p in text_problems(page) if "trick-info" in p or "recap" in p]
                problems = words + layout_problems(page)
                assert not problems, (state, "\n".join(problems))
                assert not page.js_errors, page.js_errors
    finally:
        page.context.close()
