// The service worker (docs/notifications.md): shows Web Push notifications, opens the table a
// notification is about, and makes the site installable. It caches one thing, an "offline"
// page for navigations that fail; it never caches an API answer, a socket or a table state:
// every other request goes to the network untouched.

const OFFLINE_CACHE = "hearts-offline-v1";
const OFFLINE_URL = "/offline.html";

/** Keep the offline page, in the player's language (the server answers by the language
 *  cookie, as for the site's page). */
function cacheOfflinePage() {
  return caches.open(OFFLINE_CACHE)
    .then((cache) => cache.add(new Request(OFFLINE_URL, { cache: "reload" })));
}

self.addEventListener("install", (event) => {
  event.waitUntil(cacheOfflinePage().then(() => self.skipWaiting()));
});

// The player switched language (static/js/i18n.js setLanguage): the offline page follows.
self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "language") event.waitUntil(cacheOfflinePage().catch(() => null));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(
        names.filter((name) => name !== OFFLINE_CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

// Only page loads (navigations) are looked at, and only when the network fails.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.mode !== "navigate") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  event.respondWith(
    fetch(request).catch(() => caches.open(OFFLINE_CACHE)
      .then((cache) => cache.match(OFFLINE_URL))
      .then((page) => page || Response.error())),
  );
});

/** A push's words (app/notify/push.py payload); a push we cannot read still says something. */
function readPush(event) {
  try {
    const data = event.data ? event.data.json() : {};
    return {
      title: String(data.title || "Hearts Online"),
      body: String(data.body || ""),
      url: typeof data.url === "string" && data.url.startsWith("/") ? data.url : "/",
      tag: String(data.tag || "hearts"),
      kind: String(data.kind || ""),
    };
  } catch {
    return { title: "Hearts Online", body: "", url: "/", tag: "hearts", kind: "" };
  }
}

self.addEventListener("push", (event) => {
  const push = readPush(event);
  event.waitUntil(
    self.registration.showNotification(push.title, {
      body: push.body,
      tag: push.tag, // a newer notice about the same table replaces the older one
      renotify: push.kind === "your_turn" || push.kind === "time_almost_up",
      icon: "/icons/icon-192.png",
      badge: "/icons/icon-192.png",
      data: { url: push.url },
    }),
  );
});

/** Bring a window forward; a browser may refuse (no click behind it): it has the page anyway. */
function focus(client) {
  return client.focus().catch(() => client);
}

/** Show the page at ``path``: a window already on it is focused, else an open window of the
 *  site goes there, else a new one opens. */
function openTarget(path) {
  const target = new URL(path || "/", self.location.origin).href;
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    for (const client of windows) {
      if (client.url === target && "focus" in client) return focus(client);
    }
    for (const client of windows) {
      if ("navigate" in client && new URL(client.url).origin === self.location.origin) {
        return client.navigate(target).then((c) => (c ? focus(c) : self.clients.openWindow(target)));
      }
    }
    return self.clients.openWindow(target);
  });
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openTarget(event.notification.data && event.notification.data.url));
});
