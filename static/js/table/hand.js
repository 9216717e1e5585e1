// My cards: the hand and the half dummy (keyed rows, roving focus, arrow keys), picking cards to pass, playing a card.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { cardLabel, renderCard, sortCards } from "../cards.js";
import { fill, setText } from "../dom.js";
import { loadSection, plural, t } from "../i18n.js";
import { reasonWords } from "../labels.js";
import { handTricks, labelRow } from "./util.js";

// The least width (and, where rows overlap, height) of a card's part that shows: a tap target.
const MIN_TARGET = 44;

export class HandPart {
  renderCards() {
    const v = this.view;
    const e = this.el;
    const seated = this.seat !== null;
    e.watching.hidden = seated || !v;
    // Seated before the deal, the hand (and the half dummy) keep their place, empty: the
    // start then fills them instead of moving the table up (a layout shift on every start).
    const dealt = seated && v && v.hand;
    e.handRow.hidden = !seated;
    const dummy = seated && (v ? v.game : this.gameOf()) === "dummy";
    e.dummyRow.hidden = !dummy;
    if (!dealt) {
      fill(e.handCards);
      fill(e.dummyCards);
      // The dummy game's switch keeps its place before the deal (no shift at the start).
      e.cardsSwitch.hidden = !dummy;
      e.dummyShow.disabled = true;
      e.handRow.classList.remove("resting");
      e.dummyRow.classList.add("resting");
      if (seated) {
        labelRow(e.handLabel, t("table.hand.before_deal"));
        this.layoutRow(e.handCards, 0);
        if (dummy) {
          labelRow(e.dummyLabel, t("table.hand.dummy_before_deal"));
          this.layoutRow(e.dummyCards, 0);
        }
      }
      return;
    }
    const legal = v.legal && (v.legal.type === "play" || v.legal.type === "pass") ? new Set(v.legal.cards) : new Set();
    const turnFrom = v.turn && v.turn.seat === this.seat ? v.turn.from : null;
    const passing = v.legal && v.legal.type === "pass";
    const received = new Set(v.phase === "play" && v.tricks.length === 0 && v.received ? v.received : []);
    const handActive = passing || (v.legal && v.legal.type === "play" && turnFrom === "hand");
    const dummyActive = v.legal && v.legal.type === "play" && turnFrom === "dummy";
    this.renderRow(e.handCards, sortCards(v.hand), { legal: handActive ? legal : new Set(), active: handActive, passing, received, source: "hand" });
    const handCount = v.hand.length;
    labelRow(e.handLabel, plural("table.hand.label", handCount) + (passing ? " " + t("table.hand.pass_note") : ""));
    if (dummy) {
      const cards = v.half_dummy || [];
      const hidden = v.phase === "pass";
      this.renderRow(e.dummyCards, sortCards(cards), { legal: dummyActive ? legal : new Set(), active: dummyActive, passing: false, received: new Set(), source: "dummy" });
      labelRow(e.dummyLabel, hidden
        ? t("table.hand.dummy_hidden")
        : t("table.hand.dummy_label", { n: cards.length }) + (v.joker === this.seat ? " " + t("table.hand.dummy_joker") : ""));
      e.dummyRow.classList.toggle("active", !!dummyActive);
    }
    e.handRow.classList.toggle("active", !!handActive);
    // The dummy game on a phone shows one of the two rows: the one to play from at the
    // player's turn, else the one last chosen.
    const turnKey = handActive || dummyActive ? `${v.hand_no}:${v.phase}:${v.trick_no}:${v.trick.length}` : null;
    if (turnKey && turnKey !== this.cardsTurnKey) this.cardsShown = dummyActive ? "dummy" : "hand";
    this.cardsTurnKey = turnKey;
    if (v.phase === "pass") this.cardsShown = "hand";
    this.markCardsShown(dummy, v);
    this.maybeFocusTurn(handActive ? e.handCards : dummyActive ? e.dummyCards : null);
  }

  /** Switch the dummy game's rows on a phone (the buttons over them). */
  showCards(which) {
    this.cardsShown = which;
    if (this.view) this.markCardsShown(true, this.view);
  }

  markCardsShown(dummy, v) {
    const e = this.el;
    const shown = dummy && this.cardsShown === "dummy" ? "dummy" : "hand";
    e.cardsSwitch.hidden = !dummy;
    e.handRow.classList.toggle("resting", shown !== "hand");
    e.dummyRow.classList.toggle("resting", shown !== "dummy");
    e.handShow.setAttribute("aria-pressed", String(shown === "hand"));
    e.dummyShow.setAttribute("aria-pressed", String(shown === "dummy"));
    const inDummy = (v.half_dummy || []).length;
    setText(e.handShow, t("table.hand.show_hand", { n: v.hand ? v.hand.length : 0 }));
    setText(e.dummyShow, v.phase === "pass"
      ? t("table.hand.show_dummy_pass")
      : t("table.hand.show_dummy", { n: inDummy }) + (v.joker === this.seat ? " \u2605" : ""));
    e.dummyShow.disabled = v.phase === "pass";
  }

