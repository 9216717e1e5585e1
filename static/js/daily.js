// The daily challenge of one preset (/?daily=classic): start or continue today's deals, each
// finished deal compared with everyone who held the same cards (the score spread, the
// Expert's par, one's own play beside another's), and the day's and the month's leaderboards.
// The server answers a deal's page only once the player has finished that deal
// (docs/compete.md). Words: the catalog's daily.* (i18n.js); app.js draws the page again on a
// change of language.

import { api, checkSession, session, signInAsGuest } from "./api.js";
import { cardShort } from "./cards.js";
import { h, fill, toast } from "./dom.js";
import { formatDate, formatNumber, loadSection, plural, t } from "./i18n.js";
import { directionWords } from "./labels.js";

// This module's words (<lang>.daily.json), before anything of it is drawn.
await loadSection("daily");

/** The page's stylesheet (css/daily.css), added once. */
function loadStyle() {
  if (document.getElementById("daily-css")) return;
  const link = document.createElement("link");
  link.id = "daily-css";
  link.rel = "stylesheet";
  link.href = new URL("../css/daily.css", import.meta.url).href;
  document.head.append(link);
}

export function mountDaily(root, preset) {
  loadStyle();
  const page = new DailyPage(root, preset);
  page.start();
  return page;
}

function seatWord(seat, n) {
  if (seat === 0) return t("daily.seat_you");
  if (n !== 4) return t("daily.seat", { seat: seat + 1 });
  return [null, t("daily.seat_left"), t("daily.seat_across"), t("daily.seat_right")][seat];
}

/** The day of a challenge ("2026-11-29", a UTC date) in the page's language. */
function dayWords(day) {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : formatDate(date, { dateStyle: "medium", timeZone: "UTC" });
}

/** A bar of ``percent`` width (set through the CSSOM: the page's CSP allows no style
 *  attribute). */
function bar(percent) {
  const el = h("span", { class: "spread-bar" });
  el.style.width = `${percent}%`;
  return el;
}

