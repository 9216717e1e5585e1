// Small helpers and constants shared by the table page's parts.

import { cardLabel, faceOf, faceShort, parseCard } from "../cards.js";
import { h, setText } from "../dom.js";
import { language, t } from "../i18n.js";

export const POSITIONS = {
  2: ["bottom", "top"],
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "top-left", "top-right", "right"],
};

// Where a seat is drawn, in words for a spectator's screen reader.
export function placeWords(pos) {
  const words = {
    bottom: () => t("table.place.bottom"), top: () => t("table.place.top"),
    left: () => t("table.place.left"), right: () => t("table.place.right"),
    "top-left": () => t("table.place.top_left"), "top-right": () => t("table.place.top_right"),
  };
  return words[pos] ? words[pos]() : pos;
}

// A hand's result stays up at least this long (unless closed), even if play goes on: the
// server's pause between hands (HEARTS_HAND_PAUSE_MS) may be shorter, or off.
export const RESULT_MIN_MS = 6000;

export function ledSuitOf(trick) {
  if (!trick || !trick.plays.length) return null;
  const face = faceOf(trick.plays[0].card, trick.lead_face || "light");
  return face.joker ? null : face.suit;
}

/** Double Hearts: underline the faces that follow the led suit (they compete for the trick). */
export function markLedFaces(cardEl, code, ledSuit, leadFace) {
  const card = parseCard(code);
  const faces = cardEl.querySelectorAll(".face");
  [card.light, card.dark].forEach((face, i) => {
    if (!face || !faces[i]) return;
    const follows = leadFace ? (i === 0 ? leadFace === "light" : leadFace === "dark") : face.suit === ledSuit;
    faces[i].classList.toggle("follows", follows);
  });
}

export function handTricks(v) {
  const held = v.hand_sizes.reduce((a, b) => a + b, 0) + (v.half_dummy_sizes ? v.half_dummy_sizes.reduce((a, b) => a + b, 0) : 0);
  const played = v.tricks.reduce((a, t) => a + t.plays.length, 0) + v.trick.length;
  const perTrick = v.game === "dummy" ? 3 : v.players;
  return Math.round((held + played) / perTrick) || 0;
}

/** A card as short coloured text ("Q♠"), for lines of words. */
export function cardChip(code) {
  const card = parseCard(code);
  const faces = card.dark ? [card.light, card.dark] : [card.light];
  return h("span", { class: "chip", "data-card": code, role: "img", "aria-label": cardLabel(code) },
    faces.map((f, i) => h("span", { class: [f.joker ? "joker" : `s-${f.suit}`, i ? "dark" : ""], "aria-hidden": "true" }, faceShort(f))));
}

/** A row's heading (one line, shortened with an ellipsis on a narrow screen: whole in its title). */
export function labelRow(el, text) {
  setText(el, text);
  el.title = text;
}

export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

export function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

export function shortDirection(dir) {
  const words = {
    left: () => `\u2190 ${t("table.dir.left")}`, right: () => `\u2192 ${t("table.dir.right")}`,
    across: () => `\u2195 ${t("table.dir.across")}`, hold: () => t("table.dir.keep"), other: () => "\u21C4",
  };
  return words[dir] ? words[dir]() : dir;
}

/** A turn clock's time left: "1:05" under an hour, else the largest two units in the page's
 *  language by Intl ("3h 5m", "2 T 3h"); a turn-based table's clock runs for hours or days
 *  (docs/turn-based.md). */
export function formatSeconds(ms) {
  const s = Math.ceil(ms / 1000);
  const unit = (name, value) => new Intl.NumberFormat(language(), { style: "unit", unit: name, unitDisplay: "narrow" }).format(value);
  if (s > 86400) return `${unit("day", Math.floor(s / 86400))} ${unit("hour", Math.floor((s % 86400) / 3600))}`;
  if (s > 3600) return `${unit("hour", Math.floor(s / 3600))} ${unit("minute", Math.floor((s % 3600) / 60))}`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}


/** Whether ``box``'s content is higher or wider than the box (a pixel of rounding allowed). */
export function overflows(box) {
  return box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1;
}

// Scales a player's name steps down through when it does not fit: a name is made smaller,
// never shortened ("Comput…" twice looked alike; docs/frontend.md).
export const NAME_SCALES = [0.9, 0.8, 0.7];

/** Make ``el``'s font smaller, a step at a time (``scales`` of its own size), until ``box``
 *  (``el`` or a box around it) no longer overflows; returns whether it fits. Reads layout, so
 *  it runs after the element is in the page, before it is painted (no layout shift). */
export function shrinkToFit(el, box = el, scales = NAME_SCALES) {
  el.style.fontSize = "";
  const over = () => overflows(box);
  if (!over()) return true;
  const base = parseFloat(getComputedStyle(el).fontSize);
  for (const scale of scales) {
    el.style.fontSize = `${(base * scale).toFixed(1)}px`;
    if (!over()) return true;
  }
  return false;
}
