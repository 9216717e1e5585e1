// Replay of a finished game: hand by hand, trick by trick, every hand shown
// (GET /api/games/{id}/replay, built by the server from the seed and the moves). Words: the
// catalog's replay.* (i18n.js); app.js draws the page again on a change of language.

import { api } from "./api.js";
import { cardName, faceOf, renderCard, sortCards, suitName } from "./cards.js";
import { h, fill, setText } from "./dom.js";
import { language, loadSection, t } from "./i18n.js";
import { botLabel, directionWords } from "./labels.js";
import { presetLabel } from "./option_fields.js";
import { ReviewPanel } from "./review.js";
import { roomSection } from "./replay_room.js";

// This module's words (<lang>.replay.json), before anything of it is drawn.
await loadSection("replay");

export function mountReplay(root, gameId) {
  // A private table's game opens for its players (signed in) or with its share link
  // (/?replay=ID&share=TOKEN); to anyone else the server answers 404 unknown_game.
  const share = new URLSearchParams(window.location.search).get("share");
  const page = new ReplayPage(root, gameId, share);
  page.start();
  return page;
}

class ReplayPage {
  constructor(root, gameId, share = null) {
    this.root = root;
    this.gameId = gameId;
    this.share = share;
    this.data = null;
    this.hand = 0;
    this.step = 0; // 0: the deal (and passing); k: after trick k; last: the result
    this.room = null; // a shared room (static/js/replay_room.js): only its driver steps
    this.keyHandler = (event) => this.onKey(event);
  }

  async start() {
    document.title = t("replay.page_title");
    fill(this.root, h("section", { class: "panel" }, h("p", {}, t("replay.loading"))));
    let presets = {};
    try {
      const [data, presetData] = await Promise.all([
        api(`/api/games/${encodeURIComponent(this.gameId)}/replay` +
          (this.share ? `?share=${encodeURIComponent(this.share)}` : "")),
        api("/api/presets", { auth: false }).catch(() => null),
      ]);
      this.data = data;
      if (presetData) presets = Object.fromEntries(presetData.presets.map((p) => [p.id, p]));
    } catch (error) {
      fill(this.root, h("section", { class: "panel gone" },
        h("h1", {}, t("replay.none")),
        h("p", { class: "form-error" }, error.status === 409 ? t("replay.not_ended")
          : error.status === 404 ? t("replay.no_game")
          : error.message),
        h("a", { class: "btn primary", href: "/" }, t("common.back"))));
      return;
    }
    this.preset = presets[this.data.preset];
    this.game = this.preset ? this.preset.game : this.data.preset.startsWith("two-player-dummy") ? "dummy" : "classic";
    this.build();
    this.openAt(new URLSearchParams(window.location.search));
    document.addEventListener("keydown", this.keyHandler);
    this.render();
    this.reviewPanel.start();
  }

  /** A link to a given hand and trick (&hand=N&trick=K as a room's link gives: N from 1, K the
   *  step, 0 the deal, k after trick k, the last the result) opens there. A value the game does
   *  not have is said on the page, and the replay opens at the start (of that hand). In a room
   *  the room's position follows, whatever the link says. */
  openAt(query) {
    const hand = query.get("hand");
    const trick = query.get("trick");
    if (hand === null && trick === null) return;
    const whole = (text) => (/^\d{1,6}$/.test(text) ? Number(text) : NaN);
    const shown = (text) => String(text).slice(0, 12);
    const count = this.data.hands.length;
    const n = hand === null ? 1 : whole(hand);
    if (!(n >= 1 && n <= count)) {
      this.linkProblem(t("replay.bad_hand", { hand: shown(hand), last: count }));
      return;
    }
    this.show(n - 1, 0, false);
    const k = trick === null ? 0 : whole(trick);
    if (!(k >= 0 && k < this.steps())) {
      this.linkProblem(t("replay.bad_trick", { trick: shown(trick), hand: n, last: this.steps() - 1 }));
      return;
    }
    this.show(n - 1, k, false);
  }

  linkProblem(words) {
    setText(this.el.linkProblem, words);
    this.el.linkProblem.hidden = false;
  }

