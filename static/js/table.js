// The table page: play or watch one table, for every variant.
//
// Everything shown comes from the server's per-seat view (app/engine/view.py) and the table's
// public record; the page never asks for or holds a card it may not see. Moves are sent with
// an id (resent after a reconnect; the server applies each id once) and answered by an ack or
// an error whose reason is shown in words.

import { api, session, signInAsGuest } from "./api.js";
import {
  SUIT_NAMES,
  SUIT_SYMBOLS,
  cardLabel,
  cardShort,
  faceName,
  faceOf,
  faceShort,
  parseCard,
  renderBack,
  renderCard,
  sortCards,
} from "./cards.js";
import { h, fill, setText, toast } from "./dom.js";
import { DIRECTION_WORDS, botLabel, reasonWords, relativeSeat } from "./labels.js";
import { LiveSocket, newId } from "./socket.js";

const POSITIONS = {
  2: ["bottom", "top"],
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "top-left", "top-right", "right"],
};

// Where a seat is drawn, in words for a spectator's screen reader.
const PLACE_WORDS = {
  bottom: "at the bottom", top: "at the top", left: "on the left", right: "on the right",
  "top-left": "at the top left", "top-right": "at the top right",
};

// A hand's result stays up at least this long (unless closed), even if play goes on: the
// server's pause between hands (HEARTS_HAND_PAUSE_MS) may be shorter, or off.
const RESULT_MIN_MS = 6000;

const PRESET_FALLBACK_LABELS = {
  classic: "Hearts, 4 players",
  "two-player-dummy": "Two players with a dummy",
  "two-player-28": "Two players, 28 cards, hearts trump",
  "double-hearts": "Double Hearts, 4 players",
  "double-hearts-3": "Double Hearts, 3 players",
};

export function mountTable(root, tableId, { invite = null, autoSit = false } = {}) {
  const page = new TablePage(root, tableId, invite, autoSit);
  page.start();
  window.__hearts = page; // handy in the console; the e2e tests only read from the DOM
  return page;
}

class TablePage {
  constructor(root, tableId, invite, autoSit) {
    this.root = root;
    this.tableId = tableId;
    this.invite = invite;
    this.autoSit = autoSit;
    this.socket = null;
    this.version = 0;
    this.table = null;
    this.view = null;
    this.seat = null;
    this.player = null;
    this.pending = new Map(); // move id -> {msg, ctx}
    this.selected = new Set(); // cards chosen for passing
    this.faceChoice = null; // card awaiting its leading face (Double Hearts)
    this.showLastTrick = false;
    this.resultFor = null; // hand_no whose result panel is open
    this.resultClosed = new Set();
    this.lastError = null;
    this.presetLabels = { ...PRESET_FALLBACK_LABELS };
    this.setupDone = false;
    this.startSent = false;
    this.pendingSit = null;
    // The seat a visitor without a name clicked: the action bar shows the name form for it
    // (as part of its state: see renderActions), and the form element, kept while it is up.
    this.askingName = null;
    this.nameForm = null;
    // True from the server's welcome until the socket drops: commands go out at once only
    // then; otherwise they wait in this.pending and go out when the next welcome comes.
    this.ready = false;
    // The server's clock when the last state was made, and ours (monotonic) when it came.
    this.serverClock = null;
    this.gone = null;
    this.tick = null;
    this.keyHandler = (event) => this.onKey(event);
  }

  start() {
    document.title = "Table \u2013 Hearts Online";
    this.build();
    this.connect();
    this.tick = setInterval(() => this.renderClocks(), 250);
    document.addEventListener("keydown", this.keyHandler);
    this.resizeHandler = () => {
      if (this.view) this.renderCards();
    };
    window.addEventListener("resize", this.resizeHandler);
    api("/api/presets", { auth: false })
      .then((data) => {
        for (const p of data.presets) this.presetLabels[p.id] = p.label;
        this.renderHead();
      })
      .catch(() => {});
  }

  destroy() {
    clearInterval(this.tick);
    clearTimeout(this.resultTimer);
    document.removeEventListener("keydown", this.keyHandler);
    window.removeEventListener("resize", this.resizeHandler);
    if (this.socket) this.socket.close();
  }

  // -- connection -----------------------------------------------------------------------------

  connect() {
    if (this.socket) this.socket.close();
    this.ready = false;
    this.socket = new LiveSocket(`/ws/tables/${encodeURIComponent(this.tableId)}`, {
      onOpen: (socket) => {
        // compact: the server leaves out what this page keeps (the score sheet, an unchanged table).
        // No token: the handshake carries the session cookie (docs/protocol.md).
        const hello = { type: "hello", last_version: this.version, compact: true };
        if (this.invite) hello.invite = this.invite;
        socket.send(hello);
      },
      onMessage: (msg) => this.onMessage(msg),
      onFinal: (code, error) => this.onFinal(code, error),
      onStatus: (status) => {
        if (status === "lost") this.ready = false;
        this.root.querySelector(".table-page").classList.toggle("offline", status === "lost");
      },
    });
    this.socket.connect();
  }

