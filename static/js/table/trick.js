// The trick in the middle of the felt, the words under it, and "Last trick".
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { cardLabel, parseCard, renderCard, suitName } from "../cards.js";
import { h, fill, setText } from "../dom.js";
import { has, plural, t, tNodes } from "../i18n.js";
import { ledSuitOf, markLedFaces, handTricks, cardChip, signed, capital, shrinkToFit } from "./util.js";

// What the words under the trick leave out, in this order, when they do not fit their box
// (table.css): the minor notes, then long names cut to a few letters (whole in their title),
// the previous hand's face-down cards (on its result panel and the score sheet), the line of
// the trick in play, and names cut shorter still.
const FIT_STEPS = ["fit-minor", "fit-names", "fit-dead", "fit-live", "fit-names-short"];

/** One line, made smaller a step or two; else two lines, smaller if they must be. Returns
 *  whether the name fits. */
function fitSlotName(name) {
  name.classList.remove("two-lines");
  if (shrinkToFit(name, name, [0.9, 0.8])) return true;
  name.classList.add("two-lines");
  return shrinkToFit(name);
}

export class TrickPart {
  /** The last completed trick: of this hand, or the previous hand's last one. */
  lastTrick() {
    const v = this.view;
    if (!v) return null;
    if (v.tricks.length) return v.tricks[v.tricks.length - 1];
    if (v.previous_tricks && v.previous_tricks.length) return v.previous_tricks[v.previous_tricks.length - 1];
    return null;
  }

  slotOf(play) {
    const v = this.view;
    if (v.game === "dummy" && play.from === "dummy") {
      const mine = play.seat === (this.seat === null ? 0 : this.seat);
      return mine ? "dummy-near" : "dummy-far";
    }
    return this.position(play.seat);
  }

