"""Helpers for the browser tests: players as browser contexts, and reading the page."""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class ServerInfo:
    url: str
    log_path: str


@dataclass
class Player:
    """One person: a browser context (own cookies and storage, so own identity) and its page."""

    context: Any
    page: Any
    name: str
    frames: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.context.close()


def new_player(
    browser: Any,
    server: ServerInfo,
    name: str | None,
    *,
    viewport: dict[str, int] | None = None,
    record_frames: bool = False,
    mobile: bool = False,
    reduced_motion: bool = False,
) -> Player:
    """A fresh context on the lobby; signs in as a guest called ``name`` through the form.
    Motion on the table is on (the system asks for no less) unless ``reduced_motion``."""
    opts: dict[str, Any] = {"viewport": viewport or DESKTOP, "base_url": server.url}
    if reduced_motion:
        opts["reduced_motion"] = "reduce"
    if mobile:
        opts.update(is_mobile=True, has_touch=True, device_scale_factor=2)
    context = browser.new_context(**opts)
    context.set_default_timeout(15_000)
    page = context.new_page()
    player = Player(context, page, name or "")
    watch_page(page, player.frames if record_frames else None)
    page.goto("/")
    if name:
        page.fill("#guest-name", name)
        page.click("#guest-go")
        page.wait_for_selector(".me-name")
    return player


