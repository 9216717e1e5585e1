// The invitations banner: an invitation to a seat or a friend request shows at the top of
// whatever page the player is on (the lobby, a table, a replay...), over the page (fixed, so
// nothing moves when it comes), with the table's name ("Hearts, 4 players, private, 2 seats
// free"), who sent it, and Join / Decline (Accept / Decline for a request) in one tap.
// Fed by the lobby socket's friend messages (friends / invite / invite_gone,
// docs/protocol.md "Friends"): on the lobby page through the lobby's own socket
// (static/js/friends.js hands them over), elsewhere through a socket of its own opened with
// /ws/lobby?tables=0 (friend messages without the table list). Never shows an invitation's
// path (a private table's code): Join asks the server, which answers with it.

import { ApiError, api, session } from "./api.js";
import { addStylesheet, h, fill, toast } from "./dom.js";
import { has, t, tNodes } from "./i18n.js";
import { LiveSocket } from "./socket.js";

const invites = new Map(); // invitation id -> invitation
let incoming = []; // friend requests waiting for an answer: [{id, name}]
const hidden = new Set(); // items the player put away ("Later") on this page
let own = null; // this module's socket, on pages other than the lobby
let wanted = false; // whether this page needs its own socket

/** "Hearts, 4 players, private, 2 seats free": an invitation's table in words. */
export function tableName(invite) {
  const game = `alerts.game.${invite.game}`;
  const parts = [has(game) ? t(game) : has(`preset.${invite.preset}`) ? t(`preset.${invite.preset}`) : invite.preset];
  if (invite.players) parts.push(t("alerts.players", { count: invite.players }));
  parts.push(invite.private ? t("alerts.private") : t("alerts.public"));
  if (typeof invite.free === "number") parts.push(t("alerts.free", { count: invite.free }));
  return parts.join(", ");
}

/** A friend message from a lobby socket (the lobby's or ours); other messages are ignored. */
export function onFriendMessage(msg) {
  // The page's other parts follow too (the game-over panel's "request sent": table/befriend.js).
  window.dispatchEvent(new CustomEvent("hearts:friends", { detail: msg }));
  if (msg.type === "friends") {
    invites.clear();
    for (const invite of msg.invites || []) invites.set(invite.id, invite);
    incoming = msg.incoming || [];
  } else if (msg.type === "invite") {
    invites.set(msg.invite.id, msg.invite);
    hidden.delete(`i:${msg.invite.id}`);
  } else if (msg.type === "invite_gone") {
    invites.delete(msg.id);
  } else {
    return;
  }
  render();
}

async function act(path, done) {
  try {
    done(await api(path, { method: "POST" }));
  } catch (error) {
    toast(error instanceof ApiError ? error.message : String(error), "error");
  }
}

function item(key, label, text, buttons) {
  // role="alert": a screen reader says it as it comes, wherever the focus is.
  return h("div", { class: "alert-item", role: "alert", "aria-label": label, "data-key": key },
    h("p", { class: "alert-text" }, ...text),
    h("div", { class: "alert-actions" }, ...buttons,
      h("button", {
        type: "button", class: "btn ghost", "aria-label": t("alerts.later_label", { label }),
        onclick: () => { hidden.add(key); render(); },
      }, t("alerts.later"))));
}

function inviteItem(invite) {
  const from = invite.from.name;
  return item(`i:${invite.id}`, t("alerts.invitation_from", { name: from }),
    tNodes(t("alerts.invites_you"), { name: h("strong", {}, from), table: h("span", { class: "alert-table" }, tableName(invite)) }),
    [
      h("button", {
        type: "button", class: "btn primary",
        onclick: () => act(`/api/friends/invites/${invite.id}/accept`, (r) => {
          invites.delete(invite.id);
          location.href = r.path;
        }),
      }, t("alerts.join")),
      h("button", {
        type: "button", class: "btn",
        onclick: () => act(`/api/friends/invites/${invite.id}/decline`, () => {
          invites.delete(invite.id);
          render();
        }),
      }, t("alerts.decline")),
    ]);
}

function requestItem(person) {
  const answer = (how, words) => act(`/api/friends/requests/${person.id}/${how}`, () => {
    incoming = incoming.filter((p) => p.id !== person.id);
    render();
    toast(words);
  });
  return item(`r:${person.id}`, t("alerts.request_from", { name: person.name }),
    tNodes(t("alerts.wants_friend"), { name: h("strong", {}, person.name) }),
    [
      h("button", { type: "button", class: "btn primary", onclick: () => answer("accept", t("alerts.now_friends", { name: person.name })) }, t("alerts.accept")),
      h("button", { type: "button", class: "btn", onclick: () => answer("decline", t("alerts.declined", { name: person.name })) }, t("alerts.decline")),
    ]);
}

function render() {
  const box = document.getElementById("friend-alerts");
  if (!box) return;
  box.setAttribute("aria-label", t("alerts.region"));
  const items = [
    ...[...invites.values()].reverse().filter((i) => !hidden.has(`i:${i.id}`)).map(inviteItem),
    ...incoming.filter((p) => !hidden.has(`r:${p.id}`)).map(requestItem),
  ];
  // The newest three; the lobby's Friends panel lists them all.
  fill(box, ...items.slice(0, 3));
  box.hidden = items.length === 0;
}

function sync() {
  const need = wanted && Boolean(session.player);
  if (need && !own) {
    own = new LiveSocket("/ws/lobby?tables=0", { onMessage: onFriendMessage });
    own.connect();
  } else if (!need && own) {
    own.close();
    own = null;
  }
}

/** Called by app.js for each page: the lobby page feeds the banner through its own socket
 *  (``ownSocket`` false); any other page opens one. */
export function followFriends(ownSocket) {
  wanted = ownSocket;
  if (!ownSocket) {
    invites.clear();
    incoming = [];
    render();
  }
  sync();
}

/** The banner's place, once, by app.js: after the top bar, fixed over the page. */
export function setupFriendAlerts() {
  addStylesheet("alerts-css", new URL("../css/alerts.css", import.meta.url).href);
  const main = document.getElementById("main");
  if (main && !document.getElementById("friend-alerts")) {
    main.before(h("div", {
      id: "friend-alerts", class: "friend-alerts", role: "region",
      "aria-label": t("alerts.region"), hidden: true,
    }));
  }
  window.addEventListener("hearts:identity", sync);
  window.addEventListener("hearts:language", render);
}
