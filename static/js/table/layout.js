// The page's frame: building the elements once, the head (title, badges, buttons) and the keyboard shortcuts.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { SUIT_SYMBOLS } from "../cards.js";
import { h, fill, setText, toast } from "../dom.js";

export class LayoutPart {
  build() {
    this.el = {};
    const e = this.el;
    e.title = h("h1", { class: "table-title" }, "Table");
    e.badges = h("div", { class: "badges" });
    e.lastBtn = h("button", {
      type: "button", class: "btn small", "aria-pressed": "false", "aria-keyshortcuts": "L",
      onclick: () => this.toggleLastTrick(),
    }, "Last trick");
    e.sheetBtn = h("button", {
      type: "button", class: "btn small", "aria-keyshortcuts": "S",
      onclick: () => this.showSheet(),
    }, "Score sheet");
    e.inviteBtn = h("button", { type: "button", class: "btn small", hidden: true, onclick: () => this.copyInvite() }, "Copy invite link");
    e.leaveBtn = h("button", { type: "button", class: "btn small", hidden: true, onclick: () => this.leaveSeat() }, "Leave seat");
    e.head = h("div", { class: "table-head" },
      h("div", { class: "head-title" }, e.title, e.badges),
      h("div", { class: "head-actions" }, e.lastBtn, e.sheetBtn, e.inviteBtn, e.leaveBtn,
        h("a", { class: "btn small ghost", href: "/" }, "Lobby")));

    e.trick = h("div", { class: "trick", role: "group", "aria-label": "Cards on the table" });
    e.trickInfo = h("div", { class: "trick-info", "aria-live": "polite" });
    // Cards of a trick sliding to its winner after a newer state replaced them (motion.js).
    e.trickGhosts = h("div", { class: "trick-ghosts", "aria-hidden": "true" });
    e.trickArea = h("div", { class: "trick-area" }, e.trick, e.trickGhosts, e.trickInfo);
    e.center = h("div", { class: "center-panel", hidden: true, role: "region", "aria-live": "polite" });
    e.seats = h("div", { class: "seats" });
    e.felt = h("div", { class: "felt", role: "region", "aria-label": "The table" }, e.seats, e.trickArea, e.center);

    e.status = h("p", { class: "status", id: "status-line", "aria-live": "polite" });
    e.clock = h("span", { class: "my-clock", "aria-live": "off" });
    e.actions = h("div", { class: "actions" });
    e.error = h("p", { class: "move-error", role: "alert", id: "move-error" });
    e.actionBar = h("div", { class: "action-bar" },
      h("div", { class: "status-row" }, e.status, e.clock), e.actions, e.error);

    e.dummyLabel = h("h2", { class: "row-label", id: "dummy-label" }, "Your half dummy");
    e.dummyCards = h("div", { class: "cards-row dummy-cards", role: "toolbar", "aria-labelledby": "dummy-label", "data-source": "dummy" });
    e.dummyRow = h("div", { class: "hand-block dummy-block", hidden: true }, e.dummyLabel, e.dummyCards);
    e.handLabel = h("h2", { class: "row-label", id: "hand-label" }, "Your hand");
    e.handCards = h("div", { class: "cards-row hand-cards", role: "toolbar", "aria-labelledby": "hand-label", "data-source": "hand" });
    e.handRow = h("div", { class: "hand-block" }, e.handLabel, e.handCards);
    e.watching = h("p", { class: "watching", hidden: true }, "You are watching this table. Players' hands stay hidden.");
    e.myCards = h("div", { class: "my-cards" }, e.dummyRow, e.handRow, e.watching);
    for (const row of [e.handCards, e.dummyCards]) {
      row.addEventListener("keydown", (event) => this.onCardsKey(event, row));
    }

    e.scores = h("table", { class: "score-table" });
    e.sheet = h("div", { class: "sheet-wrap" });
    e.sheetSection = h("section", { class: "panel sheet", id: "score-sheet", "aria-labelledby": "sheet-title", tabindex: "-1" },
      h("h2", { id: "sheet-title" }, "Score sheet"), e.sheet);
    e.chatLog = h("ol", { class: "chat-log", "aria-live": "polite", "aria-label": "Chat messages" });
    e.chatInput = h("input", { id: "chat-input", autocomplete: "off", placeholder: "Say something nice" });
    e.chatForm = h("form", {
      class: "chat-form",
      onsubmit: (event) => {
        event.preventDefault();
        const text = e.chatInput.value.trim();
        if (!text) return;
        if (!this.player) {
          toast("Choose a name first to chat.", "error");
          return;
        }
        this.send("chat", { text });
        e.chatInput.value = "";
      },
    }, h("label", { for: "chat-input", class: "sr-only" }, "Chat message"), e.chatInput,
    h("button", { type: "submit", class: "btn small" }, "Send"));
    e.side = h("aside", { class: "side-col" },
      h("section", { class: "panel scores", "aria-labelledby": "scores-title" }, h("h2", { id: "scores-title" }, "Scores"), e.scores),
      e.sheetSection,
      h("section", { class: "panel chat", "aria-labelledby": "chat-title" }, h("h2", { id: "chat-title" }, "Chat"), e.chatLog, e.chatForm));

    e.page = h("div", { class: "table-page loading" },
      h("div", { class: "play-col" }, e.head, e.felt, e.actionBar, e.myCards),
      e.side);
    fill(this.root, e.page);
    this.seatEls = new Map();
  }

