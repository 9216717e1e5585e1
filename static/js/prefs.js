// Preferences, kept in localStorage: four-colour suits, animations, the automatic play of a
// forced card (off by default: docs/frontend.md "Conveniences"), and the lobby's last choices
// for a new table (game, private or public, turn timer, computers, start by itself).

const KEY = "hearts.prefs";

const reducedMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const defaults = { fourColour: false, animations: !reducedMotion, autoForced: false, lastCreate: null };

export const prefs = {
  ...defaults,
  ...(() => {
    try {
      return JSON.parse(localStorage.getItem(KEY) || "{}");
    } catch {
      return {};
    }
  })(),
};

export function applyPrefs() {
  const root = document.documentElement;
  root.classList.toggle("four-colour", !!prefs.fourColour);
  root.classList.toggle("no-anim", !prefs.animations);
}

export function setPref(name, value) {
  prefs[name] = value;
  localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(Object.keys(defaults).map((key) => [key, prefs[key]]))));
  applyPrefs();
}
