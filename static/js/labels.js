// Plain words for option values, games, directions, seats and the server's reason codes.

import { cardName, suitName } from "./cards.js";
import { has, language, t } from "./i18n.js";

export const GAME_LABELS = {
  classic: "Hearts (3, 4 or 5 players)",
  dummy: "Two players with a dummy",
  twentyeight: "Two players, 28 cards, hearts trump",
  double: "Double Hearts (two-sided cards)",
};

/** A game's short name, for a table named in one line ("Hearts, 4 players, private"). */
export const GAME_NAMES = {
  classic: "Hearts",
  dummy: "Hearts for two with a dummy",
  twentyeight: "28-card Hearts",
  double: "Double Hearts",
};

export const OPTION_HELP = {
  players: "How many people or computers sit at the table.",
  deck: "With 3 or 5 players the deck must divide evenly.",
  passing: "Where the passed cards go, hand after hand. With 3 or 5 players nobody sits across: left, right, keep.",
  pass_count: "How many cards each player passes.",
  pass_forbidden: "These cards may not be passed.",
  first_lead: "Who leads the first trick, and with what.",
  no_points_first_trick: "No heart or queen of spades on the first trick, unless you hold nothing else.",
  queen_breaks_hearts: "Once the queen of spades is played, hearts may be led.",
  must_discard: "If you cannot follow suit and hold a card that scores, you must play one.",
  omnibus: "Whoever takes this diamond takes 10 points off.",
  hooligan: "Whoever takes the seven of clubs scores 7.",
  spade_penalties: "Extra spades that score points.",
  graded_hearts: "Hearts score by rank: ace 5, king 4, queen 3, jack 2, others 1.",
  exact_reset: "A total of exactly 50 or exactly 100 goes down by 50.",
  no_trick_bonus: "Taking no trick at all in a hand scores -5.",
  moon: "What happens when one player takes every point card.",
  end: "When the game is over.",
  target_score: "The game ends after the hand in which someone reaches this score.",
  hands: "The game ends after this many hands.",
  auto_end: "Once no card that scores is left, the hand stops; the cards not played score nothing.",
};

export const VALUE_LABELS = {
  deck: {
    standard: "All 52 cards",
    remove_2d: "Remove the two of diamonds",
    remove_2c: "Remove the two of clubs (three of clubs leads)",
    jokers: "Add jokers (2 with 3 players, 3 with 5 players)",
    remove_2c_2d: "Remove the two of clubs and the two of diamonds",
  },
  passing: {
    none: "No passing",
    left: "Always to the left",
    right: "Always to the right",
    lr: "Left, then right",
    lra: "Left, right, across",
    lrah: "Left, right, across, keep",
    dealer: "The dealer chooses each hand",
  },
  first_lead: {
    low_club: "The lowest club (two of clubs) leads",
    any_club: "The holder of the lowest club leads any club",
    left_of_dealer: "The player left of the dealer leads any card",
  },
  omnibus: {
    none: "Off",
    JD: "The jack of diamonds scores -10",
    TD: "The ten of diamonds scores -10",
  },
  moon: {
    others: "Everyone else scores the points",
    self: "The shooter takes the points off their own score",
    choice: "The shooter chooses",
  },
  end: {
    score: "When someone reaches the target score",
    hands: "After a fixed number of hands",
  },
};

export const DUMMY_PASSING_LABELS = { lr: "Pass 3 cards to each other", none: "No passing" };

export const BOT_LABELS = { easy: "Easy", standard: "Standard", pro: "Pro", expert: "Expert" };

export function botLabel(level) {
  if (has(`bot.${level || "standard"}`)) return t(`bot.${level || "standard"}`);
  return BOT_LABELS[level] || (level ? level[0].toUpperCase() + level.slice(1) : "Standard");
}

export function valueLabel(option, value) {
  const labels = VALUE_LABELS[option];
  if (labels && labels[value] !== undefined) return labels[value];
  if (value === true) return "On";
  if (value === false) return "Off";
  return String(value);
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
 *  {ledSuit, card, game, passCount, waitingFor}. */
export function reasonWords(code, message, ctx = {}) {
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
      // The server's own words say what is wrong (kept in English: a free sentence, no code).
      return message ? capitalise(message) + "." : t(`error.${code}`);
    case "claim_refused":
      return message && language() === "en"
        ? `Your claim was refused: ${message}. You cannot claim again this hand.`
        : t("error.claim_refused");
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