  renderHead() {
    const t = this.table;
    if (!t) return;
    setText(this.el.title, this.presetLabel());
    const badges = [];
    const v = this.view;
    const game = this.gameOf();
    if (game === "twentyeight") badges.push(h("span", { class: "badge trump" }, `${SUIT_SYMBOLS.H} Hearts are trump`));
    if (game === "double") badges.push(h("span", { class: "badge" }, "Light face on top, Dark below"));
    if (t.private) badges.push(h("span", { class: "badge" }, "Private"));
    if (t.turn_timer) badges.push(h("span", { class: "badge" }, `${t.turn_timer} s per turn`));
    if (v && v.hand_no !== undefined && t.status !== "waiting") {
      badges.push(h("span", { class: "badge" }, `Hand ${v.hand_no + 1}`));
    }
    if (this.spectators) badges.push(h("span", { class: "badge" }, `${this.spectators} watching`));
    fill(this.el.badges, badges);
    this.el.inviteBtn.hidden = !t.private || !t.invite;
    this.el.leaveBtn.hidden = this.seat === null;
    const last = this.lastTrick();
    this.el.lastBtn.disabled = !last;
    this.el.lastBtn.setAttribute("aria-pressed", String(this.showLastTrick && !!last));
  }

  copyInvite() {
    const t = this.table;
    const url = `${location.origin}/?table=${encodeURIComponent(t.id)}&invite=${encodeURIComponent(t.invite)}`;
    const done = () => toast("Invite link copied. Send it to a friend.");
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(done, () => window.prompt("Copy this invite link:", url));
    } else {
      window.prompt("Copy this invite link:", url);
    }
  }

  leaveSeat() {
    const playing = this.table && this.table.status === "playing";
    if (playing && !window.confirm("Leave your seat? A computer player finishes the game in your place.")) return;
    this.send("leave");
  }

  onKey(event) {
    const target = event.target;
    const typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable);
    if (event.key === "Escape") {
      if (this.faceChoice) {
        const code = this.faceChoice;
        this.faceChoice = null;
        this.render();
        this.focusCard(code);
      } else if (this.showLastTrick) {
        this.toggleLastTrick(false);
      }
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toLowerCase();
    if (key === "l") {
      event.preventDefault();
      this.toggleLastTrick();
    } else if (key === "s") {
      event.preventDefault();
      this.showSheet();
    } else if (key === "c") {
      event.preventDefault();
      this.el.chatInput.focus();
    } else if (key === "h") {
      event.preventDefault();
      const row = this.el.dummyRow.classList.contains("active") ? this.el.dummyCards : this.el.handCards;
      const target = row.querySelector(".card.legal") || row.querySelector('.card[tabindex="0"]') || row.querySelector(".card");
      if (target) {
        this.setRoving(row, target);
        target.focus();
      }
    }
  }
}
