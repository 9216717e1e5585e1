// Notifications on the page (docs/notifications.md): the service worker, this device's Web
// Push subscription, the player's choices per kind (push, e-mail), their e-mail address, and
// the links e-mails bring back (?email=verified, ?reset=TOKEN for a new password). Words: the
// catalog's notifications.* (i18n.js); the section is drawn again on a change of language.

import { api, session } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { t } from "./i18n.js";

function kindWords(kind) {
  const words = {
    your_turn: t("notifications.your_turn"),
    time_almost_up: t("notifications.time_almost_up"),
    game_over: t("notifications.game_over"),
    invitation: t("notifications.invitation"),
    friend_request: t("notifications.friend_request"),
    event_scheduled: t("notifications.event_scheduled"),
    event_soon: t("notifications.event_soon"),
    event_started: t("notifications.event_started"),
  };
  return words[kind] || kind;
}

function emailWords(code) {
  const words = {
    verified: t("notifications.verified"),
    token_expired: t("notifications.token_expired"),
    bad_token: t("notifications.bad_token"),
  };
  return words[code];
}

function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** Register the service worker (installable site, pushes); harmless where unsupported. */
export function registerWorker() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => null);
}

function keyBytes(base64url) {
  const padded = base64url.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((base64url.length + 3) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

/** Ask for permission, subscribe this device and hand the subscription to the server. */
export async function enablePush() {
  if (!pushSupported()) throw new Error(t("notifications.unsupported"));
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error(t("notifications.blocked"));
  const registration = await navigator.serviceWorker.ready;
  const { public_key: key } = await api("/api/notify/push/key");
  let subscription = await registration.pushManager.getSubscription();
  if (subscription) {
    // made with another key (a server whose VAPID key changed): subscribe again
    const current = subscription.options && subscription.options.applicationServerKey;
    if (current && btoa(String.fromCharCode(...new Uint8Array(current))).replace(/=+$/, "") !==
      btoa(String.fromCharCode(...keyBytes(key))).replace(/=+$/, "")) {
      await subscription.unsubscribe();
      subscription = null;
    }
  }
  if (!subscription) {
    subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(key),
    });
  }
  await api("/api/notify/push/subscriptions", { method: "POST", body: subscription.toJSON() });
}

async function disablePush() {
  if (!pushSupported()) return;
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription) return;
  await api("/api/notify/push/subscriptions/remove", {
    method: "POST", body: { endpoint: subscription.endpoint },
  }).catch(() => null);
  await subscription.unsubscribe();
}

async function deviceSubscribed() {
  if (!pushSupported() || Notification.permission !== "granted") return false;
  const registration = await navigator.serviceWorker.getRegistration("/");
  return !!(registration && (await registration.pushManager.getSubscription()));
}

function choicesTable(settings) {
  const rows = settings.kinds.map((kind) => {
    const choice = settings.choices[kind];
    const box = (channel, disabled) => h("input", {
      type: "checkbox",
      checked: !!choice[channel],
      disabled,
      "aria-label": channel === "push" ? t("notifications.push_of", { kind: kindWords(kind) }) : t("notifications.email_of", { kind: kindWords(kind) }),
      onchange: async (event) => {
        const on = event.target.checked;
        try {
          const out = await api("/api/notify/settings", { method: "PUT", body: { [kind]: { [channel]: on } } });
          settings.choices = out.choices;
        } catch (error) {
          event.target.checked = !on;
          toast(error.message, "error");
        }
      },
    });
    return h("tr", null,
      h("th", { scope: "row" }, kindWords(kind)),
      h("td", null, h("label", { class: "notify-box" }, box("push", false))),
      h("td", null, h("label", { class: "notify-box" }, box("email", !settings.email_allowed))));
  });
  return h("table", { class: "notify-choices" },
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("notifications.tell_me")),
      h("th", { scope: "col" }, t("notifications.push")), h("th", { scope: "col" }, t("notifications.email")))),
    h("tbody", null, rows));
}