  /** Keyed update of one row of cards: elements persist, so focus and layout stay put. */
  renderRow(row, cards, { legal, active, passing, received, source }) {
    const existing = new Map();
    for (const el of row.querySelectorAll(".card")) existing.set(el.dataset.card, el);
    const focused = document.activeElement;
    let focusedIndex = -1;
    const oldOrder = [...row.querySelectorAll(".card")];
    if (focused && row.contains(focused)) focusedIndex = oldOrder.indexOf(focused);
    const keep = new Set(cards);
    for (const [code, el] of existing) {
      if (!keep.has(code)) el.remove();
    }
    let prev = null;
    let anyTabbable = false;
    cards.forEach((code) => {
      let el = existing.get(code);
      if (!el) {
        el = renderCard(code, { tag: "button" });
        el.addEventListener("click", () => this.onCardClick(code, source));
      }
      const isLegal = legal.has(code);
      const selected = passing && this.selected.has(code);
      el.classList.toggle("legal", isLegal);
      el.classList.toggle("illegal", active && !isLegal);
      el.classList.toggle("selected", selected);
      el.classList.toggle("received", received.has(code));
      el.classList.toggle("choosing", this.faceChoice === code);
      const early = this.isPrechosen(code, source);
      const forced = isLegal && this.forcedCard() === code;
      el.classList.toggle("prechosen", early);
      el.classList.toggle("forced", forced);
      if (passing) el.setAttribute("aria-pressed", String(selected));
      else el.removeAttribute("aria-pressed");
      // Not my turn while cards are played: any card may be chosen for my turn (conveniences.js).
      el.setAttribute("aria-disabled", String(!isLegal && (active || !this.prechooseOpen())));
      let label = cardLabel(code);
      if (received.has(code)) label += ", " + t("table.card.received");
      if (active && !isLegal) label += ", " + (passing ? t("table.card.not_passable") : t("table.card.not_playable"));
      if (selected) label += ", " + t("table.card.chosen");
      if (early) label += ", " + t("table.card.prechosen");
      if (forced) label += ", " + t("table.card.forced");
      el.setAttribute("aria-label", label);
      if (el.tabIndex === 0) anyTabbable = true;
      const want = prev ? prev.nextSibling : row.firstChild;
      if (want !== el) row.insertBefore(el, want);
      prev = el;
    });
    const els = [...row.querySelectorAll(".card")];
    // Roving tab stop: one card in the row is reachable with Tab.
    if (!anyTabbable || !els.some((el) => el.tabIndex === 0)) {
      els.forEach((el, i) => { el.tabIndex = i === 0 ? 0 : -1; });
    }
    // The focused card was played: move focus to its neighbour, so the keyboard stays here.
    if (focusedIndex >= 0 && !row.contains(document.activeElement) && els.length) {
      const next = els[Math.min(focusedIndex, els.length - 1)];
      this.setRoving(row, next);
      next.focus({ preventScroll: true });
    }
    this.layoutRow(row, els.length);
  }

  /** Columns of the hand grid: as few rows as leave every card a target of at least 44 px
   *  (WCAG 2.5.5) where it shows: its left edge (the next card covers the rest) and, on a
   *  phone where the rows overlap (--row-step), its top. Classic's 13 cards take two rows on
   *  a phone, 17 cards three. The row keeps the height of the rows its deal needed, so
   *  playing cards never moves the table (a layout shift). */
  layoutRow(row, count) {
    const style = getComputedStyle(row);
    const cw = parseFloat(style.getPropertyValue("--cw")) || 64;
    const width = row.clientWidth || 300;
    const rowsFor = (n) => {
      let rows = 1;
      while (rows < n && (width - cw) / (Math.ceil(n / rows) - 1) < MIN_TARGET) rows += 1;
      return rows;
    };
    const rows = rowsFor(count);
    const perRow = Math.ceil(count / rows);
    const deal = this.view ? handTricks(this.view) : count;
    const dealCount = row.dataset.source === "dummy" ? Math.max(count, Math.ceil(deal / 2)) : Math.max(count, deal);
    const reserve = Math.max(rowsFor(dealCount), rows);
    row.dataset.rows = String(rows);
    row.dataset.count = String(count);
    row.style.setProperty("--count", String(count));
    row.style.setProperty("--per-row", String(Math.max(perRow, 1)));
    row.style.setProperty("--reserve", String(reserve));
    row.style.gridTemplateColumns = perRow > 1 ? `repeat(${perRow - 1}, var(--step)) var(--cw)` : "var(--cw)";
  }

  setRoving(row, target) {
    for (const el of row.querySelectorAll(".card")) el.tabIndex = el === target ? 0 : -1;
  }

