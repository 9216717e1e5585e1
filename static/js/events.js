// Events (/?event=ID): one event (its format, start in the viewer's own time, rounds, status),
// Register / Withdraw, the players registered, the live standings (paged by the API's cursor,
// fetched again when the round or the entries change), and "Go to your table" once seated.
// An arena's page shows the time left (ticking each second), Pause / Resume, and its live
// standings fetched again as each game ends; one may join it while it runs.
// clubEvents() is the club page's part: the club's events and, for its admins, the form that
// schedules one (docs/compete.md "Events"). Words: the catalog's events.* (i18n.js); app.js
// draws the page again on a change of language.

import { api, checkSession, session } from "./api.js";
import { addStylesheet, fill, h, setText, toast } from "./dom.js";
import { formatDateTime, formatNumber, has, loadSection, plural, t } from "./i18n.js";

// This module's words (<lang>.events.json), before anything of it is drawn.
await loadSection("events");

/** An event's format, in full (the form, the event's facts) or short (the club's list). */
function formatName(format, short = false) {
  const words = short
    ? { swiss: t("events.swiss"), duplicate: t("events.duplicate"), arena: t("events.arena") }
    : { swiss: t("events.format_swiss"), duplicate: t("events.format_duplicate"), arena: t("events.format_arena") };
  return words[format] || format;
}

/** A game's name (/api/presets): the catalog's preset.<id>, else the server's English. */
function gameName(p) {
  return has(`preset.${p.id}`) ? t(`preset.${p.id}`) : p.label;
}
const PAGE = 50; // standings lines a page
const FAST_MS = 2000; // the event running or about to start
const SLOW_MS = 20000;

export function loadEventsStyle() {
  addStylesheet("events-css", new URL("../css/events.css", import.meta.url).href);
}

export function mountEvent(root, eventId) {
  const page = new EventPage(root, eventId);
  page.start();
  return page;
}

let presetsOnce = null;
/** The games an event may be of (/api/presets), fetched once a page. */
function presets() {
  if (!presetsOnce) presetsOnce = api("/api/presets").then((d) => d.presets).catch(() => (presetsOnce = null, []));
  return presetsOnce;
}

/** "Sat 5 Dec, 20:00 CET": a moment in the viewer's own time zone and language. */
export function localTime(iso) {
  return formatDateTime(iso, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
  });
}

/** "in 2 h 5 min", "in 40 s", "any moment now". */
function fromNow(iso) {
  const s = Math.round((new Date(iso).getTime() - Date.now()) / 1000);
  if (s <= 0) return t("events.any_moment");
  if (s < 90) return t("events.in_s", { s });
  const m = Math.round(s / 60);
  if (m < 90) return t("events.in_min", { m });
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return t("events.in_h", { h: hrs, m: m % 60 });
  return plural("events.in_days", Math.round(hrs / 24));
}

function statusWords(ev) {
  if (ev.state === "registering") return t("events.open", { when: fromNow(ev.starts_at) });
  if (ev.state === "running" && ev.format === "arena") {
    return ev.seconds_left > 0 ? t("events.arena_running") : t("events.time_up");
  }
  if (ev.state === "running") return t("events.running", { round: ev.current_round, rounds: ev.rounds });
  return t("events.finished");
}

/** "12:05" (or "1:02:05"): an arena's time left. */
function clockText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  return (hms[0] ? [hms[0], pad(hms[1]), pad(hms[2])] : [hms[1], pad(hms[2])]).join(":");
}

/** An arena's length in minutes, from its window. */
function arenaMinutes(ev) {
  return Math.round((new Date(ev.ends_at).getTime() - new Date(ev.starts_at).getTime()) / 60000);
}

/** " (you)" after one's own name in a list. */
function you() {
  return ` (${t("seat.you")})`;
}

class EventPage {
  constructor(root, eventId) {
    this.root = root;
    this.eventId = eventId;
    this.timer = null;
    this.ticker = null; // an arena's clock, each second
    this.gone = false;
    this.event = null;
    this.standingsKey = "";
    this.lines = [];
    this.next = null;
  }

