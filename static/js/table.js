// The table page: play or watch one table, for every variant.
//
// Everything shown comes from the server's per-seat view (app/engine/view.py) and the table's
// public record; the page never asks for or holds a card it may not see. Moves are sent with
// an id (resent after a reconnect; the server applies each id once) and answered by an ack or
// an error whose reason is shown in words.

import { api, errorWords, session } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { has, loadSection, t } from "./i18n.js";
import { reasonWords } from "./labels.js";
import { LiveSocket, newId } from "./socket.js";
import { ActionsPart } from "./table/actions.js";
import { CenterPart } from "./table/center.js";
import { ConveniencesPart } from "./table/conveniences.js";
import { ChatPart } from "./table/chat.js";
import { HandPart } from "./table/hand.js";
import { HintPart } from "./table/hint.js";
import { BefriendPart } from "./table/befriend.js";
import { InvitePart } from "./table/invite.js";
import { LayoutPart } from "./table/layout.js";
import { ScoresPart } from "./table/scores.js";
import { SeatsPart } from "./table/seats.js";
import { TrickPart } from "./table/trick.js";
import { GATHER_MS, LINGER_MS, TableMotion } from "./table/motion.js";
import { RESULT_MIN_MS } from "./table/util.js";

// The table's words (static/i18n/<lang>.table.json, the table.* keys), before the first draw.
await loadSection("table");