function pct(value) {
  return formatNumber(Number(value) / 100, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

class DailyPage {
  constructor(root, preset) {
    this.root = root;
    this.preset = preset;
    this.el = {};
    this.board = { kind: "day", next: null };
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.again);
    clearTimeout(this.boardAgain);
    this.root.classList.remove("daily");
  }

  async start() {
    document.title = t("daily.page_title");
    this.el.status = h("section", { class: "panel daily-status", "aria-live": "polite" }, h("p", {}, t("daily.loading")));
    this.el.deal = h("section", { class: "panel daily-deal", hidden: true, "aria-live": "polite" });
    this.el.boardList = h("ol", { class: "daily-board", "aria-label": t("daily.leaderboard") });
    this.el.more = h("button", { type: "button", class: "btn ghost", hidden: true, onclick: () => this.loadBoard(false) }, t("daily.more"));
    const tab = (kind, label) => h("button", {
      type: "button", class: "btn ghost", id: `board-${kind}`, "aria-pressed": String(kind === "day"),
      onclick: () => { this.board.kind = kind; this.loadBoard(true); },
    }, label);
    this.el.tabs = [tab("day", t("daily.today")), tab("month", t("daily.this_month"))];
    this.root.classList.add("daily");
    fill(this.root,
      h("h1", { class: "daily-title" }, t("daily.title")),
      this.el.status,
      this.el.deal,
      h("section", { class: "panel" }, h("h2", {}, t("daily.leaderboard")),
        h("div", { class: "row" }, this.el.tabs), this.el.boardList, this.el.more));
    await checkSession();
    if (!session.player) {
      try {
        await signInAsGuest(t("daily.guest_name", { number: Math.floor(1000 + Math.random() * 9000) }));
        window.dispatchEvent(new Event("hearts:identity"));
      } catch (error) {
        fill(this.el.status, h("p", { class: "form-error" }, error.message));
        return;
      }
    }
    await Promise.all([this.loadStatus(), this.loadBoard(true)]);
  }

  async loadStatus() {
    let data;
    try {
      data = await api(`/api/daily/${encodeURIComponent(this.preset)}`);
    } catch (error) {
      fill(this.el.status, h("p", { class: "form-error" }, error.message), h("a", { class: "btn", href: "/" }, t("common.back")));
      return;
    }
    this.renderStatus(data);
  }

  renderStatus(data) {
    const a = data.attempt;
    // Deals reach the results a moment after the table plays them: look again until done.
    clearTimeout(this.again);
    if (a && !a.finished && !this.destroyed) this.again = setTimeout(() => this.loadStatus(), 2000);
    if (a && a.finished && !this.finished) {
      this.finished = true;
      this.watchBoard();
    }
    const streak = data.streak.current ? h("p", { class: "hint" }, plural("daily.streak", data.streak.current, { best: data.streak.best })) : null;
    const head = h("p", {}, `${dayWords(data.day)} \u00b7 ${plural("daily.about", data.deals)}`);
    if (!a) {
      fill(this.el.status, head, streak, h("div", { class: "row" },
        h("button", { type: "button", class: "btn primary", id: "daily-start", onclick: () => this.begin() }, t("daily.start"))));
      return;
    }
    const rows = a.deals.map((d) => h("li", { class: "daily-deal-line" },
      h("span", {}, plural("daily.deal_points", d.points, { deal: d.deal_no + 1 })),
      h("span", { class: "hint" }, " ", d.of ? plural("daily.matchpoints", d.of, { matchpoints: d.matchpoints }) : t("daily.nobody_yet")),
      h("button", { type: "button", class: "btn ghost", id: `compare-${d.deal_no}`, onclick: () => this.showDeal(d.deal_no) }, t("daily.compare"))));
    // With nobody else on the same deals yet there is nothing to compare: no percentage.
    const alone = !a.of;
    const summary = a.finished
      ? h("p", { class: "daily-total" }, alone ? t("daily.finished_alone")
        : plural("daily.finished", a.of, { percent: pct(a.percent), matchpoints: a.matchpoints }))
      : h("p", {}, plural(alone ? "daily.so_far_alone" : "daily.so_far", data.deals, { done: a.deals_done, percent: pct(a.percent) }));
    const play = a.finished ? null : h("a", { class: "btn primary", id: "daily-continue", href: `/?table=${encodeURIComponent(a.table_id)}` }, a.deals_done ? t("daily.continue") : t("daily.play"));
    fill(this.el.status, head, streak, summary, play ? h("div", { class: "row" }, play) : null, h("ol", { class: "daily-deals" }, rows));
  }

  async begin() {
    try {
      const data = await api(`/api/daily/${encodeURIComponent(this.preset)}/start`, { method: "POST" });
      location.href = `/?table=${encodeURIComponent(data.attempt.table_id)}`;
    } catch (error) {
      toast(error.message, "error");
    }
  }

  async showDeal(dealNo, withAttempt = null) {
    let d;
    try {
      d = await api(`/api/daily/${encodeURIComponent(this.preset)}/deals/${dealNo}` + (withAttempt ? `?with=${withAttempt}` : ""));
    } catch (error) {
      toast(error.message, "error");
      return;
    }
    const most = Math.max(...d.spread.map((s) => s.players));
    const spread = h("ul", { class: "daily-spread", "aria-label": t("daily.spread") },
      d.spread.map((s) => h("li", { class: s.points === d.points ? "mine" : "" },
        h("span", { class: "spread-points" }, t("daily.pt", { points: s.points })),
        bar(Math.max(4, Math.round((100 * s.players) / most))),
        h("span", { class: "spread-count" }, `${s.players}`))));
    const par = !d.par ? t("daily.par_none")
      : d.par.status === "done" ? plural("daily.par", d.par.points)
      : t("daily.par_pending");
    const sides = [this.playColumn(t("daily.your_play"), d.mine)];
    if (d.other) sides.push(this.playColumn(t("daily.their_play", { name: d.other.name, points: d.other.points }), d.other.replay));
    else sides.push(h("p", { class: "hint" }, t("daily.nobody_else")));
    this.el.deal.hidden = false;
    fill(this.el.deal,
      h("h2", { tabindex: "-1", id: "deal-title" }, plural("daily.you_took", d.points, { deal: d.deal_no + 1 })),
      h("p", {}, d.of ? plural("daily.among", d.players, { matchpoints: d.matchpoints, of: d.of, percent: pct(d.percent) }) : t("daily.first")),
      h("p", {}, par), spread,
      h("div", { class: "daily-compare" }, sides));
    this.el.deal.querySelector("#deal-title").focus();
  }

  playColumn(title, hand) {
    const n = hand.deal.length;
    const tricks = hand.tricks.map((trick, i) => h("li", {},
      h("span", { class: "trick-no" }, `${i + 1}.`),
      trick.plays.map((p) => h("span", { class: p.seat === 0 ? "play mine" : "play", title: seatWord(p.seat, n) }, cardShort(p.card))),
      h("span", { class: "hint" }, ` \u2192 ${seatWord(trick.winner, n)}`)));
    const points = hand.result ? hand.result.points.join(" / ") : "-";
    return h("div", { class: "daily-play" }, h("h3", {}, title),
      h("p", { class: "hint" }, t("daily.passing", { direction: directionWords(hand.pass_direction), points })),
      h("ol", { class: "daily-tricks" }, tricks));
  }

  async loadBoard(reset) {
    const kind = this.board.kind;
    for (const tab of this.el.tabs) tab.setAttribute("aria-pressed", String(tab.id === `board-${kind}`));
    clearTimeout(this.boardAgain);
    const path = `/api/daily/${encodeURIComponent(this.preset)}/${kind === "day" ? "leaderboard" : "month"}`;
    const cursor = !reset && this.board.next ? `?cursor=${encodeURIComponent(this.board.next)}` : "";
    let data;
    try {
      data = await api(path + cursor);
    } catch (error) {
      toast(error.message, "error");
      return;
    }
    if (this.destroyed || kind !== this.board.kind) return;
    // The only one finished today has nobody to be compared with: no percentage of nothing.
    const alone = kind === "day" && data.players < 2;
    const items = data.lines.map((line) => {
      const total = formatNumber(line.total, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
      const value = kind !== "day" ? plural("daily.over_days", line.days, { total }) : alone ? t("daily.board_alone") : pct(line.percent);
      return h("li", { value: line.rank }, h("span", { class: "board-name" }, line.name), " ", h("span", { class: "board-value" }, value));
    });
    if (reset) fill(this.el.boardList, items);
    else this.el.boardList.append(...items);
    if (!this.el.boardList.children.length) this.el.boardList.append(h("li", { class: "hint empty" }, t("daily.nobody_finished")));
    this.board.next = data.next;
    this.el.more.hidden = !data.next;
    if (kind === "day" && reset) {
      this.boardLoaded = true;
      const me = session.player && session.player.name;
      this.listed = data.lines.some((line) => line.name === me);
      this.watchBoard();
    }
  }

  /** One who has just finished is on the day's board once the server's next refresh ranks
   *  them (HEARTS_DAILY_REFRESH_SECONDS, a minute by default): until then the board is looked
   *  at again every few seconds, so the page never says "nobody has finished" to them. */
  watchBoard() {
    if (!this.finished || !this.boardLoaded || this.listed || this.destroyed) return;
    if ((this.boardTries = (this.boardTries || 0) + 1) > 60) return;
    this.boardAgain = setTimeout(() => this.board.kind === "day" && this.loadBoard(true), 3000);
  }
}