  destroy() {
    this.gone = true;
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    this.root.classList.remove("events");
  }

  async start() {
    loadEventsStyle();
    this.root.classList.add("events");
    await checkSession();
    this.title = h("h1", { class: "events-title" }, t("events.event"));
    this.facts = h("dl", { class: "event-facts" });
    this.status = h("p", { class: "event-status", id: "event-status", role: "status" });
    this.clock = h("p", { class: "event-clock", id: "event-clock" }); // not a live region: it ticks
    this.actions = h("div", { class: "row event-actions" });
    this.seat = h("div", { class: "event-seat" });
    this.error = h("p", { class: "form-error", role: "alert" });
    this.board = h("section", { class: "panel", "aria-labelledby": "event-board-title" });
    fill(this.root, this.title,
      h("section", { class: "panel event-about" }, this.facts, this.status, this.clock, this.seat, this.actions, this.error),
      this.board);
    await this.refresh();
  }

  async refresh() {
    if (this.gone) return;
    clearTimeout(this.timer);
    const id = encodeURIComponent(this.eventId);
    let ev;
    try {
      ev = await api(`/api/events/${id}`);
    } catch (error) {
      if (error.status === 404) {
        fill(this.root, h("h1", { class: "events-title" }, t("events.no_such")),
          h("section", { class: "panel" }, h("p", {}, t("events.no_such_text")),
            h("a", { class: "btn", href: "/" }, t("common.lobby"))));
        return;
      }
      setText(this.error, error.message); // a network hiccup: try again shortly
      this.timer = setTimeout(() => this.refresh(), SLOW_MS);
      return;
    }
    if (this.gone) return;
    setText(this.error, "");
    this.event = ev;
    await this.render(ev);
    const soon = ev.state === "running" || (ev.state === "registering" && new Date(ev.starts_at).getTime() - Date.now() < 120000);
    if (ev.state !== "finished") this.timer = setTimeout(() => this.refresh(), soon ? FAST_MS : SLOW_MS);
  }

