// The game review on the replay page: ask the Expert to review one seat's
// decisions, follow the job's progress over its socket, then a loss graph, the reviewed moves
// with their marks, the better move on the cards, and n / p (or ] / [) from mistake to mistake.
// Server side: POST/GET /api/games/{id}/review, /ws/games/{id}/review (docs/protocol.md).
// In a shared replay room (replay_room.js) the driver's choice of seat, and their request for a
// review, go to the room, and every member's panel shows that seat's review; a follower's
// choices are off (they read the marks of the position the driver shows).
// Words: the catalog's review.* (i18n.js); app.js draws the page again on a change of language.

import { api, session, wsUrl } from "./api.js";
import { cardShort, renderCard } from "./cards.js";
import { h, fill, setText } from "./dom.js";
import { formatNumber, language, loadSection, plural, t } from "./i18n.js";

// This module's words (<lang>.review.json), before anything of it is drawn.
await loadSection("review");

// A mark: the symbol (as in chess annotations), its word, and its order (worst last).
export const MARKS = {
  inaccuracy: { symbol: "?!", get word() { return t("review.inaccuracy"); }, count: (n) => plural("review.inaccuracies", n), rank: 1 },
  mistake: { symbol: "?", get word() { return t("review.mistake"); }, count: (n) => plural("review.mistakes", n), rank: 2 },
  blunder: { symbol: "??", get word() { return t("review.blunder"); }, count: (n) => plural("review.blunders", n), rank: 3 },
};

function statusWords(status) {
  const words = {
    queued: t("review.queued"),
    running: t("review.running"),
    failed: t("review.failed"),
  };
  return words[status];
}

/** The text of a move: "Q♠", "Q♠ (dark face)", a pass's cards "2♣ 9♥ A♠". */
export function moveText(move) {
  if (!move) return "";
  if (move.type === "pass") return (move.cards || []).map(cardShort).join(" ");
  if (move.type === "play") return move.face === "dark" ? t("review.dark_face", { card: cardShort(move.card) }) : cardShort(move.card);
  return move.type;
}

/** "9.9 points", "0.49 points" (two decimals under 1: 0.49 is no inaccuracy, 0.5 is). */
function points(x) {
  const digits = Number(x) < 1 ? 2 : 1;
  return t("review.points", { count: formatNumber(Number(x), { minimumFractionDigits: digits, maximumFractionDigits: digits }) });
}

