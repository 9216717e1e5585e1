// Watching a replay together: a shared room on the replay page (/?replay=ID&room=R), opened
// there or from the table's game-over panel (openRoomButton). One member drives: their steps go
// to the server (POST /api/replay-rooms/R/position, with the room's version), and everyone
// else's page follows by long-polling GET ?after=VERSION; the driver can hand control to
// another member; the room has a chat. The driver also names the seat whose game review the
// room shows (POST .../review): every page then reads that review itself and shows its marks
// on the position the driver shows. The room holds no card and no review: each page reads the
// replay (GET /api/games/{id}/replay) and the review under their own access rules.
// Words: the catalog's room.* and, for the server's refusals, error.<code> (api.js).
// docs/review.md "Watching a replay together", docs/protocol.md "Replay rooms".

import { api, session } from "./api.js";
import { addStylesheet, h, fill, setText, toast } from "./dom.js";
import { loadSection, t } from "./i18n.js";

// This module's words (<lang>.room.json), before anything of it is drawn.
await loadSection("room");

const RETRY_MS = 2000;

/** The replay page's room section: the "Watch together" button, or the room once there is
 *  one (``&room=`` in the page's URL). */
export function roomSection(page) {
  addStylesheet("replay-room-css", new URL("../css/replay_room.css", import.meta.url).href);
  const section = h("section", { class: "panel room-panel", "aria-labelledby": "room-title" });
  const roomId = new URLSearchParams(window.location.search).get("room");
  if (roomId) {
    page.room = new ReplayRoom(page, section, roomId);
  } else {
    offer(page, section);
  }
  return section;
}

function signedIn() {
  return !!session.player;
}

/** Open a room for an ended game at (hand, step), showing ``reviewSeat``'s review (null: the
 *  opener's own seat); answers {room, link}. */
function openRoom(gameId, { share = null, hand = 0, step = 0, reviewSeat = null } = {}) {
  const body = { game_id: Number(gameId), hand, step };
  if (share) body.share = share;
  if (reviewSeat !== null) body.review_seat = reviewSeat;
  return api("/api/replay-rooms", { method: "POST", body });
}

/** "Watch together" on the table's game-over panel: opens a room for the finished game at its
 *  first hand and goes to it (the replay page with &room=); the others join by its link. */
export function openRoomButton(gameId) {
  const button = h("button", {
    type: "button", class: "btn", id: "open-room",
    onclick: async () => {
      button.disabled = true;
      try {
        const made = await openRoom(gameId);
        window.location.assign(made.link);
      } catch (error) {
        button.disabled = false;
        toast(error.message, "error");
      }
    },
  }, t("room.watch_together"));
  return button;
}

function offer(page, section) {
  const status = h("span", { class: "hint", "aria-live": "polite" });
  const open = async (button) => {
    if (!signedIn()) {
      setText(status, t("room.sign_in"));
      return;
    }
    button.disabled = true;
    try {
      const reviewSeat = page.reviewPanel ? page.reviewPanel.seat : null;
      const made = await openRoom(page.gameId, { share: page.share, hand: page.hand, step: page.step, reviewSeat });
      const url = new URL(window.location.href);
      url.searchParams.set("room", made.room.id);
      window.history.replaceState(window.history.state, "", url.pathname + url.search);
      page.room = new ReplayRoom(page, section, made.room.id, made.room);
    } catch (error) {
      button.disabled = false;
      setText(status, error.message);
    }
  };
  const button = h("button", { type: "button", class: "btn primary", id: "watch-together", onclick: (e) => open(e.currentTarget) }, t("room.watch_together"));
  fill(section,
    h("h2", { id: "room-title" }, t("room.watch_together")),
    h("p", { class: "room-offer" }, t("room.offer"), " ", button, " ", status));
}

export class ReplayRoom {
  constructor(page, section, roomId, created = null) {
    this.page = page;
    this.section = section;
    this.id = roomId;
    this.room = null;
    this.version = 0;
    this.stopped = false;
    this.sending = false;
    this.wasDriving = false;
    this.review = null; // the room's review choice last applied: {seat, asked}
    this.me = session.player ? session.player.id : null;
    this.build();
    if (created) {
      this.apply(created);
      this.follow();
    } else {
      this.join();
    }
  }

  path(tail = "") {
    return `/api/replay-rooms/${encodeURIComponent(this.id)}${tail}`;
  }

