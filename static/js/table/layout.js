// The page's frame: building the elements once, the head (title, badges, buttons) and the keyboard shortcuts.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { SUIT_SYMBOLS } from "../cards.js";
import { h, fill, setText, toast } from "../dom.js";
import { formatNumber, t } from "../i18n.js";
import { rulesLines } from "../rules_words.js";
import { moreTimeApplies, moreTimeButton, paceBadge } from "./moretime.js";

export class LayoutPart {
  build() {
    this.el = {};
    const e = this.el;
    e.title = h("h1", { class: "table-title" }, t("table.head.table"));
    e.badges = h("div", { class: "badges" });
    e.lastBtn = h("button", {
      type: "button", class: "btn small", "aria-pressed": "false", "aria-keyshortcuts": "L",
      onclick: () => this.toggleLastTrick(),
    }, t("table.head.last_trick"));
    // On a phone two buttons say less ("Scores", "Leave"), to leave room for "Chat" (the
    // words not shown are display: none, so each button is named by what it shows).
    e.sheetBtn = h("button", {
      type: "button", class: "btn small", "aria-keyshortcuts": "S",
      onclick: () => this.showSheet(),
    }, h("span", { class: "long" }, t("table.head.score_sheet")), h("span", { class: "short" }, t("table.head.scores")));
    // On a phone the chat is under the table, a few screens down: this takes the player
    // there, and counts the lines others wrote meanwhile (chat.js).
    e.chatCount = h("span", { class: "chat-count", hidden: true });
    e.chatBtn = h("button", {
      type: "button", class: "btn small chat-jump", id: "chat-jump",
      onclick: () => this.jumpToChat(),
    }, t("table.head.chat") + " ", e.chatCount);
    e.inviteBtn = h("button", { type: "button", class: "btn small", hidden: true, onclick: () => this.copyInvite() }, t("table.head.copy_invite"));
    e.leaveBtn = h("button", { type: "button", class: "btn small", hidden: true, onclick: () => this.leaveSeat() },
      h("span", { class: "long" }, t("table.head.leave_seat")), h("span", { class: "short" }, t("table.head.leave")));
    e.moreTimeBtn = moreTimeButton(this);
    // The variant's rules in a few lines (rules_words.js), in a dialog.
    e.rulesBtn = h("button", { type: "button", class: "btn small rules-btn", id: "rules-button", "aria-haspopup": "dialog", onclick: () => this.showRules() }, t("table.head.rules"));
    e.rulesText = h("div", { class: "rules-text" });
    e.rulesTitle = h("h2", { id: "rules-title" }, t("table.head.rules"));
    e.rulesDialog = h("dialog", { class: "rules-dialog", id: "rules-dialog", "aria-labelledby": "rules-title" },
      e.rulesTitle, e.rulesText,
      h("form", { method: "dialog", class: "row end" }, h("button", { type: "submit", class: "btn primary", id: "rules-close" }, t("table.head.close"))));
    e.head = h("div", { class: "table-head" },
      h("div", { class: "head-title" }, e.title, e.badges),
      h("div", { class: "head-actions" }, e.lastBtn, e.sheetBtn, e.chatBtn, e.moreTimeBtn, e.inviteBtn, e.leaveBtn,
        h("a", { class: "btn small ghost", href: "/" }, t("table.head.lobby"))), e.rulesDialog);

    e.trick = h("div", { class: "trick", role: "group", "aria-label": t("table.head.trick_cards") });
    e.trickInfo = h("div", { class: "trick-info", "aria-live": "polite" });
    // Its words are fitted to its width (trick.js fitTrickInfo): again when that changes.
    new ResizeObserver(() => this.fitTrickInfo()).observe(e.trickInfo);
    // Cards of a trick sliding to its winner after a newer state replaced them (motion.js).
    e.trickGhosts = h("div", { class: "trick-ghosts", "aria-hidden": "true" });
    e.trickArea = h("div", { class: "trick-area" }, e.trick, e.trickGhosts, e.trickInfo);
    e.center = h("div", { class: "center-panel", hidden: true, role: "region", "aria-live": "polite" });
    e.seats = h("div", { class: "seats" });
    e.felt = h("div", { class: "felt", role: "region", "aria-label": t("table.head.felt") }, e.seats, e.trickArea, e.center);
    // The seats' plaques and the names under the trick's cards are fitted to their boxes
    // (seats.js fitSeat, trick.js fitSlotNames): again when the felt's size changes, and the
    // plaques whenever their words change (a drawing, a clock, a tag), before the next paint.
    const fitSeats = () => { for (const el of this.seatEls.values()) this.fitSeat(el); };
    new ResizeObserver(() => {
      fitSeats();
      this.fitSlotNames();
    }).observe(e.felt);
    new MutationObserver(fitSeats).observe(e.seats, { childList: true, characterData: true, subtree: true });
    // The names under the cards likewise when a card comes or goes or its slot changes (a
    // winner's name is bold, so wider); not for the names' own classes, which the fitting sets.
    new MutationObserver((records) => {
      if (records.some((r) => !r.target.classList || !r.target.classList.contains("slot-name"))) this.fitSlotNames();
    }).observe(e.trick, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });

    e.status = h("p", { class: "status", id: "status-line", "aria-live": "polite" });
    e.clock = h("span", { class: "my-clock", "aria-live": "off" });
    e.actions = h("div", { class: "actions" });
    e.error = h("p", { class: "move-error", role: "alert", id: "move-error" });
    e.actionBar = h("div", { class: "action-bar" },
      h("div", { class: "status-row" }, e.status, e.clock), e.actions, e.error);

    e.dummyLabel = h("h2", { class: "row-label", id: "dummy-label" }, t("table.head.your_dummy"));
    e.dummyCards = h("div", { class: "cards-row dummy-cards", role: "toolbar", "aria-labelledby": "dummy-label", "data-source": "dummy" });
    e.dummyRow = h("div", { class: "hand-block dummy-block", hidden: true }, e.dummyLabel, e.dummyCards);
    e.handLabel = h("h2", { class: "row-label", id: "hand-label" }, t("table.head.your_hand"));
    e.handCards = h("div", { class: "cards-row hand-cards", role: "toolbar", "aria-labelledby": "hand-label", "data-source": "hand" });
    e.handRow = h("div", { class: "hand-block" }, e.handLabel, e.handCards);
    e.watching = h("p", { class: "watching", hidden: true }, t("table.head.watching"));
    // The dummy game on a phone: the hand and the half dummy take turns on the screen (both
    // did not fit with every card a 44 px target); these switch them (hand.js showCards).
    e.handShow = h("button", { type: "button", id: "hand-block-show", class: "btn small", "aria-pressed": "true", "aria-controls": "hand-block", onclick: () => this.showCards("hand") }, t("table.head.hand"));
    e.dummyShow = h("button", { type: "button", id: "dummy-block-show", class: "btn small", "aria-pressed": "false", "aria-controls": "dummy-block", onclick: () => this.showCards("dummy") }, t("table.head.half_dummy"));
    e.cardsSwitch = h("div", { class: "cards-switch", role: "group", "aria-label": t("table.head.cards_shown"), hidden: true }, e.handShow, e.dummyShow);
    e.handRow.id = "hand-block";
    e.dummyRow.id = "dummy-block";
    e.myCards = h("div", { class: "my-cards" }, e.cardsSwitch, e.dummyRow, e.handRow, e.watching);
    for (const row of [e.handCards, e.dummyCards]) {
      row.addEventListener("keydown", (event) => this.onCardsKey(event, row));
    }

    e.scores = h("table", { class: "score-table" });
    // A region that scrolls (a long game's sheet) takes the keyboard's focus to scroll it.
    e.sheet = h("div", { class: "sheet-wrap", tabindex: "0", role: "region", "aria-labelledby": "sheet-title" });
    e.sheetSection = h("section", { class: "panel sheet", id: "score-sheet", "aria-labelledby": "sheet-title", tabindex: "-1" },
      h("h2", { id: "sheet-title" }, t("table.head.score_sheet")), e.sheet);
    e.chatLog = h("ol", { class: "chat-log", tabindex: "0", "aria-live": "polite", "aria-label": t("table.head.chat_messages") });
    e.chatInput = h("input", { id: "chat-input", autocomplete: "off", placeholder: t("table.head.chat_placeholder") });
    e.chatForm = h("form", {
      class: "chat-form",
      onsubmit: (event) => {
        event.preventDefault();
        const text = e.chatInput.value.trim();
        if (!text) return;
        if (!this.player) {
          toast(t("table.head.chat_name_first"), "error");
          return;
        }
        this.send("chat", { text });
        e.chatInput.value = "";
      },
    }, h("label", { for: "chat-input", class: "sr-only" }, t("table.head.chat_message")), e.chatInput,
    h("button", { type: "submit", class: "btn small" }, t("table.head.send")));
    e.side = h("aside", { class: "side-col" },
      h("section", { class: "panel scores", "aria-labelledby": "scores-title" }, h("h2", { id: "scores-title" }, t("table.head.scores")), e.scores),
      e.sheetSection,
      h("section", { class: "panel chat", "aria-labelledby": "chat-title" }, h("h2", { id: "chat-title" }, t("table.head.chat")), e.chatLog, e.chatForm));