  async render(ev) {
    document.title = t("common.doc_title", { title: ev.name });
    setText(this.title, ev.name);
    const games = await presets();
    const game = games.find((p) => p.id === ev.preset);
    const arena = ev.format === "arena";
    const facts = [
      [t("events.format"), formatName(ev.format)],
      [t("events.game"), game ? gameName(game) : t("events.at_a_table", { game: ev.preset, size: ev.table_size })],
      [t("events.starts"), localTime(ev.starts_at)],
      arena ? [t("events.length"), t("events.n_minutes", { m: formatNumber(arenaMinutes(ev)) })]
        : [t("events.rounds"), formatNumber(ev.rounds)],
      [t("events.table_points"), t("events.by_place", { points: ev.points_by_place.map((p) => formatNumber(p)).join(" / ") })],
      [t("events.latecomers"), t("events.grace", { minutes: formatNumber(Math.round(ev.grace_seconds / 60 * 10) / 10) })],
      [t("events.players"), formatNumber(ev.entries)],
    ];
    const factsKey = JSON.stringify(facts);
    if (this.factsKey !== factsKey) {
      this.factsKey = factsKey;
      fill(this.facts, facts.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, v))));
    }
    const key = `${ev.state}:${ev.current_round}:${ev.entries}:${ev.registered}:${ev.games}`;
    if (key !== this.standingsKey) {
      this.standingsKey = key;
      await this.loadStandings(false); // first, so the status never says more than they show
    }
    setText(this.status, statusWords(ev));
    this.renderClock(ev);
    this.renderSeat(ev);
    this.renderActions(ev);
  }

  /** An arena's time left, counted down here between two fetches. */
  renderClock(ev) {
    clearInterval(this.ticker);
    const running = ev.format === "arena" && ev.state === "running" && ev.seconds_left > 0;
    this.clock.hidden = !running;
    if (!running) return;
    const ends = Date.now() + ev.seconds_left * 1000;
    const tick = () => setText(this.clock, t("events.time_left", { time: clockText((ends - Date.now()) / 1000) }));
    tick();
    this.ticker = setInterval(tick, 1000);
  }

  renderSeat(ev) {
    if (ev.format === "arena") return this.renderArenaSeat(ev);
    const mine = ev.my_table;
    let key = "none";
    let parts = [];
    if (mine && ev.state === "running") {
      const ready = Boolean(mine.table_id);
      key = `${mine.round}:${ready ? mine.table_id : ""}:${mine.late}`;
      if (ready) {
        parts = [
          h("p", {}, t("events.your_table", { round: mine.round, table: mine.table_no + 1 }),
            mine.late ? ` ${t("events.late")}` : ""),
          h("a", { class: "btn primary", id: "event-go", href: `/?table=${encodeURIComponent(mine.table_id)}` }, t("events.go")),
        ];
      } else {
        parts = [h("p", {}, t("events.setting_up", { round: mine.round }))];
      }
    } else if (ev.registered && ev.state === "running") {
      key = `wait:${ev.current_round}`;
      parts = [h("p", { class: "hint" }, t("events.not_seated"))];
    }
    if (key !== this.seatKey) {
      this.seatKey = key;
      fill(this.seat, parts);
    }
  }

  /** An arena's player: their table now, or waiting for one, or paused. */
  renderArenaSeat(ev) {
    const mine = ev.my_table;
    let key = "none";
    let parts = [];
    if (mine && mine.table_id) {
      key = `table:${mine.table_id}`;
      parts = [h("p", {}, t("events.arena_ready")),
        h("a", { class: "btn primary", id: "event-go", href: `/?table=${encodeURIComponent(mine.table_id)}` }, t("events.go"))];
    } else if (mine) {
      key = `making:${mine.round}`;
      parts = [h("p", {}, t("events.arena_setting_up"))];
    } else if (ev.registered && ev.state === "running") {
      key = ev.paused ? "paused" : ev.seconds_left > 0 ? "waiting" : "over";
      const words = { paused: "events.paused_text", waiting: "events.arena_waiting", over: "events.time_up" };
      parts = [h("p", { class: "hint" }, t(words[key]))];
    }
    if (key !== this.seatKey) {
      this.seatKey = key;
      fill(this.seat, parts);
    }
  }

  renderActions(ev) {
    const signedIn = !!session.player;
    const arena = ev.format === "arena";
    const joinable = arena && ev.state === "running" && ev.seconds_left > 0; // an arena takes players while it runs
    const key = `${signedIn}:${ev.state}:${ev.registered}:${arena && ev.paused}:${joinable}`;
    if (key === this.actionsKey) return;
    this.actionsKey = key;
    const buttons = [];
    if (!signedIn) {
      buttons.push(h("p", {}, t("events.sign_in")), h("a", { class: "btn", href: "/" }, t("common.lobby")));
    } else if ((ev.state === "registering" || joinable) && !ev.registered) {
      buttons.push(h("button", { type: "button", class: "btn primary", id: "event-register", onclick: () => this.act("register") }, t("events.register")));
    } else if (ev.registered && ev.state !== "finished") {
      if (ev.state === "registering") buttons.push(h("p", { class: "event-registered" }, t("events.registered")));
      if (arena) {
        buttons.push(ev.paused
          ? h("button", { type: "button", class: "btn primary", id: "event-resume", onclick: () => this.act("resume") }, t("events.resume"))
          : h("button", { type: "button", class: "btn", id: "event-pause", onclick: () => this.act("pause") }, t("events.pause")));
      }
      buttons.push(h("button", { type: "button", class: "btn ghost", id: "event-withdraw", onclick: () => this.act("withdraw") },
        ev.state === "registering" ? t("events.withdraw") : t("events.withdraw_running")));
    }
    if (ev.club_id) buttons.push(h("a", { class: "btn ghost", href: `/?club=${encodeURIComponent(ev.club_id)}` }, t("events.club")));
    fill(this.actions, buttons);
  }

  async act(what) {
    if (what === "withdraw" && this.event.state === "running" && !confirm(t("events.leave_confirm"))) return;
    try {
      await api(`/api/events/${encodeURIComponent(this.eventId)}/${what}`, { method: "POST", body: {} });
      const said = { register: "events.registered", withdraw: "events.withdrawn", pause: "events.paused", resume: "events.resumed" };
      toast(t(said[what]));
    } catch (error) {
      toast(error.message, "error");
    }
    await this.refresh();
  }

  /** The standings' first page again (more: the page after the last one shown). Before the
   *  start they are the players registered, in no particular order of merit. */
  async loadStandings(more) {
    const id = encodeURIComponent(this.eventId);
    const cursor = more && this.next ? `&cursor=${encodeURIComponent(this.next)}` : "";
    let data;
    try {
      data = await api(`/api/events/${id}/standings?limit=${PAGE}${cursor}`);
    } catch (error) {
      toast(error.message, "error");
      return;
    }
    if (this.gone) return;
    this.lines = more ? this.lines.concat(data.lines) : data.lines;
    this.next = data.next;
    this.renderBoard();
  }

  renderBoard() {
    const ev = this.event;
    const me = session.player ? session.player.id : null;
    const started = ev.state !== "registering";
    const title = h("h2", { id: "event-board-title" }, started ? t("events.standings") : t("events.registered_players"));
    let body;
    if (!this.lines.length) {
      body = h("p", { class: "hint" }, started ? t("events.nobody_left") : t("events.nobody_registered"));
    } else if (!started) {
      body = h("ul", { class: "event-players" }, this.lines.map((l) => h("li", { class: l.player_id === me ? "mine" : "" },
        l.name, l.player_id === me ? you() : "")));
    } else {
      body = h("div", { class: "table-scroll", tabindex: "0" }, h("table", { class: "event-standings" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("events.place")), h("th", { scope: "col" }, t("common.player")),
          h("th", { scope: "col" }, t("events.table_points")), h("th", { scope: "col" }, t("events.hearts_points")),
          h("th", { scope: "col" }, ev.format === "arena" ? t("events.games") : t("events.rounds")))),
        h("tbody", {}, this.lines.map((l) => h("tr", { class: l.player_id === me ? "mine" : "" },
          h("td", {}, String(l.place)), h("th", { scope: "row" }, l.name, l.player_id === me ? you() : ""),
          h("td", {}, formatNumber(l.table_points)), h("td", {}, formatNumber(l.game_points)), h("td", {}, formatNumber(l.rounds)))))));
    }
    const more = this.next
      ? h("button", { type: "button", class: "btn", id: "event-more", onclick: () => this.loadStandings(true) }, t("events.more"))
      : null;
    fill(this.board, title, body, more);
  }
}