  build() {
    const e = (this.el = {});
    e.status = h("p", { class: "room-status", id: "room-status", "aria-live": "polite" }, t("room.joining"));
    e.link = h("input", { type: "text", readonly: true, id: "room-link", class: "share-link", "aria-label": t("room.link_label") });
    e.copied = h("span", { class: "hint", "aria-live": "polite" });
    e.members = h("ul", { class: "room-members", id: "room-members", "aria-label": t("room.members_label") });
    e.handTo = h("select", { id: "room-hand-to" });
    e.handBtn = h("button", { type: "button", class: "btn", id: "room-hand-over", onclick: () => this.handOver() }, t("room.hand_over"));
    e.handOver = h("div", { class: "room-hand-over row", hidden: true },
      h("label", { for: "room-hand-to" }, t("room.hand_to")), e.handTo, e.handBtn);
    // A follower takes control when the driver has left (the server refuses while they are there).
    e.take = h("button", { type: "button", class: "btn", id: "room-take", hidden: true, onclick: () => this.take() }, t("room.take"));
    e.chatLog = h("ul", { class: "chat-log room-chat-log", id: "room-chat-log", tabindex: "0", "aria-label": t("room.chat_label"), "aria-live": "polite" });
    e.chatInput = h("input", { type: "text", id: "room-chat-input", maxlength: "300", autocomplete: "off", "aria-label": t("room.message_label") });
    e.chatForm = h("form", { class: "chat-form room-chat-form", onsubmit: (event) => { event.preventDefault(); this.say(); } },
      e.chatInput, h("button", { type: "submit", class: "btn", id: "room-chat-send" }, t("room.send")));
    fill(this.section,
      h("h2", { id: "room-title" }, t("room.title")),
      e.status,
      h("div", { class: "room-grid" },
        h("div", { class: "room-people" },
          h("p", { class: "room-link-row" }, e.link, " ",
            h("button", { type: "button", class: "btn", id: "room-link-copy", onclick: () => this.copy() }, t("common.copy")), " ", e.copied),
          e.members, e.handOver, e.take),
        h("div", { class: "room-chat" }, e.chatLog, e.chatForm)));
    this.updateLink();
  }

  async join() {
    if (!signedIn()) {
      setText(this.el.status, t("room.sign_in_link"));
      return;
    }
    try {
      const joined = await api(this.path("/join"), { method: "POST", body: this.page.share ? { share: this.page.share } : {} });
      this.apply(joined.room);
      this.follow();
    } catch (error) {
      this.stopped = true;
      setText(this.el.status, error.status === 404 ? t("room.gone") : error.message);
    }
  }

