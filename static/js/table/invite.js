// "Invite a friend" on the table page: the host, seated, while the table waits and
// a seat is open, picks a friend; the friend sees the invitation in the lobby at once and
// joins with one click (docs/protocol.md "Friends").
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { ApiError, api } from "../api.js";
import { h, fill, toast } from "../dom.js";
import { t } from "../i18n.js";

/** A friend's presence in words (the lobby's friends panel says the same). */
function stateWords(state) {
  const words = {
    lobby: () => t("common.in_lobby"), away: () => t("table.invite.away"), playing: () => t("table.invite.playing"),
    watching: () => t("table.invite.watching"), offline: () => t("common.offline"),
  };
  return (words[state] || words.offline)();
}

export class InvitePart {
  renderInvite() {
    const tb = this.table;
    const me = this.player;
    if (!this.el.friendBtn && this.el.inviteBtn) {
      this.el.friendBtn = h("button", { type: "button", class: "btn small", id: "invite-friend", hidden: true, onclick: () => this.openFriendInvite() }, t("table.invite.button"));
      this.el.inviteBtn.after(this.el.friendBtn);
    }
    if (!this.el.friendBtn || !tb) return;
    const host = Boolean(me && tb.host === me.id && this.seat !== null && tb.status === "waiting");
    const open = tb.seats.some((s) => s.kind === "open");
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
      h("h2", { id: "invite-friend-title" }, t("table.invite.title")),
      friends.length
        ? h("ul", { class: "friend-list" }, friends.map((f) => h("li", {},
          h("span", { class: "friend-name" }, f.name),
          h("span", { class: "meta" }, stateWords(f.presence && f.presence.state)),
          h("button", {
            type: "button", class: "btn small primary",
            onclick: async () => {
              try {
                await api("/api/friends/invites", { method: "POST", body: { player_id: f.id, table_id: this.tableId } });
                toast(t("table.invite.done", { name: f.name }));
                close();
              } catch (error) {
                toast(error instanceof ApiError ? error.message : String(error), "error");
              }
            },
          }, t("table.invite.one", { name: f.name })))))
        : h("p", {}, t("table.invite.none")),
      h("div", { class: "row end" }, h("button", { type: "button", class: "btn small", onclick: close }, t("table.head.close"))));
    document.body.append(dialog);
    dialog.showModal();
  }
}