  renderTrick() {
    const v = this.view;
    const area = this.el.trick;
    if (!v || !this.table || this.table.status === "waiting") {
      fill(area);
      delete this.el.trickInfo.dataset.key;
      setText(this.el.trickInfo, this.table && this.table.status === "waiting" ? t("table.trick.waiting") : "");
      return;
    }
    let plays = v.trick;
    let done = null;
    if (!plays.length) {
      done = this.lastTrick();
      plays = done ? done.plays : [];
    }
    const ledFace = done ? done.lead_face : v.lead_face;
    const ledSuit = done ? ledSuitOf(done) : v.led_suit;
    const slots = new Map();
    for (const el of area.children) slots.set(el.dataset.slot, el);
    const wanted = new Set();
    // Motion only for what changes while the page is watched (not for the first drawing).
    const moving = this.motion.on() && this.trickDrawn;
    const arrived = [];
    plays.forEach((play, i) => {
      const slot = this.slotOf(play);
      wanted.add(slot);
      let el = slots.get(slot);
      const face = `${play.card}|${ledFace || ""}|${ledSuit || ""}`;
      const key = `${face}|${done ? "done" : "live"}|${done ? done.winner : ""}`;
      if (el && el.dataset.key === key) return;
      const fresh = !el || el.dataset.card !== play.card;
      const who = play.from === "dummy" ? t("table.trick.dummy_of", { name: this.seatName(play.seat) }) : this.seatName(play.seat);
      const winner = done && (done.winner === play.seat && play.from === "hand" || (done.winner === "dummy" && play.from === "dummy"));
      if (el && el.dataset.face === face) {
        // The same card, its trick now complete: the element stays (a card still moving in
        // ends where it is going), marked done and winner.
        el.classList.toggle("done", !!done);
        el.classList.toggle("winner", !!winner);
        el.dataset.key = key;
        if (done) el.dataset.winner = String(done.winner);
        else delete el.dataset.winner;
        return;
      }
      const classes = [];
      if (this.game === "twentyeight" && parseCard(play.card).light.suit === "H") classes.push("trump");
      if (i === 0) classes.push("lead");
      const cardEl = renderCard(play.card, {
        className: classes.join(" "),
        label: t("table.trick.played_by", { card: cardLabel(play.card), who })
          + (i === 0 && ledFace ? ", " + t("table.trick.leading_face", { word: ledFace === "dark" ? t("table.dark") : t("table.light") }) : ""),
        leadFace: i === 0 ? ledFace : null,
      });
      if (this.game === "double" && ledSuit) markLedFaces(cardEl, play.card, ledSuit, i === 0 ? ledFace : null);
      const node = h("div", {
        class: ["slot", `slot-${slot}`, done ? "done" : "", winner ? "winner" : ""],
        "data-slot": slot, "data-card": play.card,
      }, cardEl, this.slotName(play, who));
      node.dataset.key = key;
      node.dataset.face = face;
      if (done) node.dataset.winner = String(done.winner);
      // Where the card comes from, read before anything moves (my hand is drawn after this).
      if (moving && fresh) arrived.push([node, this.playOrigin(play)]);
      if (el) {
        el.after(node);
        this.dropSlot(el, moving);
      } else {
        area.appendChild(node);
      }
    });
    for (const [slot, el] of slots) if (!wanted.has(slot)) this.dropSlot(el, moving);
    for (const [node, from] of arrived) this.motion.flyIn(node, from);
    const doneKey = done ? `${v.hand_no}|${plays.map((p) => p.card).join()}` : null;
    if (moving && done && doneKey !== this.gatheredKey) {
      this.motion.gatherLater(() => [...area.querySelectorAll(".slot.done")].filter((s) => !s.dataset.moving),
        () => this.seatElOf(done.winner));
    }
    this.gatheredKey = doneKey;
    this.trickDrawn = true;
    // The words under the trick.
    const info = [];
    // Early in a hand, the previous hand's result stays in words under the trick (the
    // result panel may already be gone), with its face-down cards shown; it takes the place
    // of who took that hand's last trick (outlined in the trick all the same).
    const last = v.history.length ? v.history[v.history.length - 1] : null;
    const recap = last && v.tricks.length === 0 && v.phase !== "over" && last.hand_no === v.hand_no - 1;
    if (done && !recap) {
      const winnerName = done.winner === "dummy" ? t("table.the_dummy") : this.seatName(done.winner);
      info.push(done.winner === this.seat ? t("table.trick.you_took") : t("table.trick.took", { name: winnerName }));
    } else if (v.trick.length && ledSuit) {
      const suit = suitName(ledSuit);
      info.push(v.game === "double" && v.lead_face
        ? t("table.trick.face_leads", { word: v.lead_face === "dark" ? t("table.dark") : t("table.light"), suit })
        : capital(t("table.trick.led", { suit })));
    }
    if (v.phase === "play" || v.phase === "pass") {
      const total = handTricks(v);
      if (v.phase === "play" && total) info.push(t("table.trick.trick_of", { n: Math.min(v.trick_no + 1, total), total }));
    }
    if (v.game === "twentyeight" && v.phase === "play") info.push(["minor", v.hearts_broken ? t("table.trick.broken") : t("table.trick.not_broken_yet")]);
    else if (v.phase === "play") info.push(["minor", v.hearts_broken ? t("table.trick.broken") : t("table.trick.not_broken")]);
    if (v.phase === "pass" && v.pass_direction) {
      const dir = v.pass_direction;
      info.push(plural("table.trick.passing", v.pass_count, { direction: has(`direction.${dir}`) ? t(`direction.${dir}`) : dir }));
    }
    if (v.dead_count && v.phase === "play") info.push(["minor", plural("table.trick.dead", v.dead_count)]);
    const children = info.filter((item) => !(recap && Array.isArray(item))).map((item) => (Array.isArray(item)
      ? h("span", { class: `info-${item[0]}` }, `${item[1]} `)
      : h("span", { class: "info-live" }, `${item} `)));
    const names = recap ? last.points.map((_, i) => [this.shortName(i), this.scorerName(i)]) : [];
    if (recap) {
      children.push(h("span", { class: "last-hand" },
        ...tNodes(t("table.trick.last_hand", { n: last.hand_no + 1 }), { parts: this.recapParts(last.points, names) })));
      if (last.dead && last.dead.length) {
        children.push(h("span", { class: "dead-line" }, t("table.trick.dead_were") + " ",
          last.dead.map((c) => cardChip(c))));
      }
    }
    const key = JSON.stringify([info, last && last.hand_no, v.tricks.length === 0, names]);
    if (this.el.trickInfo.dataset.key !== key) {
      this.el.trickInfo.dataset.key = key;
      fill(this.el.trickInfo, children);
      this.fitTrickInfo();
    }
  }