/** The club page's events section: the club's events to come and running, each a link, and
 *  for an admin the form that schedules one. */
export async function clubEvents(clubId, admin) {
  loadEventsStyle();
  let found = [];
  try {
    found = (await api(`/api/events?club=${encodeURIComponent(clubId)}`)).events;
  } catch (error) {
    toast(error.message, "error");
  }
  const rows = found.map((ev) => h("li", {},
    h("a", { href: `/?event=${ev.id}` }, ev.name), " ",
    h("span", { class: "hint" }, [
      formatName(ev.format, true),
      ev.format === "arena" ? t("events.n_minutes", { m: formatNumber(arenaMinutes(ev)) }) : plural("events.n_rounds", ev.rounds),
      ev.state === "registering" ? t("events.starts_at", { when: localTime(ev.starts_at) }) : statusWords(ev),
      plural("events.n_registered", ev.entries),
    ].join(", "))));
  const section = h("section", { class: "panel", "aria-labelledby": "club-events-title" },
    h("h2", { id: "club-events-title" }, t("events.title")),
    rows.length ? h("ul", { class: "club-events" }, rows) : h("p", { class: "hint" }, t("events.none")));
  if (admin) section.append(await scheduleForm(clubId));
  return section;
}

function pad(n) {
  return String(n).padStart(2, "0");
}

