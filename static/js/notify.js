// Notifications on the page (docs/notifications.md): the service worker, this device's Web
// Push subscription, the player's choices per kind (push, e-mail), their e-mail address, and
// the links e-mails bring back (?email=verified, ?reset=TOKEN for a new password).

import { api, session } from "./api.js";
import { h, fill, toast } from "./dom.js";

const KIND_WORDS = {
  your_turn: "Your turn",
  time_almost_up: "Time almost up",
  game_over: "Game over",
  invitation: "Invitations",
  friend_request: "Friend requests",
};

const EMAIL_WORDS = {
  verified: "Your e-mail address is confirmed.",
  token_expired: "That link has expired: set your address again for a new one.",
  bad_token: "That link does not work.",
};

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
  if (!pushSupported()) throw new Error("This browser cannot show notifications from the site.");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("Notifications are blocked for this site in the browser.");
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
      "aria-label": `${KIND_WORDS[kind] || kind}: ${channel === "push" ? "push" : "e-mail"}`,
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
      h("th", { scope: "row" }, KIND_WORDS[kind] || kind),
      h("td", null, h("label", { class: "notify-box" }, box("push", false))),
      h("td", null, h("label", { class: "notify-box" }, box("email", !settings.email_allowed))));
  });
  return h("table", { class: "notify-choices" },
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Tell me about"),
      h("th", { scope: "col" }, "Push"), h("th", { scope: "col" }, "E-mail"))),
    h("tbody", null, rows));
}

function emailForm(settings, refresh) {
  if (!settings.email_allowed) {
    return h("p", { class: "hint" }, "E-mails are for accounts: register to get them and to recover a password.");
  }
  const input = h("input", {
    type: "email", id: "notify-email", autocomplete: "email", maxlength: "254",
    value: settings.email ? settings.email.address : "",
  });
  const state = settings.email
    ? (settings.email.verified ? "Confirmed." : "Waiting for you to open the link we sent.")
    : "No address yet.";
  return h("form", {
    class: "notify-email",
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        await api("/api/account/email", { method: "PUT", body: { address: input.value.trim() } });
        toast("We sent a link to that address: open it to confirm.");
        refresh();
      } catch (error) {
        toast(error.message, "error");
      }
    },
  },
  h("label", { for: "notify-email" }, "E-mail address"),
  h("div", { class: "row" }, input, h("button", { class: "btn", type: "submit" }, "Save")),
  h("p", { class: "hint", id: "notify-email-state" }, state));
}

async function renderSection(section) {
  if (!session.player) {
    fill(section, h("h3", null, "Notifications"), forgotForm());
    return;
  }
  let settings;
  try {
    settings = await api("/api/notify/settings");
  } catch (error) {
    fill(section, h("h3", null, "Notifications"), h("p", { class: "hint" }, error.message));
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
        toast(on ? "This device gets no more notifications." : "This device will be told.");
      } catch (error) {
        toast(error.message, "error");
      }
      renderSection(section);
    },
  }, on ? "Stop notifications on this device" : "Notify me on this device");
  fill(section,
    h("h3", null, "Notifications"),
    h("p", { class: "hint" }, "Pushes come only when the game is not open in front of you."),
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
        toast("If that account has a confirmed e-mail address, a link is on its way.");
      } catch (error) {
        toast(error.message, "error");
      }
    },
  },
  h("label", { for: "forgot-account" }, "Forgot your password? Account name or e-mail"),
  h("div", { class: "row" }, input, h("button", { class: "btn", type: "submit" }, "Send a link")));
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
          toast("Your password is changed: sign in with it.");
        } catch (error) {
          toast(error.message, "error");
        }
      },
    },
    h("h2", { id: "reset-title" }, "A new password"),
    h("label", { for: "reset-password" }, "New password"),
    password,
    h("div", { class: "row end" },
      h("button", { class: "btn", type: "button", onclick: () => dialog.close() }, "Cancel"),
      h("button", { class: "btn primary", type: "submit" }, "Set it"))));
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
  if (email && EMAIL_WORDS[email]) toast(EMAIL_WORDS[email], email === "verified" ? "info" : "error");
  if (reset) resetDialog(reset);
}
