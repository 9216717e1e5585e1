// A game's rules in a few plain lines, for the table's Rules button and the lobby's create form:
// what a newcomer needs to know to play that variant (docs/rules.md has the whole rules).
// `values` are the table's rule values (the preset's values with the table's options over them).
// The words are the catalog's rules.* texts (static/js/i18n.js).

import { loadSection, t } from "./i18n.js";

// This module's words (<lang>.rules.json), before anything of it is drawn.
await loadSection("rules");

const PASS_CYCLES = ["left", "right", "lr", "lra", "lrah", "dealer"];

function endWords(values, fallback) {
  if (values.end === "hands" && values.hands) return t("rules.end_hands", { count: values.hands });
  return t("rules.end_score", { points: values.target_score || fallback });
}

function passWords(values) {
  if (values.passing === "none") return t("rules.pass_none");
  // With 3 or 5 players no seat is across: left, right, then a hand without passing.
  const across = (values.players || 4) === 4;
  let cycle = PASS_CYCLES.includes(values.passing) ? values.passing : "lrah";
  if (!across && cycle === "lrah") cycle = "lrh";
  return t("rules.pass_count", { rule: t(`rules.pass.${cycle}`), count: values.pass_count || 3 });
}

function classicLines(values) {
  const n = values.players || 4;
  const lines = [
    t("rules.classic.intro", { players: n }),
    t("rules.classic.follow"),
    t("rules.classic.hearts_lead"),
  ];
  if (n === 3) {
    lines.push(values.deck === "jokers" ? t("rules.three.jokers")
      : values.deck === "remove_2c" ? t("rules.three.remove_2c") : t("rules.three.remove_2d"));
  }
  if (n === 5) lines.push(values.deck === "jokers" ? t("rules.five.jokers") : t("rules.five.remove"));
  if (values.omnibus && values.omnibus !== "none") lines.push(values.omnibus === "TD" ? t("rules.omnibus.TD") : t("rules.omnibus.JD"));
  if (values.hooligan) lines.push(t("rules.hooligan"));
  if (values.graded_hearts) lines.push(t("rules.graded"));
  if (values.no_trick_bonus) lines.push(t("rules.no_trick"));
  lines.push(passWords(values));
  lines.push(values.moon === "self" ? t("rules.moon.self")
    : values.moon === "choice" ? t("rules.moon.choice") : t("rules.moon.others"));
  lines.push(endWords(values, 100));
  return lines;
}

const LINES = {
  classic: classicLines,
  dummy: (values) => [
    t("rules.dummy.intro"),
    t("rules.dummy.joker"),
    t("rules.dummy.scorer"),
    t("rules.dummy.follow"),
    t("rules.dummy.lead"),
    values.passing === "none" ? t("rules.pass_none") : t("rules.dummy.exchange"),
    endWords(values, 100),
  ],
  twentyeight: (values) => [
    t("rules.28.deal"),
    t("rules.28.trump"),
    t("rules.28.lead"),
    t("rules.28.score"),
    endWords(values, 100),
  ],
  double: (values) => [
    t("rules.double.intro", { players: values.players || 4 }),
    t("rules.double.lead"),
    t("rules.double.win"),
    t("rules.double.score"),
    passWords(values),
    endWords(values, 250),
  ],
};

/** The rules of `game` with these values, as a few sentences. */
export function rulesLines(game, values = {}) {
  const make = LINES[game] || LINES.classic;
  return make(values || {});
}
