"""static/js/socket.js under Node (issue 20): a socket closed with 1012 "service restart" (an
instance shutting down) comes back at once, spread over half a second, whatever its backoff;
other drops keep the growing backoff. Timers and WebSocket are stand-ins that record delays."""

from __future__ import annotations

from pathlib import Path

from tests.static.node import JS_DIR, run_node

SOCKET_JS = JS_DIR / "socket.js"

SCRIPT = r"""
const delays = [];
globalThis.location = { protocol: "http:", host: "hearts.test" };
globalThis.window = { addEventListener() {}, removeEventListener() {} };
globalThis.document = { getElementById: () => null };
globalThis.setTimeout = (fn, ms) => { delays.push(ms); return 0; };
globalThis.clearTimeout = () => {};
globalThis.setInterval = () => 0;
globalThis.clearInterval = () => {};
const sockets = [];
class FakeSocket {
  constructor(url) { this.url = url; this.handlers = {}; sockets.push(this); }
  addEventListener(type, fn) { (this.handlers[type] ||= []).push(fn); }
  fire(type, event = {}) { for (const fn of this.handlers[type] || []) fn(event); }
  close() {}
  send() {}
}
globalThis.WebSocket = FakeSocket;
const { LiveSocket } = await import(process.argv[2]);

const live = new LiveSocket("/ws/tables/t1", {});
live.connect();
const out = { restart: [], dropped: [], after_failures: null, restart_after_failures: null };
for (let i = 0; i < 200; i++) {  // open, then the server restarts: 1012
  sockets.at(-1).fire("open");
  sockets.at(-1).fire("close", { code: 1012 });
  out.restart.push(delays.at(-1));
  live.connect();
}
for (let i = 0; i < 50; i++) {  // open, then a dropped connection: 1006
  sockets.at(-1).fire("open");
  sockets.at(-1).fire("close", { code: 1006 });
  out.dropped.push(delays.at(-1));
  live.connect();
}
for (let i = 0; i < 4; i++) {  // four failed attempts in a row: the backoff grows
  sockets.at(-1).fire("close", { code: 1006 });
  live.connect();
}
sockets.at(-1).fire("close", { code: 1006 });
out.after_failures = delays.at(-1);
live.connect();
sockets.at(-1).fire("close", { code: 1012 });  // a restart now: back at once all the same
out.restart_after_failures = delays.at(-1);
out.urls = [...new Set(sockets.map((s) => s.url))];
console.log(JSON.stringify(out));
"""


def test_a_service_restart_reconnects_at_once_with_jitter(tmp_path: Path) -> None:
    out = run_node(tmp_path, SCRIPT, SOCKET_JS.as_uri())
    restart, dropped = out["restart"], out["dropped"]
    assert all(0 <= d < 500 for d in restart)
    assert max(restart) - min(restart) > 250, "spread, so an instance's sockets do not all land"
    assert sum(restart) / len(restart) < 350
    assert all(300 <= d < 500 for d in dropped)  # the usual first retry
    assert out["after_failures"] >= 300 * 2**4  # the usual backoff after failures
    assert out["restart_after_failures"] < 500
    assert out["urls"] == ["ws://hearts.test/ws/tables/t1"]