  onFinal(code, error) {
    if (code === "bad_token") {
      session.clear();
      toast("Your session has expired: you are watching. Choose a name to play again.", "error");
      this.connect();
      return;
    }
    const words = {
      forbidden: error && error.code === "bad_origin"
        ? "This page's address is not one the server accepts (HEARTS_ALLOWED_ORIGINS)."
        : "This table is private: you need its invite link.",
      unknown_table: "This table does not exist any more (tables close some time after their last game).",
      protocol: "The connection was refused.",
      too_many_sockets: "Too many connections from you or your network (other tabs of this site, or many new ones within a minute). Close some tabs, wait a minute, then reload.",
      policy: "The connection was closed: too many messages were sent too fast. Reload to go on.",
    }[code] || (error && error.message) || "The connection was closed.";
    this.gone = words;
    fill(this.root, h("section", { class: "panel gone" },
      h("h1", {}, "Cannot open this table"),
      h("p", { class: "form-error" }, words),
      h("a", { class: "btn primary", href: "/" }, "Back to the lobby")));
  }

  onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        this.player = msg.player;
        this.seat = msg.seat;
        this.version = Math.max(this.version, msg.version || 0);
        this.ready = true;
        this.resendPending();
        // A new identity (a name just chosen) may bring no state (nothing changed since
        // last_version): what waited for it (the seat picked before the name) goes on now.
        if (this.table) {
          this.afterStateActions();
          this.render();
        }
        break;
      case "state":
        this.version = Math.max(this.version, msg.version);
        if (typeof msg.server_ms === "number") this.serverClock = { server: msg.server_ms, local: performance.now() };
        this.onState(msg);
        // The server may send a change's public events inside its state message.
        for (const event of msg.events || []) this.onEvent(event, false);
        break;
      case "events":
        this.version = Math.max(this.version, msg.version);
        for (const event of msg.events || []) this.onEvent(event, !!msg.replay);
        break;
      case "ack":
        this.pending.delete(msg.id);
        this.ackedVersion = Math.max(this.ackedVersion || 0, msg.version || 0);
        this.markPending();
        break;
      case "error":
        this.onError(msg);
        break;
      case "spectators": // the count comes batched in its own message, not in the table
        this.spectators = msg.count;
        this.renderHead();
        break;
      default:
        break;
    }
  }

  /** Send a command (move, chat, sit, start, rematch, ...). It stays in this.pending until
   *  its ack or error comes: while the connection is down it waits there, and every command
   *  not answered yet goes out again, in the order given and with its id, when the next
   *  welcome comes (resendPending). The server remembers each player's recent command ids,
   *  so one that did arrive before the drop is applied once (docs/protocol.md). */
  send(type, fields = {}, ctx = {}) {
    const msg = { type, id: newId(), ...fields };
    const entry = { msg, ctx, late: false };
    this.pending.set(msg.id, entry);
    if (!(this.ready && this.socket && this.socket.send(msg))) {
      entry.late = true;
      toast("Not connected: it will be sent when the connection is back.");
    }
    this.markPending();
    return msg.id;
  }

  resendPending() {
    for (const entry of this.pending.values()) {
      if (!this.socket.send(entry.msg)) break; // dropped again: the next welcome sends them
      entry.late = true;
    }
    this.markPending();
  }

  /** Moves in flight, and the version shown, as data attributes (tests wait on them). */
  markPending() {
    const page = this.el && this.el.page;
    if (!page) return;
    page.dataset.pending = String([...this.pending.values()].filter((p) => p.msg.type === "move").length);
    page.dataset.version = String(this.view || this.table ? this.shownVersion || 0 : 0);
    page.dataset.acked = String(this.ackedVersion || 0);
    // Commands of any kind not answered yet (queued while offline, or in flight).
    page.dataset.unanswered = String(this.pending.size);
  }

  onError(msg) {
    const pending = msg.id ? this.pending.get(msg.id) : null;
    if (msg.id) this.pending.delete(msg.id);
    this.markPending();
    const ctx = pending ? pending.ctx : {};
    const words = reasonWords(msg.code, msg.message, { ...ctx, ...this.reasonContext() });
    if (pending && pending.msg.type === "move") {
      this.lastError = { code: msg.code, text: words };
      this.renderError();
      return;
    }
    // A command given while offline that no longer applies when it finally goes out.
    toast(pending && pending.late ? `Sent when the connection came back, but refused: ${words}` : words, "error");
  }

  reasonContext() {
    const v = this.view;
    if (!v) return {};
    let waitingFor = null;
    if (v.turn) waitingFor = this.seatName(v.turn.seat);
    return {
      game: v.game,
      ledSuit: v.led_suit,
      passCount: v.pass_count,
      waitingFor,
    };
  }

  // -- incoming state -------------------------------------------------------------------------

  onState(msg) {
    if (this.shownVersion && msg.version < this.shownVersion && !msg.resync) return; // older
    const before = this.view;
    this.shownVersion = msg.version;
    if (msg.table) this.table = msg.table;
    this.seat = msg.seat;
    this.view = msg.view;
    const v = this.view;
    if (v) {
      // Per-move views may leave out the score sheet and the last hand's tricks: they only
      // change when a hand ends (hands_played), so keep the ones we have.
      const same = before && before.hand_no !== undefined && before.history && (v.hands_played === undefined || before.history.length === v.hands_played);
      if (!Array.isArray(v.history)) v.history = same ? before.history : [];
      if (!Array.isArray(v.previous_tricks)) v.previous_tricks = same ? before.previous_tricks || [] : [];
      if (v.hands_played !== undefined && v.history.length !== v.hands_played && this.socket && this.resyncedFor !== v.hands_played) {
        this.resyncedFor = v.hands_played;
        this.socket.send({ type: "resync" }); // we missed the sheet: ask for a full state
      }
    }
    if (v && before && (before.hand_no !== v.hand_no || before.phase !== v.phase)) {
      this.selected.clear();
    }
    const justEnded = v && before && v.history.length > before.history.length && v.phase !== "over";
    if (v && before && v.history.length > before.history.length) {
      // A moon is said in the table log too: a polite live region that is always on the page
      // (a panel that appears is not announced by every screen reader).
      for (const r of v.history.slice(before.history.length)) {
        if (r.moon !== null && r.moon !== undefined) this.addLog(this.moonWords(r.moon), "moon");
      }
    }
    // Opening the page during the pause after a hand shows that hand's result too.
    const pausedNow = v && !before && this.table && this.table.pause_until_ms && v.history.length;
    if (justEnded || pausedNow) {
      // Show the hand's result for a while (at least through the server's pause).
      this.resultFor = v.history[v.history.length - 1].hand_no;
      this.resultShownAt = Date.now();
      clearTimeout(this.resultTimer);
      this.resultTimer = setTimeout(() => this.render(), RESULT_MIN_MS + 50);
    }
    if (v && this.resultFor !== null) {
      const started = v.trick.length || v.tricks.length;
      const old = Date.now() - this.resultShownAt >= RESULT_MIN_MS;
      const myPlay = v.legal && v.legal.type === "play" && v.trick.length;
      if ((started && old) || myPlay) this.resultFor = null;
    }
    // The face question stays only while that card can still lead (a computer playing for an
    // away seat, or a timer, may have moved on).
    if (this.faceChoice && !(v && v.legal && v.legal.faces && v.legal.cards.includes(this.faceChoice))) this.faceChoice = null;
    if (this.lastError && before && v && (before.trick.length !== v.trick.length || before.phase !== v.phase)) {
      this.lastError = null;
    }
    this.afterStateActions();
    this.render();
  }

  /** The server's clock now (epoch ms), from the last state's server_ms and our monotonic
   *  clock since it came: countdowns are right whatever this computer's clock says. */
  serverNow() {
    const c = this.serverClock;
    return c ? c.server + (performance.now() - c.local) : Date.now();
  }

  /** Ms until the next hand opens (the server's pause after a hand), or 0. */
  pauseLeft() {
    const t = this.table;
    return t && t.pause_until_ms && t.status === "playing" ? Math.max(0, t.pause_until_ms - this.serverNow()) : 0;
  }

  afterStateActions() {
    const t = this.table;
    if (!t) return;
    const me = this.player;
    const isHost = me && t.host === me.id;
    // "Start as soon as every seat is filled", chosen when the table was created (the
    // computer players came with the table).
    if (isHost && !this.setupDone && t.status === "waiting") {
      this.setupDone = true;
      const raw = sessionStorage.getItem(`hearts.setup.${t.id}`);
      if (raw) {
        let setup = null;
        try {
          setup = JSON.parse(raw);
        } catch {
          setup = null;
        }
        if (setup) this.autoStart = !!setup.autoStart;
      }
    }
    if (isHost && this.autoStart && t.status === "waiting" && !this.startSent && t.seats.every((s) => s.kind !== "open")) {
      this.startSent = true;
      sessionStorage.removeItem(`hearts.setup.${t.id}`);
      this.send("start");
    }
    if (t.status === "playing") this.startSent = false;
    // "Sit down" from the lobby, or a seat picked before choosing a name.
    if (me && this.seat === null && (this.autoSit || this.pendingSit !== null)) {
      const wanted = this.pendingSit;
      this.autoSit = false;
      this.pendingSit = null;
      // The seat picked, or (taken meanwhile, or none picked) the first free one.
      const seat = wanted !== null && t.seats[wanted] && this.seatIsFree(t.seats[wanted])
        ? wanted : t.seats.findIndex((s) => this.seatIsFree(s));
      if (seat >= 0) this.send("sit", { seat });
      else if (wanted !== null) toast("Every seat has been taken meanwhile: you are watching.", "error");
      const url = new URL(location.href);
      if (url.searchParams.has("sit")) {
        url.searchParams.delete("sit");
        history.replaceState(null, "", url);
      }
    }
  }

  seatIsFree(s) {
    const status = this.table.status;
    return (s.kind === "open" && status !== "playing") || (s.kind === "bot" && s.vacated && status === "playing");
  }

  onEvent(event, replayed) {
    switch (event.kind) {
      case "chat":
        this.addChat(event);
        break;
      case "sat":
        this.addLog(`${event.name} sat down.`);
        break;
      case "left":
        this.addLog(`${event.name} left the table.`);
        break;
      case "bot_added":
        this.addLog(`A computer player (${botLabel(event.level)}) joined.`);
        break;
      case "started":
        if (!replayed) this.addLog(event.game_no > 1 ? `Game ${event.game_no} started.` : "The game started.");
        break;
      case "away":
        if (!replayed) {
          this.addLog(`${this.seatName(event.seat)} is away: the computer plays for them${event.reason === "timeout" ? " (the turn timer ran out)" : ""}.`);
        }
        break;
      case "back":
        if (!replayed) this.addLog(`${this.seatName(event.seat)} is back.`);
        break;
      case "game_over":
        if (!replayed) this.addLog("The game is over.");
        break;
      default:
        break;
    }
  }

  // -- names ------------------------------------------------------------------------------------

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

  // -- building the page ------------------------------------------------------------------------

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
    e.trickArea = h("div", { class: "trick-area" }, e.trick, e.trickInfo);
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
    e.chatInput = h("input", { id: "chat-input", maxlength: "300", autocomplete: "off", placeholder: "Say something nice" });
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

  // -- rendering --------------------------------------------------------------------------------

  render() {
    if (!this.table || this.gone) return;
    const rv = this.view;
    if (rv && this.resultFor !== null && Date.now() - this.resultShownAt >= RESULT_MIN_MS && (rv.trick.length || rv.tricks.length)) {
      this.resultFor = null;
    }
    const t = this.table;
    const v = this.view;
    const n = t.players;
    const game = v ? v.game : gameOfPreset(t.preset);
    const page = this.el.page;
    page.className = `table-page game-${game} players-${n} status-${t.status}${v ? ` phase-${v.phase}` : ""}${this.seat === null ? " spectator" : " seated"}`;
    this.game = game;
    this.renderHead();
    this.renderSeats();
    this.renderTrick();
    this.renderCenter();
    this.renderActions();
    this.renderCards();
    this.renderScores();
    this.renderSheet();
    this.renderClocks();
    this.renderError();
    this.markPending();
    const myTurn = v && v.legal && this.seat !== null;
    document.title = `${myTurn ? "Your turn \u2013 " : ""}${this.presetLabels[t.preset] || t.preset} \u2013 Hearts Online`;
  }

  renderHead() {
    const t = this.table;
    if (!t) return;
    setText(this.el.title, this.presetLabels[t.preset] || t.preset);
    const badges = [];
    const v = this.view;
    const game = this.game || gameOfPreset(t.preset);
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
          ["easy", "standard", "pro", "expert"].map((l) => h("option", { value: l, selected: l === "standard" }, botLabel(l))));
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

  leaveSeat() {
    const playing = this.table && this.table.status === "playing";
    if (playing && !window.confirm("Leave your seat? A computer player finishes the game in your place.")) return;
    this.send("leave");
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

  // -- the trick --------------------------------------------------------------------------------

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
      setText(this.el.trickInfo, this.table && this.table.status === "waiting" ? "Waiting for players\u2026" : "");
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
    plays.forEach((play, i) => {
      const slot = this.slotOf(play);
      wanted.add(slot);
      let el = slots.get(slot);
      const key = `${play.card}|${done ? "done" : "live"}|${ledFace || ""}|${ledSuit || ""}|${done ? done.winner : ""}`;
      if (el && el.dataset.key === key) return;
      const fresh = !el || el.dataset.card !== play.card;
      const who = play.from === "dummy" ? `${this.seatName(play.seat)}'s half dummy` : this.seatName(play.seat);
      const winner = done && (done.winner === play.seat && play.from === "hand" || (done.winner === "dummy" && play.from === "dummy"));
      const classes = [];
      if (this.game === "twentyeight" && parseCard(play.card).light.suit === "H") classes.push("trump");
      if (i === 0) classes.push("lead");
      const cardEl = renderCard(play.card, {
        className: classes.join(" "),
        label: `${cardLabel(play.card)}, played by ${who}${i === 0 && ledFace ? `, leading with the ${ledFace === "dark" ? "Dark" : "Light"} face` : ""}`,
        leadFace: i === 0 ? ledFace : null,
      });
      if (this.game === "double" && ledSuit) markLedFaces(cardEl, play.card, ledSuit, i === 0 ? ledFace : null);
      const node = h("div", {
        class: ["slot", `slot-${slot}`, fresh && !done ? "enter" : "", done ? "done" : "", winner ? "winner" : ""],
        "data-slot": slot, "data-card": play.card,
      }, cardEl, this.slotName(play, who));
      node.dataset.key = key;
      if (el) el.replaceWith(node);
      else area.appendChild(node);
    });
    for (const [slot, el] of slots) if (!wanted.has(slot)) el.remove();
    // The words under the trick.
    const info = [];
    if (done) {
      const winnerName = done.winner === "dummy" ? "The dummy" : this.seatName(done.winner);
      info.push(`${done.winner === this.seat ? "You" : winnerName} took the last trick.`);
    } else if (v.trick.length && ledSuit) {
      const led = `${SUIT_NAMES[ledSuit]} led`;
      info.push(v.game === "double" && v.lead_face ? `${v.lead_face === "dark" ? "Dark" : "Light"} face leads: ${led}.` : `${capital(led)}.`);
    }
    if (v.phase === "play" || v.phase === "pass") {
      const total = handTricks(v);
      if (v.phase === "play" && total) info.push(`Trick ${Math.min(v.trick_no + 1, total)} of ${total}.`);
    }
    if (v.game === "twentyeight" && v.phase === "play") info.push(["minor", v.hearts_broken ? "Hearts are broken." : "Hearts not broken yet."]);
    else if (v.phase === "play") info.push(["minor", v.hearts_broken ? "Hearts are broken." : "Hearts not broken."]);
    if (v.phase === "pass" && v.pass_direction) {
      info.push(`Passing ${v.pass_count} card${v.pass_count === 1 ? "" : "s"} ${DIRECTION_WORDS[v.pass_direction] || v.pass_direction}.`);
    }
    if (v.dead_count && v.phase === "play") info.push(["minor", `${v.dead_count} card${v.dead_count === 1 ? "" : "s"} face down, shown at the end of the hand.`]);
    // Early in a hand, the previous hand's result stays in words under the trick (the
    // result panel may already be gone), with its face-down cards shown.
    const last = v.history.length ? v.history[v.history.length - 1] : null;
    const recap = last && v.tricks.length === 0 && v.phase !== "over" && last.hand_no === v.hand_no - 1;
    const children = info.filter((item) => !(recap && Array.isArray(item))).map((item) => (Array.isArray(item)
      ? h("span", { class: `info-${item[0]}` }, `${item[1]} `)
      : h("span", {}, `${item} `)));
    if (recap) {
      const parts = last.points.map((p, i) => `${this.scorerName(i)} ${signed(p)}`).join(", ");
      children.push(h("span", { class: "last-hand" }, `Hand ${last.hand_no + 1}: ${parts}.`));
      if (last.dead && last.dead.length) {
        children.push(h("span", { class: "dead-line" }, "Face-down cards were: ",
          last.dead.map((c) => cardChip(c))));
      }
    }
    const key = JSON.stringify([info, last && last.hand_no, v.tricks.length === 0]);
    if (this.el.trickInfo.dataset.key !== key) {
      this.el.trickInfo.dataset.key = key;
      fill(this.el.trickInfo, children);
    }
  }

  /** The name under a played card; on a phone a computer's is short ("Comp 2"), as on the
   *  score sheet, so it fits whole (the card's own name says it in full). */
  slotName(play, who) {
    const short = play.from === "dummy" ? `${this.shortName(play.seat)} dummy` : this.shortName(play.seat);
    if (short === who) return h("span", { class: "slot-name", title: who }, who);
    return h("span", { class: "slot-name", title: who },
      h("span", { class: "full" }, who), h("span", { class: "short", "aria-hidden": "true" }, short));
  }

  toggleLastTrick(force) {
    const last = this.lastTrick();
    this.showLastTrick = force === undefined ? !this.showLastTrick : force;
    if (!last) this.showLastTrick = false;
    this.renderHead();
    this.renderCenter();
  }

  // -- the centre panel: last trick, hand result, waiting room, game over ---------------------

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
    if (v && v.phase === "over") {
      el.hidden = false;
      el.className = "center-panel game-over";
      fill(el, ...this.gameOverContent());
      return;
    }
    if (v && this.resultFor !== null && !this.resultClosed.has(this.resultFor)) {
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
    const out = [
      h("h2", {}, "Game over"),
      h("p", { class: "winners" }, title),
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
    if (this.seat !== null) {
      buttons.push(h("button", { type: "button", class: "btn primary", id: "rematch", onclick: () => this.send("rematch") }, "Rematch"));
    }
    const replay = this.replayLink();
    if (replay) buttons.push(replay);
    else buttons.push(h("span", { class: "hint saving" }, "Saving the game for its replay\u2026"));
    buttons.push(h("a", { class: "btn ghost", href: "/" }, "Back to the lobby"));
    out.push(h("div", { class: "row center" }, buttons));
    return out;
  }

  /** The finished game's replay, for players and spectators alike: the server names its
   *  stored id (table.game_id) a moment after the game ends. */
  replayLink() {
    const id = this.table && this.table.status === "over" ? this.table.game_id : null;
    return id ? h("a", { class: "btn", id: "watch-replay", href: `/?replay=${encodeURIComponent(id)}` }, "Watch the replay") : null;
  }

  // -- the action bar -------------------------------------------------------------------------

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
      } else if (turn) {
        const name = this.seatName(turn.seat);
        text = turn.from === "dummy" ? `${turn.seat === me ? "You play" : `${name} plays`} from the half dummy\u2026` : `Waiting for ${name}\u2026`;
        if (turn.seat === me) text = "Your turn.";
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
  }

  // -- my cards --------------------------------------------------------------------------------

  renderCards() {
    const v = this.view;
    const e = this.el;
    const seated = this.seat !== null;
    e.watching.hidden = seated || !v;
    e.handRow.hidden = !seated || !v || !v.hand;
    const dummy = seated && v && v.game === "dummy";
    e.dummyRow.hidden = !dummy;
    if (!seated || !v || !v.hand) {
      fill(e.handCards);
      fill(e.dummyCards);
      return;
    }
    const legal = v.legal && (v.legal.type === "play" || v.legal.type === "pass") ? new Set(v.legal.cards) : new Set();
    const turnFrom = v.turn && v.turn.seat === this.seat ? v.turn.from : null;
    const passing = v.legal && v.legal.type === "pass";
    const received = new Set(v.phase === "play" && v.tricks.length === 0 && v.received ? v.received : []);
    const handActive = passing || (v.legal && v.legal.type === "play" && turnFrom === "hand");
    const dummyActive = v.legal && v.legal.type === "play" && turnFrom === "dummy";
    this.renderRow(e.handCards, sortCards(v.hand), { legal: handActive ? legal : new Set(), active: handActive, passing, received, source: "hand" });
    const handCount = v.hand.length;
    labelRow(e.handLabel, `Your hand (${handCount} card${handCount === 1 ? "" : "s"})${passing ? " \u2013 choose the cards to pass" : ""}`);
    if (dummy) {
      const cards = v.half_dummy || [];
      const hidden = v.phase === "pass";
      this.renderRow(e.dummyCards, sortCards(cards), { legal: dummyActive ? legal : new Set(), active: dummyActive, passing: false, received: new Set(), source: "dummy" });
      labelRow(e.dummyLabel, hidden ? "Your half dummy (seen after passing)" : `Your half dummy (${cards.length})${v.joker === this.seat ? " \u00b7 \u2605 Joker: it plays this trick" : ""}`);
      e.dummyRow.classList.toggle("active", !!dummyActive);
    }
    e.handRow.classList.toggle("active", !!handActive);
    this.maybeFocusTurn(handActive ? e.handCards : dummyActive ? e.dummyCards : null);
  }

  /** Keyed update of one row of cards: elements persist, so focus and layout stay put. */
  renderRow(row, cards, { legal, active, passing, received, source }) {
    const existing = new Map();
    for (const el of row.querySelectorAll(".card")) existing.set(el.dataset.card, el);
    const focused = document.activeElement;
    let focusedIndex = -1;
    const oldOrder = [...row.querySelectorAll(".card")];
    if (focused && row.contains(focused)) focusedIndex = oldOrder.indexOf(focused);
    const keep = new Set(cards);
    for (const [code, el] of existing) {
      if (!keep.has(code)) el.remove();
    }
    let prev = null;
    let anyTabbable = false;
    cards.forEach((code) => {
      let el = existing.get(code);
      if (!el) {
        el = renderCard(code, { tag: "button" });
        el.addEventListener("click", () => this.onCardClick(code, source));
      }
      const isLegal = legal.has(code);
      const selected = passing && this.selected.has(code);
      el.classList.toggle("legal", isLegal);
      el.classList.toggle("illegal", active && !isLegal);
      el.classList.toggle("selected", selected);
      el.classList.toggle("received", received.has(code));
      el.classList.toggle("choosing", this.faceChoice === code);
      if (passing) el.setAttribute("aria-pressed", String(selected));
      else el.removeAttribute("aria-pressed");
      el.setAttribute("aria-disabled", String(!isLegal));
      let label = cardLabel(code);
      if (received.has(code)) label += ", received";
      if (active && !isLegal) label += passing ? ", may not be passed" : ", not playable now";
      if (selected) label += ", chosen to pass";
      el.setAttribute("aria-label", label);
      if (el.tabIndex === 0) anyTabbable = true;
      const want = prev ? prev.nextSibling : row.firstChild;
      if (want !== el) row.insertBefore(el, want);
      prev = el;
    });
    const els = [...row.querySelectorAll(".card")];
    // Roving tab stop: one card in the row is reachable with Tab.
    if (!anyTabbable || !els.some((el) => el.tabIndex === 0)) {
      els.forEach((el, i) => { el.tabIndex = i === 0 ? 0 : -1; });
    }
    // The focused card was played: move focus to its neighbour, so the keyboard stays here.
    if (focusedIndex >= 0 && !row.contains(document.activeElement) && els.length) {
      const next = els[Math.min(focusedIndex, els.length - 1)];
      this.setRoving(row, next);
      next.focus({ preventScroll: true });
    }
    this.layoutRow(row, els.length);
  }

  /** Columns of the hand grid: one row, or two on a narrow screen with many cards. */
  layoutRow(row, count) {
    const style = getComputedStyle(row);
    const cw = parseFloat(style.getPropertyValue("--cw")) || 64;
    const width = row.clientWidth || 300;
    const minStep = cw * 0.46;
    const fits = (n) => n <= 1 || (width - cw) / (n - 1) >= minStep;
    const rows = fits(count) ? 1 : 2;
    const perRow = rows === 1 ? count : Math.ceil(count / 2);
    const deal = this.view ? handTricks(this.view) : count;
    const dealCount = row.dataset.source === "dummy" ? Math.max(count, Math.ceil(deal / 2)) : Math.max(count, deal);
    const reserve = fits(dealCount) ? 1 : 2;
    row.dataset.rows = String(rows);
    row.dataset.count = String(count);
    row.style.setProperty("--count", String(count));
    row.style.setProperty("--per-row", String(Math.max(perRow, 1)));
    row.style.setProperty("--reserve", String(Math.max(reserve, rows)));
    row.style.gridTemplateColumns = perRow > 1 ? `repeat(${perRow - 1}, var(--step)) var(--cw)` : "var(--cw)";
  }

  setRoving(row, target) {
    for (const el of row.querySelectorAll(".card")) el.tabIndex = el === target ? 0 : -1;
  }

  maybeFocusTurn(row) {
    const v = this.view;
    const key = row ? `${v.hand_no}:${v.phase}:${v.trick_no}:${v.trick.length}:${row.dataset.source}` : null;
    if (!row || key === this.lastTurnKey) {
      this.lastTurnKey = key;
      return;
    }
    this.lastTurnKey = key;
    const active = document.activeElement;
    const inCards = active && this.el.myCards.contains(active);
    const idle = !active || active === document.body || active === this.root || active.id === "main";
    if (!inCards && !idle) return; // the player is typing in the chat, or using a button
    if (inCards && row.contains(active) && active.classList.contains("legal")) return;
    const target = row.querySelector(".card.legal") || row.querySelector(".card");
    if (target) {
      this.setRoving(row, target);
      target.focus({ preventScroll: true });
    }
  }

  focusCard(code) {
    const el = this.el.myCards.querySelector(`.card[data-card="${CSS.escape(code)}"]`);
    if (el) {
      this.setRoving(el.parentElement, el);
      el.focus();
    }
  }

  onCardsKey(event, row) {
    const cards = [...row.querySelectorAll(".card")];
    const index = cards.indexOf(document.activeElement);
    if (index < 0) return;
    let next = null;
    switch (event.key) {
      case "ArrowLeft":
        next = cards[Math.max(0, index - 1)];
        break;
      case "ArrowRight":
        next = cards[Math.min(cards.length - 1, index + 1)];
        break;
      case "Home":
        next = cards[0];
        break;
      case "End":
        next = cards[cards.length - 1];
        break;
      case "ArrowUp":
      case "ArrowDown": {
        const other = row === this.el.handCards ? this.el.dummyCards : this.el.handCards;
        if (!other.closest(".hand-block").hidden) {
          const others = [...other.querySelectorAll(".card")];
          if (others.length) next = others[Math.min(index, others.length - 1)];
        }
        break;
      }
      default:
        return;
    }
    event.preventDefault();
    if (next) {
      this.setRoving(next.parentElement, next);
      next.focus();
    }
  }

  onCardClick(code, source) {
    const v = this.view;
    if (!v || this.seat === null) return;
    if (v.legal && v.legal.type === "pass" && source === "hand") {
      if (this.selected.has(code)) this.selected.delete(code);
      else if (this.selected.size < v.legal.count) this.selected.add(code);
      else {
        this.lastError = { code: "wrong_pass_count", text: `You have already chosen ${v.legal.count} cards: click one of them to put it back.` };
        this.renderError();
        return;
      }
      if (!v.legal.cards.includes(code)) {
        this.selected.delete(code);
        this.lastError = { code: "pass_forbidden_card", text: reasonWords("pass_forbidden_card") };
      } else {
        this.lastError = null;
      }
      this.renderActions();
      this.renderCards();
      this.renderError();
      if (this.selected.size === v.legal.count) {
        const pass = document.getElementById("pass-button");
        if (pass && document.activeElement && this.el.myCards.contains(document.activeElement)) {
          // Keep keyboard focus on the hand; Tab reaches the pass button next.
        }
      }
      return;
    }
    if (v.phase === "pass") {
      this.lastError = { code: "already_passed", text: v.passed[this.seat] ? reasonWords("already_passed") : "Wait: the cards are being passed." };
      this.renderError();
      return;
    }
    if (v.legal && v.legal.type === "play" && v.legal.faces && v.legal.cards.includes(code)) {
      if (v.legal.faces.length === 1) {
        this.playCard(code, v.legal.faces[0]);
        return;
      }
      this.faceChoice = code;
      this.renderActions();
      this.renderCards();
      const first = this.el.actions.querySelector(".face-choice");
      if (first) first.focus();
      return;
    }
    const face = v.game === "double" && v.trick.length === 0 && v.legal && v.legal.faces ? "light" : null;
    this.playCard(code, face);
  }

  playCard(code, face) {
    const move = { type: "play", card: code.split("/")[0] };
    if (face) move.face = face;
    this.faceChoice = null;
    this.sendMove(move, { card: code });
    this.renderActions();
  }

  sendPass() {
    const v = this.view;
    if (!v || !v.legal || v.legal.type !== "pass") return;
    const cards = [...this.selected].map((c) => c.split("/")[0]);
    this.sendMove({ type: "pass", cards }, { passCount: v.legal.count });
    this.selected.clear();
  }

  sendMove(move, ctx = {}) {
    // Playing a card closes the last hand's result (it would hide the trick).
    if (move.type === "play" && this.resultFor !== null) this.resultClosed.add(this.resultFor);
    this.lastError = null;
    this.renderError();
    this.send("move", { move }, ctx);
  }

  // -- scores -----------------------------------------------------------------------------------

  scorers() {
    const v = this.view;
    if (!v) return [];
    const list = [];
    for (let i = 0; i < v.scores.length; i++) list.push(i);
    return list;
  }

  renderScores() {
    const v = this.view;
    const table = this.el.scores;
    if (!v) {
      fill(table, h("caption", { class: "sr-only" }, "Scores"), h("tbody", {}, h("tr", {}, h("td", {}, "The game has not started."))));
      return;
    }
    const best = Math.min(...v.scores);
    fill(table,
      h("caption", { class: "sr-only" }, "Scores: points taken this hand and totals"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Player"),
        h("th", { scope: "col" }, "Tricks"),
        h("th", { scope: "col" }, "This hand"),
        h("th", { scope: "col" }, "Total"))),
      h("tbody", {}, this.scorers().map((i) => h("tr", { class: [i === this.seat ? "me" : "", v.scores[i] === best && v.history.length ? "leader" : ""] },
        h("th", { scope: "row" }, this.scorerName(i)),
        h("td", {}, String(v.tricks_won[i] ?? 0)),
        h("td", {}, String(v.points_taken[i] ?? 0)),
        h("td", { class: "total" }, String(v.scores[i]))))));
  }

  renderSheet() {
    const v = this.view;
    const el = this.el.sheet;
    if (!v || !v.history.length) {
      fill(el, h("p", { class: "hint" }, "Each hand's points appear here when the hand is over."));
      return;
    }
    const scorers = this.scorers();
    fill(el, h("table", { class: "sheet-table" },
      h("caption", { class: "sr-only" }, "Points per hand, with running totals"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Hand"), scorers.map((i) => h("th", { scope: "col", title: this.scorerName(i) },
        h("span", { "aria-hidden": "true" }, this.shortName(i)), h("span", { class: "sr-only" }, this.scorerName(i)))))),
      h("tbody", {}, v.history.map((r) => h("tr", {},
        h("th", { scope: "row" },
          `${r.hand_no + 1}`,
          r.direction && r.direction !== "none" && v.game !== "twentyeight" ? h("span", { class: "dir" }, ` ${shortDirection(r.direction)}`) : null,
          r.dead && r.dead.length ? h("span", { class: "dead" }, "face down: ", r.dead.map((c) => cardChip(c))) : null),
        scorers.map((i) => h("td", {},
          h("span", { class: "pts" }, signed(r.points[i])),
          r.moon === i ? h("span", { class: "moon", title: "Shot the moon" }, h("span", { "aria-hidden": "true" }, " \u263E"), h("span", { class: "sr-only" }, " shot the moon")) : null,
          h("span", { class: "tot" }, String(r.totals[i])))))))));
  }

  showSheet() {
    const section = this.el.sheetSection;
    section.classList.add("flash");
    section.scrollIntoView({ block: "nearest", behavior: document.documentElement.classList.contains("no-anim") ? "auto" : "smooth" });
    section.focus({ preventScroll: true });
    setTimeout(() => section.classList.remove("flash"), 800);
  }

  // -- clocks -----------------------------------------------------------------------------------

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

  // -- chat and table log ---------------------------------------------------------------------

  addChat(event) {
    const { name, text } = event; // as typed: set as text, never as HTML
    const mine = this.player && event.player_id === this.player.id;
    this.pushLog(h("li", { class: mine ? "chat-line mine" : "chat-line" },
      h("span", { class: "chat-name" }, name), ": ", h("span", { class: "chat-text" }, text)));
  }

  addLog(text, kind = "") {
    this.pushLog(h("li", { class: ["log-line", kind] }, text));
  }

  /** "Ann shot the moon!" ("You shot the moon!" for me). */
  moonWords(scorer) {
    return `${scorer === this.seat ? "You" : this.scorerName(scorer)} shot the moon!`;
  }

  pushLog(li) {
    const log = this.el.chatLog;
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 20;
    log.appendChild(li);
    while (log.children.length > 200) log.removeChild(log.firstChild);
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  // -- keyboard shortcuts ---------------------------------------------------------------------

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

// -- helpers ------------------------------------------------------------------------------------

function gameOfPreset(preset) {
  if (preset.startsWith("two-player-dummy")) return "dummy";
  if (preset.startsWith("two-player-28")) return "twentyeight";
  if (preset.startsWith("double")) return "double";
  return "classic";
}

function ledSuitOf(trick) {
  if (!trick || !trick.plays.length) return null;
  const face = faceOf(trick.plays[0].card, trick.lead_face || "light");
  return face.joker ? null : face.suit;
}

/** Double Hearts: underline the faces that follow the led suit (they compete for the trick). */
function markLedFaces(cardEl, code, ledSuit, leadFace) {
  const card = parseCard(code);
  const faces = cardEl.querySelectorAll(".face");
  [card.light, card.dark].forEach((face, i) => {
    if (!face || !faces[i]) return;
    const follows = leadFace ? (i === 0 ? leadFace === "light" : leadFace === "dark") : face.suit === ledSuit;
    faces[i].classList.toggle("follows", follows);
  });
}

function handTricks(v) {
  const held = v.hand_sizes.reduce((a, b) => a + b, 0) + (v.half_dummy_sizes ? v.half_dummy_sizes.reduce((a, b) => a + b, 0) : 0);
  const played = v.tricks.reduce((a, t) => a + t.plays.length, 0) + v.trick.length;
  const perTrick = v.game === "dummy" ? 3 : v.players;
  return Math.round((held + played) / perTrick) || 0;
}

/** A card as short coloured text ("Q♠"), for lines of words. */
function cardChip(code) {
  const card = parseCard(code);
  const faces = card.dark ? [card.light, card.dark] : [card.light];
  return h("span", { class: "chip", "data-card": code, role: "img", "aria-label": cardLabel(code) },
    faces.map((f, i) => h("span", { class: [f.joker ? "joker" : `s-${f.suit}`, i ? "dark" : ""], "aria-hidden": "true" }, faceShort(f))));
}

/** A row's heading (one line, shortened with an ellipsis on a narrow screen: whole in its title). */
function labelRow(el, text) {
  setText(el, text);
  el.title = text;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function shortDirection(dir) {
  return { left: "\u2190 left", right: "\u2192 right", across: "\u2195 across", hold: "keep", other: "\u21C4" }[dir] || dir;
}

function formatSeconds(ms) {
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