  async follow() {
    while (!this.stopped) {
      try {
        const got = await api(this.path(`?after=${this.version}`));
        if (!this.stopped) this.apply(got.room);
      } catch (error) {
        if (this.stopped) return;
        if (error.status === 404 || error.status === 403) {
          this.stopped = true;
          setText(this.el.status, t("room.closed"));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  destroy() {
    this.stopped = true;
  }

  driving() {
    return !!this.room && this.room.driver === this.me;
  }

  /** The replay page asks before a step of its own: only the driver steps. */
  mayStep() {
    return !this.room || this.driving();
  }

  nameOf(id) {
    const m = this.room.members.find((x) => x.id === id);
    return m ? m.name : t("room.someone");
  }

  apply(room) {
    if (this.room && room.version <= this.version) return;
    this.room = room;
    this.version = room.version;
    const e = this.el;
    const driving = this.driving();
    setText(e.status, driving ? t("room.you_drive") : t("room.follows", { name: this.nameOf(room.driver) }));
    this.section.classList.toggle("following", !driving);
    fill(e.members, room.members.map((m) => h("li", { class: m.id === room.driver ? "driver" : "" },
      m.id === this.me ? t("room.you", { name: m.name }) : m.name,
      m.id === room.driver ? h("span", { class: "room-badge" }, t("room.driving")) : null)));
    const others = room.members.filter((m) => m.id !== this.me);
    e.handOver.hidden = !driving || others.length === 0;
    e.take.hidden = driving;
    const chosen = e.handTo.value;
    fill(e.handTo, others.map((m) => h("option", { value: m.id, selected: m.id === chosen }, m.name)));
    const atBottom = e.chatLog.scrollHeight - e.chatLog.scrollTop - e.chatLog.clientHeight < 24;
    fill(e.chatLog, room.chat.map((line) => h("li", { class: line.player_id === this.me ? "chat-line mine" : "chat-line" },
      h("span", { class: "chat-name" }, line.name), ": ", line.text)));
    if (atBottom) e.chatLog.scrollTop = e.chatLog.scrollHeight;
    this.followReview(room.review);
    const p = room.position;
    const becameDriver = driving && !this.wasDriving;
    this.wasDriving = driving;
    if (!driving && (p.hand !== this.page.hand || p.step !== this.page.step)) this.page.show(p.hand, p.step);
    else if (becameDriver) this.page.render(); // the step buttons come back
    else this.rendered();
  }

  /** The review the room shows: a new seat, or the same one asked for again (``asked``), and
   *  this page's review panel reads it (review.js: the seat's stored review, its progress
   *  followed while it is computed). The first time, only a seat other than the panel's own. */
  followReview(review) {
    const panel = this.page.reviewPanel;
    if (!review || !panel) return;
    const last = this.review;
    this.review = { seat: review.seat, asked: review.asked };
    if (last && last.seat === review.seat && last.asked === review.asked) return;
    if (panel.seat !== review.seat) panel.choose(review.seat);
    else if (last && !this.driving()) panel.load(true); // asked for again: read it again
    else panel.lockForRoom();
  }

  /** The driver chose a seat's review, or asked for one: the room shows it to everyone. */
  async reviewChosen(seat) {
    if (!this.room || !this.driving()) return;
    try {
      this.apply((await api(this.path("/review"), { method: "POST", body: { seat } })).room);
    } catch (error) {
      toast(error.message, "error");
    }
  }

  /** After each drawing of the replay: followers' step buttons (and the review's choices) off,
   *  the link's position kept current, and the driver's position sent. */
  rendered() {
    if (!this.room) return;
    if (!this.driving()) {
      for (const el of this.page.root.querySelectorAll(".replay-controls button, .replay-controls select")) el.disabled = true;
    } else {
      this.page.el.handSelect.disabled = false;
    }
    if (this.page.reviewPanel) this.page.reviewPanel.lockForRoom();
    this.updateLink();
    if (this.driving()) this.send();
  }

  updateLink() {
    const url = new URL(window.location.href);
    url.searchParams.set("room", this.id);
    url.searchParams.set("hand", String(this.page.hand + 1));
    url.searchParams.set("trick", String(this.page.step));
    if (!url.searchParams.get("share") && this.page.data && this.page.data.game && this.page.data.game.share_token) {
      url.searchParams.set("share", this.page.data.game.share_token);
    }
    window.history.replaceState(window.history.state, "", url.pathname + url.search);
    this.el.link.value = url.href;
  }

  async send() {
    if (this.sending || !this.driving()) return;
    const p = this.room.position;
    const hand = this.page.hand;
    const step = this.page.step;
    if (p.hand === hand && p.step === step) return;
    this.sending = true;
    try {
      const moved = await api(this.path("/position"), { method: "POST", body: { hand, step, version: this.version } });
      this.apply(moved.room);
    } catch (error) {
      if (error.code === "stale_version") {
        try {
          this.apply((await api(this.path("?after=0"))).room);
        } catch {
          /* the poll catches up */
        }
      } else if (error.code !== "not_driver") {
        toast(error.message, "error");
        this.sending = false;
        return;
      }
    }
    this.sending = false;
    this.send(); // the driver may have stepped on meanwhile
  }

  async handOver() {
    const to = this.el.handTo.value;
    if (!to) return;
    try {
      this.apply((await api(this.path("/driver"), { method: "POST", body: { player_id: to } })).room);
    } catch (error) {
      toast(error.message, "error");
    }
  }

  async take() {
    try {
      this.apply((await api(this.path("/driver"), { method: "POST", body: { player_id: this.me } })).room);
    } catch (error) {
      toast(error.message, "error");
    }
  }

  async say() {
    const text = this.el.chatInput.value;
    if (!text.trim()) return;
    try {
      const said = await api(this.path("/chat"), { method: "POST", body: { text } });
      this.el.chatInput.value = "";
      this.apply(said.room);
    } catch (error) {
      toast(error.message, "error");
    }
  }

  copy() {
    const field = this.el.link;
    const done = () => setText(this.el.copied, t("common.copied"));
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(field.value).then(done, () => field.select());
    } else {
      field.select();
    }
  }
}
