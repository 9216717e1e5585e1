// The lobby: who you are, the live list of public tables, creating a table, invite links,
// and your finished games (replays). Words: the catalog's lobby.* and create.* (i18n.js); the
// page is drawn again on a change of language (app.js routes anew).

import { api, errorWords, session } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { formatDateTime, loadSection, plural, t } from "./i18n.js";
import { GAMES, botLabel } from "./labels.js";
import { chosenOptions, gameLabel, optionApplies, optionField, presetLabel, seatWords } from "./option_fields.js";
import { LiveSocket } from "./socket.js";
import { prefs, setPref } from "./prefs.js";
import { rulesLines } from "./rules_words.js";
import { FriendsPanel } from "./friends.js";
import { IdentityPart } from "./lobby_identity.js";
import { paceText } from "./mygames.js";

// This module's words (<lang>.lobby.json and <lang>.create.json), before anything of it is drawn.
await loadSection("lobby", "create");

/** The signed-in player's id (null when signed out): whom the lobby socket speaks for. */
function playerId() {
  return session.player ? session.player.id : null;
}

// Tables the lobby asks for at a time (the server caps a page at 50).
const LOBBY_PAGE = 20;

const TIMERS = [0, 15, 30, 60, 120, "turn:3600", "turn:43200", "turn:86400", "turn:259200"];

/** A pace of the create form in words: "30 seconds a turn", "Turn-based: 1 day a move". */
function timerLabel(value) {
  if (value === 0) return t("create.no_timer");
  if (typeof value === "number") {
    return value < 60 ? plural("create.seconds_turn", value) : plural("create.minutes_turn", value / 60);
  }
  // Turn-based tables (docs/turn-based.md): a game over days, each move with its clock.
  const hours = Number(value.slice(5)) / 3600;
  return hours < 24 ? plural("create.hours_move", hours) : plural("create.days_move", hours / 24);
}


export function mountLobby(root) {
  const lobby = new Lobby(root);
  lobby.start();
  return lobby;
}

class Lobby {
  constructor(root) {
    this.root = root;
    this.presets = [];
    this.options = [];
    this.botLevels = ["easy", "standard", "pro", "expert"];
    this.tables = new Map(); // the tables the server says this page shows (its filter, newest first)
    this.total = null; // how many tables match the filter (null: not known yet)
    this.hasMore = false;
    this.socket = null;
    // On a phone one column: you, then Create, then the tables, in the page's order too (the
    // order keys and screen readers follow), so Create is reached before the whole list.
    this.phone = window.matchMedia("(max-width: 760px)");
    this.arrange = () => {
      if (!this.layoutBox) return;
      const focused = document.activeElement;
      if (this.phone.matches) {
        fill(this.layoutBox, h("div", { class: "lobby-col" },
          this.identityBox, this.createBox, this.tablesBox, this.inviteBox, this.friends.box, this.gamesBox));
      } else {
        fill(this.layoutBox,
          h("div", { class: "lobby-col" }, this.identityBox, this.tablesBox, this.inviteBox, this.friends.box),
          h("div", { class: "lobby-col" }, this.createBox, this.gamesBox));
      }
      if (focused && focused !== document.activeElement && this.layoutBox.contains(focused)) focused.focus();
    };
    this.onIdentity = () => {
      // The lobby socket signs in with the session cookie when it opens: open it again when
      // the player changed (the session check at load confirms the same player: the socket
      // just opened is kept, not closed while it connects).
      if (this.socket && this.socketPlayer !== playerId()) {
        this.socket.close();
        this.connectLobby();
      }
      this.friends.render();
      this.renderIdentity();
      this.renderTables();
      this.loadMyGames();
    };
  }

  start() {
    document.title = t("lobby.title");
    this.identityBox = h("section", { class: "panel identity", "aria-labelledby": "id-title" });
    this.tablesBox = h("section", { class: "panel tables", "aria-labelledby": "tables-title" });
    this.createBox = h("section", { class: "panel create", "aria-labelledby": "create-title" });
    this.inviteBox = h("section", { class: "panel invite", "aria-labelledby": "invite-title" });
    this.gamesBox = h("section", { class: "panel games", "aria-labelledby": "games-title", hidden: true });
    // Friends, presence and invitations (static/js/friends.js), fed by the lobby socket.
    this.friends = new FriendsPanel((msg) => this.socket && this.socket.send(msg));
    window.addEventListener("hearts:identity", this.onIdentity);
    this.connectLobby();
    this.loadMyGames();
    // The panels appear once the create form's options are here (one small request), all
    // at once: a form that grew after the first paint would push the panels under it down
    // (on a phone, Create comes first). The tables fill a box of fixed height as they come.
    this.loadPresets().finally(() => this.render());
  }

