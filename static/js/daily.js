// The daily challenge of one preset (/?daily=classic): start or continue today's deals, each
// finished deal compared with everyone who held the same cards (the score spread, the
// Expert's par, one's own play beside another's), and the day's and the month's leaderboards.
// The server answers a deal's page only once the player has finished that deal
// (docs/compete.md).

import { api, checkSession, session, signInAsGuest } from "./api.js";
import { cardShort } from "./cards.js";
import { h, fill, toast } from "./dom.js";
import { DIRECTION_WORDS } from "./labels.js";

const SEAT_WORDS = ["You", "Left", "Across", "Right"];

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
  return n === 4 ? SEAT_WORDS[seat] : seat === 0 ? "You" : `Seat ${seat + 1}`;
}

/** A bar of ``percent`` width (set through the CSSOM: the page's CSP allows no style
 *  attribute). */
function bar(percent) {
  const el = h("span", { class: "spread-bar" });
  el.style.width = `${percent}%`;
  return el;
}

function pct(value) {
  return `${Number(value).toFixed(1)}%`;
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
    this.root.classList.remove("daily");
  }

  async start() {
    document.title = "Daily challenge \u2013 Hearts Online";
    this.el.status = h("section", { class: "panel daily-status", "aria-live": "polite" }, h("p", {}, "Loading\u2026"));
    this.el.deal = h("section", { class: "panel daily-deal", hidden: true, "aria-live": "polite" });
    this.el.boardList = h("ol", { class: "daily-board", "aria-label": "Leaderboard" });
    this.el.more = h("button", { type: "button", class: "btn ghost", hidden: true, onclick: () => this.loadBoard(false) }, "More");
    const tab = (kind, label) => h("button", {
      type: "button", class: "btn ghost", id: `board-${kind}`, "aria-pressed": String(kind === "day"),
      onclick: () => { this.board.kind = kind; this.loadBoard(true); },
    }, label);
    this.el.tabs = [tab("day", "Today"), tab("month", "This month")];
    this.root.classList.add("daily");
    fill(this.root,
      h("h1", { class: "daily-title" }, "Daily challenge"),
      this.el.status,
      this.el.deal,
      h("section", { class: "panel" }, h("h2", {}, "Leaderboard"),
        h("div", { class: "row" }, this.el.tabs), this.el.boardList, this.el.more));
    await checkSession();
    if (!session.player) {
      try {
        await signInAsGuest(`Guest ${Math.floor(1000 + Math.random() * 9000)}`);
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
      fill(this.el.status, h("p", { class: "form-error" }, error.message), h("a", { class: "btn", href: "/" }, "Back to the lobby"));
      return;
    }
    this.renderStatus(data);
  }

  renderStatus(data) {
    const a = data.attempt;
    // Deals reach the results a moment after the table plays them: look again until done.
    clearTimeout(this.again);
    if (a && !a.finished && !this.destroyed) this.again = setTimeout(() => this.loadStatus(), 2000);
    const streak = data.streak.current ? h("p", { class: "hint" }, `Streak: ${data.streak.current} day(s) (best ${data.streak.best})`) : null;
    const head = h("p", {}, `${data.day} \u00b7 ${data.deals} deals against three Expert computers, the same deals for everyone. One attempt a day.`);
    if (!a) {
      fill(this.el.status, head, streak, h("div", { class: "row" },
        h("button", { type: "button", class: "btn primary", id: "daily-start", onclick: () => this.begin() }, "Play today's deals")));
      return;
    }
    const rows = a.deals.map((d) => h("li", { class: "daily-deal-line" },
      h("span", {}, `Deal ${d.deal_no + 1}: ${d.points} point(s)`),
      h("span", { class: "hint" }, d.of ? ` ${d.matchpoints} of ${d.of} matchpoints` : " nobody else yet"),
      h("button", { type: "button", class: "btn ghost", id: `compare-${d.deal_no}`, onclick: () => this.showDeal(d.deal_no) }, "Compare")));
    const summary = a.finished
      ? h("p", { class: "daily-total" }, `Finished: ${pct(a.percent)} (${a.matchpoints} of ${a.of} matchpoints)`)
      : h("p", {}, `${a.deals_done} of ${data.deals} deals played so far: ${pct(a.percent)}`);
    const play = a.finished ? null : h("a", { class: "btn primary", id: "daily-continue", href: `/?table=${encodeURIComponent(a.table_id)}` }, a.deals_done ? "Continue playing" : "Play");
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
    const spread = h("ul", { class: "daily-spread", "aria-label": "Points taken by everyone on this deal" },
      d.spread.map((s) => h("li", { class: s.points === d.points ? "mine" : "" },
        h("span", { class: "spread-points" }, `${s.points} pt`),
        bar(Math.max(4, Math.round((100 * s.players) / most))),
        h("span", { class: "spread-count" }, `${s.players}`))));
    const par = !d.par ? "The Expert's own score on this deal is not computed on this server."
      : d.par.status === "done" ? `Par (the Expert in your seat): ${d.par.points} point(s).`
      : "Par: the Expert is playing this deal in your seat; look again in a minute.";
    const sides = [this.playColumn("Your play", d.mine)];
    if (d.other) sides.push(this.playColumn(`${d.other.name}'s play (${d.other.points} pt)`, d.other.replay));
    else sides.push(h("p", { class: "hint" }, "Nobody else has played this deal yet."));
    this.el.deal.hidden = false;
    fill(this.el.deal,
      h("h2", { tabindex: "-1", id: "deal-title" }, `Deal ${d.deal_no + 1}: you took ${d.points} point(s)`),
      h("p", {}, d.of ? `${d.matchpoints} of ${d.of} matchpoints (${pct(d.percent)}) among ${d.players} players` : "You are the first to play this deal."),
      h("p", {}, par), spread,
      h("div", { class: "daily-compare" }, sides));
    this.el.deal.querySelector("#deal-title").focus();
  }

  playColumn(title, hand) {
    const n = hand.deal.length;
    const tricks = hand.tricks.map((t, i) => h("li", {},
      h("span", { class: "trick-no" }, `${i + 1}.`),
      t.plays.map((p) => h("span", { class: p.seat === 0 ? "play mine" : "play", title: seatWord(p.seat, n) }, cardShort(p.card))),
      h("span", { class: "hint" }, ` \u2192 ${seatWord(t.winner, n)}`)));
    const direction = DIRECTION_WORDS[hand.pass_direction] || hand.pass_direction;
    return h("div", { class: "daily-play" }, h("h3", {}, title),
      h("p", { class: "hint" }, `Passing: ${direction}. Points: ${hand.result ? hand.result.points.join(" / ") : "-"}`),
      h("ol", { class: "daily-tricks" }, tricks));
  }

  async loadBoard(reset) {
    const kind = this.board.kind;
    for (const tab of this.el.tabs) tab.setAttribute("aria-pressed", String(tab.id === `board-${kind}`));
    if (reset) {
      this.board.next = null;
      fill(this.el.boardList);
    }
    const path = `/api/daily/${encodeURIComponent(this.preset)}/${kind === "day" ? "leaderboard" : "month"}`;
    let data;
    try {
      data = await api(path + (this.board.next ? `?cursor=${encodeURIComponent(this.board.next)}` : ""));
    } catch (error) {
      toast(error.message, "error");
      return;
    }
    for (const line of data.lines) {
      const value = kind === "day" ? pct(line.percent) : `${line.total.toFixed(1)} over ${line.days} day(s)`;
      this.el.boardList.append(h("li", { value: line.rank }, h("span", { class: "board-name" }, line.name), " ", h("span", { class: "board-value" }, value)));
    }
    if (!this.el.boardList.children.length) this.el.boardList.append(h("li", { class: "hint" }, "Nobody has finished yet."));
    this.board.next = data.next;
    this.el.more.hidden = !data.next;
  }
}