    e.page = h("div", { class: "table-page loading" },
      h("div", { class: "play-col" }, e.head, e.felt, e.actionBar, e.myCards),
      e.side);
    fill(this.root, e.page);
    this.seatEls = new Map();
  }

  /** What the head and the page's title call the table: an event's table names the event
   *  and its round (an arena's, whose games are not rounds, the event), a daily's the daily
   *  challenge, any other its game. */
  tableName() {
    const c = this.table && this.table.compete;
    if (c && c.kind === "event" && c.name) {
      return c.format === "arena" ? c.name : t("table.head.event_round", { name: c.name, round: formatNumber(c.round) });
    }
    if (c && c.kind === "daily") return t("table.head.daily");
    return this.presetLabel();
  }

  renderHead() {
    const tb = this.table;
    if (!tb) return;
    setText(this.el.title, this.tableName());
    const badges = [];
    const v = this.view;
    const game = this.gameOf();
    if (game === "twentyeight") badges.push(h("span", { class: "badge trump" }, t("table.head.trump", { symbol: SUIT_SYMBOLS.H })));
    if (game === "double") badges.push(h("span", { class: "badge" }, t("table.head.double_faces")));
    if (tb.private) badges.push(h("span", { class: "badge" }, t("table.head.private")));
    if (tb.turn_timer) badges.push(h("span", { class: "badge" }, t("table.head.per_turn", { n: tb.turn_timer })));
    const pace = paceBadge(tb);
    if (pace) badges.push(pace);
    // Before the start the hand's badge keeps its place hidden ("Hand 1"): the start must not
    // wrap the head on a phone and move the table down (a layout shift nobody caused).
    const playing = v && v.hand_no !== undefined && tb.status !== "waiting";
    // The hand's number keeps the room of two digits (a figure space after one): on a German
    // phone the tenth hand's badge, a digit wider, wrapped the head and moved the table down.
    const handNo = playing ? v.hand_no + 1 : 1;
    const hand = h("span", { class: playing ? "badge hand-no" : "badge hand-no none", "aria-hidden": playing ? null : "true" },
      t("table.head.hand_no", { n: handNo }) + (handNo < 10 ? "\u2007" : ""));
    // The count of spectators keeps its place when there are none (hidden, "0 watching"), so
    // a watcher coming or sitting down never wraps the head and moves the table down.
    const watching = h("span", { class: this.spectators ? "badge" : "badge none", "aria-hidden": this.spectators ? null : "true" },
      t("table.head.watchers", { n: this.spectators || 0 }));
    // The Rules button sits with the badges (in the head's buttons it took a line of its own
    // on a phone): after those that say what is played, before the two that change (the
    // hand's number, the spectators), so their hidden room is at the line's end, not a gap
    // before the button.
    fill(this.el.badges, badges, this.el.rulesBtn, hand, watching);
    // A competition's table (a daily, an event's round) has no chat and nobody else joins it:
    // neither the chat's form nor an invite link (the server refuses both there).
    this.el.inviteBtn.hidden = !tb.private || !tb.invite || Boolean(tb.compete);
    this.el.chatForm.hidden = Boolean(tb.compete);
    // A competition's player cannot leave mid-game (the server refuses: compete_table).
    this.el.leaveBtn.hidden = this.seat === null || (Boolean(tb.compete) && tb.status === "playing");
    this.el.moreTimeBtn.hidden = !moreTimeApplies(this);
    const last = this.lastTrick();
    this.el.lastBtn.disabled = !last;
    this.el.lastBtn.setAttribute("aria-pressed", String(this.showLastTrick && !!last));
  }

  showRules() {
    setText(this.el.rulesTitle, t("table.head.rules_of", { name: this.presetLabel() }));
    fill(this.el.rulesText, rulesLines(this.gameOf(), this.ruleValues()).map((line) => h("p", {}, line)));
    this.el.rulesDialog.showModal();
  }

  copyInvite() {
    const tb = this.table;
    const url = `${location.origin}/?table=${encodeURIComponent(tb.id)}&invite=${encodeURIComponent(tb.invite)}`;
    const done = () => toast(t("table.head.invite_copied"));
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(done, () => window.prompt(t("table.head.copy_prompt"), url));
    } else {
      window.prompt(t("table.head.copy_prompt"), url);
    }
  }

  leaveSeat() {
    const playing = this.table && this.table.status === "playing";
    if (playing && !window.confirm(t("table.head.leave_confirm"))) return;
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
