// The page's language: its message catalog, t(key, params) with named placeholders and
// plurals chosen by Intl.PluralRules, dates and times by Intl.DateTimeFormat in the player's
// time zone, card names for screen readers, and setLanguage (no reload: pages listen to the
// "hearts:language" event). The server picks the language (app/i18n.py) and writes it into
// <html lang>; this module loads that language's main catalog, static/i18n/<lang>.json (the
// words every page shows), by the versioned URL the page preloads. The words of one page, or
// of a few modules, are in section files, static/i18n/<lang>.<section>.json (the table's in
// <lang>.table.json, the lobby's in <lang>.lobby.json): each module that uses a section's words
// loads it at its top, `await loadSection("table")`, so a page downloads the sections of its
// own modules and no other (bench/catalogs.py measures it). The server's refusals in words
// (error.<code>, <lang>.error.json) load at the page's first refusal: whatever words one
// awaits loadSection("error") first (api.js does for every refusal of the API). How to add a
// string or a language: docs/frontend.md.

export const LANGUAGES = ["en", "fr", "de", "es", "nl"];
const COOKIE = "hearts_lang";

function pageLanguage() {
  // (no document: a module test in Node, which reads the English words)
  const root = typeof document === "undefined" ? null : document.documentElement;
  const lang = ((root && root.lang) || "en").toLowerCase().split("-")[0];
  return LANGUAGES.includes(lang) ? lang : "en";
}

let lang = pageLanguage();
let messages = {};
let plurals = new Intl.PluralRules(lang);

let main = {}; // the language's main catalog
const sections = new Map(); // "<lang>.<section>" -> that section's texts (fetched once)
const fetching = new Map(); // "<lang>.<section>" -> its fetch under way (asked twice, fetched once)
const wanted = new Set(); // the sections a page asked for: a language switch loads them too

/** The catalog's URL: next to this module, so it carries the same version (app/api/static.py). */
function catalogUrl(name) {
  return new URL(`../i18n/${name}.json`, import.meta.url).href;
}

async function fetchCatalog(name) {
  const response = await fetch(catalogUrl(name), { credentials: "same-origin" });
  if (!response.ok) throw new Error(`catalog ${name}: ${response.status}`);
  return response.json();
}

async function fetchSection(code, section) {
  const name = `${code}.${section}`;
  if (!sections.has(name)) {
    if (!fetching.has(name)) fetching.set(name, fetchCatalog(name).finally(() => fetching.delete(name)));
    sections.set(name, await fetching.get(name));
  }
  return sections.get(name);
}

/** The texts of `code`: its main catalog and the sections asked for so far. */
function merged(code, base) {
  const all = { ...base };
  for (const section of wanted) Object.assign(all, sections.get(`${code}.${section}`) || {});
  return all;
}

try {
  main = await fetchCatalog(lang);
} catch {
  // The page still works with the keys shown; the next load tries again.
  main = {};
}
messages = main;

/** Load sections' texts (static/i18n/<lang>.<section>.json) for the page's language, once
 *  each; await it before the words are first shown. A language switch loads them too. A
 *  section that cannot be fetched leaves its keys shown (and is tried again next time); the
 *  promise never fails. */
export async function loadSection(...names) {
  const missing = names.filter((section) => !wanted.has(section) || !sections.has(`${lang}.${section}`));
  if (!missing.length) return;
  for (const section of missing) wanted.add(section);
  await Promise.all(missing.map((section) => fetchSection(lang, section).catch(() => null)));
  messages = merged(lang, main);
}

export function language() {
  return lang;
}

/** Whether the catalog has a text for `key` (the server's error codes: error.<code>). */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(messages, key);
}

function fillIn(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (params[name] === undefined ? whole : String(params[name])));
}

/** The text of `key`, its {placeholders} filled from `params`; a plural text (an object of
 *  Intl.PluralRules categories) is chosen by `params.count`. */
export function t(key, params = {}) {
  const found = messages[key];
  if (found === undefined) return key;
  if (typeof found === "object") {
    const count = Number(params.count);
    const form = found[plurals.select(count)] ?? found.other;
    return fillIn(form, params);
  }
  return fillIn(found, params);
}

/** A translated text whose placeholders are page nodes, as children for h():
 *  tNodes("Playing as {name}.", { name: node }) -> ["Playing as ", node, "."]. */
export function tNodes(text, nodes) {
  return text.split(/(\{\w+\})/).filter((part) => part !== "").map((part) => {
    const name = /^\{(\w+)\}$/.exec(part);
    return name && nodes[name[1]] !== undefined ? nodes[name[1]] : part;
  });
}

/** t() for a plural text: plural(key, 3) is t(key, { count: 3 }). */
export function plural(key, count, params = {}) {
  return t(key, { ...params, count });
}

/** A date and time in the player's language and time zone (the browser's). */
export function formatDateTime(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  const date = value instanceof Date ? value : new Date(value);
  return new Intl.DateTimeFormat(lang, options).format(date);
}

export function formatDate(value, options = { dateStyle: "medium" }) {
  return formatDateTime(value, options);
}

export function formatTime(value, options = { timeStyle: "short" }) {
  return formatDateTime(value, options);
}

export function formatNumber(value, options = {}) {
  return new Intl.NumberFormat(lang, options).format(value);
}

/** A card's face for a screen reader: "queen of spades", "Pik-Dame", "dame de pique". */
export function faceWords(rank, suit) {
  return t("card.face", { rank: t(`card.rank.${rank}`), suit: t(`card.suit.${suit}`) });
}

/** The page's fixed texts (index.html): elements marked data-i18n="key" and attributes marked
 *  data-i18n-<attribute>="key"; the server wrote them in the first language already. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll("*")) {
    for (const attr of el.getAttributeNames()) {
      if (attr.startsWith("data-i18n-")) el.setAttribute(attr.slice("data-i18n-".length), t(el.getAttribute(attr)));
    }
  }
}

/** Switch the page to `code` without a reload: its catalog, <html lang>, the cookie the
 *  server reads (a year), the page's fixed texts, then "hearts:language" for the pages. */
export async function setLanguage(code) {
  if (!LANGUAGES.includes(code)) throw new Error(`unknown language ${code}`);
  if (code === lang) return;
  const next = await fetchCatalog(code);
  await Promise.all([...wanted].map((section) => fetchSection(code, section).catch(() => null)));
  main = next;
  messages = merged(code, next);
  lang = code;
  plurals = new Intl.PluralRules(lang);
  document.documentElement.lang = code;
  document.cookie = `${COOKIE}=${code}; path=/; max-age=31536000; samesite=lax`;
  // The service worker's offline page (static/sw.js) is taken again in the new language.
  const worker = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (worker) worker.postMessage({ type: "language" });
  translatePage(document);
  window.dispatchEvent(new CustomEvent("hearts:language", { detail: { lang: code } }));
}