  destroy() {
    document.removeEventListener("keydown", this.keyHandler);
    if (this.reviewPanel) this.reviewPanel.destroy();
    if (this.room) this.room.destroy();
  }

  /** A seat's player; a computer with its level unless ``level`` is false (under a card). */
  name(seat, level = true) {
    if (seat === "dummy") return t("replay.dummy");
    const g = this.data.game;
    const s = g && g.seats ? g.seats.find((x) => x.seat === seat) : null;
    if (!s) return t("replay.seat", { seat: seat + 1 });
    if (s.name) return s.name;
    if (s.bot_level) {
      return level ? t("replay.computer_level", { seat: seat + 1, level: botLabel(s.bot_level) }) : t("replay.computer", { seat: seat + 1 });
    }
    return t("replay.seat", { seat: seat + 1 });
  }

  scorerName(i) {
    return this.game === "dummy" && i === this.data.players ? t("replay.dummy") : this.name(i);
  }

  /** "Ann's half dummy". */
  halfDummy(seat, level = true) {
    return t("replay.half_dummy", { name: this.name(seat, level) });
  }

  build() {
    const d = this.data;
    this.el = {};
    const e = this.el;
    e.handSelect = h("select", { id: "replay-hand", onchange: () => this.go(Number(e.handSelect.value), 0) },
      d.hands.map((hand, i) => h("option", { value: String(i) }, t("replay.hand_no", { hand: hand.hand_no + 1 }))));
    e.stepText = h("p", { class: "status", "aria-live": "polite", id: "replay-step" });
    e.linkProblem = h("p", { class: "form-error", id: "replay-link-problem", role: "alert", hidden: true });
    // Arrows of the kind axe and screen readers treat as symbols: each name contains its
    // button's visible word (WCAG 2.5.3; "\u00AB Hand" named "Previous hand" did not).
    const btn = (label, text, fn, id) => h("button", { type: "button", class: "btn small", "aria-label": label, onclick: fn, id }, text);
    e.controls = h("div", { class: "replay-controls row" },
      h("label", { for: "replay-hand" }, t("replay.hand")), e.handSelect,
      btn(t("replay.prev_hand"), `\u25C0\u25C0 ${t("replay.hand")}`, () => this.go(this.hand - 1, 0), "prev-hand"),
      btn(t("replay.prev_trick"), `\u25C0 ${t("replay.trick")}`, () => this.move(-1), "prev-trick"),
      btn(t("replay.next_trick"), `${t("replay.trick")} \u25B6`, () => this.move(1), "next-trick"),
      btn(t("replay.next_hand"), `${t("replay.hand")} \u25B6\u25B6`, () => this.go(this.hand + 1, 0), "next-hand"));
    e.trick = h("div", { class: "replay-trick", role: "group", "aria-label": t("replay.trick") });
    e.holdings = h("div", { class: "replay-holdings" });
    e.result = h("div", { class: "replay-result" });
    // The game review (static/js/review.js): under "On the table" on a wide screen, last on
    // a phone, so that what it adds pushes nothing already shown.
    this.reviewPanel = new ReviewPanel(this);
    const winners = d.winners.map((w) => (w === "dummy" || w === d.players ? t("replay.the_dummy") : this.name(w)));
    const label = this.preset ? presetLabel(this.preset) : d.preset;
    const scores = d.totals.map((total, i) => `${this.scorerName(i)} ${total}`).join(", ");
    const won = winners.length > 1 ? t("replay.share_win", { names: new Intl.ListFormat(language()).format(winners) })
      : t("replay.won", { name: winners[0] || t("replay.nobody") });
    fill(this.root, h("div", { class: "replay-page" },
      h("div", { class: "table-head" },
        h("div", { class: "head-title" }, h("h1", { class: "table-title" }, t("replay.title", { game: label }))),
        h("div", { class: "head-actions" }, h("a", { class: "btn small ghost", href: "/" }, t("common.lobby")))),
      h("section", { class: "panel" },
        h("p", {}, t("replay.final", { scores }), " ", h("strong", {}, won)),
        h("p", { class: "hint" }, t("replay.keys")),
        e.linkProblem, this.shareBox(), e.controls, e.stepText),
      roomSection(this),
      h("div", { class: "replay-board" },
        h("section", { class: "panel board-table" }, h("h2", {}, t("replay.on_table")), e.trick, e.result),
        h("section", { class: "panel board-cards" }, h("h2", {}, t("replay.cards")), e.holdings),
        this.reviewPanel.build())));
  }

