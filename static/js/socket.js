// A WebSocket that comes back by itself, and the visible note when the connection drops.

import { wsUrl } from "./api.js";

// Close codes the server uses for "do not come back" (docs/protocol.md).
const FINAL_CLOSE = {
  4400: "protocol",
  4401: "bad_token",
  4403: "forbidden",
  4404: "unknown_table",
  4429: "too_many_sockets",
  4008: "policy",
};

// 1012 "Service Restart": the server is shutting down (a deploy, a scale-in) and the others
// serve the same tables. Come back at once, spread over a short random time so the sockets
// of a whole instance do not all arrive in the same millisecond.
const SERVICE_RESTART = 1012;
const RESTART_SPREAD_MS = 500;

const PING_EVERY_MS = 20000;
const SILENT_LIMIT_MS = 45000;

/** The one connection note at the top of the page ("Connection lost…", "Reconnected"). */
const note = {
  hideTimer: null,
  show(kind, text) {
    const el = document.getElementById("conn-note");
    if (!el) return;
    clearTimeout(this.hideTimer);
    el.className = `conn-note ${kind}`;
    el.textContent = text;
    el.hidden = false;
    if (kind === "ok") {
      this.hideTimer = setTimeout(() => {
        el.hidden = true;
      }, 4000);
    }
  },
  hide() {
    const el = document.getElementById("conn-note");
    if (el) el.hidden = true;
  },
};

export class LiveSocket {
  /**
   * path: "/ws/tables/ID"; onOpen(socket) sends the hello; onMessage(msg); onFinal(code, reason)
   * when the server closes for good.
   */
  constructor(path, { onOpen, onMessage, onFinal, onStatus } = {}) {
    this.path = path;
    this.onOpen = onOpen || (() => {});
    this.onMessage = onMessage || (() => {});
    this.onFinal = onFinal || (() => {});
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.stopped = false;
    this.attempt = 0;
    this.lost = false;
    this.lastHeard = Date.now();
    this.pingTimer = null;
    this.retryTimer = null;
    this.lastError = null;
    this._onOnline = () => {
      if (this.lost) this.reconnectNow();
    };
    window.addEventListener("online", this._onOnline);
  }

  connect() {
    if (this.stopped) return;
    let ws;
    try {
      ws = new WebSocket(wsUrl(this.path));
    } catch {
      this._scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      this.attempt = 0;
      this.onOpen(this);
      this._startPing();
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "error" && !msg.id) this.lastError = msg;
      if (msg.type === "welcome" || msg.type === "lobby") {
        if (this.lost) {
          this.lost = false;
          note.show("ok", "Reconnected.");
          this.onStatus("back");
        } else {
          this.onStatus("open");
        }
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this._stopPing();
      this.ws = null;
      if (this.stopped) return;
      const final = FINAL_CLOSE[event.code];
      if (final) {
        this.stopped = true;
        note.hide();
        this.onFinal(final, this.lastError);
        return;
      }
      if (!this.lost) {
        this.lost = true;
        this.onStatus("lost");
      }
      note.show("warn", "Connection lost. Reconnecting\u2026 (your seat is kept)");
      this._scheduleRetry(event.code === SERVICE_RESTART);
    });
  }

  _scheduleRetry(restart = false) {
    clearTimeout(this.retryTimer);
    const delay = restart
      ? Math.random() * RESTART_SPREAD_MS
      : Math.min(5000, 300 * 2 ** this.attempt) + Math.random() * 200;
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    clearTimeout(this.retryTimer);
    if (!this.ws) this.connect();
  }

  _startPing() {
    this._stopPing();
    this.pingTimer = setInterval(() => {
      if (!this.ws) return;
      if (Date.now() - this.lastHeard > SILENT_LIMIT_MS) {
        // Nothing heard for too long: treat the socket as dead and start again.
        try {
          this.ws.close();
        } catch {
          /* already closing */
        }
        return;
      }
      this.send({ type: "ping", t: Date.now() });
    }, PING_EVERY_MS);
  }

  _stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  send(msg) {
    if (!this.isOpen) return false;
    try {
      this.ws.send(JSON.stringify(msg));
    } catch {
      return false; // closed between the check and the send: the close event follows
    }
    return true;
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this._stopPing();
    window.removeEventListener("online", this._onOnline);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try {
        ws.close();
      } catch {
        /* ignore */
      }
    }
    note.hide();
  }
}

export function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}
