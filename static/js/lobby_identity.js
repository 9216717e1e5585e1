// The lobby's "who are you" box: the guest name form, logging in and creating an account, and
// the signed-in player's links (daily challenge, clubs). Words: the catalog's identity.* (i18n.js).
//
// Methods of the lobby (static/js/lobby.js mixes them into Lobby): `this` is the lobby.

import { ApiError, logIn, register, session, signInAsGuest } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { loadSection, t, tNodes } from "./i18n.js";

export class IdentityPart {
  renderIdentity() {
    const player = session.player;
    if (player) {
      const children = [
        h("h2", { id: "id-title" }, t("identity.you")),
        h("p", {}, ...tNodes(player.is_guest ? t("identity.playing_as_guest") : t("identity.playing_as"),
          { name: h("strong", { class: "me-name" }, player.name) })),
      ];
      if (player.is_guest) {
        children.push(
          h("details", { class: "register" },
            h("summary", {}, t("identity.keep")),
            this.accountForm("register")),
        );
      }
      // The daily challenge (static/js/daily.js): the same deals for everyone today.
      children.push(h("p", { class: "row" },
        h("a", { class: "btn", id: "daily-link", href: "/?daily=classic" }, t("identity.daily")),
        h("a", { class: "btn", id: "clubs-link", href: "/?clubs=1" }, t("common.clubs"))));
      fill(this.identityBox, ...children);
      return;
    }
    const guestName = h("input", {
      id: "guest-name", name: "name", maxlength: "24", required: true, autocomplete: "nickname",
      placeholder: t("identity.example"),
    });
    const guestError = h("p", { class: "form-error", role: "alert" });
    const guestForm = h("form", {
      class: "guest-form",
      onsubmit: async (event) => {
        event.preventDefault();
        guestError.textContent = "";
        const name = guestName.value.trim();
        if (!name) {
          guestError.textContent = t("identity.type_name");
          guestName.focus();
          return;
        }
        try {
          await signInAsGuest(name);
        } catch (error) {
          guestError.textContent = error.message;
        }
      },
    },
    h("label", { for: "guest-name" }, t("identity.name_label")),
    h("div", { class: "row" }, guestName, h("button", { type: "submit", class: "btn primary", id: "guest-go" }, t("identity.guest"))),
    guestError);
    fill(
      this.identityBox,
      h("h2", { id: "id-title" }, t("identity.who")),
      guestForm,
      h("details", { class: "login" }, h("summary", {}, t("identity.login_summary")), this.accountForm("login")),
    );
  }

  accountForm(kind) {
    const prefix = kind === "login" ? "login" : "reg";
    const name = h("input", { id: `${prefix}-name`, autocomplete: "username", maxlength: "24", required: true });
    const password = h("input", {
      id: `${prefix}-password`, type: "password", required: true, maxlength: "128",
      autocomplete: kind === "login" ? "current-password" : "new-password",
    });
    const error = h("p", { class: "form-error", role: "alert" });
    const submit = async (event) => {
      event.preventDefault();
      error.textContent = "";
      try {
        if (kind === "login") await logIn(name.value.trim(), password.value);
        else await register(name.value.trim(), password.value);
        toast(kind === "login" ? t("identity.signed_in") : t("identity.created"));
      } catch (e) {
        error.textContent = e instanceof ApiError && e.status === 404
          ? t("identity.no_accounts")
          : e.message;
      }
    };
    return h("form", { class: "account-form", onsubmit: submit },
      h("label", { for: `${prefix}-name` }, t("identity.account_name")), name,
      h("label", { for: `${prefix}-password` }, kind === "login" ? t("identity.password") : t("identity.new_password")), password,
      h("div", { class: "row" },
        h("button", { type: "submit", class: "btn" }, kind === "login" ? t("identity.log_in") : t("identity.create"))),
      error);
  }

  requireName() {
    if (session.player) return true;
    loadSection("error").then(() => toast(t("error.no_token"), "error")); // the refusals' words
    const input = document.getElementById("guest-name");
    if (input) input.focus();
    return false;
  }
}
