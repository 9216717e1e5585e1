// Hints at a table chosen with them (docs/review.md "Hints at the table"): the "Hint" button at
// the player's turn sends the `hint` command; the answer comes to this player only (a `hint`
// message) and is shown in plain words, its card or cards marked in the hand (class "hinted",
// styled by css/hint.css, loaded here the first time a table with hints is drawn). The table
// says who used hints in this game (the table's hints_used seats).

import { cardShort } from "../cards.js";
import { h } from "../dom.js";
import { language, t } from "../i18n.js";

let hintStyle = false;
function loadHintStyle() {
  if (hintStyle) return;
  hintStyle = true;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("../../css/hint.css", import.meta.url).href;
  document.head.append(link);
}

/** The position a hint answers: the same hand, phase, cards and choices (a new state message
 *  of the same position, e.g. the table marking the hint, keeps it). */
function positionOf(v) {
  return v ? JSON.stringify([v.hand_no, v.phase, v.hand, v.legal]) : "";
}

export class HintPart {
  /** The hint's row (made the first time), its button and words, and the marked cards. */
  renderHint() {
    const tb = this.table;
    const on = Boolean(tb && tb.hints && tb.status === "playing" && this.seat !== null);
    if (tb && tb.hints) loadHintStyle();
    if (!this.el.hintBox) {
      this.el.hintBtn = h("button", {
        type: "button", class: "btn small hint-btn", id: "hint-button",
        onclick: () => this.askHint(),
      }, t("table.hint.button"));
      this.el.hintText = h("p", { class: "hint-text", id: "hint-text", "aria-live": "polite" });
      this.el.hintUsed = h("p", { class: "hint-used", id: "hints-used" });
      this.el.hintBox = h("div", { class: "hint-box", hidden: true },
        this.el.hintBtn, this.el.hintText, this.el.hintUsed);
      this.el.actions.before(this.el.hintBox);
    }
    this.el.hintBox.hidden = !(tb && tb.hints);
    // A hint belongs to the position it was asked at: a new state clears it.
    if (this.hintView !== undefined && this.hintView !== positionOf(this.view)) {
      this.hintView = undefined;
      this.hint = null;
    }
    const myTurn = Boolean(on && this.view && this.view.legal);
    this.el.hintBtn.hidden = !on;
    this.el.hintBtn.disabled = !myTurn || this.hintView === positionOf(this.view);
    this.el.hintText.textContent = this.hint ? hintWords(this.hint) : "";
    const marked = new Set();
    if (this.hint && this.hint.best) {
      const best = this.hint.best;
      for (const card of best.type === "pass" ? best.cards : [best.card]) marked.add(card);
    }
    for (const el of this.el.myCards.querySelectorAll(".card[data-card]")) {
      el.classList.toggle("hinted", marked.has(el.dataset.card));
    }
    const used = (tb && tb.hints_used) || [];
    this.el.hintUsed.textContent = used.length
      ? t("table.hint.used", { names: used.map((s) => this.seatName(s)).join(", ") })
      : "";
  }

  askHint() {
    if (this.hintView === positionOf(this.view)) return;
    this.hintView = positionOf(this.view);
    this.send("hint", {});
    this.renderHint();
  }

  /** A seat's first hint of the game (event hint_used, told to everyone at the table): the
   *  table's hints_used has it from the next state on, the page at once. */
  noteHintEvents(events) {
    const tb = this.table;
    if (!tb) return;
    for (const event of events) {
      if (event.kind !== "hint_used") continue;
      const used = new Set(tb.hints_used || []);
      used.add(event.seat);
      tb.hints_used = [...used].sort((x, y) => x - y);
    }
    this.renderHint();
  }

  /** The answer to this player's `hint` command. */
  onHint(msg) {
    this.pending.delete(msg.id);
    this.markPending();
    if (this.hintView !== positionOf(this.view)) return; // the game moved on meanwhile
    this.hint = msg.hint;
    this.renderHint();
  }
}

/** A number of points as the server rounds them: whole when near a whole number of 1 or more,
 *  else to a tenth; in the page's language. */
function points(x) {
  const whole = Math.round(x);
  const n = Math.abs(x) >= 1 && Math.abs(x - whole) < 0.25 ? whole : Math.round(x * 10) / 10;
  const shown = new Intl.NumberFormat(language(), { minimumFractionDigits: Number.isInteger(n) && Math.abs(x) >= 1 ? 0 : 1, maximumFractionDigits: 1 }).format(n);
  // the plural form is chosen from the number as shown ("3,7" reads as no number: "other")
  return t("table.hint.points", { count: shown });
}

function moveWords(move) {
  if (move.type === "pass") return t("table.hint.pass", { cards: move.cards.map(cardShort).join(", ") });
  const card = cardShort(move.card);
  if (move.face === "dark") return t("table.hint.play_dark", { card });
  if (move.face === "light") return t("table.hint.play_light", { card });
  return t("table.hint.play", { card });
}

const capital = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);

/** The hint in the page's words, from the answer's moves and figures (app/review/hint.py):
 *  the suggestion and what it is expected to cost this hand, then what each other option costs
 *  more; a single legal move, or a pass without figures, said alone. */
export function hintWords(hint) {
  if (!hint || !hint.best) return "";
  const options = hint.options || [];
  if (!options.length) {
    const move = capital(moveWords(hint.best));
    return hint.kind === "play" ? t("table.hint.only", { move }) : `${move}.`;
  }
  const [best, ...rest] = options;
  const text = t("table.hint.best", { move: capital(moveWords(best.move)), points: points(best.expected) });
  const others = rest.map((o) => (o.more >= 0.05
    ? t("table.hint.more", { move: moveWords(o.move), points: points(o.more) })
    : t("table.hint.same", { move: moveWords(o.move) })));
  return others.length ? `${text} (${others.join("; ")}).` : `${text}.`;
}
