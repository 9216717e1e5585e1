// The centre panel over the felt: the last trick on demand, a hand's result, the game over.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { renderCard } from "../cards.js";
import { h, fill } from "../dom.js";
import { openRoomButton } from "../replay_room.js";
import { ledSuitOf, markLedFaces, signed } from "./util.js";

export class CenterPart {
  renderCenter() {
    const el = this.el.center;
    const v = this.view;
    const t = this.table;
    if (!t) return;
    if (this.showLastTrick && this.lastTrick()) {
      const last = this.lastTrick();
      const winner = last.winner === "dummy" ? "The dummy" : this.seatName(last.winner);
      el.hidden = false;
      el.className = "center-panel last-trick";
      const led = ledSuitOf(last);
      fill(el,
        h("h2", {}, "Last trick"),
        h("ol", { class: "mini-trick" }, last.plays.map((p, i) => {
          const card = renderCard(p.card, { className: "small", leadFace: i === 0 ? last.lead_face : null });
          if (this.game === "double") markLedFaces(card, p.card, led, i === 0 ? last.lead_face : null);
          return h("li", { class: (p.seat === last.winner && p.from === "hand") || (last.winner === "dummy" && p.from === "dummy") ? "winner" : "" },
            card,
            h("span", {}, p.from === "dummy" ? `${this.seatName(p.seat)}'s half dummy` : this.seatName(p.seat)));
        })),
        h("p", {}, `${winner} took it.`),
        h("button", { type: "button", class: "btn small", onclick: () => this.toggleLastTrick(false) }, "Close"));
      return;
    }
    // The last trick is still being seen (motion.js): the result comes after it.
    const held = Date.now() < this.motion.holdUntil;
    if (v && v.phase === "over" && !held) {
      el.hidden = false;
      el.className = "center-panel game-over";
      fill(el, ...this.gameOverContent());
      return;
    }
    if (v && !held && this.resultFor !== null && !this.resultClosed.has(this.resultFor)) {
      const result = v.history.find((r) => r.hand_no === this.resultFor);
      if (result) {
        el.hidden = false;
        el.className = "center-panel hand-result";
        fill(el, ...this.handResultContent(result),
          h("button", {
            type: "button", class: "btn small",
            onclick: () => {
              this.resultClosed.add(this.resultFor);
              this.renderCenter();
            },
          }, "Close"));
        return;
      }
    }
    el.hidden = true;
    fill(el);
  }

  handResultContent(result) {
    const v = this.view;
    const scorers = result.points.map((_, i) => i);
    const out = [h("h2", {}, `Hand ${result.hand_no + 1} is over`)];
    if (result.moon !== null && result.moon !== undefined) {
      out.push(h("p", { class: "moon" }, h("span", { class: "moon-mark", "aria-hidden": "true" }), this.moonWords(result.moon)));
    }
    out.push(h("table", { class: "result-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "This hand"), h("th", { scope: "col" }, "Total"))),
      h("tbody", {}, scorers.map((i) => h("tr", {},
        h("th", { scope: "row" }, this.scorerName(i)),
        h("td", {}, signed(result.points[i])),
        h("td", {}, String(result.totals[i])))))));
    out.push(...this.handEndNotes(result));
    if (result.dead && result.dead.length) {
      out.push(h("div", { class: "dead-cards" },
        h("p", {}, "The face-down cards were:"),
        h("div", { class: "row" }, result.dead.map((c) => renderCard(c, { className: "small" })))));
    }
    if (v && v.phase !== "over" && result.hand_no === v.hand_no - 1) {
      out.push(h("p", { class: "next-hand", "aria-live": "off" }, this.nextHandText()));
    }
    return out;
  }

  pauseText() {
    return `Hand ${this.view.hand_no} is over. ${this.nextHandText()}`;
  }

  nextHandText() {
    const left = this.pauseLeft();
    return left > 0 ? `The next hand starts in ${Math.ceil(left / 1000)} s.` : "The next hand has started.";
  }

  gameOverContent() {
    const v = this.view;
    const winners = v.winners.map((w) => (w === "dummy" ? "The dummy" : w === this.seat ? "You" : this.seatName(w)));
    const title = winners.length > 1 ? `${winners.join(" and ")} share the win!` : `${winners[0] || "Nobody"} win${winners[0] === "You" ? "" : "s"}!`;
    const rows = v.scores.map((total, i) => ({ i, total })).sort((a, b) => a.total - b.total);
    const winnersLine = h("p", { class: "winners" }, title);
    const out = [
      h("h2", {}, "Game over"),
      winnersLine,
      h("ol", { class: "final-scores" }, rows.map(({ i, total }) => h("li", { class: v.winners.includes(i) || (i === v.players && v.winners.includes("dummy")) ? "winner" : "" },
        h("span", {}, this.scorerName(i)), h("strong", {}, String(total))))),
    ];
    const last = v.history[v.history.length - 1];
    if (last && last.moon !== null && last.moon !== undefined) {
      // The last hand's moon, said here too (the hand's own result panel is not shown at the
      // end of the game); the panel is a polite live region, so it is announced.
      out.splice(1, 0, h("p", { class: "moon" }, h("span", { class: "moon-mark", "aria-hidden": "true" }), `${this.moonWords(last.moon)} (last hand)`));
    }
    if (last && last.dead && last.dead.length) {
      out.push(h("div", { class: "dead-cards" }, h("p", {}, "Last hand's face-down cards:"),
        h("div", { class: "row" }, last.dead.map((c) => renderCard(c, { className: "small" })))));
    }
    const buttons = [];
    const compete = this.table && this.table.compete;
    if (compete && compete.kind === "daily") {
      // A daily challenge's table plays once: its page compares the deals with everyone's.
      buttons.push(h("a", { class: "btn primary", id: "daily-results", href: `/?daily=${encodeURIComponent(compete.preset)}` }, "See how others did"));
    } else if (compete && compete.kind === "event") {
      // An event's table plays one round (no rematch): its page has the standings and the next round.
      buttons.push(h("a", { class: "btn primary", id: "event-back", href: `/?event=${encodeURIComponent(compete.event)}` }, "Back to the event"));
    } else if (this.seat !== null) {
      buttons.push(h("button", { type: "button", class: "btn primary", id: "rematch", onclick: () => this.send("rematch") }, "Rematch"));
    }
    const replay = this.replayLink();
    // replay_room.js: a shared replay room for this game, opened at once (the others join by its link).
    if (replay) buttons.push(replay, openRoomButton(this.table.game_id));
    else buttons.push(h("span", { class: "hint saving" }, "Saving the game for its replay\u2026"));
    buttons.push(h("a", { class: "btn ghost", href: "/" }, "Back to the lobby"));
    out.push(h("div", { class: "row center" }, buttons));
    // befriend.js: "Add friend" for the others seated, right under who won, so that on a
    // phone it is on the panel's first screen (it was under the scores and the buttons).
    const befriend = this.befriendContent();
    if (befriend) out.splice(out.indexOf(winnersLine) + 1, 0, befriend);
    return out;
  }

  /** The finished game's replay, for players and spectators alike: the server names its
   *  stored id (table.game_id) a moment after the game ends. */
  replayLink() {
    const id = this.table && this.table.status === "over" ? this.table.game_id : null;
    return id ? h("a", { class: "btn", id: "watch-replay", href: `/?replay=${encodeURIComponent(id)}` }, "Watch the replay") : null;
  }
}
