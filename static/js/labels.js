// Words built from codes: computer levels, directions, seats and the server's reason codes
// (every word from the catalog, static/i18n/<lang>.json).

import { cardName, suitName } from "./cards.js";
import { valueWords } from "./api.js";
import { has, language, t } from "./i18n.js";

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

/** The server's reason codes in words (catalog keys error.<code>, reason.*). `ctx` may carry
 *  {ledSuit, card, game, passCount, waitingFor} and the refusal's named `values` (a refused
 *  claim's reason, a ban's end: api.js valueWords). */
export function reasonWords(code, message, ctx = {}) {
  const worded = valueWords(code, ctx.values);
  if (worded !== null) return worded;
  const card = ctx.card ? cardName(ctx.card) : t("reason.that_card");
  const suit = ctx.ledSuit ? suitName(ctx.ledSuit) : null;
  switch (code) {
    case "not_your_turn":
      return ctx.waitingFor ? t("reason.waiting_for", { name: ctx.waitingFor }) : t("error.not_your_turn");
    case "must_follow_suit":
      return suit ? t("reason.follow_suit", { suit }) : t("error.must_follow_suit");
    case "hearts_not_broken":
      if (ctx.game === "dummy") return t("reason.hearts_dummy");
      if (ctx.game === "double") return t("reason.hearts_double");
      return t("error.hearts_not_broken", { card });
    case "no_points_on_first_trick":
      return t("error.no_points_on_first_trick", { card });
    case "must_lead_card": {
      const want = /led with (.+)$/.exec(message || "");
      if (ctx.game === "double") {
        const dark = /Dark (\w\w)/.exec(message || "");
        return t("reason.lead_dark", { card: cardName(dark ? dark[1] : "2C") });
      }
      return want
        ? t("reason.lead_with", { card: cardName(want[1].trim().slice(0, 2)) })
        : t("error.must_lead_card");
    }
    case "wrong_hand":
      return /dummy/.test(message || "") ? t("reason.from_dummy") : t("error.wrong_hand");
    case "wrong_pass_count":
      return ctx.passCount ? t("error.wrong_pass_count", { count: ctx.passCount }) : t("reason.pass_count_unknown");
    case "wrong_status":
    case "bad_chat":
      // One code for many situations: an English page keeps the server's own sentence (the
      // more precise), another language the code's catalog text (as api.js errorWords).
      return message && (language() === "en" || !has(`error.${code}`)) ? capitalise(message) + "." : t(`error.${code}`);
    case "busy":
      return t("error.stale_version");
    default:
      if (has(`error.${code}`)) return t(`error.${code}`);
      return message ? capitalise(message) + "." : t("reason.not_allowed");
  }
}

function capitalise(text) {
  const t = String(text);
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}
