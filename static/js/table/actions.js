// The action bar: the status line, the buttons of the moment (start, pass, faces, moon, rematch), the name form, and a refused move's reason.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { signInAsGuest } from "../api.js";
import { SUIT_SYMBOLS, cardShort, faceName, faceShort, parseCard, renderCard, suitName } from "../cards.js";
import { h, fill, setText } from "../dom.js";
import { language, plural, t } from "../i18n.js";
import { directionWords } from "../labels.js";

export class ActionsPart {
  renderActions() {
    const tb = this.table;
    const v = this.view;
    const me = this.seat;
    const bar = this.el.actions;
    const status = this.el.status;
    const buttons = [];
    let text = "";
    this.pauseStatus = false;
    const mySeat = me !== null ? tb.seats[me] : null;
    const isHost = this.player && tb.host === this.player.id;
    if (tb.status === "waiting") {
      const open = tb.seats.filter((s) => s.kind === "open").length;
      text = open ? plural("table.waiting_players", open) : t("table.all_seated");
      if (isHost) {
        text += " " + (open ? t("table.host_add") : t("table.host_ready"));
        buttons.push(h("button", {
          type: "button", class: "btn primary", id: "start-game", disabled: open > 0,
          onclick: () => this.send("start"),
        }, t("table.start")));
      } else if (me === null) {
        text += open ? " " + t("table.take_seat") : "";
      } else {
        text += " " + t("table.host_starts");
      }
      // Told to everyone before the game (BGA's rule); the address itself is never sent.
      const list = new Intl.ListFormat(language(), { type: "conjunction" });
      for (const group of tb.shared_address || []) {
        text += " " + t("table.same_address", { names: list.format(group.map((seat) => this.seatName(seat))) });
      }
      if (tb.rated) text = t("table.rated", { text });
    } else if (!v) {
      text = "";
    } else if (v.phase === "over") {
      // The game-over panel holds the one Rematch button (two were shown).
      text = t("table.over");
    } else if (tb.status === "over") {
      text = t("table.unfinished");
      if (me !== null) buttons.push(h("button", { type: "button", class: "btn primary", onclick: () => this.send("rematch") }, t("table.rematch")));
      const replay = this.replayLink();
      if (replay) buttons.push(replay);
    } else if (me !== null && mySeat && mySeat.away) {
      text = t("table.away");
      buttons.push(h("button", { type: "button", class: "btn primary", id: "im-back", onclick: () => this.send("back") }, t("table.back")));
    } else if (this.pauseLeft() > 0) {
      this.pauseStatus = true; // renderClocks counts down in the status line
      text = this.pauseText();
    } else if (v.phase === "direction") {
      if (v.legal && v.legal.type === "direction") {
        text = t("table.you_deal");
        for (const dir of v.legal.directions) {
          buttons.push(h("button", { type: "button", class: "btn", onclick: () => this.sendMove({ type: "direction", direction: dir }) },
            dir === "hold" ? t("table.keep") : t("table.pass_dir", { direction: directionWords(dir) })));
        }
      } else {
        text = t("table.deals", { name: this.seatName(v.dealer) });
      }
    } else if (v.phase === "pass") {
      const target = this.passTarget();
      if (v.legal && v.legal.type === "pass") {
        const count = v.legal.count;
        const direction = directionWords(v.pass_direction);
        const chosen = this.selected.size;
        text = target !== null
          ? plural("table.choose_pass_to", count, { direction, chosen, name: this.seatName(target) })
          : plural("table.choose_pass", count, { direction, chosen });
        buttons.push(h("button", {
          type: "button", class: "btn primary", id: "pass-button", disabled: this.selected.size !== count,
          onclick: () => this.sendPass(),
        }, plural("table.pass_button", count, { direction: directionWords(v.pass_direction) })));
      } else if (me !== null && v.passed[me]) {
        text = t("table.wait_pass");
        if (v.passed_cards) {
          buttons.push(passedCards(t("table.you_passed"), t("table.you_received"), v.passed_cards));
        }
      } else {
        text = t("table.players_passing");
      }
    } else if (v.phase === "play") {
      const turn = v.turn;
      if (v.legal && v.legal.type === "play" && me !== null) {
        const fromDummy = turn && turn.from === "dummy";
        const leading = v.trick.length === 0;
        if (this.faceChoice) {
          text = t("table.which_face", { card: cardShort(this.faceChoice) });
          buttons.push(...this.faceButtons(this.faceChoice, v.legal.faces));
        } else if (fromDummy) {
          text = leading ? t("table.lead_dummy") : t("table.play_dummy");
        } else if (v.game === "double" && leading) {
          text = v.legal.faces && v.legal.faces.length === 1
            ? t("table.lead_dark")
            : t("table.lead_face");
        } else {
          if (leading) text = t("table.lead");
          else text = v.led_suit ? t("table.play_led", { suit: suitName(v.led_suit) }) : t("table.play");
        }
        if (this.forcedCard()) text += " " + t("table.forced", { card: cardShort(this.forcedCard()) });
        const [claimText, claimButtons] = this.faceChoice ? [null, []] : this.claimControls();
        if (claimText) text = claimText;
        buttons.push(...claimButtons);
      } else if (turn) {
        const name = this.seatName(turn.seat);
        if (turn.from === "dummy") text = turn.seat === me ? t("table.you_play_dummy") : t("table.plays_dummy", { name });
        else text = t("table.waiting_for", { name });
        if (turn.seat === me) text = t("table.your_turn");
      }
      if (me !== null && this.prechosen) {
        text += this.prechosenWords();
        buttons.push(...this.prechosenButtons());
      }
      if (me === null) text = t("table.watching", { text });
      if (v.received && v.received.length && v.tricks.length === 0 && me !== null) {
        // First in the row, where the passed cards were: the cards stay put as the play begins.
        buttons.unshift(passedCards(t("table.you_received"), t("table.you_passed"), v.received));
      }
    } else if (v.phase === "moon") {
      if (v.legal && v.legal.type === "moon") {
        text = t("table.shot_moon");
        buttons.push(h("button", { type: "button", class: "btn primary", onclick: () => this.sendMove({ type: "moon", choice: "self" }) }, t("table.moon_self")));
        buttons.push(h("button", { type: "button", class: "btn", onclick: () => this.sendMove({ type: "moon", choice: "others" }) }, t("table.moon_others")));
      } else {
        text = t("table.moon_choosing", { name: this.seatName(v.moon_pending) });
      }
    }
    setText(status, text);
    if (this.askingName !== null) {
      // The name form replaces the buttons while it applies: a visitor without a seat or a
      // name, and a seat still free to take (the one clicked, or another: see afterStateActions).
      if (me === null && !this.player && tb.seats.some((s) => this.seatIsFree(s))) {
        setText(status, t("table.name_to_sit"));
        if (bar.firstChild !== this.nameForm || bar.childNodes.length !== 1) fill(bar, this.nameForm);
        return;
      }
      this.askingName = null;
      this.nameForm = null;
    }
    const active = document.activeElement;
    const focusedFace = active && active.dataset && active.dataset.face;
    fill(bar, buttons);
    if (focusedFace) {
      const again = bar.querySelector(`[data-face="${focusedFace}"]`);
      if (again) again.focus();
    }
  }