  render() {
    if (this.destroyed) return;
    fill(
      this.root,
      h("h1", { class: "sr-only" }, t("lobby.heading")),
      this.layoutBox = h("div", { class: "lobby" }),
    );
    this.arrange();
    this.phone.addEventListener("change", this.arrange);
    this.renderIdentity();
    this.friends.render();
    this.renderTablesFrame();
    this.renderInvite();
    if (this.presets.length) this.renderCreate();
    else fill(this.createBox, h("h2", { id: "create-title" }, t("create.title")), h("p", { class: "form-error" }, t("create.not_loaded", { error: this.presetError || t("create.no_answer") })));
  }

  destroy() {
    this.destroyed = true;
    window.removeEventListener("hearts:identity", this.onIdentity);
    this.phone.removeEventListener("change", this.arrange);
    if (this.socket) this.socket.close();
    this.friends.destroy();
  }

  // -- who you are ---------------------------------------------------------------------------

  // -- public tables -------------------------------------------------------------------------

  renderTablesFrame() {
    // The server filters and pages the lobby (docs/protocol.md, /ws/lobby): a filter change
    // asks it for the first page of the new filter; "More tables" for the next one.
    this.filterGame = h("select", { id: "filter-game", onchange: () => this.changeFilter() },
      h("option", { value: "" }, t("lobby.all_games")),
      GAMES.map((game) => h("option", { value: game }, gameLabel(game))));
    // Live tables (everyone at the table now) or turn-based ones (a move a day or so).
    this.filterPace = h("select", { id: "filter-pace", onchange: () => this.changeFilter() },
      h("option", { value: "" }, t("lobby.live_and_turn")),
      h("option", { value: "live" }, t("lobby.live_only")),
      h("option", { value: "turn" }, t("lobby.turn_only")));
    this.filterOpen = h("input", { type: "checkbox", id: "filter-open", onchange: () => this.changeFilter() });
    this.tableCount = h("p", { class: "meta table-count", id: "table-count", "aria-live": "polite" }, t("lobby.loading"));
    this.tableList = h("ul", { class: "table-list", "aria-live": "polite", "aria-relevant": "additions removals", "aria-describedby": "table-count" });
    this.moreButton = h("button", {
      type: "button", class: "btn small", id: "tables-more", onclick: () => this.moreTables(),
    }, t("lobby.more"));
    fill(
      this.tablesBox,
      h("h2", { id: "tables-title" }, t("lobby.public_tables")),
      h("div", { class: "filters row" },
        h("label", { for: "filter-game" }, t("lobby.show")), this.filterGame,
        h("label", { for: "filter-pace", class: "sr-only" }, t("lobby.pace")), this.filterPace,
        h("label", { class: "check" }, this.filterOpen, " ", t("lobby.free_only"))),
      this.tableCount,
      // A box of fixed height: the list never pushes the panels below it around.
      h("div", { class: "table-scroll", tabindex: "0" }, this.tableList), // it scrolls: a keyboard reaches it
      h("div", { class: "row tables-more-row" }, this.moreButton),
    );
    this.renderTables();
  }

  lobbyFilter() {
    const filter = { limit: LOBBY_PAGE };
    if (this.filterGame && this.filterGame.value) filter.variant = this.filterGame.value;
    if (this.filterPace && this.filterPace.value) filter.pace = this.filterPace.value;
    if (this.filterOpen && this.filterOpen.checked) filter.free_seats = 1;
    return filter;
  }

