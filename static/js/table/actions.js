// The action bar: the status line, the buttons of the moment (start, pass, faces, moon, rematch), the name form, and a refused move's reason.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { signInAsGuest } from "../api.js";
import { SUIT_NAMES, SUIT_SYMBOLS, cardShort, faceName, faceShort, parseCard, renderCard } from "../cards.js";
import { h, fill, setText } from "../dom.js";
import { DIRECTION_WORDS } from "../labels.js";

export class ActionsPart {
  renderActions() {
    const t = this.table;
    const v = this.view;
    const me = this.seat;
    const bar = this.el.actions;
    const status = this.el.status;
    const buttons = [];
    let text = "";
    this.pauseStatus = false;
    const mySeat = me !== null ? t.seats[me] : null;
    const isHost = this.player && t.host === this.player.id;
    if (t.status === "waiting") {
      const open = t.seats.filter((s) => s.kind === "open").length;
      text = open ? `Waiting for players: ${open} free seat${open === 1 ? "" : "s"}.` : "Every seat is taken.";
      if (isHost) {
        text += open ? " Add computers or send the invite link, then start." : " Start when you are ready.";
        buttons.push(h("button", {
          type: "button", class: "btn primary", id: "start-game", disabled: open > 0,
          onclick: () => this.send("start"),
        }, "Start the game"));
      } else if (me === null) {
        text += open ? " Take a free seat to play." : "";
      } else {
        text += " The host starts the game.";
      }
      // Told to everyone before the game (BGA's rule); the address itself is never sent.
      for (const group of t.shared_address || []) {
        text += ` ${group.map((seat) => this.seatName(seat)).join(" and ")} joined from the same address.`;
      }
      if (t.rated) text = `Rated table: leaving before the end costs your rating. ${text}`;
    } else if (!v) {
      text = "";
    } else if (v.phase === "over") {
      // The game-over panel holds the one Rematch button (two were shown).
      text = "The game is over.";
    } else if (t.status === "over") {
      text = "The game ended unfinished: nothing happened for a long time.";
      if (me !== null) buttons.push(h("button", { type: "button", class: "btn primary", onclick: () => this.send("rematch") }, "Rematch"));
      const replay = this.replayLink();
      if (replay) buttons.push(replay);
    } else if (me !== null && mySeat && mySeat.away) {
      text = "You are away: the computer is playing for you.";
      buttons.push(h("button", { type: "button", class: "btn primary", id: "im-back", onclick: () => this.send("back") }, "I'm back"));
    } else if (this.pauseLeft() > 0) {
      this.pauseStatus = true; // renderClocks counts down in the status line
      text = this.pauseText();
    } else if (v.phase === "direction") {
      if (v.legal && v.legal.type === "direction") {
        text = "You deal: choose where everyone passes their cards this hand.";
        for (const dir of v.legal.directions) {
          buttons.push(h("button", { type: "button", class: "btn", onclick: () => this.sendMove({ type: "direction", direction: dir }) },
            dir === "hold" ? "Keep (no passing)" : `Pass ${DIRECTION_WORDS[dir]}`));
        }
      } else {
        text = `${this.seatName(v.dealer)} deals and chooses the passing direction.`;
      }
    } else if (v.phase === "pass") {
      const target = this.passTarget();
      if (v.legal && v.legal.type === "pass") {
        const count = v.legal.count;
        text = `Choose ${count} card${count === 1 ? "" : "s"} to pass ${DIRECTION_WORDS[v.pass_direction] || v.pass_direction}${target !== null ? ` (to ${this.seatName(target)})` : ""}: ${this.selected.size} of ${count} chosen.`;
        buttons.push(h("button", {
          type: "button", class: "btn primary", id: "pass-button", disabled: this.selected.size !== count,
          onclick: () => this.sendPass(),
        }, `Pass ${count} card${count === 1 ? "" : "s"} ${DIRECTION_WORDS[v.pass_direction] || ""}`));
      } else if (me !== null && v.passed[me]) {
        text = "Waiting for the others to pass.";
        if (v.passed_cards) {
          buttons.push(h("span", { class: "passed-cards" }, "You passed: ",
            v.passed_cards.map((c) => renderCard(c, { className: "tiny" }))));
        }
      } else {
        text = "The players are passing cards.";
      }
    } else if (v.phase === "play") {
      const turn = v.turn;
      if (v.legal && v.legal.type === "play" && me !== null) {
        const fromDummy = turn && turn.from === "dummy";
        const leading = v.trick.length === 0;
        if (this.faceChoice) {
          text = `Which face of the ${cardShort(this.faceChoice)} leads? Its suit is the suit led.`;
          buttons.push(...this.faceButtons(this.faceChoice, v.legal.faces));
        } else if (fromDummy) {
          text = leading ? "Your turn: lead a card from your half dummy." : "Your turn: play a card from your half dummy.";
        } else if (v.game === "double" && leading) {
          text = v.legal.faces && v.legal.faces.length === 1
            ? "Your lead: the first card leads with its Dark face."
            : "Your lead: pick a card, then choose the face (Light or Dark) that leads.";
        } else {
          text = leading ? "Your turn: lead a card." : `Your turn: play a card${v.led_suit ? ` (${SUIT_NAMES[v.led_suit]} led)` : ""}.`;
        }
        if (this.forcedCard()) text += ` Your only playable card, the ${cardShort(this.forcedCard())}, plays in a moment.`;
        const [claimText, claimButtons] = this.faceChoice ? [null, []] : this.claimControls();
        if (claimText) text = claimText;
        buttons.push(...claimButtons);
      } else if (turn) {
        const name = this.seatName(turn.seat);
        text = turn.from === "dummy" ? `${turn.seat === me ? "You play" : `${name} plays`} from the half dummy\u2026` : `Waiting for ${name}\u2026`;
        if (turn.seat === me) text = "Your turn.";
      }
      if (me !== null && this.prechosen) {
        text += this.prechosenWords();
        buttons.push(...this.prechosenButtons());
      }
      if (me === null) text = `You are watching. ${text}`;
      if (v.received && v.received.length && v.tricks.length === 0 && me !== null) {
        buttons.push(h("span", { class: "passed-cards" }, "You received: ",
          v.received.map((c) => renderCard(c, { className: "tiny" }))));
      }
    } else if (v.phase === "moon") {
      if (v.legal && v.legal.type === "moon") {
        text = "You shot the moon! Choose how it scores.";
        buttons.push(h("button", { type: "button", class: "btn primary", onclick: () => this.sendMove({ type: "moon", choice: "self" }) }, "Take the points off my score"));
        buttons.push(h("button", { type: "button", class: "btn", onclick: () => this.sendMove({ type: "moon", choice: "others" }) }, "Add the points to everyone else"));
      } else {
        text = `${this.seatName(v.moon_pending)} shot the moon and is choosing how it scores.`;
      }
    }
    setText(status, text);
    if (this.askingName !== null) {
      // The name form replaces the buttons while it applies: a visitor without a seat or a
      // name, and a seat still free to take (the one clicked, or another: see afterStateActions).
      if (me === null && !this.player && t.seats.some((s) => this.seatIsFree(s))) {
        setText(status, "Choose a name to sit down.");
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
      const word = which === "dark" ? "Dark" : "Light";
      // The accessible name begins with the button's visible text (WCAG 2.5.3), then says it.
      const shown = `${faceShort(face)} ${word}: ${SUIT_SYMBOLS[face.suit]} led`;
      return h("button", {
        type: "button", class: `btn face-choice ${which}`, "data-face": which,
        "aria-label": `${shown}. Lead with the ${word} face, ${faceName(face)}: ${SUIT_NAMES[face.suit]} are led`,
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
      h("span", { "aria-hidden": "true" }, ` ${word}: ${SUIT_SYMBOLS[face.suit]} led`));
    };
    const out = (faces || ["light", "dark"]).map(make);
    out.push(h("button", {
      type: "button", class: "btn ghost small", onclick: () => {
        this.faceChoice = null;
        this.render();
        this.focusCard(code);
      },
    }, "Cancel"));
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
      const input = h("input", { id: "table-guest-name", maxlength: "24", placeholder: "Your name", required: true, autocomplete: "nickname" });
      const submit = h("button", { type: "submit", class: "btn primary small" }, "Sit down");
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
      }, h("label", { for: "table-guest-name", class: "sr-only" }, "Your name"), input, submit,
      h("button", { type: "button", class: "btn ghost small", onclick: () => this.closeNameForm() }, "Cancel"));
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
