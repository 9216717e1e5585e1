// "Add friend" on the game-over panel: each other person seated at the table (guests
// too: a request goes by player id, like the lobby's "Played with recently") gets a one-click
// request, unless already a friend or blocked by me. Someone who blocked me is not told apart:
// the server answers the request with `cannot_request` (shown as a toast).
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { ApiError, api } from "../api.js";
import { h, toast } from "../dom.js";
import { t } from "../i18n.js";

export class BefriendPart {
  /** The panel's "Played with" list, or null (a spectator, nobody to offer, lists not read
   *  yet: they are read once, at the first game over, and the page drawn again). */
  befriendContent() {
    const me = this.player;
    const tb = this.table;
    if (!me || !tb || this.seat === null) return null;
    const others = tb.seats.filter((s) => s.kind === "human" && s.player_id && s.player_id !== me.id);
    if (!others.length) return null;
    if (this.befriendLists === undefined) {
      this.befriendLists = null;
      this.loadBefriendLists();
    }
    const known = this.befriendLists;
    if (!known) return null;
    const offer = others.filter((s) => !known.friends.has(s.player_id) && !known.blocked.has(s.player_id));
    if (!offer.length) return null;
    return h("div", { class: "befriend" },
      h("h3", {}, t("table.befriend.title")),
      h("ul", { class: "friend-list" }, offer.map((s) => h("li", {},
        h("span", { class: "friend-name" }, s.name),
        known.asked.has(s.player_id)
          ? h("span", { class: "meta" }, t("table.befriend.sent"))
          : h("button", { type: "button", class: "btn small", onclick: () => this.befriend(s) }, t("table.befriend.add", { name: s.name }))))));
  }

  async loadBefriendLists() {
    if (!this.onFriendLists) {
      // The friend lists changed (a request accepted, declined or cancelled, a block): the
      // "hearts:friends" event comes from the page's lobby-socket feed (static/js/alerts.js),
      // so "request sent" turns into nothing to offer the moment the other accepts.
      this.onFriendLists = (event) => {
        if (event.detail && event.detail.type === "friends" && this.befriendLists) this.loadBefriendLists();
      };
      window.addEventListener("hearts:friends", this.onFriendLists);
    }
    try {
      const data = await api("/api/friends");
      const ids = (list) => new Set(list.map((p) => p.id));
      this.befriendLists = { friends: ids(data.friends), asked: ids(data.outgoing), blocked: ids(data.blocked) };
    } catch {
      return; // no lists, no offer (the lobby's panel still has "Played with recently")
    }
    this.render();
  }

  async befriend(seat) {
    try {
      const answer = await api("/api/friends/requests", { method: "POST", body: { player_id: seat.player_id } });
      if (answer.status === "friends") {
        this.befriendLists.friends.add(seat.player_id);
        toast(t("table.befriend.friends", { name: seat.name }));
      } else {
        this.befriendLists.asked.add(seat.player_id);
        toast(t("table.befriend.requested", { name: seat.name }));
      }
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
      return;
    }
    this.render();
  }
}