function emailForm(settings, refresh) {
  if (!settings.email_allowed) {
    return h("p", { class: "hint" }, t("notifications.email_accounts"));
  }
  const input = h("input", {
    type: "email", id: "notify-email", autocomplete: "email", maxlength: "254",
    value: settings.email ? settings.email.address : "",
  });
  const state = settings.email
    ? (settings.email.verified ? t("notifications.confirmed") : t("notifications.unconfirmed"))
    : t("notifications.no_address");
  return h("form", {
    class: "notify-email",
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        await api("/api/account/email", { method: "PUT", body: { address: input.value.trim() } });
        toast(t("notifications.link_sent"));
        refresh();
      } catch (error) {
        toast(error.message, "error");
      }
    },
  },
  h("label", { for: "notify-email" }, t("notifications.address")),
  h("div", { class: "row" }, input, h("button", { class: "btn", type: "submit" }, t("notifications.save"))),
  h("p", { class: "hint", id: "notify-email-state" }, state));
}

async function renderSection(section) {
  if (!session.player) {
    fill(section, h("h3", null, t("notifications.title")), forgotForm());
    return;
  }
  let settings;
  try {
    settings = await api("/api/notify/settings");
  } catch (error) {
    fill(section, h("h3", null, t("notifications.title")), h("p", { class: "hint" }, error.message));
    return;
  }
  const on = await deviceSubscribed();
  const deviceButton = h("button", {
    type: "button",
    class: "btn",
    id: "notify-device",
    disabled: !pushSupported(),
    onclick: async () => {
      deviceButton.disabled = true;
      try {
        if (on) await disablePush();
        else await enablePush();
        toast(on ? t("notifications.device_off") : t("notifications.device_on"));
      } catch (error) {
        toast(error.message, "error");
      }
      renderSection(section);
    },
  }, on ? t("notifications.stop_device") : t("notifications.notify_device"));
  fill(section,
    h("h3", null, t("notifications.title")),
    h("p", { class: "hint" }, t("notifications.only_away")),
    h("div", { class: "row" }, deviceButton),
    choicesTable(settings),
    emailForm(settings, () => renderSection(section)));
}

function forgotForm() {
  const input = h("input", { id: "forgot-account", autocomplete: "username", maxlength: "254" });
  return h("form", {
    class: "notify-forgot",
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        await api("/api/account/password/forgot", { method: "POST", body: { account: input.value.trim() } });
        toast(t("notifications.forgot_sent"));
      } catch (error) {
        toast(error.message, "error");
      }
    },
  },
  h("label", { for: "forgot-account" }, t("notifications.forgot")),
  h("div", { class: "row" }, input, h("button", { class: "btn", type: "submit" }, t("notifications.send_link"))));
}

function resetDialog(token) {
  const password = h("input", { type: "password", id: "reset-password", autocomplete: "new-password", minlength: "8" });
  const dialog = h("dialog", { id: "reset-dialog", "aria-labelledby": "reset-title" },
    h("form", {
      class: "prefs-form",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await api("/api/account/password/reset", { method: "POST", body: { token, password: password.value } });
          dialog.close();
          toast(t("notifications.password_changed"));
        } catch (error) {
          toast(error.message, "error");
        }
      },
    },
    h("h2", { id: "reset-title" }, t("notifications.new_password_title")),
    h("label", { for: "reset-password" }, t("notifications.new_password")),
    password,
    h("div", { class: "row end" },
      h("button", { class: "btn", type: "button", onclick: () => dialog.close() }, t("notifications.cancel")),
      h("button", { class: "btn primary", type: "submit" }, t("notifications.set_it")))));
  document.body.append(dialog);
  dialog.showModal();
}

/** Once per page: the worker, the settings dialog's section, the links e-mails bring. */
export function setupNotifications() {
  registerWorker();
  const style = document.createElement("link");
  style.rel = "stylesheet";
  style.href = new URL("../css/notify.css", import.meta.url).href;
  document.head.append(style);
  const form = document.querySelector("#prefs-dialog .prefs-form");
  if (form) {
    const section = h("section", { class: "notify-section", id: "notify-section", "aria-live": "polite" });
    form.insertBefore(section, form.querySelector(".row.end"));
    document.getElementById("prefs-button").addEventListener("click", () => renderSection(section));
    window.addEventListener("hearts:identity", () => renderSection(section));
    window.addEventListener("hearts:language", () => renderSection(section));
  }
  const params = new URLSearchParams(location.search);
  const email = params.get("email");
  const reset = params.get("reset");
  if (email || reset) {
    params.delete("email");
    params.delete("reset");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : ""));
  }
  if (email && emailWords(email)) toast(emailWords(email), email === "verified" ? "info" : "error");
  if (reset) resetDialog(reset);
}