// The parts of the page, by the method that draws each, in drawing order.
const RENDER_PARTS = [
  "renderHead", "renderSeats", "renderTrick", "renderCenter", "renderActions",
  "renderCards", "renderScores", "renderSheet", "renderClocks", "renderError", "renderInvite",
  "renderHint",
];

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
    this.earlyEvents = []; // [event, replayed] that came before the first state
    // From /api/presets: each preset's label and game (a table that has not started has no
    // view to say its game), and the server's limits (the chat's length).
    this.presets = new Map();
    this.botLevels = ["standard"]; // the server's default level, until /api/presets lists them
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
    this.motion = new TableMotion();
    this.motion.onGathered = () => this.renderPart("renderCenter");
    this.trickDrawn = false; // motion starts after the first drawing of the trick
    // Conveniences (table/conveniences.js): the card chosen before my turn, the forced card
    // about to play itself, the claim's confirm step, the last accepted claim.
    this.prechosen = null;
    this.forced = null;
    this.claimAsk = false;
    this.lastClaim = null;
  }

  start() {
    document.title = t("table.title", { name: t("table.head.table") });
    this.build();
    this.watchChat();
    this.connect();
    this.tick = setInterval(() => this.renderClocks(), 250);
    document.addEventListener("keydown", this.keyHandler);
    this.resizeHandler = () => {
      if (this.view) this.renderCards();
    };
    window.addEventListener("resize", this.resizeHandler);
    api("/api/presets", { auth: false })
      .then((data) => {
        for (const p of data.presets) this.presets.set(p.id, { label: p.label, game: p.game, values: p.values || {} });
        if (Array.isArray(data.bot_levels) && data.bot_levels.length) this.botLevels = data.bot_levels;
        const chatMax = data.limits && data.limits.chat_max_chars;
        if (chatMax) this.el.chatInput.maxLength = chatMax;
        if (this.table && !this.gone) this.render();
      })
      .catch(() => {
        this.presetsFailed = true; // drawn with what the table says ("Table" for its name)
        if (this.table && !this.gone) this.render();
      });
  }

  destroy() {
    clearInterval(this.tick);
    clearTimeout(this.resultTimer);
    clearTimeout(this.holdTimer);
    this.cancelForced();
    this.motion.stop();
    document.removeEventListener("keydown", this.keyHandler);
    window.removeEventListener("resize", this.resizeHandler);
    if (this.onFriendLists) window.removeEventListener("hearts:friends", this.onFriendLists);
    if (this.chatObserver) this.chatObserver.disconnect();
    if (this.socket) this.socket.close();
  }

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

  async onFinal(code, error) {
    if (code === "bad_token") {
      session.clear();
      toast(t("table.gone.session"), "error");
      this.connect();
      return;
    }
    await loadSection("error"); // the refusals' words, at the first one
    const words = {
      forbidden: error && error.code === "bad_origin"
        ? t("table.gone.bad_origin")
        : t("table.gone.private"),
      unknown_table: t("table.gone.unknown_table"),
      protocol: t("table.gone.protocol"),
      too_many_sockets: t("table.gone.too_many_sockets"),
      policy: t("table.gone.policy"),
    }[code] || (error && errorWords(error.code, error.values)) || t("table.gone.closed");
    this.gone = words;
    fill(this.root, h("section", { class: "panel gone" },
      h("h1", {}, t("table.gone.title")),
      h("p", { class: "form-error" }, words),
      h("a", { class: "btn primary", href: "/" }, t("table.gone.back"))));
  }

  onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        this.connectedBefore = !!this.welcomed;
        this.welcomed = true;
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
        // Events that came before the first state wait for it: their seats are named from
        // the table ("Ann's claim was refused.", not "Seat 1's").
        for (const [event, replayed] of this.earlyEvents.splice(0)) this.onEvent(event, replayed);
        // The server may send a change's public events inside its state message.
        for (const event of msg.events || []) this.onEvent(event, false);
        break;
      case "events": {
        this.version = Math.max(this.version, msg.version);
        // A replay on the first connection is the table's history (its away/back notices
        // are old news); on a reconnect it is what was missed, told like live events.
        const replayed = !!msg.replay && !this.connectedBefore;
        for (const event of msg.events || []) {
          if (this.table) this.onEvent(event, replayed);
          else this.earlyEvents.push([event, replayed]);
        }
        if (this.table && (msg.events || []).some((e) => e.kind === "hint_used")) this.noteHintEvents(msg.events);
        break;
      }
      case "ack":
        this.pending.delete(msg.id);
        this.ackedVersion = Math.max(this.ackedVersion || 0, msg.version || 0);
        this.markPending();
        break;
      case "error":
        this.onError(msg);
        break;
      case "hint": // the answer to this player's hint command (table/hint.js)
        this.onHint(msg);
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
      toast(t("table.offline_queued"));
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

  async onError(msg) {
    // The refusals' words come at the first refusal; the command counts as pending (the
    // page's data-pending) until its answer is shown.
    await loadSection("error");
    const pending = msg.id ? this.pending.get(msg.id) : null;
    if (pending && msg.code === "store_unavailable" && (pending.retries || 0) < 5) {
      // Nothing was applied and the server asks to try again: the command stays pending and
      // goes out again, with its id, after retry_after seconds (docs/protocol.md).
      pending.retries = (pending.retries || 0) + 1;
      const wait = Math.min(Math.max(Number(msg.retry_after) || 2, 0.5), 30) * 1000;
      toast(t("table.busy_retry"));
      setTimeout(() => {
        if (this.pending.get(msg.id) === pending && this.ready && this.socket) {
          if (!this.socket.send(pending.msg)) pending.late = true;
        }
      }, wait);
      return;
    }
    if (msg.id) this.pending.delete(msg.id);
    this.markPending();
    const ctx = pending ? pending.ctx : {};
    if (pending && msg.code === "stale_version" && this.retryAuto(pending)) return;
    const words = reasonWords(msg.code, { ...ctx, ...this.reasonContext(), values: msg.values });
    if (pending && pending.msg.type === "move") {
      this.lastError = { code: msg.code, text: words };
      this.renderError();
      return;
    }
    // A command given while offline that no longer applies when it finally goes out.
    toast(pending && pending.late ? t("table.late_refused", { words }) : words, "error");
  }

  /** What the page itself knows that words a refusal: whose turn it is (the rest comes with
   *  the refusal's named values). */
  reasonContext() {
    const v = this.view;
    return { waitingFor: v && v.turn ? this.seatName(v.turn.seat) : null };
  }

  onState(msg) {
    if (this.shownVersion && msg.version < this.shownVersion && !msg.resync) return; // older
    const before = this.view;
    this.motion.settle(); // nothing still moving holds this state back
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
    // With motion, the result (or the game over) waits until the last trick was seen and
    // gathered: the panel would cover it.
    const gameEnded = v && before && v.phase === "over" && before.phase !== "over";
    const hold = (justEnded || gameEnded) && this.motion.on() && this.trickDrawn ? LINGER_MS + GATHER_MS + 100 : 0;
    if (hold) {
      this.motion.hold(hold);
      clearTimeout(this.holdTimer);
      this.holdTimer = setTimeout(() => this.renderPart("renderCenter"), hold + 20);
    }
    if (justEnded || pausedNow) {
      // Show the hand's result for a while (at least through the server's pause).
      this.resultFor = v.history[v.history.length - 1].hand_no;
      this.resultShownAt = Date.now() + hold;
      clearTimeout(this.resultTimer);
      this.resultTimer = setTimeout(() => this.render(), RESULT_MIN_MS + hold + 50);
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
    this.afterStateConveniences();
  }

  /** The server's clock now (epoch ms), from the last state's server_ms and our monotonic
   *  clock since it came: countdowns are right whatever this computer's clock says. */
  serverNow() {
    const c = this.serverClock;
    return c ? c.server + (performance.now() - c.local) : Date.now();
  }

  /** Ms until the next hand opens (the server's pause after a hand), or 0. */
  pauseLeft() {
    const tb = this.table;
    return tb && tb.pause_until_ms && tb.status === "playing" ? Math.max(0, tb.pause_until_ms - this.serverNow()) : 0;
  }

  /** The game (classic, dummy, twentyeight, double): the view's, or before there is a view
   *  the table's preset's, as /api/presets says (null until it has come). */
  gameOf() {
    if (this.view) return this.view.game;
    const preset = this.table && this.presets.get(this.table.preset);
    return preset ? preset.game : null;
  }

  /** The table's rule values: its preset's, with the options chosen for it over them. */
  ruleValues() {
    const preset = this.table && this.presets.get(this.table.preset);
    return { ...(preset ? preset.values : {}), ...((this.table && this.table.options) || {}) };
  }

  /** The table's preset in words ("Hearts, 4 players"), or "Table" until /api/presets came. */
  presetLabel() {
    const id = this.table && this.table.preset;
    const preset = id && this.presets.get(id);
    if (preset && has(`preset.${id}`)) return t(`preset.${id}`);
    return preset ? preset.label : t("table.head.table");
  }

  afterStateActions() {
    const tb = this.table;
    if (!tb) return;
    const me = this.player;
    const isHost = me && tb.host === me.id;
    // "Start as soon as every seat is filled", chosen when the table was created (the
    // computer players came with the table).
    if (isHost && !this.setupDone && tb.status === "waiting") {
      this.setupDone = true;
      const raw = sessionStorage.getItem(`hearts.setup.${tb.id}`);
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
    if (isHost && this.autoStart && tb.status === "waiting" && !this.startSent && tb.seats.every((s) => s.kind !== "open")) {
      this.startSent = true;
      sessionStorage.removeItem(`hearts.setup.${tb.id}`);
      this.send("start");
    }
    if (tb.status === "playing") this.startSent = false;
    // "Sit down" from the lobby, or a seat picked before choosing a name.
    if (me && this.seat === null && (this.autoSit || this.pendingSit !== null)) {
      const wanted = this.pendingSit;
      this.autoSit = false;
      this.pendingSit = null;
      // The seat picked, or (taken meanwhile, or none picked) the first free one.
      const seat = wanted !== null && tb.seats[wanted] && this.seatIsFree(tb.seats[wanted])
        ? wanted : tb.seats.findIndex((s) => this.seatIsFree(s));
      if (seat >= 0) this.send("sit", { seat });
      else if (wanted !== null) toast(t("table.seats_gone"), "error");
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

  render() {
    if (!this.table || this.gone) return;
    const rv = this.view;
    if (rv && this.resultFor !== null && Date.now() - this.resultShownAt >= RESULT_MIN_MS && (rv.trick.length || rv.tricks.length)) {
      this.resultFor = null;
    }
    const tb = this.table;
    const v = this.view;
    const n = tb.players;
    const game = this.gameOf();
    const page = this.el.page;
    // The frame stays hidden ("loading") until /api/presets has come too: its name for the
    // table ("Hearts, 5 players" for "Table") can wrap the head and move the table down.
    const loading = !this.presets.size && !this.presetsFailed ? " loading" : "";
    page.className = `table-page${loading}${game ? ` game-${game}` : ""} players-${n} status-${tb.status}${v ? ` phase-${v.phase}` : ""}${this.seat === null ? " spectator" : " seated"}`;
    this.game = game;
    // Each part draws on its own: one that throws is reported and the others still draw.
    for (const part of RENDER_PARTS) this.renderPart(part);
    this.markPending();
    const myTurn = v && v.legal && this.seat !== null;
    const title = t("table.title", { name: this.tableName() }); // an event's table: the event and round
    document.title = myTurn ? t("table.title_turn", { title }) : title;
  }

  /** Draw one part of the page (a method name), reporting an exception to the console
   *  rather than letting it stop the parts drawn after it. */
  renderPart(name) {
    try {
      this[name]();
    } catch (error) {
      console.error(`table page: ${name} failed`, error);
    }
  }
}

// The parts (static/js/table/*.js) are classes whose methods become the page's own: each
// part is one file to read, and they share the page's state through `this`.
for (const part of [LayoutPart, SeatsPart, TrickPart, CenterPart, ActionsPart, HandPart, ScoresPart, ChatPart, InvitePart, BefriendPart, ConveniencesPart, HintPart]) {
  for (const name of Object.getOwnPropertyNames(part.prototype)) {
    if (name === "constructor") continue;
    if (Object.prototype.hasOwnProperty.call(TablePage.prototype, name)) throw new Error(`table page: ${name} defined twice`);
    Object.defineProperty(TablePage.prototype, name, Object.getOwnPropertyDescriptor(part.prototype, name));
  }
}
