// The seats around the felt: names, tags, counts, whose turn, the host's seat controls, and the turn clocks.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { renderBack } from "../cards.js";
import { h, fill, setText } from "../dom.js";
import { plural, t } from "../i18n.js";
import { botLabel, relativeSeat } from "../labels.js";
import { formatSeconds, overflows, placeWords, POSITIONS, shrinkToFit } from "./util.js";

export class SeatsPart {
  seatName(seat) {
    if (seat === "dummy") return t("table.the_dummy");
    const tb = this.table;
    if (!tb || !tb.seats[seat]) return t("table.seat_n", { n: seat + 1 });
    const s = tb.seats[seat];
    if (s.kind === "human") return s.name || t("table.seat_n", { n: seat + 1 });
    if (s.kind === "bot") return s.name || t("table.computer_n", { n: seat + 1 });
    return t("table.seat_n", { n: seat + 1 });
  }

  /** "you" for me, the name otherwise (for sentences). */
  who(seat) {
    return seat === this.seat ? t("seat.you") : this.seatName(seat);
  }

  /** A name short enough for a score sheet column: "Comp 2" for a computer; a person's first
   *  word when the whole name is long (over 12 letters) and no other seat's name begins with
   *  that word, so the short names are still told apart. */
  shortName(index) {
    const tb = this.table;
    const s = tb && typeof index === "number" ? tb.seats[index] : null;
    if (s && s.kind === "bot" && !s.name) return t("table.comp_n", { n: index + 1 });
    if (s && s.kind === "human" && s.name && s.name.length > 12) {
      const first = (name) => name.trim().split(/\s+/)[0];
      const word = first(s.name);
      const shared = tb.seats.some((o, j) => j !== index && o && o.name && first(o.name) === word);
      if (word.length >= 2 && word !== s.name.trim() && !shared) return word;
    }
    return this.scorerName(index);
  }

  scorerName(index) {
    const v = this.view;
    if (v && v.game === "dummy" && index === v.players) return t("table.dummy");
    if (index === "dummy") return t("table.dummy");
    return this.seatName(index);
  }

  /** Seat positions on the felt, seen from my seat (or seat 0 for a spectator). */
  position(seat) {
    const n = this.table.players;
    const base = this.seat === null ? 0 : this.seat;
    return POSITIONS[n][(seat - base + n) % n];
  }

  renderSeats() {
    const t = this.table;
    const v = this.view;
    const n = t.players;
    const wanted = new Set();
    for (let seat = 0; seat < n; seat++) {
      wanted.add(seat);
      let el = this.seatEls.get(seat);
      if (!el) {
        el = h("section", { class: "seat", "data-seat": String(seat) });
        this.seatEls.set(seat, el);
        this.el.seats.appendChild(el);
      }
      this.renderSeat(el, seat); // fitted to its box by layout.js's observer (fitSeat)
    }
    if (v && v.game === "dummy") {
      let el = this.seatEls.get("dummy");
      if (!el) {
        el = h("section", { class: "seat dummy-seat pos-dummy", "data-seat": "dummy" });
        this.seatEls.set("dummy", el);
        this.el.seats.appendChild(el);
      }
      this.renderDummySeat(el);
      wanted.add("dummy");
    }
    for (const [key, el] of this.seatEls) {
      if (!wanted.has(key)) {
        el.remove();
        this.seatEls.delete(key);
      }
    }
  }

  renderSeat(el, seat) {
    const tb = this.table;
    const v = this.view;
    const s = tb.seats[seat];
    const me = seat === this.seat;
    const pos = this.position(seat);
    // Between hands (the server's pause) nobody acts yet.
    const between = tb.pause_until_ms && tb.status === "playing";
    const turn = v && v.phase === "play" && v.turn && v.turn.seat === seat && !between;
    const toAct = v && v.to_act && v.to_act.includes(seat) && v.phase !== "over" && !between;
    el.className = ["seat", `pos-${pos}`, s.kind, me ? "me" : "", toAct ? "to-act" : "", s.away ? "away" : ""].filter(Boolean).join(" ");
    const name = s.kind === "open" ? t("table.free_seat") : this.seatName(seat);
    const tags = [];
    if (s.kind === "bot") tags.push(h("span", { class: "tag bot" }, t("table.tag.bot", { level: botLabel(s.level) })));
    if (s.kind === "human" && s.away) tags.push(h("span", { class: "tag away" }, t("table.tag.away")));
    if (s.kind === "human" && s.connected === false && !s.away) tags.push(h("span", { class: "tag off" }, t("table.tag.off")));
    if (tb.host_seat === seat) tags.push(h("span", { class: "tag" }, t("table.tag.host")));
    if (v && v.dealer === seat && tb.status !== "waiting") tags.push(h("span", { class: "tag" }, t("table.tag.dealer")));
    if (v && v.game === "dummy" && v.joker === seat) {
      tags.push(h("span", { class: "tag joker", title: t("table.tag.joker_title") }, t("table.tag.joker")));
    }
    const info = [];
    if (v && tb.status !== "waiting") {
      info.push(["cards", plural("table.cards", v.hand_sizes[seat])]);
      if (v.game === "dummy" && v.half_dummy_sizes) info.push(["cards", t("table.half_dummy_n", { n: v.half_dummy_sizes[seat] })]);
      info.push(["tricks", plural("table.tricks", v.tricks_won[seat])]);
      info.push(["points", plural("table.pts", v.points_taken[seat])]);
    }
    let state = "";
    if (v && v.phase === "pass" && v.passed && !between) state = v.passed[seat] ? t("table.state.passed") : t("table.state.choosing");
    if (turn) state = v.turn.from === "dummy" ? t("table.state.playing_dummy") : t("table.state.playing");
    if (v && v.phase === "direction" && toAct) state = t("table.state.direction");
    if (v && v.phase === "moon" && toAct) state = t("table.state.moon");
    const backs = [];
    if (v && !me && tb.status !== "waiting") {
      const count = Math.min(v.hand_sizes[seat], 13);
      for (let i = 0; i < count; i++) backs.push(renderBack("mini"));
    }
    const controls = this.seatControls(seat, s);
    // Said once: "Alex (you)" for my seat; another seat by where it sits from mine ("Ann, on
    // your left"), or for a spectator by where it is drawn ("Ann, at the bottom").
    let label = t("table.seat_me", { name });
    if (!me) label = t("table.seat_other", { name, place: this.seat === null ? placeWords(pos) : relativeSeat(this.seat, seat, tb.players) });
    el.setAttribute("aria-label", label);
    fill(el,
      h("div", { class: "seat-name" },
        h("span", { class: "name-text", title: name }, name),
        me ? h("span", { class: "you" }, " " + t("table.you_mark")) : null),
      tags.length ? h("div", { class: "tags" }, tags) : null,
      info.length ? h("div", { class: "seat-info" }, info.map(([kind, text]) => h("span", { class: `i-${kind}` }, text))) : null,
      h("div", { class: "seat-state" }, h("span", { class: "state-text" }, state), h("span", { class: "clock", "data-seat": String(seat) })),
      backs.length ? h("div", { class: "backs", "aria-hidden": "true" }, backs) : null,
      controls);
  }

