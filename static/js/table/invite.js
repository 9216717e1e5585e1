// "Invite a friend" on the table page: the host, seated, while the table waits and
// a seat is open, picks a friend; the friend sees the invitation in the lobby at once and
// joins with one click (docs/protocol.md "Friends").
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { ApiError, api } from "../api.js";
import { h, fill, toast } from "../dom.js";

const STATE_WORDS = { lobby: "in the lobby", away: "away", playing: "playing", watching: "watching a table", offline: "offline" };

export class InvitePart {
  renderInvite() {
    const t = this.table;
    const me = this.player;
    if (!this.el.friendBtn && this.el.inviteBtn) {
      this.el.friendBtn = h("button", { type: "button", class: "btn small", id: "invite-friend", hidden: true, onclick: () => this.openFriendInvite() }, "Invite a friend");
      this.el.inviteBtn.after(this.el.friendBtn);
    }
    if (!this.el.friendBtn || !t) return;
    const host = Boolean(me && t.host === me.id && this.seat !== null && t.status === "waiting");
    const open = t.seats.some((s) => s.kind === "open");
    // With no seat open it keeps its place, unseen, until the start: the last seat taken
    // must not unwrap the head and move the table up (a layout shift of about 0.2).
    this.el.friendBtn.hidden = !host;
    this.el.friendBtn.classList.toggle("placeholder", host && !open);
  }

  async openFriendInvite() {
    let friends = [];
    try {
      friends = (await api("/api/friends")).friends;
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
      return;
    }
    const dialog = h("dialog", { class: "invite-dialog", "aria-labelledby": "invite-friend-title" });
    const close = () => {
      dialog.close();
      dialog.remove();
    };
    const rank = (f) => (f.presence && f.presence.state !== "offline" ? 0 : 1);
    friends.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
    fill(dialog,
      h("h2", { id: "invite-friend-title" }, "Invite a friend to a free seat"),
      friends.length
        ? h("ul", { class: "friend-list" }, friends.map((f) => h("li", {},
          h("span", { class: "friend-name" }, f.name),
          h("span", { class: "meta" }, STATE_WORDS[f.presence && f.presence.state] || "offline"),
          h("button", {
            type: "button", class: "btn small primary",
            onclick: async () => {
              try {
                await api("/api/friends/invites", { method: "POST", body: { player_id: f.id, table_id: this.tableId } });
                toast(`${f.name} is invited.`);
                close();
              } catch (error) {
                toast(error instanceof ApiError ? error.message : String(error), "error");
              }
            },
          }, `Invite ${f.name}`))))
        : h("p", {}, "No friends yet: add some in the lobby."),
      h("div", { class: "row end" }, h("button", { type: "button", class: "btn small", onclick: close }, "Close")));
    document.body.append(dialog);
    dialog.showModal();
  }
}
