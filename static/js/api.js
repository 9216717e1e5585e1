// HTTP API and the signed-in identity (a session token kept in localStorage).

const TOKEN_KEY = "hearts.token";
const PLAYER_KEY = "hearts.player";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const session = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  get player() {
    try {
      return JSON.parse(localStorage.getItem(PLAYER_KEY) || "null");
    } catch {
      return null;
    }
  },
  set(token, player) {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
    window.dispatchEvent(new CustomEvent("hearts:identity"));
  },
  setPlayer(player) {
    localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
    window.dispatchEvent(new CustomEvent("hearts:identity"));
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(PLAYER_KEY);
    window.dispatchEvent(new CustomEvent("hearts:identity"));
  },
};

/** fetch JSON from the API; throws ApiError with the server's code and message. */
export async function api(path, { method = "GET", body = undefined, auth = true } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth && session.token) headers.Authorization = `Bearer ${session.token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", "The server cannot be reached. Check your connection.");
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail = data && data.detail;
    if (detail && typeof detail === "object" && !Array.isArray(detail)) {
      throw new ApiError(response.status, detail.code || "error", detail.message || "Request failed");
    }
    if (Array.isArray(detail) && detail.length) {
      const first = detail[0];
      const where = (first.loc || []).filter((x) => x !== "body").join(".");
      throw new ApiError(response.status, "invalid", `${where ? where + ": " : ""}${first.msg}`);
    }
    throw new ApiError(response.status, "error", `The server answered ${response.status}`);
  }
  return data;
}

export async function signInAsGuest(name) {
  const out = await api("/api/guest", { method: "POST", body: { name }, auth: false });
  session.set(out.token, out.player);
  return out.player;
}

export async function logIn(name, password) {
  const out = await api("/api/account/login", { method: "POST", body: { name, password }, auth: false });
  session.set(out.token, out.player);
  return out.player;
}

export async function register(name, password) {
  // Signed in as a guest, the guest becomes the account (and keeps its games).
  const out = await api("/api/account/register", { method: "POST", body: { name, password } });
  session.set(out.token, out.player);
  return out.player;
}

export async function signOut() {
  const player = session.player;
  if (player && !player.is_guest) {
    try {
      await api("/api/account/logout", { method: "POST" });
    } catch {
      // The token is dropped here either way.
    }
  }
  session.clear();
}

/** Check the stored token still works (the server may have restarted with a new key). */
export async function checkSession() {
  if (!session.token) return null;
  try {
    const me = await api("/api/me");
    session.setPlayer(me);
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
