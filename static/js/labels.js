// Words built from codes: computer levels, directions, seats and the server's reason codes
// (every word from the catalog, static/i18n/<lang>.json).

import { valueWords } from "./api.js";
import { has, t } from "./i18n.js";

/** The four games' codes (their names: the catalog's game.<code>). */
export const GAMES = ["classic", "dummy", "twentyeight", "double"];

/** A computer player's level in words (catalog bot.<level>), else the level's code. */
export function botLabel(level) {
  const key = `bot.${level || "standard"}`;
  return has(key) ? t(key) : level;
}

/** A passing direction in words ("to the left"): the catalog's direction.<dir>, else the code. */
export function directionWords(dir) {
  return dir && has(`direction.${dir}`) ? t(`direction.${dir}`) : dir || "";
}

/** Relative seat words for seat `other` seen from `me` with `n` players (catalog seat.*). */
export function relativeSeat(me, other, n) {
  const d = (((other - me) % n) + n) % n;
  if (d === 0) return t("seat.you");
  if (n === 2) return t("seat.opposite");
  if (d === 1) return t("seat.left");
  if (d === n - 1) return t("seat.right");
  if (n === 4 && d === 2) return t("seat.across");
  return d === 2 ? t("seat.second_left") : t("seat.second_right");
}

/** The server's reason codes in words (catalog keys error.<code>, reason.*): the refusal's
 *  named `values` first (api.js valueWords: the card that must lead, the suit led, a refused
 *  claim's reason, a ban's end), never the server's English `message` nor words read out of it. `ctx`
 *  may carry what the page knows itself: {waitingFor}, the seat whose turn it is. */
export function reasonWords(code, ctx = {}) {
  const worded = valueWords(code, ctx.values);
  if (worded !== null) return worded;
  switch (code) {
    case "not_your_turn":
      return ctx.waitingFor ? t("reason.waiting_for", { name: ctx.waitingFor }) : t("error.not_your_turn");
    case "busy":
      return t("error.stale_version");
    default:
      return has(`error.${code}`) ? t(`error.${code}`) : t("reason.not_allowed");
  }
}
