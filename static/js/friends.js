// The lobby's friends panel: friends with presence (join or watch their table in one
// click), requests, invitations to a seat (the page title says so, and a sound if chosen),
// add a friend by account name or friend link, people played with recently, appear offline.
// Fed by the lobby socket's friends / presence / invite / invite_gone messages
// (docs/protocol.md "Friends"); changes go through /api/friends. Words: the catalog's friends.*
// (i18n.js); the lobby draws the panel again on a change of language.

import { ApiError, api, session } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { onFriendMessage, tableName } from "./alerts.js";
import { t, tNodes } from "./i18n.js";

const AWAY_AFTER_MS = 60_000; // a hidden page counts as away after a minute
const SOUND_KEY = "hearts.inviteSound";

function stateWords(state) {
  const words = {
    offline: t("common.offline"),
    lobby: t("common.in_lobby"),
    away: t("friends.away"),
    watching: t("friends.watching"),
    playing: t("friends.playing"),
  };
  return words[state] || state;
}

/** What the server answered to a friend request, in words. */
function requestDone(r) {
  return r.status === "friends" ? t("alerts.now_friends", { name: r.player.name }) : t("friends.request_sent_to", { name: r.player.name });
}

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
      ? t("friends.page_title", { count: invites.length })
      : this.baseTitle;
    const parts = [h("h2", { id: "friends-title" }, t("friends.title"))];
    if (!session.player) {
      parts.push(h("p", { class: "meta" }, t("friends.sign_in")));
      fill(this.box, ...parts);
      return;
    }
    if (this.linkToken) parts.push(this.linkOffer());
    if (invites.length) {
      parts.push(h("h3", {}, t("friends.invitations")),
        h("ul", { class: "friend-list invites", "aria-live": "polite" },
          invites.map((i) => this.inviteItem(i))));
    }
    const data = this.data;
    if (!data) {
      // The same frame as with the lists, so that little moves when they come.
      parts.push(h("p", { class: "meta" }, t("friends.loading")), this.addForm(), this.settings());
      fill(this.box, ...parts);
      return;
    }
    if (data.incoming.length) {
      parts.push(h("h3", {}, t("friends.requests")),
        h("ul", { class: "friend-list" }, data.incoming.map((p) => h("li", {},
          h("span", { class: "friend-name" }, p.name),
          h("button", { type: "button", class: "btn small", onclick: () => this.act(`/api/friends/requests/${p.id}/accept`) }, t("alerts.accept")),
          h("button", { type: "button", class: "btn small ghost", onclick: () => this.act(`/api/friends/requests/${p.id}/decline`) }, t("alerts.decline"))))));
    }
    parts.push(data.friends.length
      ? h("ul", { class: "friend-list", "aria-label": t("friends.yours") }, data.friends.map((f) => this.friendItem(f)))
      : h("p", { class: "meta" }, t("friends.none")));
    if (data.outgoing.length) {
      parts.push(h("p", { class: "meta" }, t("friends.waiting"), " ",
        data.outgoing.map((p) => h("span", { class: "waiting" }, p.name, " ",
          h("button", { type: "button", class: "btn small ghost", onclick: () => this.act(`/api/friends/requests/${p.id}/cancel`) }, t("friends.cancel", { name: p.name }))))));
    }
    parts.push(this.addForm());
    const recent = this.recent.filter((p) => !p.friend);
    if (recent.length) {
      parts.push(h("h3", {}, t("friends.recent")),
        h("ul", { class: "friend-list" }, recent.map((p) => h("li", {},
          h("span", { class: "friend-name" }, p.name),
          p.requested
            ? h("span", { class: "meta" }, t("friends.request_sent"))
            : h("button", {
              type: "button", class: "btn small",
              onclick: () => this.act("/api/friends/requests", { player_id: p.id }, () => { p.requested = true; this.render(); }),
            }, t("friends.add", { name: p.name }))))));
    }
    parts.push(this.settings());
    if (data.blocked.length) {
      parts.push(h("details", {}, h("summary", {}, t("friends.blocked", { count: data.blocked.length })),
        h("ul", { class: "friend-list" }, data.blocked.map((p) => h("li", {},
          h("span", { class: "friend-name" }, p.name),
          h("button", { type: "button", class: "btn small ghost", onclick: () => this.act(`/api/friends/blocks/${p.id}/remove`) }, t("friends.unblock", { name: p.name })))))));
    }
    fill(this.box, ...parts);
  }

  inviteItem(invite) {
    return h("li", { class: "invite-item" },
      h("span", {}, ...tNodes(t("alerts.invites_you"), { name: h("strong", {}, invite.from.name), table: tableName(invite) })),
      h("button", {
        type: "button", class: "btn small primary",
        onclick: () => this.act(`/api/friends/invites/${invite.id}/accept`, undefined, (r) => { location.href = r.path; }),
      }, t("alerts.join")),
      h("button", {
        type: "button", class: "btn small ghost",
        onclick: () => this.act(`/api/friends/invites/${invite.id}/decline`, undefined, () => { this.invites.delete(invite.id); this.render(); }),
      }, t("alerts.decline")));
  }

  friendItem(friend) {
    const presence = friend.presence || { state: "offline", table: null };
    const table = presence.table;
    const buttons = [];
    if (table && table.joinable) {
      buttons.push(h("button", {
        type: "button", class: "btn small primary",
        onclick: () => this.act("/api/friends/join", { table_id: table.id }, (r) => { location.href = r.path; }),
      }, t("friends.join", { name: friend.name })));
    }
    if (table && table.watchable) {
      buttons.push(h("a", { class: "btn small", href: `/?table=${encodeURIComponent(table.id)}` }, t("friends.watch", { name: friend.name })));
    }
    return h("li", { class: `friend state-${presence.state}` },
      h("span", { class: "presence-dot", "aria-hidden": "true" }),
      h("span", { class: "friend-name" }, friend.name),
      h("span", { class: "meta" }, stateWords(presence.state)),
      ...buttons,
      h("span", { class: "friend-actions" },
        h("button", { type: "button", class: "btn small ghost", "aria-label": t("friends.remove_name", { name: friend.name }), onclick: () => this.act(`/api/friends/${friend.id}/remove`) }, t("friends.remove")),
        h("button", {
          type: "button", class: "btn small ghost", "aria-label": t("friends.block_name", { name: friend.name }),
          onclick: () => {
            if (confirm(t("friends.block_confirm", { name: friend.name }))) {
              this.act("/api/friends/blocks", { player_id: friend.id });
            }
          },
        }, t("friends.block"))));
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
            toast(requestDone(r));
          });
        },
      }, h("label", { for: "friend-name" }, t("friends.add_label")), input,
      h("button", { type: "submit", class: "btn small" }, t("friends.send"))),
      h("button", {
        type: "button", class: "btn small ghost",
        onclick: async () => {
          try {
            const link = await api("/api/friends/link");
            const url = new URL(link.path, location.origin).href;
            fill(linkBox, t("friends.your_link"), " ", h("input", { readonly: true, value: url, "aria-label": t("friends.link_label"), onfocus: (e) => e.target.select() }));
            if (navigator.clipboard) navigator.clipboard.writeText(url).then(() => toast(t("friends.link_copied")), () => {});
          } catch (error) {
            toast(error.message, "error");
          }
        },
      }, t("friends.share_link")),
      linkBox);
  }

  linkOffer() {
    return h("div", { class: "friend-offer", role: "status" },
      h("p", {}, t("friends.opened_link")),
      h("button", {
        type: "button", class: "btn small primary",
        onclick: () => this.act("/api/friends/requests", { link: this.linkToken }, (r) => {
          this.linkToken = null;
          history.replaceState(null, "", "/");
          toast(requestDone(r));
          this.render();
        }),
      }, t("friends.send_request")));
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
      h("label", { class: "check" }, hidden, " ", t("friends.appear_offline")),
      h("label", { class: "check" }, sound, " ", t("friends.sound")));
  }
}