  /** For a player of a private table's game: the link that opens it for anyone holding it. */
  shareBox() {
    const g = this.data.game;
    if (!g || !g.private || !g.share_token) return null;
    const url = `${window.location.origin}/?replay=${encodeURIComponent(g.id)}&share=${encodeURIComponent(g.share_token)}`;
    const field = h("input", { type: "text", readonly: true, value: url, id: "replay-share-link", "aria-label": t("replay.share_label"), class: "share-link" });
    const status = h("span", { class: "hint", "aria-live": "polite" });
    const copy = () => {
      const done = () => setText(status, t("common.copied"));
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(url).then(done, () => field.select());
      } else {
        field.select();
      }
    };
    return h("p", { class: "replay-share" },
      t("replay.share_about"), " ",
      field, " ", h("button", { type: "button", class: "btn small", id: "replay-share-copy", onclick: copy }, t("common.copy")), " ", status);
  }

  steps() {
    const hand = this.data.hands[this.hand];
    return hand.tricks.length + (hand.result ? 2 : 1);
  }

  move(delta) {
    if (this.room && !this.room.mayStep()) return;
    const next = this.step + delta;
    if (next < 0) {
      if (this.hand > 0) this.go(this.hand - 1, Infinity);
      return;
    }
    if (next >= this.steps()) {
      if (this.hand < this.data.hands.length - 1) this.go(this.hand + 1, 0);
      return;
    }
    this.step = next;
    this.render();
  }

  go(hand, step) {
    if (this.room && !this.room.mayStep()) return;
    this.show(hand, step);
  }

  /** Show (hand, step) whoever drives: the room's position comes here. */
  show(hand, step, draw = true) {
    if (!Number.isInteger(hand) || hand < 0 || hand >= this.data.hands.length) return;
    this.hand = hand;
    this.step = Math.max(0, Math.min(step, this.steps() - 1));
    if (draw) this.render();
  }

  onKey(event) {
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (this.reviewPanel && this.reviewPanel.onKey(event)) {
      event.preventDefault();
      return;
    }
    const map = { ArrowRight: () => this.move(1), ArrowLeft: () => this.move(-1), ArrowDown: () => this.go(this.hand + 1, 0), ArrowUp: () => this.go(this.hand - 1, 0) };
    if (map[event.key]) {
      event.preventDefault();
      map[event.key]();
    }
  }

  render() {
    const d = this.data;
    const hand = d.hands[this.hand];
    const e = this.el;
    e.handSelect.value = String(this.hand);
    const tricks = hand.tricks;
    const resultStep = hand.result ? tricks.length + 1 : -1;
    document.getElementById("prev-hand").disabled = this.hand === 0;
    document.getElementById("next-hand").disabled = this.hand >= d.hands.length - 1;
    document.getElementById("prev-trick").disabled = this.hand === 0 && this.step === 0;
    document.getElementById("next-trick").disabled = this.hand >= d.hands.length - 1 && this.step >= this.steps() - 1;
    // Holdings: the deal at step 0, then what is left after each trick.
    let holdings;
    let played = new Set();
    if (this.step === 0 || !hand.play_start) {
      holdings = hand.deal;
    } else {
      holdings = hand.play_start;
      for (const trick of tricks.slice(0, Math.min(this.step, tricks.length))) {
        for (const p of trick.plays) played.add(`${p.seat}|${p.from}|${p.card}`);
      }
    }
    fill(e.holdings, holdings.filter((x) => x.seat !== undefined).map((holding) => {
      const owner = holding.from === "dummy" ? this.halfDummy(holding.seat) : this.name(holding.seat);
      const cards = sortCards(holding.cards).filter((c) => !played.has(`${holding.seat}|${holding.from}|${c}`));
      return h("div", { class: "holding", "data-seat": String(holding.seat) },
        h("h3", {}, t("replay.holding", { owner, count: cards.length })),
        h("div", { class: "mini-cards" }, cards.map((c) => renderCard(c, { className: "small" }))));
    }));
    // The middle: passing, a trick, or the result.
    if (this.step === 0) {
      const passes = hand.moves.filter((m) => m.move.type === "pass");
      const dir = hand.pass_direction;
      const dealer = this.name(hand.dealer);
      setText(e.stepText, passes.length
        ? t("replay.deal_passing", { hand: hand.hand_no + 1, direction: directionWords(dir), dealer })
        : t("replay.deal", { hand: hand.hand_no + 1, dealer }));
      fill(e.trick, passes.length
        ? h("ul", { class: "replay-passes" }, passes.map((m) => h("li", { "data-seat": String(m.seat) },
          h("span", {}, t("replay.passed", { name: this.name(m.seat) }), " "),
          h("span", { class: "mini-cards" }, (m.move.cards || []).map((c) => renderCard(this.fullCode(c), { className: "small" }))))))
        : h("p", { class: "hint" }, t("replay.no_passing")));
      fill(e.result);
    } else if (this.step === resultStep) {
      setText(e.stepText, t("replay.result", { hand: hand.hand_no + 1 }));
      fill(e.trick);
      const r = hand.result;
      fill(e.result,
        r.moon !== null && r.moon !== undefined ? h("p", { class: "moon" }, `\u263E ${t("replay.moon", { name: this.scorerName(r.moon) })}`) : null,
        h("table", { class: "result-table" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("replay.player")), h("th", { scope: "col" }, t("replay.tricks")),
            h("th", { scope: "col" }, t("replay.this_hand")), h("th", { scope: "col" }, t("replay.total")))),
          h("tbody", {}, r.points.map((p, i) => h("tr", {},
            h("th", { scope: "row" }, this.scorerName(i)),
            h("td", {}, String(r.tricks_won[i] ?? "")),
            h("td", {}, p > 0 ? `+${p}` : String(p)),
            h("td", {}, String(r.totals[i])))))),
        r.dead && r.dead.length
          ? h("div", { class: "dead-cards" }, h("p", {}, t("replay.face_down")), h("div", { class: "row" }, r.dead.map((c) => renderCard(c, { className: "small" }))))
          : null);
    } else {
      const trick = tricks[this.step - 1];
      const winner = trick.winner === null ? t("replay.nobody_yet") : trick.winner === "dummy" ? t("replay.the_dummy_lower") : this.name(trick.winner);
      const first = trick.plays[0];
      const led = first ? faceOf(first.card, trick.lead_face || "light") : null;
      let lead = led && !led.joker ? t("replay.suit_led", { suit: suitName(led.suit) }) : t("replay.led");
      if (trick.lead_face) lead = t(trick.lead_face === "dark" ? "replay.dark_face" : "replay.light_face", { lead });
      setText(e.stepText, t("replay.trick_step", { hand: hand.hand_no + 1, trick: this.step, tricks: tricks.length, lead, winner }));
      fill(e.trick, h("ol", { class: "mini-trick" }, trick.plays.map((p, i) => h("li", {
        "data-seat": String(p.seat),
        class: (trick.winner === p.seat && p.from === "hand") || (trick.winner === "dummy" && p.from === "dummy") ? "winner" : "",
      },
      renderCard(p.card, { leadFace: i === 0 ? trick.lead_face : null, label: t(p.timeout ? "replay.played_by_timeout" : "replay.played_by", { card: cardName(p.card), name: p.from === "dummy" ? this.halfDummy(p.seat) : this.name(p.seat) }) }),
      h("span", {}, p.from === "dummy" ? this.halfDummy(p.seat, false) : this.name(p.seat, false)),
      // A turn-based game: the player's time ran out and the computer played this card.
      p.timeout ? h("span", { class: "timeout-mark" }, t("replay.out_of_time")) : null))));
      fill(e.result);
    }
    if (this.reviewPanel) this.reviewPanel.decorate(this.root);
    if (this.room) this.room.rendered();
  }

  /** Moves name Double Hearts cards by their Light face; find the full "Light/Dark" text. */
  fullCode(code) {
    if (this.game !== "double") return code;
    const hand = this.data.hands[this.hand];
    for (const holding of hand.deal) {
      const found = holding.cards.find((c) => c.split("/")[0] === code);
      if (found) return found;
    }
    return code;
  }
}
