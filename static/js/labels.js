// Plain words for option values, games, directions, seats and the server's reason codes.

import { SUIT_NAMES, cardName } from "./cards.js";

export const GAME_LABELS = {
  classic: "Hearts (3, 4 or 5 players)",
  dummy: "Two players with a dummy",
  twentyeight: "Two players, 28 cards, hearts trump",
  double: "Double Hearts (two-sided cards)",
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
  return BOT_LABELS[level] || (level ? level[0].toUpperCase() + level.slice(1) : "Standard");
}

export function valueLabel(option, value) {
  const labels = VALUE_LABELS[option];
  if (labels && labels[value] !== undefined) return labels[value];
  if (value === true) return "On";
  if (value === false) return "Off";
  return String(value);
}

export const DIRECTION_WORDS = {
  left: "to the left",
  right: "to the right",
  across: "across",
  hold: "nowhere (keep your cards)",
  other: "to the other player",
  none: "nowhere",
};

/** Relative seat words for seat `other` seen from `me` with `n` players. */
export function relativeSeat(me, other, n) {
  const d = (((other - me) % n) + n) % n;
  if (d === 0) return "you";
  if (n === 2) return "opposite";
  if (d === 1) return "on your left";
  if (d === n - 1) return "on your right";
  if (n === 4 && d === 2) return "across";
  return d === 2 ? "second on your left" : "second on your right";
}

/** The server's reason codes in words. `ctx` may carry {ledSuit, card, game, passCount}. */
export function reasonWords(code, message, ctx = {}) {
  const card = ctx.card ? cardName(ctx.card) : "that card";
  const suit = ctx.ledSuit ? SUIT_NAMES[ctx.ledSuit] : null;
  switch (code) {
    case "not_your_turn":
      return ctx.waitingFor ? `It is not your turn: waiting for ${ctx.waitingFor}.` : "It is not your turn yet.";
    case "must_follow_suit":
      return suit
        ? `You must follow suit: ${suit} were led and you still hold ${suit}.`
        : "You must follow the suit that was led.";
    case "hearts_not_broken":
      if (ctx.game === "dummy") {
        return "Scoring cards (hearts, the queen of spades, the ten of diamonds) may not be led until one has been played.";
      }
      if (ctx.game === "double") {
        return "Hearts are not broken yet: a card with a heart or the queen of spades on either face may not be led.";
      }
      return `Hearts are not broken yet, so you may not lead the ${card}. Lead another suit.`;
    case "no_points_on_first_trick":
      return `No points on the first trick: the ${card} scores, so play another card.`;
    case "must_lead_card": {
      const want = /led with (.+)$/.exec(message || "");
      if (ctx.game === "double") {
        const dark = /Dark (\w\w)/.exec(message || "");
        const which = dark ? cardName(dark[1]) : "two of clubs";
        return `The first trick is led with the card whose Dark face is the ${which}, Dark face up.`;
      }
      return want
        ? `The first trick must be led with the ${cardName(want[1].trim().slice(0, 2))}.`
        : "The first trick must be led with a particular card.";
    }
    case "must_lead_club":
      return "The first trick must be led with a club.";
    case "must_discard_penalty":
      return "You cannot follow suit, so you must discard a card that scores points.";
    case "joker_lead":
      return "A joker may be led only when you hold nothing else you may lead.";
    case "face_required":
      return "Choose which face of the card leads: Light or Dark.";
    case "wrong_hand":
      return /dummy/.test(message || "")
        ? "This card must come from your half dummy: it is the dummy's turn to play."
        : "This card must come from your hand, not your half dummy.";
    case "card_not_in_hand":
      return "That card is not in your hand.";
    case "wrong_pass_count":
      return `Choose exactly ${ctx.passCount || "the right number of"} cards to pass.`;
    case "pass_forbidden_card":
      return "One of those cards may not be passed at this table.";
    case "already_passed":
      return "You have already passed your cards.";
    case "wrong_phase":
      return "That cannot be done at this moment of the hand.";
    case "game_over":
      return "The game is over.";
    case "between_hands":
      return "The hand is over: wait a moment for the next one to open.";
    case "wrong_status":
      return message ? capitalise(message) + "." : "That cannot be done now.";
    case "claim_refused":
      return `Your claim was refused: ${message || "the others can still take a trick"}. You cannot claim again this hand.`;
    case "claim_refused_already":
      return "Your claim was refused earlier in this hand: play the hand out.";
    case "claim_pending":
      return "Your claim is being checked: wait a moment.";
    case "stale_version":
    case "busy":
      return "The table changed at the same moment. Try again.";
    case "not_seated":
      return "You are watching: take a seat to play.";
    case "seat_taken":
      return "That seat has just been taken.";
    case "seats_open":
      return "Every seat needs a player or a computer before the game can start.";
    case "not_host":
      return "Only the table's host may do that.";
    case "rate_limited":
      return "Too many clicks at once; slow down a little.";
    case "no_token":
      return "Choose a name first (a guest name is enough).";
    case "bad_chat":
      return message ? capitalise(message) + "." : "That message cannot be sent.";
    default:
      return message ? capitalise(message) + "." : "That move is not allowed.";
  }
}

function capitalise(text) {
  const t = String(text);
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}
