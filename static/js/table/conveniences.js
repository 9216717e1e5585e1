// Friends' conveniences: claiming the remaining tricks, a card chosen before one's turn, and the
// automatic play of a forced card (a setting). docs/frontend.md "Conveniences".
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { cardName, cardShort, renderCard } from "../cards.js";
import { h } from "../dom.js";
import { plural, t } from "../i18n.js";
import { prefs } from "../prefs.js";

// How long a forced card waits before it plays itself (it is marked meanwhile).
export const FORCED_DELAY_MS = 600;

export class ConveniencesPart {
  /** The page may offer a claim now (docs/protocol.md "Claims"): cards are played, it is my
   *  turn, no pause after a hand, and no refused claim of mine in this hand. */
  claimOffered() {
    const v = this.view;
    const t = this.table;
    const me = this.seat;
    if (!v || !t || me === null || v.phase !== "play" || t.status !== "playing") return false;
    if (!Array.isArray(v.to_act) || !v.to_act.includes(me) || t.pause_until_ms) return false;
    const refused = Array.isArray(t.claim_refused_hands) ? t.claim_refused_hands[me] : null;
    return refused !== v.hand_no;
  }

  /** The action bar's claim controls: "Claim the rest", then a confirm step (a refused claim
   *  cannot be made again in the hand, so one click never sends it). Returns [status, buttons];
   *  status replaces the bar's line while the question is up, else null. */
  claimControls() {
    if (!this.claimOffered()) {
      this.claimAsk = false;
      return [null, []];
    }
    const waiting = [...this.pending.values()].some((p) => p.msg.type === "move" && p.msg.move.type === "claim");
    if (waiting) {
      return [t("table.claim.checking"), [h("button", { type: "button", class: "btn small", id: "claim-button", disabled: true }, t("table.claim.claiming"))]];
    }
    if (this.claimAsk) {
      return [t("table.claim.ask"), [
        h("button", {
          type: "button", class: "btn primary small", id: "claim-confirm",
          onclick: () => {
            this.claimAsk = false;
            this.sendMove({ type: "claim" }, {}, { version: this.version });
            this.renderActions();
          },
        }, t("table.claim.yes")),
        h("button", {
          type: "button", class: "btn ghost small", id: "claim-cancel",
          onclick: () => {
            this.claimAsk = false;
            this.renderActions();
            const button = document.getElementById("claim-button");
            if (button) button.focus();
          },
        }, t("table.cancel")),
      ]];
    }
    return [null, [h("button", {
      type: "button", class: "btn small", id: "claim-button",
      onclick: () => {
        this.claimAsk = true;
        // The question says what a claim means: an earlier refused card's reason goes.
        this.lastError = null;
        this.renderError();
        this.renderActions();
        const yes = document.getElementById("claim-confirm");
        if (yes) yes.focus();
      },
    }, t("table.claim.button"))]];
  }

  /** A claim or a refused claim, told to everyone in the table log (a polite live region);
   *  an accepted claim's cards are shown there and in the hand's result panel. */
  onClaimEvent(event) {
    const mine = event.seat === this.seat;
    if (event.kind === "claim_refused") {
      this.addLog(mine ? t("table.claim.you_refused") : t("table.claim.refused", { name: this.seatName(event.seat) }), "claim");
      return;
    }
    const cards = Array.isArray(event.cards) ? event.cards : [];
    const v = this.view;
    const last = v && v.history.length ? v.history[v.history.length - 1] : null;
    this.lastClaim = { seat: event.seat, cards, tricks: event.tricks, hand_no: last ? last.hand_no : null };
    const words = (mine ? t("table.claim.you_claim") : t("table.claim.claims", { name: this.seatName(event.seat) }))
      + (event.tricks ? ` (${event.tricks})` : "");
    this.pushLog(h("li", { class: "log-line claim" },
      `${words}: `,
      h("span", { class: "sr-only" }, cards.map(cardName).join(", ")),
      h("span", { class: "claim-cards", "aria-hidden": "true" }, cards.map((c) => renderCard(c, { className: "tiny" })))));
    this.renderPart("renderCenter");
  }

  /** The hand result's lines about a claim or a hand that ended by itself. */
  handEndNotes(result) {
    const out = [];
    const c = this.lastClaim;
    if (c && c.hand_no === result.hand_no) {
      const mine = c.seat === this.seat;
      const name = this.seatName(c.seat);
      const claimed = c.tricks === 1
        ? (mine ? t("table.claim.you_claimed_one") : t("table.claim.claimed_one", { name }))
        : (mine ? t("table.claim.you_claimed", { n: c.tricks }) : t("table.claim.claimed", { name, n: c.tricks }));
      out.push(h("div", { class: "claim-note" },
        h("p", {}, claimed + (c.cards.length ? " " + t("table.claim.with") : ".")),
        c.cards.length ? h("div", { class: "row" }, c.cards.map((card) => renderCard(card, { className: "small" }))) : ""));
    }
    if (result.ended_early) {
      const played = (result.tricks_won || []).reduce((a, b) => a + b, 0);
      out.push(h("p", { class: "ended-early" },
        plural("table.claim.ended_early", played)));
    }
    return out;
  }

  // -- a card chosen before one's turn ------------------------------------------------------

  /** Cards are played, I am seated and not played for, and it is not my turn: a card may be
   *  chosen for my turn. */
  prechooseOpen() {
    const v = this.view;
    if (!v || v.phase !== "play" || this.seat === null || (v.legal && v.legal.type === "play")) return false;
    const mine = this.table && this.table.seats[this.seat];
    return !(mine && mine.away);
  }

