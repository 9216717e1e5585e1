// The game review on the replay page: ask the Expert to review one seat's
// decisions, follow the job's progress over its socket, then a loss graph, the reviewed moves
// with their marks, the better move on the cards, and n / p (or ] / [) from mistake to mistake.
// Server side: POST/GET /api/games/{id}/review, /ws/games/{id}/review (docs/protocol.md).

import { api, session, wsUrl } from "./api.js";
import { cardShort, renderCard } from "./cards.js";
import { h, fill, setText } from "./dom.js";

// A mark: the symbol (as in chess annotations), its word, and its order (worst last).
export const MARKS = {
  inaccuracy: { symbol: "?!", word: "Inaccuracy", rank: 1 },
  mistake: { symbol: "?", word: "Mistake", rank: 2 },
  blunder: { symbol: "??", word: "Blunder", rank: 3 },
};

const STATUS_WORDS = {
  queued: "Waiting for a free reviewer\u2026",
  running: "The Expert is reviewing the game\u2026",
  failed: "The review could not be made.",
};

/** The text of a move: "Q♠", "Q♠ (dark face)", a pass's cards "2♣ 9♥ A♠". */
export function moveText(move) {
  if (!move) return "";
  if (move.type === "pass") return (move.cards || []).map(cardShort).join(" ");
  if (move.type === "play") return `${cardShort(move.card)}${move.face === "dark" ? " (dark face)" : ""}`;
  return move.type;
}

/** "9.9 points", "0.49 points" (two decimals under 1: 0.49 is no inaccuracy, 0.5 is). */
function points(x) {
  const text = Number(x).toFixed(Number(x) < 1 ? 2 : 1);
  return `${text} point${text === "1.0" ? "" : "s"}`;
}

