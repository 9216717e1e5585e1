// The seats around the felt: names, tags, counts, whose turn, the host's seat controls, and the turn clocks.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { renderBack } from "../cards.js";
import { h, fill, setText } from "../dom.js";
import { botLabel, relativeSeat } from "../labels.js";
import { formatSeconds, POSITIONS, PLACE_WORDS } from "./util.js";

export class SeatsPart {
  seatName(seat) {
    if (seat === "dummy") return "The dummy";
    const t = this.table;
    if (!t || !t.seats[seat]) return `Seat ${seat + 1}`;
    const s = t.seats[seat];
    if (s.kind === "human") return s.name || `Seat ${seat + 1}`;
    if (s.kind === "bot") return s.name || `Computer ${seat + 1}`;
    return `Seat ${seat + 1}`;
  }

  /** "you" for me, the name otherwise (for sentences). */
  who(seat) {
    return seat === this.seat ? "you" : this.seatName(seat);
  }

  /** A name short enough for a score sheet column ("Comp 2" for a computer). */
  shortName(index) {
    const t = this.table;
    const s = t && typeof index === "number" ? t.seats[index] : null;
    if (s && s.kind === "bot" && !s.name) return `Comp ${index + 1}`;
    return this.scorerName(index);
  }

  scorerName(index) {
    const v = this.view;
    if (v && v.game === "dummy" && index === v.players) return "Dummy";
    if (index === "dummy") return "Dummy";
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
      this.renderSeat(el, seat);
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
    const t = this.table;
    const v = this.view;
    const s = t.seats[seat];
    const me = seat === this.seat;
    const pos = this.position(seat);
    // Between hands (the server's pause) nobody acts yet.
    const between = t.pause_until_ms && t.status === "playing";
    const turn = v && v.phase === "play" && v.turn && v.turn.seat === seat && !between;
    const toAct = v && v.to_act && v.to_act.includes(seat) && v.phase !== "over" && !between;
    el.className = ["seat", `pos-${pos}`, s.kind, me ? "me" : "", toAct ? "to-act" : "", s.away ? "away" : ""].filter(Boolean).join(" ");
    const name = s.kind === "open" ? "Free seat" : this.seatName(seat);
    const tags = [];
    if (s.kind === "bot") tags.push(h("span", { class: "tag bot" }, `Computer \u00b7 ${botLabel(s.level)}`));
    if (s.kind === "human" && s.away) tags.push(h("span", { class: "tag away" }, "Away \u00b7 computer plays"));
    if (s.kind === "human" && s.connected === false && !s.away) tags.push(h("span", { class: "tag off" }, "Disconnected"));
    if (t.host_seat === seat) tags.push(h("span", { class: "tag" }, "Host"));
    if (v && v.dealer === seat && t.status !== "waiting") tags.push(h("span", { class: "tag" }, "Dealer"));
    if (v && v.game === "dummy" && v.joker === seat) {
      tags.push(h("span", { class: "tag joker", title: "Plays from their half dummy in this trick" }, "\u2605 Joker"));
    }
    const info = [];
    if (v && t.status !== "waiting") {
      info.push(["cards", `${v.hand_sizes[seat]} card${v.hand_sizes[seat] === 1 ? "" : "s"}`]);
      if (v.game === "dummy" && v.half_dummy_sizes) info.push(["cards", `half dummy ${v.half_dummy_sizes[seat]}`]);
      info.push(["tricks", `${v.tricks_won[seat]} trick${v.tricks_won[seat] === 1 ? "" : "s"}`]);
      info.push(["points", `${v.points_taken[seat]} pt${v.points_taken[seat] === 1 ? "" : "s"}`]);
    }
    let state = "";
    if (v && v.phase === "pass" && v.passed && !between) state = v.passed[seat] ? "Passed \u2713" : "Choosing cards\u2026";
    if (turn) state = v.turn.from === "dummy" ? "Playing from the half dummy" : "Playing\u2026";
    if (v && v.phase === "direction" && toAct) state = "Choosing the direction\u2026";
    if (v && v.phase === "moon" && toAct) state = "Shot the moon! Choosing\u2026";
    const backs = [];
    if (v && !me && t.status !== "waiting") {
      const count = Math.min(v.hand_sizes[seat], 13);
      for (let i = 0; i < count; i++) backs.push(renderBack("mini"));
    }
    const controls = this.seatControls(seat, s);
    // Said once: "Alex (you)" for my seat; another seat by where it sits from mine ("Ann, on
    // your left"), or for a spectator by where it is drawn ("Ann, at the bottom").
    let label = `${name} (you)`;
    if (!me) label = `${name}, ${this.seat === null ? PLACE_WORDS[pos] : relativeSeat(this.seat, seat, t.players)}`;
    el.setAttribute("aria-label", label);
    fill(el,
      h("div", { class: "seat-name" },
        h("span", { class: "name-text", title: name }, name),
        me ? h("span", { class: "you" }, " (you)") : null),
      tags.length ? h("div", { class: "tags" }, tags) : null,
      info.length ? h("div", { class: "seat-info" }, info.map(([kind, text]) => h("span", { class: `i-${kind}` }, text))) : null,
      h("div", { class: "seat-state" }, h("span", { class: "state-text" }, state), h("span", { class: "clock", "data-seat": String(seat) })),
      backs.length ? h("div", { class: "backs", "aria-hidden": "true" }, backs) : null,
      controls);
  }