  /** A card tapped during play while it is not my turn is marked, to play when the turn
   *  comes (tapped again: unmarked). True when the click was taken here. */
  prechooseClick(code, source) {
    const v = this.view;
    if (!this.prechooseOpen()) return false;
    const same = this.prechosen && this.prechosen.code === code && this.prechosen.source === source;
    this.prechosen = same ? null : { code, source, hand_no: v.hand_no };
    this.lastError = null;
    this.renderActions();
    this.renderCards();
    this.renderError();
    return true;
  }

  /** The status line's words about the card chosen in advance (the line is a live region). */
  prechosenWords() {
    const p = this.prechosen;
    if (!p) return "";
    const card = cardShort(p.code);
    return " " + (p.source === "dummy" ? t("table.prechosen.dummy", { card }) : t("table.prechosen.hand", { card }));
  }

  prechosenButtons() {
    if (!this.prechosen) return [];
    return [h("button", {
      type: "button", class: "btn ghost small", id: "prechosen-cancel",
      onclick: () => this.cancelPrechosen(),
    }, t("table.prechosen.cancel", { card: cardShort(this.prechosen.code) }))];
  }

  cancelPrechosen() {
    const code = this.prechosen && this.prechosen.code;
    this.prechosen = null;
    this.renderActions();
    this.renderCards();
    if (code) this.focusCard(code);
  }

  isPrechosen(code, source) {
    return !!this.prechosen && this.prechosen.code === code && this.prechosen.source === source;
  }

  // -- after each state: the card chosen in advance, the forced card ------------------------

  /** Called after each state is drawn. */
  afterStateConveniences() {
    const v = this.view;
    const me = this.seat;
    const mine = this.table && me !== null ? this.table.seats[me] : null;
    const key = v ? `${v.hand_no}:${v.trick_no}:${v.trick.length}:${v.turn ? v.turn.from : ""}` : null;
    if (key !== this.claimKey) {
      this.claimKey = key;
      this.claimAsk = false;
    }
    const p = this.prechosen;
    if (p && (!v || v.phase !== "play" || v.hand_no !== p.hand_no || me === null || (mine && mine.away)
      || !(p.source === "dummy" ? v.half_dummy || [] : v.hand || []).includes(p.code))) {
      this.prechosen = null; // the hand ended, the seat is played for, or the card is gone
      this.renderActions();
      this.renderCards();
    }
    const myPlay = v && me !== null && v.legal && v.legal.type === "play" && v.turn && v.turn.seat === me;
    if (!myPlay) {
      this.cancelForced();
      return;
    }
    if (this.prechosen && this.prechosen.source === v.turn.from) {
      const code = this.prechosen.code;
      this.prechosen = null;
      if (v.legal.cards.includes(code)) {
        this.cancelForced();
        this.playChosen(code, "chosen");
        return;
      }
      this.lastError = { code: "prechosen_dropped", text: t("table.prechosen.dropped", { card: cardShort(code) }) };
      this.renderActions();
      this.renderCards();
      this.renderError();
    }
    this.scheduleForced(key);
  }

  /** Play a card picked by a convenience, at the version it was picked at. A Double Hearts
   *  lead with two faces to choose from is not played: the face question opens instead. */
  playChosen(code, why) {
    const v = this.view;
    const faces = v.legal.faces;
    if (faces && faces.length > 1) {
      this.faceChoice = code;
      this.renderActions();
      this.renderCards();
      return;
    }
    const move = { type: "play", card: code.split("/")[0] };
    if (faces && faces.length === 1) move.face = faces[0];
    this.sendMove(move, { card: code, auto: why }, { version: this.version });
    this.renderActions();
    this.renderCards();
  }

  /** With the setting on, my only playable card plays itself after FORCED_DELAY_MS. */
  scheduleForced(key) {
    const v = this.view;
    const cards = v.legal.cards;
    const only = cards.length === 1 && !(v.legal.faces && v.legal.faces.length > 1) ? cards[0] : null;
    if (!prefs.autoForced || !only || this.faceChoice) {
      this.cancelForced();
      return;
    }
    if (this.forced && this.forced.key === key) return;
    this.cancelForced();
    const timer = setTimeout(() => {
      const now = this.view;
      const still = this.forced && this.forced.key === key && now && now.legal && now.legal.type === "play"
        && now.legal.cards.length === 1 && now.legal.cards[0] === only;
      this.forced = null;
      if (still && !this.gone) this.playChosen(only, "forced");
      else this.renderCards();
    }, FORCED_DELAY_MS);
    this.forced = { key, code: only, timer };
    this.renderActions();
    this.renderCards();
  }

  cancelForced() {
    if (!this.forced) return;
    clearTimeout(this.forced.timer);
    this.forced = null;
  }

  /** The forced card about to play itself, for the hand's marks and the action bar. */
  forcedCard() {
    return this.forced ? this.forced.code : null;
  }

  /** A move a convenience sent at a version the table had left (a chat line came first):
   *  tried once more at the latest version when it is still my turn and the card may. */
  retryAuto(pending) {
    const ctx = pending.ctx || {};
    const v = this.view;
    if (!ctx.auto || ctx.retried || !v || !v.legal || v.legal.type !== "play" || !v.legal.cards.includes(ctx.card)) return false;
    this.send("move", { move: pending.msg.move, version: this.version }, { ...ctx, retried: true });
    return true;
  }
}