  maybeFocusTurn(row) {
    const v = this.view;
    const key = row ? `${v.hand_no}:${v.phase}:${v.trick_no}:${v.trick.length}:${row.dataset.source}` : null;
    if (!row || key === this.lastTurnKey) {
      this.lastTurnKey = key;
      return;
    }
    this.lastTurnKey = key;
    const active = document.activeElement;
    const inCards = active && this.el.myCards.contains(active);
    const idle = !active || active === document.body || active === this.root || active.id === "main";
    if (!inCards && !idle) return; // the player is typing in the chat, or using a button
    if (inCards && row.contains(active) && active.classList.contains("legal")) return;
    const target = row.querySelector(".card.legal") || row.querySelector(".card");
    if (target) {
      this.setRoving(row, target);
      target.focus({ preventScroll: true });
    }
  }

  focusCard(code) {
    const el = this.el.myCards.querySelector(`.card[data-card="${CSS.escape(code)}"]`);
    if (el) {
      this.setRoving(el.parentElement, el);
      el.focus();
    }
  }

  onCardsKey(event, row) {
    const cards = [...row.querySelectorAll(".card")];
    const index = cards.indexOf(document.activeElement);
    if (index < 0) return;
    let next = null;
    switch (event.key) {
      case "ArrowLeft":
        next = cards[Math.max(0, index - 1)];
        break;
      case "ArrowRight":
        next = cards[Math.min(cards.length - 1, index + 1)];
        break;
      case "Home":
        next = cards[0];
        break;
      case "End":
        next = cards[cards.length - 1];
        break;
      case "ArrowUp":
      case "ArrowDown": {
        const other = row === this.el.handCards ? this.el.dummyCards : this.el.handCards;
        if (!other.closest(".hand-block").hidden) {
          // a phone's dummy game shows one row at a time: bring the other one up first
          if (other.closest(".hand-block").classList.contains("resting")) this.showCards(other === this.el.dummyCards ? "dummy" : "hand");
          const others = [...other.querySelectorAll(".card")];
          if (others.length) next = others[Math.min(index, others.length - 1)];
        }
        break;
      }
      default:
        return;
    }
    event.preventDefault();
    if (next) {
      this.setRoving(next.parentElement, next);
      next.focus();
    }
  }

  /** A click the page refuses itself, as the server would (`code`), in the refusals' words:
   *  they load at the page's first refusal, so the line is written when they are in (unless
   *  something else took the line meanwhile). */
  refuseHere(code) {
    const before = this.lastError;
    loadSection("error").then(() => {
      if (this.lastError !== before) return;
      this.lastError = { code, text: reasonWords(code) };
      this.renderError();
    });
  }

  onCardClick(code, source) {
    const v = this.view;
    if (!v || this.seat === null) return;
    if (v.legal && v.legal.type === "pass" && source === "hand") {
      if (this.selected.has(code)) this.selected.delete(code);
      else if (this.selected.size < v.legal.count) this.selected.add(code);
      else {
        this.lastError = { code: "wrong_pass_count", text: plural("table.hand.already_chosen", v.legal.count) };
        this.renderError();
        return;
      }
      this.lastError = null;
      if (!v.legal.cards.includes(code)) {
        this.selected.delete(code);
        this.refuseHere("pass_forbidden_card");
      }
      this.renderActions();
      this.renderCards();
      this.renderError();
      if (this.selected.size === v.legal.count) {
        const pass = document.getElementById("pass-button");
        if (pass && document.activeElement && this.el.myCards.contains(document.activeElement)) {
          // Keep keyboard focus on the hand; Tab reaches the pass button next.
        }
      }
      return;
    }
    if (this.prechooseClick(code, source)) return; // not my turn: chosen in advance
    if (v.phase === "pass") {
      if (v.passed[this.seat]) {
        this.refuseHere("already_passed");
      } else {
        this.lastError = { code: "already_passed", text: t("table.hand.wait_passing") };
        this.renderError();
      }
      return;
    }
    if (v.legal && v.legal.type === "play" && v.legal.faces && v.legal.cards.includes(code)) {
      if (v.legal.faces.length === 1) {
        this.playCard(code, v.legal.faces[0]);
        return;
      }
      this.faceChoice = code;
      this.renderActions();
      this.renderCards();
      const first = this.el.actions.querySelector(".face-choice");
      if (first) first.focus();
      return;
    }
    const face = v.game === "double" && v.trick.length === 0 && v.legal && v.legal.faces ? "light" : null;
    this.playCard(code, face);
  }

  playCard(code, face) {
    const move = { type: "play", card: code.split("/")[0] };
    if (face) move.face = face;
    this.faceChoice = null;
    this.sendMove(move, { card: code });
    this.renderActions();
  }

  sendPass() {
    const v = this.view;
    if (!v || !v.legal || v.legal.type !== "pass") return;
    const cards = [...this.selected].map((c) => c.split("/")[0]);
    this.sendMove({ type: "pass", cards }, { passCount: v.legal.count });
    this.selected.clear();
  }

  sendMove(move, ctx = {}, extra = {}) {
    // Playing a card closes the last hand's result (it would hide the trick).
    if (move.type === "play" && this.resultFor !== null) this.resultClosed.add(this.resultFor);
    this.cancelForced(); // a card played by hand: the forced card's timer is moot
    this.lastError = null;
    this.renderError();
    this.send("move", { move, ...extra }, ctx);
  }
}