  passTarget() {
    const v = this.view;
    if (this.seat === null) return null;
    const n = v.players;
    const offsets = { left: 1, right: n - 1, across: 2, other: 1 };
    const off = offsets[v.pass_direction];
    return off === undefined ? null : (this.seat + off) % n;
  }

  faceButtons(code, faces) {
    const card = parseCard(code);
    const make = (which) => {
      const face = which === "dark" ? card.dark : card.light;
      const word = which === "dark" ? t("table.dark") : t("table.light");
      // The accessible name begins with the button's visible text (WCAG 2.5.3), then says it.
      const led = t("table.face_led", { word, symbol: SUIT_SYMBOLS[face.suit] });
      const shown = `${faceShort(face)} ${led}`;
      return h("button", {
        type: "button", class: `btn face-choice ${which}`, "data-face": which,
        "aria-label": t("table.face_aria", { shown, word, name: faceName(face), suit: suitName(face.suit) }),
        onclick: () => this.playCard(code, which),
        onkeydown: (event) => {
          if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
            event.preventDefault();
            const other = this.el.actions.querySelector(`[data-face="${which === "dark" ? "light" : "dark"}"]`);
            if (other) other.focus();
          }
        },
      },
      h("span", { class: `face-sample s-${face.suit} ${which}`, "aria-hidden": "true" }, faceShort(face)),
      h("span", { "aria-hidden": "true" }, ` ${led}`));
    };
    const out = (faces || ["light", "dark"]).map(make);
    out.push(h("button", {
      type: "button", class: "btn ghost small", onclick: () => {
        this.faceChoice = null;
        this.render();
        this.focusCard(code);
      },
    }, t("table.cancel")));
    return out;
  }

  renderError() {
    const e = this.lastError;
    setText(this.el.error, e ? e.text : "");
    this.el.error.classList.toggle("shown", !!e);
    // A refused claim is not about the move to make: its reason goes under the status line,
    // which keeps saying "Your turn" (a refused card's reason takes the line's place).
    this.el.error.classList.toggle("aside", !!e && String(e.code || "").startsWith("claim_"));
  }

  /** The name form for a visitor who clicked "Sit here". It is part of the action bar's
   *  state (this.askingName): renderActions shows it while it applies and shows the table's
   *  own controls (Pass, your turn, ...) as soon as the name is taken, with no reload. */
  askName(seat) {
    this.askingName = seat;
    if (!this.nameForm) {
      const input = h("input", { id: "table-guest-name", maxlength: "24", placeholder: t("table.your_name"), required: true, autocomplete: "nickname" });
      const submit = h("button", { type: "submit", class: "btn primary small" }, t("table.sit_down"));
      const form = h("form", {
        class: "row name-form",
        onsubmit: async (event) => {
          event.preventDefault();
          this.lastError = null;
          this.renderError();
          submit.disabled = true;
          try {
            await signInAsGuest(input.value.trim());
          } catch (e) {
            // In the bar's alert line, as a refused card's reason (the form keeps one row).
            this.lastError = { code: e.code || "bad_name", text: e.message };
            this.renderError();
            submit.disabled = false;
            return;
          }
          if (this.askingName === null) return; // cancelled meanwhile
          // Signed in: sit down once the new connection says who we are (afterStateActions);
          // the bar goes back to the table's state now.
          this.pendingSit = this.askingName;
          this.closeNameForm();
          this.connect();
        },
      }, h("label", { for: "table-guest-name", class: "sr-only" }, t("table.your_name")), input, submit,
      h("button", { type: "button", class: "btn ghost small", onclick: () => this.closeNameForm() }, t("table.cancel")));
      this.nameForm = form;
    }
    this.renderActions();
    this.nameForm.querySelector("input").focus();
  }

  closeNameForm() {
    this.askingName = null;
    this.nameForm = null;
    if (this.lastError && this.lastError.code === "bad_name") this.lastError = null;
    if (this.table) {
      this.renderActions();
      this.renderError();
    }
  }
}


/** "You passed: [cards]" / "You received: [cards]": the words take the room of the longer of
 *  the two (the other is there, unseen), so the cards keep their place when one becomes the
 *  other as the play begins (a layout shift otherwise). */
function passedCards(words, otherWords, cards) {
  return h("span", { class: "passed-cards" },
    h("span", { class: "pass-words" }, h("span", {}, words), h("span", { class: "pass-words-other", "aria-hidden": "true" }, otherWords)),
    " ", cards.map((c) => renderCard(c, { className: "tiny" })));
}
