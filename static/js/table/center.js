// The centre panel over the felt: the last trick on demand, a hand's result, the game over.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { renderCard } from "../cards.js";
import { h, fill } from "../dom.js";
import { language, plural, t } from "../i18n.js";
import { openRoomButton } from "../replay_room.js";
import { ledSuitOf, markLedFaces, signed } from "./util.js";

export class CenterPart {
  renderCenter() {
    const el = this.el.center;
    const v = this.view;
    if (!this.table) return;
    if (this.showLastTrick && this.lastTrick()) {
      const last = this.lastTrick();
      const winner = last.winner === "dummy" ? t("table.the_dummy") : this.seatName(last.winner);
      el.hidden = false;
      el.className = "center-panel last-trick";
      const led = ledSuitOf(last);
      fill(el,
        h("h2", {}, t("table.head.last_trick")),
        h("ol", { class: "mini-trick" }, last.plays.map((p, i) => {
          const card = renderCard(p.card, { className: "small", leadFace: i === 0 ? last.lead_face : null });
          if (this.game === "double") markLedFaces(card, p.card, led, i === 0 ? last.lead_face : null);
          return h("li", { class: (p.seat === last.winner && p.from === "hand") || (last.winner === "dummy" && p.from === "dummy") ? "winner" : "" },
            card,
            h("span", {}, p.from === "dummy" ? t("table.trick.dummy_of", { name: this.seatName(p.seat) }) : this.seatName(p.seat)));
        })),
        h("p", {}, t("table.center.took", { name: winner })),
        h("button", { type: "button", class: "btn small", onclick: () => this.toggleLastTrick(false) }, t("table.head.close")));
      return;
    }
    // The last trick is still being seen (motion.js): the result comes after it, and after
    // it is gathered (on a busy page the gathering runs late: the panel had covered it).
    const held = this.motion.held();
    if (v && v.phase === "over" && !held) {
      el.hidden = false;
      el.className = "center-panel game-over";
      fill(el, ...this.gameOverContent());
      if (!this.overInSight) {
        // On a phone the page is most often scrolled down to the hand when the game ends,
        // which leaves the result's top (the winner, the final scores) above the screen:
        // bring the whole panel into sight once, as little a scroll as does it.
        this.overInSight = true;
        const behavior = this.motion.on() ? "smooth" : "auto";
        requestAnimationFrame(() => el.scrollIntoView({ block: "nearest", behavior }));
      }
      return;
    }
    if (v && v.phase !== "over") this.overInSight = false; // a rematch: its end comes into sight too
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
          }, t("table.head.close")));
        return;
      }
    }
    el.hidden = true;
    fill(el);
  }

  handResultContent(result) {
    const v = this.view;
    const scorers = result.points.map((_, i) => i);
    const out = [h("h2", {}, t("table.center.hand_over", { n: result.hand_no + 1 }))];
    if (result.moon !== null && result.moon !== undefined) {
      out.push(h("p", { class: "moon" }, h("span", { class: "moon-mark", "aria-hidden": "true" }), this.moonWords(result.moon)));
    }
    out.push(h("table", { class: "result-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("table.score.player")), h("th", { scope: "col" }, t("table.score.this_hand")), h("th", { scope: "col" }, t("table.score.total")))),
      h("tbody", {}, scorers.map((i) => h("tr", {},
        h("th", { scope: "row" }, this.scorerName(i)),
        h("td", {}, signed(result.points[i])),
        h("td", {}, String(result.totals[i])))))));
    out.push(...this.handEndNotes(result));
    if (result.dead && result.dead.length) {
      out.push(h("div", { class: "dead-cards" },
        h("p", {}, t("table.trick.dead_were")),
        h("div", { class: "row" }, result.dead.map((c) => renderCard(c, { className: "small" })))));
    }
    if (v && v.phase !== "over" && result.hand_no === v.hand_no - 1) {
      out.push(h("p", { class: "next-hand", "aria-live": "off" }, this.nextHandText()));
    }
    return out;
  }

  pauseText() {
    return t("table.center.pause", { n: this.view.hand_no, next: this.nextHandText() });
  }

  nextHandText() {
    const left = this.pauseLeft();
    return left > 0 ? plural("table.center.next_in", Math.ceil(left / 1000)) : t("table.center.next_started");
  }

  gameOverContent() {
    const v = this.view;
    const winners = v.winners.map((w) => (w === "dummy" ? t("table.the_dummy") : w === this.seat ? t("table.center.you") : this.seatName(w)));
    const title = winners.length > 1
      ? t("table.center.share_win", { names: new Intl.ListFormat(language(), { type: "conjunction" }).format(winners) })
      : winners.length === 0 ? t("table.center.nobody_wins")
        : v.winners[0] === this.seat ? t("table.center.you_win") : t("table.center.wins", { name: winners[0] });
    const rows = v.scores.map((total, i) => ({ i, total })).sort((a, b) => a.total - b.total);
    const winnersLine = h("p", { class: "winners" }, title);
    const out = [
      h("h2", {}, t("table.center.game_over")),
      winnersLine,
      h("ol", { class: "final-scores" }, rows.map(({ i, total }) => h("li", { class: v.winners.includes(i) || (i === v.players && v.winners.includes("dummy")) ? "winner" : "" },
        h("span", {}, this.scorerName(i)), h("strong", {}, String(total))))),
    ];
    const last = v.history[v.history.length - 1];
    if (last && last.moon !== null && last.moon !== undefined) {
      // The last hand's moon, said here too (the hand's own result panel is not shown at the
      // end of the game); the panel is a polite live region, so it is announced.
      out.splice(1, 0, h("p", { class: "moon" }, h("span", { class: "moon-mark", "aria-hidden": "true" }), t("table.center.moon_last", { words: this.moonWords(last.moon) })));
    }
    if (last && last.dead && last.dead.length) {
      out.push(h("div", { class: "dead-cards" }, h("p", {}, t("table.center.dead_last")),
        h("div", { class: "row" }, last.dead.map((c) => renderCard(c, { className: "small" })))));
    }
    const buttons = [];
    const compete = this.table && this.table.compete;
    if (compete && compete.kind === "daily") {
      // A daily challenge's table plays once: its page compares the deals with everyone's.
      buttons.push(h("a", { class: "btn primary", id: "daily-results", href: `/?daily=${encodeURIComponent(compete.preset)}` }, t("table.center.daily_results")));
    } else if (compete && compete.kind === "event") {
      // An event's table plays one round (no rematch): its page has the standings and the next round.
      buttons.push(h("a", { class: "btn primary", id: "event-back", href: `/?event=${encodeURIComponent(compete.event)}` }, t("table.center.event_back")));
    } else if (this.seat !== null) {
      buttons.push(h("button", { type: "button", class: "btn primary", id: "rematch", onclick: () => this.send("rematch") }, t("table.rematch")));
    }
    const replay = this.replayLink();
    // replay_room.js: a shared replay room for this game, opened at once (the others join by its link).
    if (replay) buttons.push(replay, openRoomButton(this.table.game_id));
    else buttons.push(h("span", { class: "hint saving" }, t("table.center.saving")));
    buttons.push(h("a", { class: "btn ghost", href: "/" }, t("table.gone.back")));
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
    return id ? h("a", { class: "btn", id: "watch-replay", href: `/?replay=${encodeURIComponent(id)}` }, t("table.center.watch_replay")) : null;
  }
}