  renderDummySeat(el) {
    const v = this.view;
    const index = v.players;
    const pts = v.points_taken[index];
    fill(el,
      h("div", { class: "seat-name" }, h("span", { class: "name-text" }, "Dummy")),
      h("div", { class: "seat-info" }, `${v.tricks_won[index]} trick${v.tricks_won[index] === 1 ? "" : "s"} \u00b7 ${pts} pt${pts === 1 ? "" : "s"} \u00b7 total ${v.scores[index]}`));
    el.setAttribute("aria-label", "The dummy");
  }

  seatControls(seat, s) {
    const t = this.table;
    const me = this.player;
    const isHost = me && t.host === me.id;
    const buttons = [];
    if (this.seat === null && this.seatIsFree(s)) {
      buttons.push(h("button", { type: "button", class: "btn small primary", onclick: () => this.sitAt(seat) }, s.kind === "bot" ? "Take over this seat" : "Sit here"));
    }
    if (isHost && t.status === "waiting") {
      if (s.kind === "open") {
        const level = h("select", { "aria-label": `Computer level for seat ${seat + 1}`, class: "small" },
          this.botLevels.map((l) => h("option", { value: l, selected: l === "standard" }, botLabel(l))));
        buttons.push(h("span", { class: "add-bot" }, level,
          h("button", { type: "button", class: "btn small", onclick: () => this.send("add_bot", { seat, level: level.value }) }, "Add computer")));
      } else if (s.kind === "bot") {
        buttons.push(h("button", { type: "button", class: "btn small", onclick: () => this.send("remove_bot", { seat }) }, "Remove computer"));
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
    const t = this.table;
    if (!t || !this.el) return;
    const now = this.serverNow();
    const seats = new Set(t.deadline_ms ? t.deadline_seats || [] : []);
    const cap = (t.turn_timer || 0) * 1000;
    // By the server's clock (server_ms), so a wrong clock here does not matter; never more
    // than a whole turn all the same.
    const left = t.deadline_ms ? Math.max(0, Math.min(cap || Infinity, t.deadline_ms - now)) : 0;
    const text = t.deadline_ms ? formatSeconds(left) : "";
    for (const el of this.el.seats.querySelectorAll(".clock")) {
      const seat = Number(el.dataset.seat);
      // The clock mark is drawn by CSS (.clock::before): an emoji shows as an empty box
      // where no emoji font is installed.
      setText(el, seats.has(seat) ? text : "");
      el.classList.toggle("urgent", seats.has(seat) && left < 6000);
    }
    const mine = this.seat !== null && seats.has(this.seat);
    setText(this.el.clock, mine ? `${text} left` : "");
    this.el.clock.classList.toggle("urgent", mine && left < 6000);
    // The pause between hands counts down in the result panel and the status line.
    const next = this.el.center.querySelector(".next-hand");
    if (next) setText(next, this.nextHandText());
    if (this.pauseStatus) setText(this.el.status, this.pauseText());
  }
}