function expected(x) {
  return formatNumber(Number(x), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export class ReviewPanel {
  /** ``page``: the replay page (its data, names, ``go(hand, step)``, ``render()``). */
  constructor(page) {
    this.page = page;
    this.review = null; // the result, once done
    this.decisions = []; // every reviewed decision, in game order, with hand/step
    this.current = -1; // index in decisions of the one shown, or -1
    this.socket = null;
    this.pollTimer = null;
    this.seat = this.defaultSeat();
  }

  /** The signed-in player's seat if they played this game, else the first seat. */
  defaultSeat() {
    const g = this.page.data.game;
    const me = session.player;
    const mine = g && g.seats && me ? g.seats.find((s) => s.player_id === me.id) : null;
    return mine ? mine.seat : 0;
  }

  query() {
    return this.page.share ? `&share=${encodeURIComponent(this.page.share)}` : "";
  }

  path() {
    return `/api/games/${encodeURIComponent(this.page.gameId)}/review`;
  }

  build() {
    const d = this.page.data;
    const e = (this.el = {});
    e.seat = h("select", { id: "review-seat", onchange: () => this.pick(Number(e.seat.value)) },
      Array.from({ length: d.players }, (_, i) => h("option", { value: String(i), selected: i === this.seat }, this.page.name(i))));
    e.go = h("button", { type: "button", class: "btn primary small", id: "review-go", onclick: () => this.ask() }, t("review.go"));
    e.bar = h("progress", { id: "review-progress", max: "100", value: "0", "aria-labelledby": "review-status" });
    e.status = h("span", { id: "review-status", class: "review-status", role: "status", "aria-live": "polite" });
    e.summary = h("p", { class: "review-summary", id: "review-summary" });
    e.graph = h("div", { class: "loss-graph" });
    e.prev = h("button", { type: "button", class: "btn small", id: "review-prev", "aria-label": t("review.prev_label"), onclick: () => this.jump(-1) }, t("review.prev"));
    e.next = h("button", { type: "button", class: "btn small", id: "review-next", "aria-label": t("review.next_label"), onclick: () => this.jump(1) }, t("review.next"));
    e.note = h("div", { class: "review-note", id: "review-note", "aria-live": "polite" });
    e.moves = h("ol", { class: "review-moves", id: "review-moves", "aria-label": t("review.moves_label") });
    e.body = h("div", { class: "review-body", hidden: true },
      e.summary, e.graph,
      h("div", { class: "row review-nav" }, e.prev, e.next),
      e.note,
      h("h3", { class: "review-moves-title" }, t("review.moves")),
      e.moves);
    e.root = h("section", { class: "panel review-panel", "aria-labelledby": "review-title" },
      h("h2", { id: "review-title" }, t("review.title")),
      h("p", { class: "hint" }, t("review.about", { inaccuracy: MARKS.inaccuracy.symbol, mistake: MARKS.mistake.symbol, blunder: MARKS.blunder.symbol })),
      h("div", { class: "row review-ask" }, h("label", { for: "review-seat" }, t("review.seat")), e.seat, e.go),
      h("div", { class: "review-progress" }, e.bar, e.status),
      e.body);
    return e.root;
  }

  /** On load: show what was already asked for (by anyone) for the chosen seat. */
  async start() {
    await this.load(false);
  }

  destroy() {
    this.closeSocket();
  }

  /** The player chose a seat: in a room, its driver shows it to everyone. */
  async pick(seat) {
    if (this.page.room) this.page.room.reviewChosen(seat);
    await this.choose(seat);
  }

  async choose(seat) {
    this.seat = seat;
    if (this.el && this.el.seat.value !== String(seat)) this.el.seat.value = String(seat);
    this.closeSocket();
    this.show(null);
    await this.load(false);
  }

  /** The stored review of the chosen seat: shown if done, followed if in progress. The list
   *  first (every seat's state, no results), so a seat nobody asked about is no 404. */
  async load(quietMissing) {
    const seat = this.seat;
    let row = null;
    try {
      const list = await api(`${this.path()}${this.page.share ? `?share=${encodeURIComponent(this.page.share)}` : ""}`);
      row = list.reviews.find((r) => r.seat === seat) || null;
      if (row && row.status === "done") row = await api(`${this.path()}?seat=${seat}${this.query()}`);
    } catch (error) {
      if (seat === this.seat) this.setStatus("failed", error.message);
      return;
    }
    if (seat !== this.seat) return;
    if (row) this.update(row);
    else if (!quietMissing) this.setStatus("none");
  }

  async ask() {
    const seat = this.seat;
    this.el.go.disabled = true;
    try {
      const row = await api(`${this.path()}${this.page.share ? `?share=${encodeURIComponent(this.page.share)}` : ""}`,
        { method: "POST", body: { seat } });
      if (seat === this.seat) this.update(row);
      if (this.page.room) this.page.room.reviewChosen(seat); // the room's members follow it too
    } catch (error) {
      this.el.go.disabled = false;
      // (too_many_reviews: its limit, cost and when to try again, from its values: api.js)
      const words = error.status === 401 ? t("review.sign_in") : error.message;
      this.setStatus("error", words);
    }
  }

  /** A review's state from the API or the socket. */
  update(row) {
    if (row.seat !== undefined && row.seat !== this.seat) return;
    if (row.status === "done") {
      this.closeSocket();
      if (row.result) this.show(row.result);
      else this.load(true);
      return;
    }
    this.setStatus(row.status, null, row.progress);
    if (row.status === "queued" || row.status === "running") this.follow();
  }

  setStatus(status, words = null, progress = 0) {
    const e = this.el;
    const busy = status === "queued" || status === "running";
    this.status = status;
    e.root.classList.toggle("reviewing", busy);
    e.bar.value = Math.round((status === "done" ? 1 : progress || 0) * 100);
    e.go.disabled = busy || status === "done" || this.following();
    e.go.hidden = status === "done";
    const pct = formatNumber(progress || 0, { style: "percent" });
    setText(e.status, words || (status === "running" ? `${statusWords("running")} ${pct}` : statusWords(status) || (status === "done" ? t("review.reviewed") : t("review.not_yet"))));
  }

  /** Follow the job over its socket (any instance publishes its progress); polling if the
   *  socket cannot be opened. */
  follow() {
    if (this.socket || this.pollTimer) return;
    const seat = this.seat;
    let socket;
    try {
      socket = new WebSocket(wsUrl(`/ws/games/${encodeURIComponent(this.page.gameId)}/review?seat=${seat}${this.query()}`));
    } catch {
      this.poll();
      return;
    }
    this.socket = socket;
    socket.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "review" && msg.status !== "none") this.update(msg);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (!this.review && seat === this.seat) this.poll(); // closed early: ask the API
    };
  }

  poll() {
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(async () => {
      this.pollTimer = null;
      await this.load(true);
    }, 2000);
  }

  closeSocket() {
    clearTimeout(this.pollTimer);
    this.pollTimer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close();
  }

  /** The review's result (or null: none shown). */
  show(result) {
    this.review = result;
    const e = this.el;
    this.decisions = [];
    this.current = -1;
    if (!result) {
      e.body.hidden = true;
      this.page.render();
      return;
    }
    const hands = this.page.data.hands;
    for (const hand of result.hands) {
      const index = hands.findIndex((x) => x.hand_no === hand.hand);
      // In the dummy game a seat also plays from its half dummy: say so in the list.
      const dummy = new Set();
      for (const holding of index >= 0 ? hands[index].deal : []) {
        if (holding.from === "dummy" && holding.seat === result.seat) for (const c of holding.cards) dummy.add(c);
      }
      for (const dec of hand.decisions) {
        const step = dec.kind === "pass" ? 0 : (dec.trick ?? 0) + 1;
        const fromDummy = dec.kind === "play" && dummy.has(dec.made.card);
        this.decisions.push({ ...dec, handIndex: index, handNo: hand.hand, step, fromDummy });
      }
    }
    this.setStatus("done");
    setText(e.status, t("review.reviewed"));
    const marks = result.marks || {};
    const accuracy = result.accuracy === null || result.accuracy === undefined ? t("review.no_choice")
      : t("review.accuracy", { accuracy: formatNumber(result.accuracy / 100, { style: "percent", maximumFractionDigits: 1 }) });
    const counts = Object.entries(MARKS).reverse().map(([k, m]) => `${m.symbol} ${m.count(marks[k] || 0)}`);
    setText(e.summary, plural("review.summary", result.decisions, {
      name: this.page.name(result.seat), accuracy, points: points(result.loss), marks: counts.join(", "),
    }));
    fill(e.graph, this.graph());
    fill(e.moves, this.decisions.map((dec, i) => this.moveItem(dec, i)));
    e.body.hidden = false;
    this.page.render();
  }

  moveItem(dec, i) {
    const mark = dec.mark ? MARKS[dec.mark] : null;
    const where = dec.kind === "pass" ? t("review.where_pass", { hand: dec.handNo + 1 }) : t("review.where_trick", { hand: dec.handNo + 1, trick: dec.step });
    const text = t(dec.fromDummy ? "review.move_dummy" : "review.move", { where, move: moveText(dec.made) });
    return h("li", { class: ["review-move", mark ? `mark-${dec.mark}` : "ok"] },
      h("button", { type: "button", class: "review-move-btn", "data-index": String(i), onclick: () => this.goTo(i) },
        h("span", { class: "mark-symbol", "aria-hidden": "true" }, mark ? mark.symbol : "\u2713"),
        h("span", { class: "review-move-text" }, text),
        mark ? h("span", { class: "mark-word" }, t("review.marked", { mark: mark.word, points: points(dec.loss), better: moveText(dec.best) }))
          : h("span", { class: "mark-word ok" }, dec.loss > 0 ? t("review.lost", { points: points(dec.loss) }) : t("review.best"))));
  }

  /** The loss of each decision over the game, as bars (inline SVG). */
  graph() {
    const decs = this.decisions;
    const W = 600;
    const H = 120;
    const top = 14;
    const n = Math.max(decs.length, 1);
    const step = W / n;
    const cap = Math.max(4.5, ...decs.map((d) => d.loss));
    const ns = "http://www.w3.org/2000/svg";
    const el = (tag, attrs, text) => {
      const node = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      if (text !== undefined) node.textContent = text;
      return node;
    };
    const y = (loss) => H - (H - top) * Math.min(loss, cap) / cap;
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "loss-graph-title loss-graph-desc", class: "loss-svg", preserveAspectRatio: "none" });
    const marked = decs.filter((d) => d.mark).length;
    svg.append(el("title", { id: "loss-graph-title" }, t("review.graph_title")));
    svg.append(el("desc", { id: "loss-graph-desc" }, plural("review.graph_desc", decs.length, { marked })));
    for (const [name, limit] of Object.entries(this.review.thresholds || {})) {
      if (limit > cap) continue;
      svg.append(el("line", { x1: 0, x2: W, y1: y(limit), y2: y(limit), class: `threshold t-${name}` }));
    }
    let lastHand = null;
    decs.forEach((d, i) => {
      if (lastHand !== null && d.handNo !== lastHand) {
        svg.append(el("line", { x1: i * step, x2: i * step, y1: 0, y2: H, class: "hand-line" }));
      }
      lastHand = d.handNo;
      const height = Math.max(H - y(d.loss), d.loss > 0 ? 1.5 : 0.5);
      const bar = el("rect", {
        x: i * step + step * 0.12, width: Math.max(step * 0.76, 0.8), y: H - height, height,
        class: `bar ${d.mark ? `mark-${d.mark}` : "ok"}`, "data-index": i,
      });
      bar.addEventListener("click", () => this.goTo(i));
      svg.append(bar);
    });
    this.cursor = el("rect", { x: 0, y: 0, width: Math.max(step, 2), height: H, class: "cursor", visibility: "hidden" });
    svg.append(this.cursor);
    return h("figure", { class: "loss-figure" }, svg,
      h("figcaption", { class: "hint" }, t("review.graph_caption")));
  }

  /** Show decision ``i`` on the board. */
  goTo(i) {
    const dec = this.decisions[i];
    if (!dec) return;
    this.current = i;
    if (dec.handIndex >= 0) this.page.go(dec.handIndex, dec.step);
    else this.page.render();
  }

  /** The next (``+1``) or previous (``-1``) marked decision from where the board is. */
  jump(delta) {
    const at = this.positionIndex();
    const order = this.decisions.map((d, i) => ({ d, i })).filter((x) => x.d.mark);
    if (!order.length) return;
    let found;
    if (delta > 0) found = order.find((x) => x.i > at) || null;
    else found = [...order].reverse().find((x) => x.i < at) || null;
    if (found) this.goTo(found.i);
  }

  /** Where the board is, as an index in decisions (between two: the one before, + 0.5). */
  positionIndex() {
    if (this.current >= 0 && this.matches(this.decisions[this.current])) return this.current;
    const hand = this.page.hand;
    const step = this.page.step;
    let before = -0.5;
    for (let i = 0; i < this.decisions.length; i++) {
      const d = this.decisions[i];
      if (d.handIndex < hand || (d.handIndex === hand && d.step < step)) before = i + 0.5;
      if (this.matches(d)) return i;
    }
    return before;
  }

  matches(d) {
    return !!d && d.handIndex === this.page.hand && d.step === this.page.step;
  }

  /** Keys on the replay page: n / ] next mistake, p / [ previous. True when handled. */
  onKey(event) {
    if (!this.review || event.ctrlKey || event.metaKey || event.altKey) return false;
    if (event.key === "n" || event.key === "]") this.jump(1);
    else if (event.key === "p" || event.key === "[") this.jump(-1);
    else return false;
    return true;
  }

  /** The decision of the reviewed seat at the board's step (null if none). */
  decisionHere() {
    if (!this.review) return null;
    if (this.current >= 0 && this.matches(this.decisions[this.current])) return this.decisions[this.current];
    const found = this.decisions.findIndex((d) => this.matches(d));
    if (found < 0) return null;
    this.current = found;
    return this.decisions[found];
  }

  /** In a shared room, a member who does not drive: the seat and the request are the driver's. */
  following() {
    const room = this.page.room;
    return !!room && !!room.room && !room.driving();
  }

  /** The panel's own controls on or off as the room has it (replay_room.js, after each render
   *  and each change of driver): a follower reads the marks, the driver moves through them. */
  lockForRoom() {
    const e = this.el;
    if (!e) return;
    const off = this.following();
    const busy = this.status === "queued" || this.status === "running";
    e.seat.disabled = off;
    e.go.disabled = off || busy || this.status === "done";
    // aria-disabled, not disabled: the list stays focusable (it scrolls) and readable.
    for (const button of e.moves.querySelectorAll(".review-move-btn")) button.setAttribute("aria-disabled", String(off));
    if (off) e.prev.disabled = e.next.disabled = true;
  }

  /** Called by the replay page after each render: the note, the list and the graph follow
   *  the board, and the better move is outlined in the seat's cards. */
  decorate(root) {
    if (!this.review) return;
    const e = this.el;
    const dec = this.decisionHere();
    const i = dec ? this.current : -1;
    for (const item of e.moves.querySelectorAll(".review-move-btn")) {
      const on = Number(item.dataset.index) === i;
      item.classList.toggle("current", on);
      if (on) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
    if (this.cursor) {
      const step = 600 / Math.max(this.decisions.length, 1);
      this.cursor.setAttribute("x", String(Math.max(i, 0) * step));
      this.cursor.setAttribute("visibility", i >= 0 ? "visible" : "hidden");
    }
    const at = this.positionIndex();
    const marked = this.decisions.map((d, k) => (d.mark ? k : -1)).filter((k) => k >= 0);
    e.prev.disabled = !marked.some((k) => k < at);
    e.next.disabled = !marked.some((k) => k > at);
    if (!dec) {
      fill(e.note, h("p", { class: "hint" }, marked.length
        ? t("review.none_here", { name: this.page.name(this.review.seat) })
        : t("review.none_marked", { name: this.page.name(this.review.seat) })));
      return;
    }
    const item = e.moves.querySelector(`[data-index="${i}"]`);
    if (item && item.scrollIntoView && e.moves.scrollHeight > e.moves.clientHeight) {
      const box = e.moves;
      const top = item.offsetTop - box.offsetTop;
      if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 2);
    }
    const mark = dec.mark ? MARKS[dec.mark] : null;
    const cardsOf = (move) => (move.type === "pass" ? move.cards || [] : [move.card]);
    const better = dec.best && JSON.stringify(dec.best) !== JSON.stringify(dec.made);
    fill(e.note,
      h("p", { class: ["review-verdict", mark ? `mark-${dec.mark}` : "ok"] },
        h("span", { class: "mark-symbol", "aria-hidden": "true" }, mark ? mark.symbol : "\u2713"), " ",
        h("strong", {}, mark ? mark.word : better ? t("review.nearly_best") : t("review.best_move")),
        " \u2013 ",
        t(dec.kind === "pass" ? (better ? "review.passed_lost" : "review.passed") : (better ? "review.played_lost" : "review.played"),
          { name: this.page.name(this.review.seat), move: moveText(dec.made), points: points(dec.loss) }),
        dec.exact ? ` ${t("review.exact")}` : ""),
      h("div", { class: "review-cards" },
        h("div", { class: "review-card-group" }, h("span", { class: "review-card-label" }, t("review.played_label")),
          h("span", { class: "mini-cards" }, cardsOf(dec.made).map((c) => renderCard(this.page.fullCode(c), { className: "small" })))),
        better ? h("div", { class: "review-card-group better" }, h("span", { class: "review-card-label" }, t("review.better_label")),
          h("span", { class: "mini-cards" }, cardsOf(dec.best).map((c) => renderCard(this.page.fullCode(c), { className: "small better", label: t("review.better_card", { card: cardShort(c) }) })))) : null),
      better ? h("p", { class: "hint" }, t("review.expected", { best: expected(dec.expected_best), made: expected(dec.expected_made) })) : null);
    // The better card outlined in the seat's cards on the board (outline: no layout change).
    if (better && root) {
      const seat = this.review.seat;
      const codes = new Set(cardsOf(dec.best).map((c) => this.page.fullCode(c)));
      for (const holding of root.querySelectorAll(`.holding[data-seat="${seat}"] .card`)) {
        if (codes.has(holding.dataset.card)) {
          holding.classList.add("better");
          holding.setAttribute("aria-label", t("review.card_better", { card: holding.getAttribute("aria-label") }));
        }
      }
      const made = new Set(cardsOf(dec.made).map((c) => this.page.fullCode(c)));
      for (const played of root.querySelectorAll(`.mini-trick li[data-seat="${seat}"] .card, .replay-passes li[data-seat="${seat}"] .card`)) {
        if (!made.has(played.dataset.card)) continue;
        played.classList.add("marked");
        if (!mark) continue;
        const word = language() === "de" ? mark.word : mark.word.toLocaleLowerCase(language()); // a German noun keeps its capital
        played.setAttribute("aria-label", t("review.card_marked", { card: played.getAttribute("aria-label"), mark: word }));
      }
    }
  }
}