/** A datetime-local input's value for a moment (the viewer's own time). */
function localInput(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

async function scheduleForm(clubId) {
  const games = await presets();
  const inHour = new Date(Date.now() + 3600000);
  inHour.setMinutes(0, 0, 0);
  const field = (id, label, input, hint) => h("div", { class: "event-field" },
    h("label", { for: id }, label), input, hint ? h("span", { class: "hint", id: `${id}-hint` }, hint) : null);
  const name = h("input", { id: "event-name", maxlength: "40", autocomplete: "off" });
  const starts = h("input", { type: "datetime-local", id: "event-start", value: localInput(inHour), "aria-describedby": "event-start-hint" });
  const rounds = h("input", { type: "number", id: "event-rounds", min: "1", max: "12", value: "3", inputmode: "numeric" });
  const minutes = h("input", { type: "number", id: "event-minutes", min: "5", max: "720", value: "60", inputmode: "numeric",
    "aria-describedby": "event-minutes-hint" });
  const format = h("select", { id: "event-format" },
    ["swiss", "duplicate", "arena"].map((value) => h("option", { value }, formatName(value))));
  const preset = h("select", { id: "event-preset" },
    (games.length ? games : [{ id: "classic", label: "Hearts" }]).map((p) => h("option", { value: p.id }, gameName(p))));
  const error = h("p", { class: "form-error", id: "event-error", role: "alert" });
  const fields = { bad_name: name, bad_start: starts, bad_rounds: rounds, bad_minutes: minutes, bad_format: format, bad_preset: preset };
  const fail = (code, message) => {
    for (const [c, el] of Object.entries(fields)) el.setAttribute("aria-invalid", c === code ? "true" : "false");
    setText(error, message);
    if (fields[code]) fields[code].focus();
  };
  const submit = async (event) => {
    event.preventDefault();
    if (!name.value.trim()) return fail("bad_name", t("events.need_name"));
    const when = new Date(starts.value); // a datetime-local value is read in the viewer's time
    if (!starts.value || Number.isNaN(when.getTime())) return fail("bad_start", t("events.need_start"));
    if (when.getTime() < Date.now()) return fail("bad_start", t("events.past"));
    const arena = format.value === "arena";
    const count = Number(rounds.value);
    const length = Number(minutes.value);
    if (!arena && (!Number.isInteger(count) || count < 1)) return fail("bad_rounds", t("events.bad_rounds"));
    if (arena && (!Number.isInteger(length) || length < 5 || length > 720)) return fail("bad_minutes", t("events.bad_minutes"));
    fail(null, "");
    button.disabled = true;
    const shape = arena ? { minutes: length } : { rounds: count };
    try {
      const made = await api("/api/events", { method: "POST", body: {
        name: name.value, starts_at: when.toISOString(), ...shape, format: format.value, preset: preset.value,
        club_id: Number(clubId),
      } });
      location.href = `/?event=${made.id}`;
    } catch (err) {
      const words = err.message.charAt(0).toUpperCase() + err.message.slice(1); // the server's, or the catalog's
      fail(err.code, /[.!?]$/.test(words) ? words : `${words}.`);
      button.disabled = false;
    }
  };
  const button = h("button", { class: "btn primary", id: "event-create" }, t("events.create"));
  const roundsField = field("event-rounds", t("events.rounds"), rounds);
  const minutesField = field("event-minutes", t("events.length_minutes"), minutes, t("events.arena_hint"));
  const shown = () => {
    roundsField.hidden = format.value === "arena"; // an arena has a time window instead
    minutesField.hidden = !roundsField.hidden;
  };
  format.addEventListener("change", shown);
  shown();
  return h("form", { class: "event-form", novalidate: true, onsubmit: submit, "aria-labelledby": "event-form-title" },
    h("h3", { id: "event-form-title" }, t("events.schedule")),
    field("event-name", t("common.name"), name),
    field("event-start", t("events.starts"), starts, t("events.start_hint")),
    field("event-format", t("events.format"), format),
    roundsField, minutesField,
    field("event-preset", t("events.game"), preset),
    error, button);
}