const PLURALS = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };

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
    e.seat = h("select", { id: "review-seat", onchange: () => this.choose(Number(e.seat.value)) },
      Array.from({ length: d.players }, (_, i) => h("option", { value: String(i), selected: i === this.seat }, this.page.name(i))));
    e.go = h("button", { type: "button", class: "btn primary small", id: "review-go", onclick: () => this.ask() }, "Review this game");
    e.bar = h("progress", { id: "review-progress", max: "100", value: "0", "aria-labelledby": "review-status" });
    e.status = h("span", { id: "review-status", class: "review-status", role: "status", "aria-live": "polite" });
    e.summary = h("p", { class: "review-summary", id: "review-summary" });
    e.graph = h("div", { class: "loss-graph" });
    e.prev = h("button", { type: "button", class: "btn small", id: "review-prev", "aria-label": "Previous mistake (p)", onclick: () => this.jump(-1) }, "\u25C0 Mistake (p)");
    e.next = h("button", { type: "button", class: "btn small", id: "review-next", "aria-label": "Next mistake (n)", onclick: () => this.jump(1) }, "Mistake \u25B6 (n)");
    e.note = h("div", { class: "review-note", id: "review-note", "aria-live": "polite" });
    e.moves = h("ol", { class: "review-moves", id: "review-moves", "aria-label": "Reviewed moves" });
    e.body = h("div", { class: "review-body", hidden: true },
      e.summary, e.graph,
      h("div", { class: "row review-nav" }, e.prev, e.next),
      e.note,
      h("h3", { class: "review-moves-title" }, "Moves"),
      e.moves);
    e.root = h("section", { class: "panel review-panel", "aria-labelledby": "review-title" },
      h("h2", { id: "review-title" }, "Game review"),
      h("p", { class: "hint" },
        "The Expert replays each decision of one seat from what that seat knew then, and marks the costly ones: ",
        `${MARKS.inaccuracy.symbol} inaccuracy, ${MARKS.mistake.symbol} mistake, ${MARKS.blunder.symbol} blunder.`),
      h("div", { class: "row review-ask" }, h("label", { for: "review-seat" }, "Seat"), e.seat, e.go),
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

  async choose(seat) {
    this.seat = seat;
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
    } catch (error) {
      this.el.go.disabled = false;
      const words = error.status === 401 ? "Sign in (or play as a guest) to ask for a review."
        : error.code === "too_many_reviews" ? `You have asked for many reviews this hour: ${error.message}.`
        : error.message;
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
    e.root.classList.toggle("reviewing", busy);
    e.bar.value = Math.round((status === "done" ? 1 : progress || 0) * 100);
    e.go.disabled = busy || status === "done";
    e.go.hidden = status === "done";
    const pct = `${Math.round((progress || 0) * 100)}%`;
    setText(e.status, words || (status === "running" ? `${STATUS_WORDS.running} ${pct}` : STATUS_WORDS[status] || (status === "done" ? "Reviewed." : "Not reviewed yet.")));
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
    setText(e.status, "Reviewed.");
    const marks = result.marks || {};
    const accuracy = result.accuracy === null || result.accuracy === undefined ? "no choice to make" : `accuracy ${result.accuracy}%`;
    setText(e.summary, `${this.page.name(result.seat)}: ${accuracy}, ${points(result.loss)} lost in ${result.decisions} decisions. `
      + Object.entries(MARKS).reverse().map(([k, m]) => `${m.symbol} ${marks[k] || 0} ${(marks[k] || 0) === 1 ? k : PLURALS[k]}`).join(", ") + ".");
    fill(e.graph, this.graph());
    fill(e.moves, this.decisions.map((dec, i) => this.moveItem(dec, i)));
    e.body.hidden = false;
    this.page.render();
  }

  moveItem(dec, i) {
    const mark = dec.mark ? MARKS[dec.mark] : null;
    const where = dec.kind === "pass" ? `Hand ${dec.handNo + 1}, pass` : `Hand ${dec.handNo + 1}, trick ${dec.step}`;
    const text = `${where}: ${moveText(dec.made)}${dec.fromDummy ? " from the half dummy" : ""}`;
    return h("li", { class: ["review-move", mark ? `mark-${dec.mark}` : "ok"] },
      h("button", { type: "button", class: "review-move-btn", "data-index": String(i), onclick: () => this.goTo(i) },
        h("span", { class: "mark-symbol", "aria-hidden": "true" }, mark ? mark.symbol : "\u2713"),
        h("span", { class: "review-move-text" }, text),
        mark ? h("span", { class: "mark-word" }, `${mark.word}, ${points(dec.loss)} lost; better ${moveText(dec.best)}`) : h("span", { class: "mark-word ok" }, dec.loss > 0 ? `${points(dec.loss)} lost` : "best")));
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
    svg.append(el("title", { id: "loss-graph-title" }, "Points lost at each decision"));
    svg.append(el("desc", { id: "loss-graph-desc" }, `${decs.length} decisions, ${marked} marked; the tallest bars are the costliest moves.`));
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
      h("figcaption", { class: "hint" }, "Points lost at each decision of the game (hands apart by a line); click a bar or use the list."));
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
        ? `${this.page.name(this.review.seat)} made no reviewed move here. Press n for the next mistake, p for the previous one.`
        : `${this.page.name(this.review.seat)} made no marked move in this game.`));
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
        h("strong", {}, mark ? mark.word : better ? "Nearly the best" : "The best move"),
        ` \u2013 ${this.page.name(this.review.seat)} ${dec.kind === "pass" ? "passed" : "played"} ${moveText(dec.made)}`,
        better ? `, ${points(dec.loss)} lost.` : ".",
        dec.exact ? " Exact (endgame search)." : ""),
      h("div", { class: "review-cards" },
        h("div", { class: "review-card-group" }, h("span", { class: "review-card-label" }, "Played"),
          h("span", { class: "mini-cards" }, cardsOf(dec.made).map((c) => renderCard(this.page.fullCode(c), { className: "small" })))),
        better ? h("div", { class: "review-card-group better" }, h("span", { class: "review-card-label" }, "Better"),
          h("span", { class: "mini-cards" }, cardsOf(dec.best).map((c) => renderCard(this.page.fullCode(c), { className: "small better", label: `${cardShort(c)}, the better move` })))) : null),
      better ? h("p", { class: "hint" }, `Expected points in this hand: ${Number(dec.expected_best).toFixed(1)} with the better move, ${Number(dec.expected_made).toFixed(1)} as played.`) : null);
    // The better card outlined in the seat's cards on the board (outline: no layout change).
    if (better && root) {
      const seat = this.review.seat;
      const codes = new Set(cardsOf(dec.best).map((c) => this.page.fullCode(c)));
      for (const holding of root.querySelectorAll(`.holding[data-seat="${seat}"] .card`)) {
        if (codes.has(holding.dataset.card)) {
          holding.classList.add("better");
          holding.setAttribute("aria-label", `${holding.getAttribute("aria-label")} (the better move)`);
        }
      }
      const made = new Set(cardsOf(dec.made).map((c) => this.page.fullCode(c)));
      for (const played of root.querySelectorAll(`.mini-trick li[data-seat="${seat}"] .card, .replay-passes li[data-seat="${seat}"] .card`)) {
        if (!made.has(played.dataset.card)) continue;
        played.classList.add("marked");
        if (mark) played.setAttribute("aria-label", `${played.getAttribute("aria-label")} (${mark.word.toLowerCase()})`);
      }
    }
  }
}