  /** A long name (24 letters) wrapped over two or three lines pushed the plaque's counts out
   *  of its box: it is made smaller until the plaque fits; if that is not enough (five players
   *  on a small phone), the whole plaque is. Run whenever its words change and when the
   *  felt's size changes (layout.js's observers). */
  fitSeat(el) {
    const name = el.querySelector(".seat-name");
    // The usual case reads only: nothing made smaller, and the words fit.
    if (!el.style.fontSize && !(name && name.style.fontSize) && !overflows(el)) return;
    el.style.fontSize = "";
    if (name && !shrinkToFit(name, el, [0.9, 0.8])) {
      name.style.fontSize = "";
      shrinkToFit(el);
    }
  }

  renderDummySeat(el) {
    const v = this.view;
    const index = v.players;
    const pts = v.points_taken[index];
    fill(el,
      h("div", { class: "seat-name" }, h("span", { class: "name-text" }, t("table.dummy"))),
      h("div", { class: "seat-info" }, t("table.dummy_info", {
        tricks: plural("table.tricks", v.tricks_won[index]), points: plural("table.pts", pts), total: v.scores[index],
      })));
    el.setAttribute("aria-label", t("table.the_dummy"));
  }

  seatControls(seat, s) {
    const tb = this.table;
    const me = this.player;
    const isHost = me && tb.host === me.id;
    const buttons = [];
    if (this.seat === null && this.seatIsFree(s)) {
      buttons.push(h("button", { type: "button", class: "btn small primary", onclick: () => this.sitAt(seat) }, s.kind === "bot" ? t("table.take_over") : t("table.sit_here")));
    }
    if (isHost && tb.status === "waiting") {
      if (s.kind === "open") {
        const level = h("select", { "aria-label": t("table.bot_level_for", { n: seat + 1 }), class: "small" },
          this.botLevels.map((l) => h("option", { value: l, selected: l === "standard" }, botLabel(l))));
        buttons.push(h("span", { class: "add-bot" }, level,
          h("button", { type: "button", class: "btn small", onclick: () => this.send("add_bot", { seat, level: level.value }) }, t("table.add_bot"))));
      } else if (s.kind === "bot") {
        buttons.push(h("button", { type: "button", class: "btn small", onclick: () => this.send("remove_bot", { seat }) }, t("table.remove_bot")));
      }
    }
    return buttons.length ? h("div", { class: "seat-controls" }, buttons) : null;
  }

  sitAt(seat) {
    // Who the server says this socket is (the welcome's player), whatever carries the session.
    if (!this.player) {
      this.askName(seat);
      return;
    }
    this.askingName = null;
    this.send("sit", { seat });
  }

  renderClocks() {
    const tb = this.table;
    if (!tb || !this.el) return;
    const now = this.serverNow();
    const seats = new Set(tb.deadline_ms ? tb.deadline_seats || [] : []);
    const cap = (tb.turn_timer || 0) * 1000;
    // By the server's clock (server_ms), so a wrong clock here does not matter; never more
    // than a whole turn all the same.
    const left = tb.deadline_ms ? Math.max(0, Math.min(cap || Infinity, tb.deadline_ms - now)) : 0;
    const text = tb.deadline_ms ? formatSeconds(left) : "";
    for (const el of this.el.seats.querySelectorAll(".clock")) {
      const seat = Number(el.dataset.seat);
      // The clock mark is drawn by CSS (.clock::before): an emoji shows as an empty box
      // where no emoji font is installed.
      setText(el, seats.has(seat) ? text : "");
      el.classList.toggle("urgent", seats.has(seat) && left < 6000);
    }
    const mine = this.seat !== null && seats.has(this.seat);
    setText(this.el.clock, mine ? t("table.time_left", { time: text }) : "");
    this.el.clock.classList.toggle("urgent", mine && left < 6000);
    // The pause between hands counts down in the result panel and the status line.
    const next = this.el.center.querySelector(".next-hand");
    if (next) setText(next, this.nextHandText());
    if (this.pauseStatus) setText(this.el.status, this.pauseText());
  }
}