def watch_page(page: Any, frames: list[str] | None = None) -> None:
    """Collect the page's JS errors (``page.js_errors``) and its last WebSocket frames each
    way (``page.recent_frames``, for the message of a failed wait: see page_report); every
    frame received goes into ``frames`` too when given."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.js_errors = errors
    recent: collections.deque[str] = collections.deque(maxlen=24)
    page.recent_frames = recent

    def on_ws(ws: Any) -> None:
        ws.on("framesent", lambda payload: recent.append("> " + _text(payload)[:300]))
        ws.on("framereceived", lambda payload: recent.append("< " + _text(payload)[:300]))
        if frames is not None:
            ws.on("framereceived", lambda payload: frames.append(_text(payload)))

    page.on("websocket", on_ws)


def _text(payload: Any) -> str:
    if isinstance(payload, (bytes, bytearray)):
        return payload.decode("utf-8", "replace")
    return str(payload)


def create_table(
    player: Player,
    preset: str,
    *,
    seats: dict[int, str] | None = None,
    private: bool = False,
    timer: int = 0,
    autostart: bool = True,
    options: dict[str, Any] | None = None,
) -> str:
    """Create a table through the lobby form. ``seats``: seat -> "open" or a computer level
    (seats not named stay as the form's default, a Standard computer)."""
    page = player.page
    if urlsplit(page.url)[2:4] != ("/", ""):
        # Not on the lobby yet (a page just signed in is: loading it again cost 0.35 s at
        # load 9, python -m tests.e2e.costs; every choice below is set whatever it shows).
        page.goto("/")
    page.wait_for_selector("#create-preset option", state="attached")
    page.select_option("#create-preset", preset)
    # The form remembers the last table's choices (prefs.lastCreate): every seat is set.
    for select in page.locator("select[data-seat]").all():
        seat = int(select.get_attribute("data-seat") or 0)
        select.select_option((seats or {}).get(seat, "standard"))
    page.check(f'input[name="visibility"][value="{"private" if private else "public"}"]')
    page.select_option("#create-timer", str(timer))
    page.set_checked("#create-autostart", autostart)
    if options and page.locator("details.more-options[open]").count() == 0:
        page.click(".more-options summary")
    for name, value in (options or {}).items():
        field = page.locator(f"#opt-{name}")
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
            field.dispatch_event("change")
    page.click("#create-go")
    page.wait_for_url("**/?table=*")
    page.wait_for_selector(".table-page:not(.loading)")
    url = page.url
    return url.split("table=")[1].split("&")[0]


def view_state(page: Any) -> dict[str, Any]:
    """What the page's table is showing, read from the DOM."""
    return page.evaluate(
        """() => {
        const cards = (sel) => [...document.querySelectorAll(sel)].map((c) => ({
            card: c.dataset.card,
            legal: c.classList.contains('legal'),
        }));
        const page = document.querySelector('.table-page');
        const slots = (sel) => [...document.querySelectorAll(sel)].map((s) => s.dataset.card);
        return {
            classes: page ? page.className : '',
            hand: cards('.hand-cards .card'),
            dummy: cards('.dummy-cards .card'),
            trick: slots('.trick .slot:not(.done)'),
            last_trick: slots('.trick .slot.done'),
            status: (document.getElementById('status-line') || {}).textContent || '',
            error: (document.getElementById('move-error') || {}).textContent || '',
        };
    }"""
    )


def wait_for(predicate: Any, timeout: float = 20.0, interval: float = 0.05, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what or predicate}: last {last!r}")


def received_views(player: Player) -> list[dict[str, Any]]:
    out = []
    for raw in player.frames:
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        out.append(msg)
    return out


def page_version(page: Any) -> int:
    return int(
        page.evaluate("() => Number(document.querySelector('.table-page')?.dataset.version || 0)")
    )


def settle(page: Any, before: int, timeout: float = 10_000) -> None:
    """Wait until the page has its answer to the move it just sent (a new state or an error).

    On a timeout the error says what the page showed and the last WebSocket frames, so a rare
    failure can be read from the test report alone.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        _wait_settled(page, before, timeout)
    except PlaywrightTimeout as exc:
        raise AssertionError(
            f"no answer to the move within {timeout / 1000:g} s (version before {before}):"
            f" {page_report(page)}"
        ) from exc


def _wait_settled(page: Any, before: int, timeout: float) -> None:
    page.wait_for_function(
        """(before) => {
            const p = document.querySelector('.table-page');
            if (!p) return false;
            const err = document.getElementById('move-error');
            if (p.dataset.pending !== '0') return false;
            if (err && err.textContent) return true;
            const shown = Number(p.dataset.version);
            return shown > before && shown >= Number(p.dataset.acked || 0);
        }""",
        arg=before,
        timeout=timeout,
    )


def act_once(page: Any, *, keyboard: bool = False) -> str | None:
    """Make one move if it is this page's turn (first legal cards); returns what was done."""
    before = page_version(page)
    done = _act(page, keyboard=keyboard)
    if done:
        settle(page, before)
    return done


def _act(page: Any, *, keyboard: bool = False) -> str | None:
    state = view_state(page)
    classes = state["classes"]
    if "phase-pass" in classes:
        legal = [c["card"] for c in state["hand"] if c["legal"]]
        if not legal or page.locator("#pass-button").count() == 0:
            return None
        count = int(page.locator("#pass-button").inner_text().split()[1])
        choose_and_pass(page, legal[:count], keyboard=keyboard, settled=False)
        return "pass"
    if "phase-play" in classes:
        for row in ("dummy", "hand"):
            legal = [c["card"] for c in state[row] if c["legal"]]
            if legal:
                click_card(page, legal[0], keyboard=keyboard, row=row)
                if page.locator(".face-choice").count():
                    # Double Hearts lead: take the first face offered.
                    if keyboard:
                        page.keyboard.press("Enter")
                    else:
                        page.locator(".face-choice").first.click()
                return legal[0]
    return None


def page_report(page: Any) -> str:
    """What the table page shows and last said and heard, for the message of a failed wait."""
    marks = page.evaluate(
        """() => { const p = document.querySelector('.table-page');
        const chosen = [...document.querySelectorAll('.hand-cards .card[aria-pressed="true"]')]
            .map((c) => c.dataset.card);
        const pass = document.getElementById('pass-button');
        return p ? {...p.dataset, chosen, pass_disabled: pass ? pass.disabled : null,
            focus: document.activeElement && (document.activeElement.dataset.card
                || document.activeElement.id || document.activeElement.tagName)} : null; }"""
    )
    frames = "\n".join(getattr(page, "recent_frames", []))
    return (
        f"page {marks}, view {view_state(page)}, JS errors {getattr(page, 'js_errors', [])},"
        f" last frames:\n{frames}"
    )


def choose_and_pass(
    page: Any, cards: list[str], *, keyboard: bool = False, settled: bool = True
) -> None:
    """Choose ``cards`` for the pass, each seen chosen (aria-pressed) before the next, then
    press Pass; with ``settled``, wait for the server's answer. A tap that did not choose its
    card fails here with what the page showed, not later as a turn that never came."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for card in cards:
        click_card(page, card, keyboard=keyboard)
        chosen = f'.hand-cards .card[data-card="{card}"][aria-pressed="true"]'
        try:
            page.wait_for_selector(chosen, timeout=5_000)
        except PlaywrightTimeout as exc:
            raise AssertionError(f"{card} was tapped but not chosen: {page_report(page)}") from exc
    before = page_version(page)
    try:
        page.wait_for_selector("#pass-button:enabled", timeout=5_000)
    except PlaywrightTimeout as exc:
        raise AssertionError(f"the Pass button stayed disabled: {page_report(page)}") from exc
    if keyboard:
        page.locator("#pass-button").focus()
        page.keyboard.press("Enter")
    else:
        page.click("#pass-button")
    if settled:
        settle(page, before)


def click_card(page: Any, card: str, *, keyboard: bool = False, row: str = "hand") -> None:
    sel = f'.{row}-cards .card[data-card="{card}"]'
    if not keyboard:
        # Where a person taps: the card's visible corner (in an overlapping hand on a narrow
        # phone the next card covers the middle of this one).
        page.click(sel, position={"x": 8, "y": 24})
        return
    # Keyboard only: bring focus into the row, walk with the arrow keys, press Enter.
    focused = page.evaluate(
        "() => document.activeElement && document.activeElement.dataset.card || null"
    )
    in_row = page.evaluate(
        f"() => !!document.activeElement && !!document.activeElement.closest('.{row}-cards')"
    )
    if not in_row:
        other = "hand" if row == "dummy" else "dummy"
        in_other = page.evaluate(
            f"() => !!document.activeElement && !!document.activeElement.closest('.{other}-cards')"
        )
        if in_other:
            page.keyboard.press("ArrowUp" if row == "dummy" else "ArrowDown")
        else:
            page.keyboard.press("h")
        focused = page.evaluate(
            "() => document.activeElement && document.activeElement.dataset.card || null"
        )
    order = page.eval_on_selector_all(f".{row}-cards .card", "els => els.map(e => e.dataset.card)")
    here = order.index(focused) if focused in order else 0
    there = order.index(card)
    key = "ArrowRight" if there > here else "ArrowLeft"
    for _ in range(abs(there - here)):
        page.keyboard.press(key)
    assert page.evaluate("() => document.activeElement.dataset.card") == card, (
        "focus did not reach the card"
    )
    page.keyboard.press("Enter")


# The page-side check, without its leading comment (Playwright wants the function itself).
LAYOUT_PROBLEMS_JS = "\n".join(
    line
    for line in (Path(__file__).parent / "layout_check.js").read_text().splitlines()
    if not line.startswith("//")
)


def motion_done(page: Any) -> None:
    """Wait until the cards moving on the table (static/js/table/motion.js) are in place: a
    card in flight overlaps its neighbours for a moment."""
    page.evaluate(
        """() => Promise.all(document.getAnimations()
            .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
            .map((a) => a.finished.catch(() => null)))"""
    )


# The check runs in the same turn of the page's event loop as the moment no card moves: a
# state arriving between a separate wait and the check (a computer's card taking off) would
# otherwise be measured in flight, overlapping its neighbours.
_STILL_THEN_CHECK_JS = (
    """async () => {
  const moving = () => document.getAnimations().filter(
    (a) => a.playState === "running" && a.effect
      && a.effect.getComputedTiming().endTime !== Infinity);
  for (let i = 0; i < 50; i++) {
    const now = moving();
    if (!now.length) break;
    await Promise.all(now.map((a) => a.finished.catch(() => null)));
  }
  return ("""
    + LAYOUT_PROBLEMS_JS
    + """)();
}"""
)


def layout_problems(page: Any) -> list[str]:
    """Overlaps and overflows that stay: a problem seen is looked at again after 0.5 s (a card
    whose flight a busy page has not started yet sits at its start for a frame or two, over its
    neighbours), and only what is still there is reported."""
    problems = list(page.evaluate(_STILL_THEN_CHECK_JS))
    if not problems:
        return problems
    page.wait_for_timeout(500)
    again = set(page.evaluate(_STILL_THEN_CHECK_JS))
    return [problem for problem in problems if problem in again]


def play_until(
    pages: list[Any], done: Any, *, keyboard: bool = False, timeout: float = 90.0
) -> None:
    """Let every page make its moves (first legal cards) until ``done()`` is true."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            states = [view_state(page) for page in pages]
            raise AssertionError(f"the game did not get there in time: {states}")
        acted = False
        for page in pages:
            if act_once(page, keyboard=keyboard):
                acted = True
        if not acted:
            time.sleep(0.05)


def hands_finished(page: Any) -> int:
    return int(page.evaluate("() => document.querySelectorAll('.sheet-table tbody tr').length"))


# -- whole journeys (tests/e2e/test_journeys.py) ------------------------------------------------


def mark_loaded(page: Any) -> None:
    """Mark the page's current document: ``still_same_document`` fails after any reload or
    navigation, so a test proves the page got where it is without one."""
    page.evaluate("() => { window.__journeyMark = 'same document'; }")


def still_same_document(page: Any) -> bool:
    return bool(page.evaluate("() => window.__journeyMark === 'same document'"))


def action_bar(page: Any) -> dict[str, Any]:
    """What the action bar offers: its status line, buttons and whether the name form is up."""
    return dict(
        page.evaluate(
            """() => {
            const bar = document.querySelector('.action-bar');
            const visible = (el) => !!el && el.getClientRects().length > 0;
            return {
                status: (document.getElementById('status-line') || {}).textContent || '',
                buttons: [...(bar ? bar.querySelectorAll('button') : [])].filter(visible)
                    .map((b) => b.textContent.trim()),
                name_form: !!(bar && bar.querySelector('.name-form')),
                pass_button: visible(document.getElementById('pass-button')),
                legal: document.querySelectorAll('.my-cards .card.legal').length,
            };
        }"""
        )
    )


def expect_control(page: Any, kind: str, timeout: float = 20.0) -> dict[str, Any]:
    """Wait until the action bar shows the control for ``kind`` ("pass": the Pass button and
    the cards to choose; "turn": "Your turn"/"Your lead" with playable cards), with no name
    form left over, and return what it shows."""

    def shown() -> dict[str, Any] | None:
        bar = action_bar(page)
        if bar["name_form"]:
            return None
        if kind == "pass" and bar["pass_button"] and bar["legal"] and "to pass" in bar["status"]:
            return bar
        if kind == "turn" and bar["legal"] and bar["status"].startswith(("Your turn", "Your lead")):
            return bar
        return None

    last: list[dict[str, Any]] = []

    def probe() -> dict[str, Any] | None:
        found = shown()
        if found is None:
            last[:] = [action_bar(page)]
        return found

    try:
        return dict(wait_for(probe, timeout=timeout, what=f"the action bar's {kind} control"))
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the action bar shows {last}") from None


def shots_folder() -> Path | None:
    """Where the browser tests put their screenshots for a person to look at: the folder
    ``HEARTS_TEST_SHOTS`` names, or nowhere (a screenshot costs about 0.4 s; CI takes none)."""
    folder = os.environ.get("HEARTS_TEST_SHOTS")
    if not folder:
        return None
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def snap(page: Any, folder: Path | None, name: str) -> Path | None:
    """A screenshot of what the window shows (the first screen), for a person to look at:
    taken only when ``HEARTS_TEST_SHOTS`` is set, into that folder (``folder`` names the
    test's own folder, kept for the names' sake: every screenshot goes to one place)."""
    where = shots_folder()
    if where is None:
        return None
    path = where / f"{name}.png"
    page.screenshot(path=str(path))
    return path


class SocketCut:
    """Cut and restore a page's table WebSocket from the test, through Playwright's
    WebSocket routing (the page's own socket code sees a real close, then failed attempts).

    ``mode``: "pass" (both ways), "down" (new sockets are closed as soon as they open),
    "deaf" (the page's messages reach the server, the server's answers are lost). ``sent``
    lists every message the page sent, on every socket, in order.
    """

    def __init__(self, context: Any) -> None:
        self.mode = "pass"
        self.sent: list[dict[str, Any]] = []
        self.routes: list[tuple[Any, Any, dict[str, bool]]] = []
        context.route_web_socket(re.compile(r".*/ws/tables/.*"), self._route)

    def _route(self, ws: Any) -> None:
        if self.mode == "down":
            ws.close(code=4000, reason="test: the network is down")
            return
        server = ws.connect_to_server()
        # Once either side is closed (or cut), nothing more is passed on: a message that
        # arrives late from the old server socket would otherwise be sent into the page's
        # closed socket, which throws in the page ("WebSocket is already in CLOSING or
        # CLOSED state") after the restore has put the mode back to "pass".
        route = {"open": True}

        def closed(*_: Any) -> None:
            route["open"] = False

        def page_to_server(message: Any) -> None:
            with contextlib.suppress(ValueError):
                self.sent.append(json.loads(_text(message)))
            if route["open"] and self.mode in ("pass", "deaf"):
                server.send(message)

        def server_to_page(message: Any) -> None:
            if route["open"] and self.mode == "pass":
                ws.send(message)

        ws.on_message(page_to_server)
        server.on_message(server_to_page)
        ws.on_close(closed)
        server.on_close(closed)
        self.routes.append((ws, server, route))

    def cut(self) -> None:
        """The network goes: open sockets close, new ones fail until ``restore``."""
        self.mode = "down"
        for ws, server, route in self.routes:
            route["open"] = False
            for side in (ws, server):
                with contextlib.suppress(Exception):  # already closed
                    side.close(code=4000, reason="test: the network is down")
        self.routes.clear()

    def restore(self) -> None:
        self.mode = "pass"

    def sent_ids(self, kind: str, since: int = 0) -> list[str]:
        """The ids of the commands of ``kind`` sent (from message number ``since`` on)."""
        return [m["id"] for m in self.sent[since:] if m.get("type") == kind and "id" in m]


# -- accessibility and text layout (run in the journeys, once per state and size) ---------------

TEXT_PROBLEMS_JS = "\n".join(
    line
    for line in (Path(__file__).parent / "text_check.js").read_text().splitlines()
    if not line.startswith("//")
)
PHONES = ({"width": 390, "height": 844}, {"width": 360, "height": 740})
# axe-core's rule for WCAG 2.5.3 (a control's name contains its visible text) is one of its
# "experimental" rules, off unless asked for.
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}


