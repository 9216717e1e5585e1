// The lobby's friends panel: friends with presence (join or watch their table in one
// click), requests, invitations to a seat (the page title says so, and a sound if chosen),
// add a friend by account name or friend link, people played with recently, appear offline.
// Fed by the lobby socket's friends / presence / invite / invite_gone messages
// (docs/protocol.md "Friends"); changes go through /api/friends.

import { ApiError, api, session } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { onFriendMessage, tableName } from "./alerts.js";

const AWAY_AFTER_MS = 60_000; // a hidden page counts as away after a minute
const SOUND_KEY = "hearts.inviteSound";

const STATE_WORDS = {
  offline: "offline",
  lobby: "in the lobby",
  away: "away",
  watching: "watching a table",
  playing: "playing",
};

export class FriendsPanel {
  constructor(send) {
    this.send = send; // sends a message on the lobby socket
    this.box = h("section", { class: "panel friends", "aria-labelledby": "friends-title" });
    this.data = null; // the last "friends" message
    this.invites = new Map();
    this.recent = [];
    this.baseTitle = document.title;
    this.linkToken = new URLSearchParams(location.search).get("friend");
    this.awayTimer = null;
    this.onVisibility = () => {
      clearTimeout(this.awayTimer);
      if (document.hidden) {
        this.awayTimer = setTimeout(() => this.send({ type: "away", away: true }), AWAY_AFTER_MS);
      } else {
        this.send({ type: "away", away: false });
      }
    };
    document.addEventListener("visibilitychange", this.onVisibility);
  }

  destroy() {
    document.removeEventListener("visibilitychange", this.onVisibility);
    clearTimeout(this.awayTimer);
    document.title = this.baseTitle;
  }

  /** A lobby socket message; true when it was one of ours. */
  onMessage(msg) {
    onFriendMessage(msg); // the banner at the top of the page (static/js/alerts.js)
    if (msg.type === "friends") {
      this.data = msg;
      this.invites = new Map((msg.invites || []).map((i) => [i.id, i]));
      this.loadRecent();
    } else if (msg.type === "presence") {
      const friend = this.data && this.data.friends.find((f) => f.id === msg.player_id);
      if (!friend) return true;
      friend.presence = { state: msg.state, table: msg.table };
    } else if (msg.type === "invite") {
      this.invites.set(msg.invite.id, msg.invite);
      this.ring();
    } else if (msg.type === "invite_gone") {
      this.invites.delete(msg.id);
    } else {
      return false;
    }
    this.render();
    return true;
  }

  ring() {
    if (localStorage.getItem(SOUND_KEY) !== "1") return;
    try {
      const audio = new AudioContext();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 660;
      gain.gain.setValueAtTime(0.15, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.4);
    } catch {
      // no sound: the title and the list still say it
    }
  }

  async loadRecent() {
    try {
      this.recent = (await api("/api/friends/recent")).players;
    } catch {
      this.recent = [];
    }
    this.render();
  }