  /** A hand's points as the score sheet names its players ("Comp 2 +4"): each player's
   *  name and points on one line, the name in full for screen readers and in its title. */
  recapParts(points, names) {
    return h("span", { class: "recap" }, points.flatMap((p, i) => {
      const [short, full] = names[i];
      // A computer's short name ("Comp 2") is never cut: cut, the computers looked alike.
      const name = short === full
        ? h("span", { class: "recap-name", title: full }, full)
        : h("span", { class: "recap-name recap-short", title: full },
          h("span", { "aria-hidden": "true" }, short), h("span", { class: "sr-only" }, full));
      const item = h("span", { class: "recap-item" }, name, h("span", { class: "recap-pts" }, `\u00a0${signed(p)}`));
      return i ? [", ", item] : [item];
    }));
  }

  /** The words box keeps one size whatever it says (a box growing would move the trick):
   *  when its words do not fit, the least needed go first, one step at a time (FIT_STEPS),
   *  until they do. Run at each change of words and when the box changes width. */
  fitTrickInfo() {
    const box = this.el.trickInfo;
    box.classList.remove(...FIT_STEPS);
    for (const step of FIT_STEPS) {
      if (box.scrollHeight <= box.clientHeight + 1) return;
      box.classList.add(step);
    }
  }

  /** A person's name (or their dummy's) under a card keeps to one line, made smaller if it
   *  must (a second line ran into the words under the trick on a phone); too long even so, it
   *  takes two, and too long for two, its short form (the first name: "Alexandrina dummy";
   *  the whole is in its title and the card's label). Run whenever the trick's cards or their
   *  slots change and when the felt's size does (a trick drawn while the page was hidden
   *  measured nothing): layout.js's observers. Each is measured in the bold of the trick's
   *  winner, so marking the winner never makes a name outgrow its box nor changes its size
   *  (the longest name's "… half dummy" took three lines once bold, in a box of two). */
  fitSlotNames() {
    for (const name of this.el.trick.querySelectorAll(".slot-name.human")) {
      name.style.fontWeight = "700";
      name.classList.remove("use-short");
      if (!fitSlotName(name) && name.querySelector(".short")) {
        name.classList.add("use-short");
        fitSlotName(name);
      }
      name.style.fontWeight = "";
    }
  }

  /** A slot leaving the trick: a complete trick not gathered yet slides to its winner as
   *  a ghost (aria-hidden, outside .trick) while the newer state is drawn at once. */
  dropSlot(el, moving) {
    if (!moving || !el.dataset.winner || el.dataset.moving === "gathered") {
      el.remove();
      return;
    }
    el.setAttribute("aria-hidden", "true");
    delete el.dataset.slot;
    this.el.trickGhosts.appendChild(el);
    const winner = el.dataset.winner === "dummy" ? "dummy" : Number(el.dataset.winner);
    this.motion.gather([el], this.seatElOf(winner), true);
  }

  /** The element a card is played from: my own card in my hand (or half dummy), else the
   *  player's seat. A rectangle, read now. */
  playOrigin(play) {
    if (play.seat === this.seat) {
      const row = play.from === "dummy" ? this.el.dummyCards : this.el.handCards;
      const card = row.querySelector(`.card[data-card="${CSS.escape(play.card)}"]`);
      if (card) return card.getBoundingClientRect();
    }
    const seat = this.seatElOf(play.seat);
    return seat ? seat.getBoundingClientRect() : null;
  }

  /** A seat's element on the felt (seat number, or "dummy"). */
  seatElOf(seat) {
    return this.seatEls.get(seat) || null;
  }

  /** The name under a played card; on a phone a computer's is short ("Comp 2"), as on the
   *  score sheet, so it fits whole (the card's own name says it in full). */
  slotName(play, who) {
    const short = play.from === "dummy" ? t("table.trick.short_dummy", { name: this.shortName(play.seat) }) : this.shortName(play.seat);
    const seat = this.table ? this.table.seats[play.seat] : null;
    const cls = seat && seat.kind === "human" ? "slot-name human" : "slot-name";
    if (short === who) return h("span", { class: cls, title: who }, who);
    return h("span", { class: cls, title: who },
      h("span", { class: "full" }, who), h("span", { class: "short", "aria-hidden": "true" }, short));
  }

  toggleLastTrick(force) {
    const last = this.lastTrick();
    this.showLastTrick = force === undefined ? !this.showLastTrick : force;
    if (!last) this.showLastTrick = false;
    this.renderHead();
    this.renderCenter();
  }
}