def text_problems(page: Any) -> list[str]:
    """Text cut off or spilling out of its box; on a phone (a window under 760 px wide) also
    a hand or an action bar below the first screen. See text_check.js."""
    phone = bool(page.evaluate("() => window.innerWidth <= 760"))
    return list(page.evaluate(TEXT_PROBLEMS_JS, {"phone": phone}))


@functools.cache
def _axe_script() -> str:
    from axe_playwright_python.sync_playwright import Axe

    return str(Axe().axe_script)


def axe_problems(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page, one line per element."""
    # axe-core (about 500 KB of script) is put in a document once, not before every run.
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_script())
    # In the same turn as the run: no transition under way (a toast fading in is measured
    # at its blended colours, a contrast it never has once shown).
    response = page.evaluate(
        """async (options) => {
            for (let i = 0; i < 50; i++) {
                const moving = document.getAnimations().filter((a) => a.playState === "running"
                    && a.effect && a.effect.getComputedTiming().endTime !== Infinity);
                if (!moving.length) break;
                await Promise.all(moving.map((a) => a.finished.catch(() => null)));
            }
            return axe.run(document, options);
        }""",
        AXE_OPTIONS,
    )
    out = []
    for violation in response["violations"]:
        if violation.get("impact") not in ("serious", "critical"):
            continue
        for node in violation["nodes"]:
            out.append(
                f"{violation['id']} ({violation['impact']}): {node['target']}:"
                f" {node.get('failureSummary', '').splitlines()[-1].strip()}"
                f" [{node['html'][:160]}]"
            )
    return out


# axe's scrollable-region-focusable rule, for every region that *can* scroll (overflow auto or
# scroll), whether or not its content overflows in this state (a long game's sheet, a long chat,
# a wide table on a phone do; a test's short game does not): such a region must take the
# keyboard's focus itself or hold something that does. Read from the page as it is (forcing
# the regions to overflow would move the page and count as a layout shift).
UNREACHABLE_SCROLLING_JS = """() => {
  const focusable = 'a[href], button:not([disabled]), input:not([disabled]), select, textarea,'
    + ' summary, [tabindex]:not([tabindex="-1"])';
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const s = getComputedStyle(el);
    if (!el.getClientRects().length || !/(auto|scroll)/.test(s.overflowX + s.overflowY)) continue;
    if (el.matches(focusable) || el.querySelector(focusable)) continue;
    out.push(el.outerHTML.slice(0, 160));
  }
  return out;
}"""


def scrolling_problems(page: Any) -> list[str]:
    """Regions that can scroll and that a keyboard could not reach (UNREACHABLE_SCROLLING_JS)."""
    return [
        f"a region that can scroll takes no keyboard focus: {html}"
        for html in page.evaluate(UNREACHABLE_SCROLLING_JS)
    ]


def check_page(
    page: Any, state: str, done: set[str] | None = None, shots: Path | None = None
) -> None:
    """The page at ``state`` (waiting, passing, playing, ...): no serious or critical axe
    violation, no text cut off, no overlap (layout_check.js), and on a phone the hand and
    the action bar on the first screen. ``done`` holds the states already checked at this
    window size, so each is checked once (axe takes about half a second a run)."""
    size = page.viewport_size or {}
    key = f"{state}-{size.get('width')}x{size.get('height')}"
    if done is not None:
        if key in done:
            return
        done.add(key)
    motion_done(page)
    if shots is not None:
        snap(page, shots, key)
    problems = text_problems(page) + layout_problems(page) + axe_problems(page)
    problems += scrolling_problems(page)
    assert not problems, f"{key}:\n" + "\n".join(problems)


NAMES_JS = """() => {
    const shown = (el) => getComputedStyle(el).display !== 'none' && el.getClientRects().length > 0;
    const cut = (el) => el.scrollWidth > el.clientWidth + 1
        || el.scrollHeight > el.clientHeight + 1;
    const seats = [...document.querySelectorAll('.felt .seat .name-text')].map((el) => ({
        text: el.textContent, cut: cut(el) || cut(el.parentElement) }));
    const slots = [...document.querySelectorAll('.trick .slot-name')].map((el) => {
        const part = [...el.children].find(shown) || el;
        return { text: part.textContent, cut: cut(el) };
    });
    return { seats, slots };
}"""


def name_problems(page: Any) -> list[str]:
    """Names shortened ("Comput…") or two seats that read the same."""
    names = page.evaluate(NAMES_JS)
    out = [
        f"{kind} name {n['text']!r} is cut"
        for kind in ("seats", "slots")
        for n in names[kind]
        if n["cut"] or n["text"].endswith("\u2026")
    ]
    seats = [n["text"] for n in names["seats"]]
    if len(set(seats)) != len(seats):
        out.append(f"seats look alike: {seats}")
    slots = [n["text"] for n in names["slots"]]
    if len(set(slots)) != len(slots):
        out.append(f"names under the trick look alike: {slots}")
    return out


DESKTOPS = ({"width": 1280, "height": 800}, {"width": 1440, "height": 900})

# Resolves at the start of the second frame from now: the first frame's rendering step (layout,
# then the ResizeObservers that fit names and plaques to their new boxes) has run by then.
_TWO_FRAMES_JS = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def resize(page: Any, size: dict[str, int], settle_ms: int = 0) -> None:
    """Set the window's size and wait until the page has drawn a frame at it (then
    ``settle_ms`` more). Read at once, a smaller window could show a name still fitted to the
    larger one's box (a busy machine had not run the page's ResizeObservers yet)."""
    page.set_viewport_size(size)
    page.evaluate(_TWO_FRAMES_JS)
    if settle_ms:
        page.wait_for_timeout(settle_ms)


def check_sizes(
    page: Any, state: str, done: set[str] | None = None, shots: Path | None = None
) -> None:
    """check_page at each size of the page's kind: both phones (390x844, 360x740) for a
    phone-sized window, both desktops (1280x800, 1440x900) otherwise; the window is put back."""
    size = dict(page.viewport_size)
    for other in PHONES if size["width"] <= 760 else DESKTOPS:
        if other != size:
            resize(page, other, 120)  # the hand's grid is laid out again on resize
        try:
            check_page(page, state, done, shots)
        finally:
            if other != size:
                resize(page, size, 60)