  lobbyPath() {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(this.lobbyFilter())) query.set(key, String(value));
    return `/ws/lobby?${query}`;
  }

  changeFilter() {
    this.total = null;
    this.renderTables();
    if (!this.socket) return;
    // A reconnect asks for the same filter; the open socket switches now.
    this.socket.path = this.lobbyPath();
    this.socket.send({ type: "subscribe", ...this.lobbyFilter() });
  }

  moreTables() {
    if (this.socket) this.socket.send({ type: "more" });
  }

  connectLobby() {
    this.socketPlayer = playerId();
    this.socket = new LiveSocket(this.lobbyPath(), {
      onMessage: (msg) => {
        if (msg.type === "lobby") {
          this.tables = new Map(msg.tables.map((table) => [table.id, table]));
        } else if (msg.type === "lobby_update") {
          for (const table of msg.tables || []) this.tables.set(table.id, table);
          for (const id of msg.removed || []) this.tables.delete(id);
        } else if (msg.type === "error" && msg.code === "lobby_list_full") {
          toast(t("lobby.list_full"), "error");
          this.hasMore = false;
          this.renderMore();
          return;
        } else {
          this.friends.onMessage(msg);
          return;
        }
        this.total = msg.total;
        this.hasMore = Boolean(msg.more);
        this.renderTables();
      },
      // The server closed the lobby socket for good (a limit, docs/protocol.md): say why.
      onFinal: async (code, error) => {
        await loadSection("error"); // the refusals' words, at the first one
        const words = {
          too_many_sockets: t("lobby.off_sockets"),
          policy: t("lobby.off_policy"),
          forbidden: t("lobby.off_forbidden"),
        }[code] || (error && errorWords(error.code, error.values)) || t("lobby.off");
        if (this.tableCount) {
          this.tableCount.textContent = words;
          this.tableCount.classList.add("form-error");
        }
      },
    });
    this.socket.connect();
  }

  presetInfo(id) {
    return this.presets.find((p) => p.id === id);
  }

  renderMore() {
    if (!this.moreButton) return;
    // Hidden but still taking its place, so the panel keeps its height.
    this.moreButton.style.visibility = this.hasMore ? "visible" : "hidden";
  }

  renderTables() {
    if (!this.tableList) return;
    this.renderMore();
    if (this.total === null) {
      this.tableCount.textContent = t("lobby.loading");
      return;
    }
    const rows = [...this.tables.values()]
      .sort((a, b) => (b.created_ms || 0) - (a.created_ms || 0) || (a.id < b.id ? -1 : 1));
    const filtered = Boolean(this.filterGame.value || this.filterPace.value || this.filterOpen.checked);
    this.tableCount.textContent = !this.total ? ""
      : rows.length >= this.total ? plural("lobby.tables", this.total)
        : plural("lobby.newest", this.total, { shown: rows.length });
    if (!rows.length) {
      fill(this.tableList, h("li", { class: "empty" }, filtered ? t("lobby.no_match") : t("lobby.none")));
      return;
    }
    fill(this.tableList, rows.map((table) => this.tableRow(table)));
  }

  tableRow(table) {
    const info = this.presetInfo(table.preset);
    const status = table.status === "waiting" ? t("lobby.waiting")
      : table.status === "playing" ? (table.game_no > 1 ? t("lobby.playing_game", { game: table.game_no }) : t("lobby.playing"))
        : t("lobby.over");
    const seats = (table.seats || []).map((s) => {
      let text;
      if (s.kind === "open") text = t("lobby.free_seat");
      else if (s.kind === "bot") text = t("lobby.computer", { level: botLabel(s.level) });
      else text = s.name || t("common.player");
      const words = s.away ? `${text} \u00b7 ${t("lobby.away")}` : text;
      // A chip is at most 14em wide (a long name ends in "…"): its whole words in its title.
      return h("li", { class: `seat-chip ${s.kind}`, title: words }, words);
    });
    const canSit = table.open_seats > 0 && table.status !== "over";
    const title = info ? presetLabel(info) : table.preset;
    const watching = table.spectators ? ` \u00b7 ${plural("lobby.watching", table.spectators)}` : "";
    return h("li", { class: "table-row", "data-table": table.id },
      h("div", { class: "table-row-main" },
        h("strong", {}, title),
        h("span", { class: "meta" }, ` \u00b7 ${status} \u00b7 ${paceText(table)}${watching}`),
        h("ul", { class: "seat-chips", "aria-label": t("lobby.seats") }, seats)),
      h("div", { class: "table-row-actions" },
        canSit ? h("a", {
          class: "btn primary small", href: `/?table=${encodeURIComponent(table.id)}&sit=1`,
          "aria-label": t("lobby.sit_at", { table: title }),
          onclick: (event) => {
            if (!this.requireName()) event.preventDefault();
          },
        }, t("lobby.sit")) : null,
        h("a", { class: "btn small", href: `/?table=${encodeURIComponent(table.id)}`, "aria-label": t("lobby.watch_table", { table: title }) }, t("lobby.watch"))));
  }

  // -- invite links --------------------------------------------------------------------------

  renderInvite() {
    const input = h("input", { id: "invite-link", placeholder: "https://\u2026/?table=\u2026&invite=\u2026" });
    const error = h("p", { class: "form-error", role: "alert" });
    fill(
      this.inviteBox,
      h("h2", { id: "invite-title" }, t("lobby.invite_title")),
      h("form", {
        onsubmit: (event) => {
          event.preventDefault();
          error.textContent = "";
          let url;
          try {
            url = new URL(input.value.trim(), location.origin);
          } catch {
            url = null;
          }
          const table = url && url.searchParams.get("table");
          if (!table) {
            error.textContent = t("lobby.not_invite");
            return;
          }
          const invite = url.searchParams.get("invite");
          location.href = `/?table=${encodeURIComponent(table)}${invite ? `&invite=${encodeURIComponent(invite)}` : ""}`;
        },
      },
      h("label", { for: "invite-link" }, t("lobby.paste_link")),
      h("div", { class: "row" }, input, h("button", { type: "submit", class: "btn" }, t("lobby.open")))),
      error,
    );
  }

  // -- creating a table ----------------------------------------------------------------------

  async loadPresets() {
    try {
      const data = await api("/api/presets", { auth: false });
      this.presets = data.presets;
      this.options = data.options;
      if (data.bot_levels && data.bot_levels.length) this.botLevels = data.bot_levels;
    } catch (error) {
      this.presetError = error.message;
    }
  }

  renderCreate() {
    const presetSelect = h("select", { id: "create-preset", name: "preset" });
    const groups = {};
    for (const p of this.presets) {
      (groups[p.game] ||= []).push(p);
    }
    for (const [game, presets] of Object.entries(groups)) {
      presetSelect.appendChild(h("optgroup", { label: gameLabel(game) },
        presets.map((p) => h("option", { value: p.id }, presetLabel(p)))));
    }
    // The last table's choices (prefs.lastCreate), else the defaults.
    const last = prefs.lastCreate || {};
    presetSelect.value = "classic";
    if (last.preset && [...presetSelect.options].some((o) => o.value === last.preset)) presetSelect.value = last.preset;
    this.optionsBox = h("fieldset", { class: "options" });
    this.seatsBox = h("fieldset", { class: "seats-choice" });
    const visibility = h("fieldset", { class: "visibility" },
      h("legend", {}, t("create.who_finds")),
      h("label", { class: "check" }, h("input", { type: "radio", name: "visibility", value: "public", checked: !last.private }),
        " ", t("create.public")),
      h("label", { class: "check" }, h("input", { type: "radio", name: "visibility", value: "private", checked: !!last.private }),
        " ", t("create.private")),
      // docs/persistence.md "Rated tables": the server refuses guests and newcomers by code
      h("label", { class: "check" }, h("input", { type: "checkbox", id: "create-rated", name: "rated" }),
        " ", t("create.rated")),
      // docs/review.md "Hints at the table": a casual table only (the server refuses it rated)
      h("label", { class: "check" }, h("input", { type: "checkbox", id: "create-hints", name: "hints" }),
        " ", t("create.hints")));
    const chosenTimer = TIMERS.includes(last.timer) ? last.timer : 30;
    const timer = h("select", { id: "create-timer", name: "timer" },
      TIMERS.map((value) => h("option", { value: String(value), selected: value === chosenTimer }, timerLabel(value))));
    const autoStart = h("input", { type: "checkbox", id: "create-autostart", checked: last.autoStart !== false });
    const error = h("p", { class: "form-error", role: "alert", id: "create-error" });
    const form = h("form", {
      class: "create-form",
      onsubmit: (event) => {
        event.preventDefault();
        this.createTable(form, error);
      },
    },
    h("label", { for: "create-preset" }, t("create.game")), presetSelect,
    h("div", { class: "hint", id: "preset-summary" }),
    this.seatsBox,
    visibility,
    h("label", { for: "create-timer" }, t("create.pace")), timer,
    h("details", { class: "more-options" }, h("summary", {}, t("create.rules_options")), this.optionsBox),
    h("label", { class: "check" }, autoStart, " ", t("create.auto_start")),
    h("div", { class: "row end" }, h("button", { type: "submit", class: "btn primary", id: "create-go" }, t("create.go"))),
    error);
    presetSelect.addEventListener("change", () => this.renderPresetOptions(presetSelect.value));
    fill(this.createBox, h("h2", { id: "create-title" }, t("create.title")), form);
    this.renderPresetOptions(presetSelect.value);
  }

  renderPresetOptions(presetId) {
    const preset = this.presetInfo(presetId);
    if (!preset) return;
    this.currentPreset = preset;
    // The preset's every value as the server states it (/api/presets): the form holds no copy
    // of the engine's presets.
    const base = {};
    for (const option of this.options) base[option.name] = option.default;
    Object.assign(base, preset.values || {}, preset.options || {});
    base.players = preset.players;
    this.baseValues = base;
    this.values = structuredClone(base);
    // What the game is, in a few lines (rules_words.js; the table's Rules button says the same).
    const [first, ...rest] = rulesLines(preset.game, base);
    fill(document.getElementById("preset-summary"), first,
      rest.length ? h("details", { class: "preset-rules" }, h("summary", {}, t("create.how_played")), rest.map((line) => h("p", {}, line))) : "");
    const fields = [h("legend", {}, t("create.rules"))];
    for (const option of this.options) {
      if (!option.games.includes(preset.game)) continue;
      fields.push(optionField(this, option, preset));
    }
    fill(this.optionsBox, fields);
    this.renderSeatChoices();
    this.refreshDependent();
  }

  syncField(name) {
    const el = document.getElementById(`opt-${name}`);
    if (el && this.values[name] !== undefined) el.value = String(this.values[name]);
  }

  /** Show only what applies, as the server advertises it (/api/presets): the choices this
   *  many players allow (choices_by_players: the deck, passing across), and the options that
   *  count only with another's value (only_with: the target score, the number of hands). */
  refreshDependent() {
    const n = String(this.values.players);
    for (const option of this.options) {
      const field = this.optionsBox.querySelector(`[data-option="${option.name}"]`);
      if (!field) continue;
      const select = field.querySelector("select");
      if (select && option.choices_by_players && option.choices_by_players[n]) {
        const allowed = option.choices_by_players[n].map(String);
        const shown = [...select.options].filter((opt) => allowed.includes(opt.value));
        for (const opt of select.options) opt.hidden = !allowed.includes(opt.value);
        if (shown.length && !shown.some((opt) => opt.value === String(this.values[option.name]))) {
          // The preset's value, else the option's default, else the first allowed.
          const wanted = [this.baseValues[option.name], option.default].map(String);
          select.value = wanted.find((v) => shown.some((opt) => opt.value === v)) || shown[0].value;
          this.values[option.name] = typeof option.default === "number" ? Number(select.value) : select.value;
        } else {
          select.value = String(this.values[option.name]);
        }
        field.hidden = shown.length < 2;
      }
      if (option.only_with) {
        const applies = this.appliesNow(option);
        field.hidden = !applies;
        if (applies && option.kind === "int" && !(this.values[option.name] >= option.min)) {
          // A number of hands to start from when "after a fixed number of hands" is chosen.
          this.values[option.name] = Math.min(Math.max(4, option.min), option.max);
          this.syncField(option.name);
        }
      }
    }
  }

  /** Whether an option counts with the values chosen now (its only_with conditions hold). */
  appliesNow(option) {
    return optionApplies(option, this.values);
  }

  seatCount() {
    return this.values && this.values.players ? this.values.players : this.currentPreset.players;
  }

  renderSeatChoices() {
    const n = this.seatCount();
    const rows = [h("legend", {}, t("lobby.seats"))];
    rows.push(h("p", { class: "seat-line" }, h("strong", {}, t("create.seat", { seat: 1 })), t("create.seat_you")));
    const wanted = (prefs.lastCreate && prefs.lastCreate.seats) || {}; // the last table's seats
    for (let seat = 1; seat < n; seat++) {
      const id = `seat-${seat}`;
      rows.push(h("div", { class: "row seat-line" },
        h("label", { for: id }, t("create.seat_where", { seat: seat + 1, where: seatWords(seat, n) })),
        h("select", { id, "data-seat": String(seat) },
          h("option", { value: "open", selected: wanted[seat] === "open" }, t("create.open_seat")),
          this.botLevels.map((level) => h("option", { value: level, selected: level === (this.botLevels.includes(wanted[seat]) ? wanted[seat] : "standard") }, t("create.computer", { level: botLabel(level) }))))));
    }
    fill(this.seatsBox, rows);
  }

  async createTable(form, error) {
    error.textContent = "";
    if (!this.requireName()) return;
    const button = form.querySelector("#create-go");
    button.disabled = true;
    // Computer players come with the table (seat number -> level), in the same request.
    const bots = Object.fromEntries([...this.seatsBox.querySelectorAll("select[data-seat]")]
      .filter((s) => s.value !== "open")
      .map((s) => [s.dataset.seat, s.value]));
    const body = {
      preset: this.currentPreset.id,
      options: chosenOptions(this.options, this.values, this.currentPreset.game),
      private: form.querySelector('input[name="visibility"]:checked').value === "private",
      rated: form.querySelector("#create-rated").checked,
      hints: form.querySelector("#create-hints").checked,
      bots,
    };
    const pace = form.querySelector("#create-timer").value;
    if (pace.startsWith("turn:")) Object.assign(body, { pace: "turn", move_seconds: Number(pace.slice(5)) });
    else body.turn_timer = Number(pace);
    try {
      const out = await api("/api/tables", { method: "POST", body });
      const setup = { autoStart: form.querySelector("#create-autostart").checked };
      setPref("lastCreate", {
        preset: body.preset, private: body.private, timer: body.pace ? pace : body.turn_timer, autoStart: setup.autoStart,
        seats: Object.fromEntries([...this.seatsBox.querySelectorAll("select[data-seat]")].map((s) => [s.dataset.seat, s.value])),
      });
      sessionStorage.setItem(`hearts.setup.${out.table.id}`, JSON.stringify(setup));
      location.href = out.invite_path || `/?table=${encodeURIComponent(out.table.id)}`;
    } catch (e) {
      error.textContent = e.message;
      button.disabled = false;
    }
  }

  // -- finished games ------------------------------------------------------------------------

  async loadMyGames() {
    const player = session.player;
    if (!player) {
      this.gamesBox.hidden = true;
      return;
    }
    let data;
    try {
      data = await api(`/api/players/${encodeURIComponent(player.id)}/games?limit=10`);
    } catch {
      this.gamesBox.hidden = true;
      return;
    }
    const games = (data && data.games) || [];
    if (!games.length) {
      this.gamesBox.hidden = true;
      return;
    }
    this.gamesBox.hidden = false;
    fill(
      this.gamesBox,
      h("h2", { id: "games-title" }, t("lobby.finished_games")),
      h("ul", { class: "game-list" }, games.map((g) => {
        const info = this.presetInfo(g.variant);
        const when = g.ended_at ? formatDateTime(g.ended_at) : "";
        const names = g.seats.map((s) => s.name || (s.bot_level ? t("lobby.computer", { level: botLabel(s.bot_level) }) : t("common.player"))).join(", ");
        const status = g.status === "finished" ? t("lobby.finished") : g.status === "abandoned" ? t("lobby.abandoned") : g.status;
        return h("li", {},
          h("a", { href: `/?replay=${g.id}` }, info ? presetLabel(info) : g.variant),
          h("span", { class: "meta" }, ` \u00b7 ${status} \u00b7 ${when} \u00b7 ${names}`));
      })),
    );
  }
}

// The parts (static/js/lobby_identity.js) are classes whose methods become the lobby's own,
// as the table page's parts do (static/js/table.js).
for (const part of [IdentityPart]) {
  for (const name of Object.getOwnPropertyNames(part.prototype)) {
    if (name === "constructor") continue;
    if (Object.prototype.hasOwnProperty.call(Lobby.prototype, name)) throw new Error(`lobby: ${name} defined twice`);
    Object.defineProperty(Lobby.prototype, name, Object.getOwnPropertyDescriptor(part.prototype, name));
  }
}
