// HTTP API and the signed-in identity.
//
// The session token lives in an HttpOnly cookie that the server sets (guest, login, register)
// and clears (logout): no script on the page can read it. What localStorage keeps is the
// player record (id, name, guest or not) for the UI, which is no secret. Every request sends
// the cookie (same origin only) and the X-Requested-With header the server asks of
// cookie-signed POSTs (a form on another site cannot send it). docs/protocol.md.

// Older versions kept the token itself here: it is handed to the server once for the cookie.
import { cardName, suitName } from "./cards.js";
import { formatDateTime, has, language, loadSection, t } from "./i18n.js";

const LEGACY_TOKEN_KEY = "hearts.token";
const PLAYER_KEY = "hearts.player";

/** The words of a refusal that carries named values (app/engine/errors.py), in every
 *  language: a `reason` picks error.<code>.<reason>, the others fill its placeholders, each
 *  worded by its name: `until` (epoch ms) a time in the player's language and time zone,
 *  `card` a card's name ("QS": "queen of spades"), `suit` a suit's ("H": "hearts"). Null
 *  without values or words. */
export function valueWords(code, values) {
  if (!values || typeof values !== "object" || !Object.keys(values).length) return null;
  const reasonKey = `error.${code}.${values.reason}`;
  const key = values.reason !== undefined && has(reasonKey) ? reasonKey : `error.${code}`;
  if (!has(key)) return null;
  const shown = { ...values };
  if (typeof shown.until === "number") shown.until = formatDateTime(shown.until);
  if (typeof shown.card === "string") shown.card = cardName(shown.card);
  if (typeof shown.suit === "string") shown.suit = suitName(shown.suit);
  return t(key, shown);
}

/** The words for a server's error code, in every language English too: with named values,
 *  the catalog's text filled with them; else the catalog's error.<code> (static/i18n); never
 *  the server's English sentence (`message`, for API clients and logs). A code with no words
 *  (the protocol's own, tests/test_catalogs.py) reads error.refused; docs/frontend.md
 *  "Languages". */
export function errorWords(code, values) {
  const worded = valueWords(code, values);
  if (worded !== null) return worded;
  if (code === "network") return t("common.network");
  return has(`error.${code}`) ? t(`error.${code}`) : t("error.refused");
}

export class ApiError extends Error {
  constructor(status, code, values) {
    super(errorWords(code, values));
    this.status = status;
    this.code = code;
    this.values = values || {};
  }
}

export const session = {
  get player() {
    try {
      return JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
    } catch {
      return null;
    }
  },
  setPlayer(player) {
    localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
    window.dispatchEvent(new CustomEvent("hearts:identity"));
  },
  clear() {
    localStorage.removeItem(PLAYER_KEY);
    window.dispatchEvent(new CustomEvent("hearts:identity"));
  },
};

/** fetch JSON from the API; throws ApiError with the server's code and values, worded once
 *  the refusals' words (<lang>.error.json, fetched at the page's first refusal) are in. */
export async function api(path, { method = "GET", body = undefined, bearer = undefined } = {}) {
  const headers = { Accept: "application/json", "X-Requested-With": "hearts" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network");
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    await loadSection("error");
    const detail = data && data.detail;
    if (detail && typeof detail === "object" && !Array.isArray(detail)) {
      if (detail.code) throw new ApiError(response.status, detail.code, detail.values);
    }
    if (Array.isArray(detail) && detail.length) {
      // A body the server's schema refuses (FastAPI's 422): the field it names, in the
      // player's language (error.invalid).
      const where = (detail[0].loc || []).filter((x) => x !== "body").join(".");
      throw new ApiError(response.status, "invalid", { field: where || "?" });
    }
    throw new ApiError(response.status, "http_status", { status: response.status });
  }
  return data;
}

// The answers also carry the token, for API clients; the page leaves it alone (the cookie
// the same answer sets is what signs its requests).
export async function signInAsGuest(name) {
  const out = await api("/api/guest", { method: "POST", body: { name } });
  session.setPlayer(out.player);
  rememberLanguage(null);
  return out.player;
}

export async function logIn(name, password) {
  const out = await api("/api/account/login", { method: "POST", body: { name, password } });
  session.setPlayer(out.player);
  rememberLanguage(null);
  return out.player;
}

/** Tell the server the language this player reads the site in (what reaches them away from
 *  the page, e-mails and pushes, is written in it), unless it already knows (`known`). */
export function rememberLanguage(known) {
  if (!session.player || known === language()) return;
  api("/api/me/language", { method: "PUT", body: { language: language() } }).catch(() => {
    // Not kept this time: the next page load tells it again.
  });
}

// Another language picked in Settings: the server hears of it at once.
if (typeof window !== "undefined") window.addEventListener("hearts:language", () => rememberLanguage(null));

export async function register(name, password) {
  // Signed in as a guest, the guest becomes the account (and keeps its games).
  const out = await api("/api/account/register", { method: "POST", body: { name, password } });
  session.setPlayer(out.player);
  rememberLanguage(null);
  return out.player;
}

export async function signOut() {
  // Guests too: the server ends the session and clears the cookie (the page cannot).
  if (session.player) {
    try {
      await api("/api/account/logout", { method: "POST" });
    } catch {
      // Signed out here either way.
    }
  }
  session.clear();
}

/** A token an older version left in localStorage becomes the cookie, once; then it goes. */
export async function adoptLegacyToken() {
  const token = localStorage.getItem(LEGACY_TOKEN_KEY);
  if (!token) return;
  try {
    await api("/api/session/cookie", { method: "POST", bearer: token });
  } catch {
    session.clear(); // the old session has ended: signed out
  } finally {
    localStorage.removeItem(LEGACY_TOKEN_KEY);
  }
}

/** Check the session still works (the server may have restarted with a new key). */
export async function checkSession() {
  await adoptLegacyToken();
  if (!session.player) return null;
  try {
    const me = await api("/api/me");
    session.setPlayer(me);
    rememberLanguage(me.language);
    return me;
  } catch (error) {
    if (error.status === 401) session.clear();
    return session.player;
  }
}

export function wsUrl(path) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}${path}`;
}
