// Cards as the server writes them: "QS", "TD", "JK1", and in Double Hearts "QS/3H"
// (Light face / Dark face). Rendering, names for screen readers, and sorting.

import { h } from "./dom.js";
import { faceWords, t } from "./i18n.js";

export const SUITS = "CDSH";
export const RANKS = "23456789TJQKA";
// English, for the sentences of the parts not yet translated (trick.js, actions.js, replay.js:
// "clubs led"); a translated sentence takes suitName().
export const SUIT_NAMES = { C: "clubs", D: "diamonds", S: "spades", H: "hearts" };

/** A suit's name in the page's language (catalog card.suit.<S>). */
export function suitName(suit) {
  return t(`card.suit.${suit}`);
}
export const SUIT_SINGULAR = { C: "club", D: "diamond", S: "spade", H: "heart" };
export const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", S: "\u2660", H: "\u2665" };
const RANK_SHOWN = { T: "10" };

/** One face: {code, rank, suit, joker}. */
export function parseFace(code) {
  if (/^JK\d$/.test(code)) return { code, rank: null, suit: null, joker: true };
  return { code, rank: code[0], suit: code[1], joker: false };
}

/** A card as written by the server: {code, light, dark|null}. */
export function parseCard(code) {
  const [light, dark] = String(code).split("/");
  return { code, light: parseFace(light), dark: dark ? parseFace(dark) : null };
}

export function faceName(face) {
  if (face.joker) return t("card.joker");
  return faceWords(face.rank, face.suit);
}

/** Words for a screen reader: "queen of spades", "queen of spades, dark side three of hearts". */
export function cardName(code) {
  const card = parseCard(code);
  if (!card.dark) return faceName(card.light);
  return t("card.double", { light: faceName(card.light), dark: faceName(card.dark) });
}

/** Short text: "Q♠", "10♦", "Q♠/3♥". */
export function faceShort(face) {
  if (face.joker) return "Joker";
  return `${RANK_SHOWN[face.rank] || face.rank}${SUIT_SYMBOLS[face.suit]}`;
}

export function cardShort(code) {
  const card = parseCard(code);
  return card.dark ? `${faceShort(card.light)}/${faceShort(card.dark)}` : faceShort(card.light);
}

/** What a card shows in its corner: "3♣", "10♦", "JK" (a joker's corner), "Q♠/3♥". */
export function cardCorner(code) {
  const card = parseCard(code);
  const corner = (face) => (face.joker ? "JK" : faceShort(face));
  return card.dark ? `${corner(card.light)}/${corner(card.dark)}` : corner(card.light);
}

/** A card control's accessible name: its visible corner text first, then the words (WCAG
 *  2.5.3, the name contains what is seen): "3♣, three of clubs". */
export function cardLabel(code) {
  return `${cardCorner(code)}, ${cardName(code)}`;
}

function sortKey(code) {
  const face = parseCard(code).light;
  if (face.joker) return 100 + Number(face.code.slice(2));
  return SUITS.indexOf(face.suit) * 13 + RANKS.indexOf(face.rank);
}

/** Sorted by suit (clubs, diamonds, spades, hearts: black and red alternate), then rank. */
export function sortCards(codes) {
  return [...codes].sort((a, b) => sortKey(a) - sortKey(b));
}

/** The Light (light) or Dark face of a card. */
export function faceOf(code, which) {
  const card = parseCard(code);
  return which === "dark" && card.dark ? card.dark : card.light;
}

function faceElement(face, extraClass) {
  const cls = ["face", extraClass, face.joker ? "joker" : `s-${face.suit}`];
  if (face.joker) {
    return h("span", { class: cls, "aria-hidden": "true" },
      h("span", { class: "idx" }, h("span", { class: "r", text: "JK" })),
      h("span", { class: "pip", text: "\u2605" }));
  }
  return h("span", { class: cls, "aria-hidden": "true" },
    h("span", { class: "idx" },
      h("span", { class: face.rank === "T" ? "r ten" : "r", text: RANK_SHOWN[face.rank] || face.rank }),
      h("span", { class: "s", text: SUIT_SYMBOLS[face.suit] })),
    h("span", { class: "pip", text: SUIT_SYMBOLS[face.suit] }));
}

/**
 * A card element. `tag` "button" for cards the player can act on, "div" otherwise.
 * Both faces are drawn for Double Hearts cards (Light on top, Dark below).
 */
export function renderCard(code, { tag = "div", className = "", label = null, leadFace = null } = {}) {
  const card = parseCard(code);
  const attrs = {
    class: ["card", card.dark ? "double" : "single", className],
    "data-card": code,
    "aria-label": label || cardLabel(code),
  };
  if (tag === "div") attrs.role = "img";
  if (tag === "button") attrs.type = "button";
  const el = h(tag, attrs);
  if (card.dark) {
    el.appendChild(faceElement(card.light, leadFace === "light" ? "light led" : "light"));
    el.appendChild(faceElement(card.dark, leadFace === "dark" ? "dark led" : "dark"));
  } else {
    el.appendChild(faceElement(card.light, "only"));
  }
  return el;
}

/** A face-down card (decorative only: it says nothing about which card it is). */
export function renderBack(className = "") {
  return h("div", { class: ["card", "back", className], "aria-hidden": "true" });
}
