// My games (docs/turn-based.md "My games"): every table the player sits at, live or
// turn-based, from GET /api/games/mine. Shown three ways: a "Your games" strip at the top of
// every page (one tap to each table), a count in the top bar's badge and the page's title
// (games waiting for the player's move), and the page /?games=1 with each game's clock and
// last move. Refreshed every 20 s, and when the page comes back into view.

import { api, session } from "./api.js";
import { addStylesheet, h, fill } from "./dom.js";
import { t } from "./i18n.js";

const EVERY_MS = 20_000;
let latest = null; // the last answer
let timer = null;
const pages = new Set(); // open My games pages: redrawn on each answer

/** How a table's pace reads in the lobby and on My games. */
export function paceText(table) {
  if (table.pace === "turn") {
    const hours = table.move_seconds / 3600;
    return hours % 24 ? t("games.pace_hours", { hours }) : t("games.pace_days", { count: hours / 24 });
  }
  return table.turn_timer ? t("games.pace_timer", { seconds: table.turn_timer }) : t("games.no_timer");
}

/** "2 d 3 h", "5 h 10 min", "12 min": what is left of a clock. */
export function timeLeft(ms) {
  if (ms <= 0) return t("games.time_up");
  const minutes = Math.ceil(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days) return t("games.days_hours", { days, hours });
  if (hours) return t("games.hours_minutes", { hours, minutes: minutes % 60 });
  return t("games.minutes", { minutes });
}

function ago(ms) {
  const passed = Date.now() - ms;
  return passed < 60_000 ? t("games.just_now") : t("games.ago", { time: timeLeft(passed) });
}

/** One game in words: whose turn it is, and its clock. */
function describe(game) {
  const names = game.to_act.map((i) => game.seats[i]?.name || t("games.a_computer"));
  let turn;
  if (game.status === "waiting") turn = t("games.waiting");
  else if (game.status === "over") turn = game.ended === "abandoned" ? t("games.abandoned") : t("games.over");
  else if (game.my_turn) turn = t("games.your_turn");
  else if (names.length) turn = t("games.to_play", { names: names.join(", ") });
  else turn = t("games.between");
  let clock = "";
  if (game.status === "playing" && game.deadline_ms) {
    clock = t("games.left", { time: timeLeft(game.deadline_ms - Date.now()) });
    if (!game.clock_running) clock = t("games.clock_stopped", { clock });
  }
  return { turn, clock };
}

function title(count) {
  const base = document.title.replace(/^\(\d+\) /, "");
  document.title = count ? `(${count}) ${base}` : base;
}

function renderBadge() {
  const badge = document.getElementById("games-link");
  if (!badge) return;
  const count = latest ? latest.my_turn : 0;
  badge.hidden = !latest || latest.games.length === 0;
  fill(badge, h("span", { class: "games-words" }, t("games.my_games")), count ? h("span", { class: "games-count", "aria-label": t("games.waiting_count", { count }) }, String(count)) : null);
}

function renderStrip() {
  const strip = document.getElementById("games-strip");
  if (!strip) return;
  const here = new URLSearchParams(location.search).get("table");
  const games = (latest ? latest.games : []).filter((g) => g.status !== "over" && g.id !== here);
  strip.hidden = games.length === 0 || new URLSearchParams(location.search).has("games");
  const count = latest ? latest.my_turn : 0;
  // The strip's title opens My games (on a phone the top bar has no room for its link).
  strip.setAttribute("aria-label", t("games.your_games"));
  fill(strip, h("a", { class: "strip-title", href: "/?games=1" }, t("games.your_games"),
    count ? h("span", { class: "games-count", "aria-label": t("games.waiting_count", { count }) }, String(count)) : null),
    ...games.slice(0, 8).map((g) => {
      const { turn, clock } = describe(g);
      return h("a", { class: `game-chip${g.my_turn ? " mine" : ""}`, href: g.link },
        h("strong", {}, turn), clock ? `\u00a0\u00b7 ${clock}` : "");
    }));
}

function render() {
  title(latest ? latest.my_turn : 0);
  renderBadge();
  renderStrip();
  for (const page of pages) page();
}

/** Ask the server again now (a signed-out visitor has no games). */
export async function refreshGames() {
  if (!session.player) {
    latest = null;
    render();
    return;
  }
  try {
    latest = await api("/api/games/mine");
  } catch {
    return; // the next refresh tries again
  }
  render();
}

/** The strip and badge on every page: set up once by app.js. */
export function setupMyGames() {
  addStylesheet("mygames-css", new URL("../css/mygames.css", import.meta.url).href);
  const right = document.querySelector(".topbar-right");
  if (right && !document.getElementById("games-link")) {
    right.prepend(h("a", { id: "games-link", class: "btn ghost games-link", href: "/?games=1", hidden: true }, t("games.my_games")));
  }
  const main = document.getElementById("main");
  if (main && !document.getElementById("games-strip")) {
    main.before(h("nav", { id: "games-strip", class: "games-strip", "aria-label": t("games.your_games"), hidden: true }));
  }
  clearInterval(timer);
  timer = setInterval(refreshGames, EVERY_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refreshGames();
  });
  window.addEventListener("hearts:identity", refreshGames);
  window.addEventListener("popstate", render);
  window.addEventListener("hearts:language", render); // the badge and the strip in the new words
  // A game of this player's changed (its turn came, it ended): the lobby socket says so
  // (static/js/alerts.js passes its messages on), and the list is read again at once. A
  // burst of them (several tables at once) makes one read.
  let soon = null;
  window.addEventListener("hearts:friends", (event) => {
    if (!event.detail || event.detail.type !== "games" || soon) return;
    soon = setTimeout(() => { soon = null; refreshGames(); }, 200);
  });
  refreshGames();
}

/** The page /?games=1: every game, what needs the player first. */
export function mountMyGames(root) {
  const list = h("ul", { class: "games-list" });
  const box = h("section", { class: "panel my-games" }, h("h1", {}, t("games.my_games")), list);
  const draw = () => {
    const games = latest ? latest.games : [];
    list.classList.toggle("loading", !latest && !!session.player);
    if (!latest && session.player) {
      fill(list, h("li", {}, t("games.loading")));
      return;
    }
    if (!games.length) {
      fill(list, h("li", {}, session.player ? t("games.none") : t("games.sign_in"), " ",
        h("a", { href: "/" }, t("games.find"))));
      return;
    }
    fill(list, ...games.map((g) => {
      const { turn, clock } = describe(g);
      const people = g.seats.map((s) => s.name || (s.kind === "open" ? t("games.open_seat") : t("games.computer"))).join(", ");
      return h("li", { class: g.my_turn ? "mine" : "" },
        h("a", { class: "game-link", href: g.link },
          h("strong", {}, turn), clock ? `\u00a0\u00b7 ${clock}` : ""),
        h("p", { class: "meta" }, t("games.meta", { preset: g.preset, pace: paceText(g), people, ago: ago(g.last_move_ms) })));
    }));
  };
  pages.add(draw);
  fill(root, box);
  draw();
  refreshGames();
  return { destroy: () => pages.delete(draw) };
}