  async act(path, body, done) {
    try {
      const result = await api(path, { method: "POST", body });
      if (done) done(result);
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
  }

  render() {
    const invites = [...this.invites.values()];
    document.title = invites.length
      ? `(${invites.length}) Invitation \u2013 Hearts Online`
      : this.baseTitle;
    const parts = [h("h2", { id: "friends-title" }, "Friends")];
    if (!session.player) {
      parts.push(h("p", { class: "meta" }, "Sign in (a guest name is enough) to add friends."));
      fill(this.box, ...parts);
      return;
    }
    if (this.linkToken) parts.push(this.linkOffer());
    if (invites.length) {
      parts.push(h("h3", {}, "Invitations"),
        h("ul", { class: "friend-list invites", "aria-live": "polite" },
          invites.map((i) => this.inviteItem(i))));
    }
    const data = this.data;
    if (!data) {
      // The same frame as with the lists, so that little moves when they come.
      parts.push(h("p", { class: "meta" }, "Loading your friends\u2026"), this.addForm(), this.settings());
      fill(this.box, ...parts);
      return;
    }
    if (data.incoming.length) {
      parts.push(h("h3", {}, "Friend requests"),
        h("ul", { class: "friend-list" }, data.incoming.map((p) => h("li", {},
          h("span", { class: "friend-name" }, p.name),
          h("button", { type: "button", class: "btn small", onclick: () => this.act(`/api/friends/requests/${p.id}/accept`) }, "Accept"),
          h("button", { type: "button", class: "btn small ghost", onclick: () => this.act(`/api/friends/requests/${p.id}/decline`) }, "Decline")))));
    }
    parts.push(data.friends.length
      ? h("ul", { class: "friend-list", "aria-label": "Your friends" }, data.friends.map((f) => this.friendItem(f)))
      : h("p", { class: "meta" }, "No friends yet: add one by account name, or share your friend link."));
    if (data.outgoing.length) {
      parts.push(h("p", { class: "meta" }, "Waiting for an answer: ",
        data.outgoing.map((p) => h("span", { class: "waiting" }, p.name, " ",
          h("button", { type: "button", class: "btn small ghost", onclick: () => this.act(`/api/friends/requests/${p.id}/cancel`) }, `Cancel request to ${p.name}`)))));
    }
    parts.push(this.addForm());
    const recent = this.recent.filter((p) => !p.friend);
    if (recent.length) {
      parts.push(h("h3", {}, "Played with recently"),
        h("ul", { class: "friend-list" }, recent.map((p) => h("li", {},
          h("span", { class: "friend-name" }, p.name),
          p.requested
            ? h("span", { class: "meta" }, "request sent")
            : h("button", {
              type: "button", class: "btn small",
              onclick: () => this.act("/api/friends/requests", { player_id: p.id }, () => { p.requested = true; this.render(); }),
            }, `Add ${p.name}`)))));
    }
    parts.push(this.settings());
    if (data.blocked.length) {
      parts.push(h("details", {}, h("summary", {}, `Blocked (${data.blocked.length})`),
        h("ul", { class: "friend-list" }, data.blocked.map((p) => h("li", {},
          h("span", { class: "friend-name" }, p.name),
          h("button", { type: "button", class: "btn small ghost", onclick: () => this.act(`/api/friends/blocks/${p.id}/remove`) }, `Unblock ${p.name}`))))));
    }
    fill(this.box, ...parts);
  }

  inviteItem(invite) {
    return h("li", { class: "invite-item" },
      h("span", {}, h("strong", {}, invite.from.name), ` invites you to a table: ${tableName(invite)}`),
      h("button", {
        type: "button", class: "btn small primary",
        onclick: () => this.act(`/api/friends/invites/${invite.id}/accept`, undefined, (r) => { location.href = r.path; }),
      }, "Join"),
      h("button", {
        type: "button", class: "btn small ghost",
        onclick: () => this.act(`/api/friends/invites/${invite.id}/decline`, undefined, () => { this.invites.delete(invite.id); this.render(); }),
      }, "Decline"));
  }

  friendItem(friend) {
    const presence = friend.presence || { state: "offline", table: null };
    const table = presence.table;
    const buttons = [];
    if (table && table.joinable) {
      buttons.push(h("button", {
        type: "button", class: "btn small primary",
        onclick: () => this.act("/api/friends/join", { table_id: table.id }, (r) => { location.href = r.path; }),
      }, `Join ${friend.name}`));
    }
    if (table && table.watchable) {
      buttons.push(h("a", { class: "btn small", href: `/?table=${encodeURIComponent(table.id)}` }, `Watch ${friend.name}`));
    }
    return h("li", { class: `friend state-${presence.state}` },
      h("span", { class: "presence-dot", "aria-hidden": "true" }),
      h("span", { class: "friend-name" }, friend.name),
      h("span", { class: "meta" }, STATE_WORDS[presence.state] || presence.state),
      ...buttons,
      h("span", { class: "friend-actions" },
        h("button", { type: "button", class: "btn small ghost", "aria-label": `Remove ${friend.name}`, onclick: () => this.act(`/api/friends/${friend.id}/remove`) }, "Remove"),
        h("button", {
          type: "button", class: "btn small ghost", "aria-label": `Block ${friend.name}`,
          onclick: () => {
            if (confirm(`Block ${friend.name}? They can no longer send you requests, invite you, chat to you or see when you are online.`)) {
              this.act("/api/friends/blocks", { player_id: friend.id });
            }
          },
        }, "Block")));
  }

  addForm() {
    const input = h("input", { id: "friend-name", name: "friend", autocomplete: "off", maxlength: "24", required: true });
    const linkBox = h("p", { class: "meta friend-link" });
    return h("div", { class: "add-friend" },
      h("form", {
        class: "row",
        onsubmit: (event) => {
          event.preventDefault();
          const name = input.value.trim();
          if (!name) return;
          this.act("/api/friends/requests", { name }, (r) => {
            input.value = "";
            toast(r.status === "friends" ? `You and ${r.player.name} are friends.` : `Request sent to ${r.player.name}.`);
          });
        },
      }, h("label", { for: "friend-name" }, "Add a friend by account name"), input,
      h("button", { type: "submit", class: "btn small" }, "Send request")),
      h("button", {
        type: "button", class: "btn small ghost",
        onclick: async () => {
          try {
            const link = await api("/api/friends/link");
            const url = new URL(link.path, location.origin).href;
            fill(linkBox, "Your friend link: ", h("input", { readonly: true, value: url, "aria-label": "Your friend link", onfocus: (e) => e.target.select() }));
            if (navigator.clipboard) navigator.clipboard.writeText(url).then(() => toast("Friend link copied."), () => {});
          } catch (error) {
            toast(error.message, "error");
          }
        },
      }, "Share my friend link"),
      linkBox);
  }

  linkOffer() {
    return h("div", { class: "friend-offer", role: "status" },
      h("p", {}, "You opened someone's friend link."),
      h("button", {
        type: "button", class: "btn small primary",
        onclick: () => this.act("/api/friends/requests", { link: this.linkToken }, (r) => {
          this.linkToken = null;
          history.replaceState(null, "", "/");
          toast(r.status === "friends" ? `You and ${r.player.name} are friends.` : `Request sent to ${r.player.name}.`);
          this.render();
        }),
      }, "Send a friend request"));
  }

  settings() {
    const hidden = h("input", {
      type: "checkbox", id: "appear-offline", checked: Boolean(this.data && this.data.appear_offline),
      onchange: () => this.act("/api/friends/settings", { appear_offline: hidden.checked }),
    });
    const sound = h("input", {
      type: "checkbox", id: "invite-sound", checked: localStorage.getItem(SOUND_KEY) === "1",
      onchange: () => localStorage.setItem(SOUND_KEY, sound.checked ? "1" : "0"),
    });
    return h("div", { class: "friend-settings" },
      h("label", { class: "check" }, hidden, " Appear offline"),
      h("label", { class: "check" }, sound, " Sound for invitations"));
  }
}
