// The create-table form's field for one rule option, built from what /api/presets says of it
// (its kind, choices, bounds, label): the value lives in lobby.values, and changing the number
// of players updates the options whose defaults follow it (lobby.js renders the form).
// Words: the catalog's option.<name> (label), option.<name>.hint and option.<name>.<value>,
// preset.<id>, game.<game> (keys built from what /api/presets sends: tests/test_catalogs.py
// lists them from the engine), else the server's label or the code.

import { h } from "./dom.js";
import { faceWords, has, loadSection, plural, t } from "./i18n.js";
import { relativeSeat } from "./labels.js";

// This module's words (<lang>.create.json), before anything of it is drawn.
await loadSection("create");

function catalogOr(key, fallback) {
  return has(key) ? t(key) : fallback;
}

/** A rule option's label, hint and a value's name in the page's language. */
export function optionLabel(option) {
  return catalogOr(`option.${option.name}`, option.label);
}

function optionHint(name) {
  return catalogOr(`option.${name}.hint`, "");
}

function choiceLabel(option, value, preset) {
  if (option.name === "players") return plural("create.players", value);
  if (option.name === "passing" && preset.game === "dummy" && value === "lr") return t("create.dummy_pass");
  return catalogOr(`option.${option.name}.${value}`, String(value));
}

/** A preset's name ("Hearts, 4 players") and a game's ("Hearts (3, 4 or 5 players)"). */
export function presetLabel(preset) {
  return catalogOr(`preset.${preset.id}`, preset.label);
}

export function gameLabel(game) {
  return catalogOr(`game.${game}`, game);
}

/** Where seat `other` sits seen from seat 0 of `n`: "on your left", "across"... */
export function seatWords(other, n) {
  return relativeSeat(0, other, n);
}

export function optionField(lobby, option, preset) {
  const id = `opt-${option.name}`;
  const value = lobby.values[option.name];
  const help = optionHint(option.name);
  const label = optionLabel(option);
  const wrap = h("div", { class: "option", "data-option": option.name });
  const helpEl = help ? h("span", { class: "hint", id: `${id}-help` }, help) : null;
  const describedBy = help ? `${id}-help` : undefined;
  if (option.kind === "bool") {
    const input = h("input", {
      type: "checkbox", id, checked: !!value, "aria-describedby": describedBy,
      onchange: () => {
        lobby.values[option.name] = input.checked;
      },
    });
    wrap.append(h("label", { class: "check", for: id }, input, " ", label), helpEl || "");
    return wrap;
  }
  if (option.kind === "choice") {
    // Each game's choices as the server advertises them (those a player count refuses are
    // hidden by refreshDependent).
    const choices = (option.choices_by_game && option.choices_by_game[preset.game]) || option.choices;
    const select = h("select", {
      id, "aria-describedby": describedBy,
      onchange: () => {
        const raw = select.value;
        lobby.values[option.name] = typeof option.default === "number" ? Number(raw) : raw;
        if (option.name === "players") {
          // The deck and pass count this many players bring (what the server would pick).
          const n = String(lobby.values.players);
          for (const other of lobby.options) {
            if (other.default_by_players && n in other.default_by_players) {
              lobby.values[other.name] = other.default_by_players[n];
              lobby.syncField(other.name);
            }
          }
          lobby.renderSeatChoices();
        }
        lobby.refreshDependent();
      },
    },
    choices.map((c) => h("option", {
      value: String(c), selected: c === value,
    }, choiceLabel(option, c, preset))));
    wrap.append(h("label", { for: id }, label), select, helpEl || "");
    return wrap;
  }
  if (option.kind === "int") {
    const input = h("input", {
      type: "number", id, min: String(option.min), max: String(option.max),
      value: String(value >= option.min && value <= option.max ? value : option.min),
      inputmode: "numeric", "aria-describedby": describedBy,
      onchange: () => {
        lobby.values[option.name] = Number(input.value);
      },
    });
    wrap.append(h("label", { for: id }, label), input, helpEl || "");
    return wrap;
  }
  if (option.kind === "set") {
    const chosen = new Set(value || []);
    const boxes = option.choices.map((card) => {
      const box = h("input", {
        type: "checkbox", checked: chosen.has(card),
        onchange: () => {
          if (box.checked) chosen.add(card);
          else chosen.delete(card);
          lobby.values[option.name] = [...chosen].sort();
        },
      });
      return h("label", { class: "check inline" }, box, " ", sentence(cardWords(card)));
    });
    wrap.append(h("fieldset", { class: "inline-set", "aria-describedby": describedBy }, h("legend", {}, label), boxes), helpEl || "");
    return wrap;
  }
  if (option.kind === "card_values") {
    const values = { ...(value || {}) };
    const rows = option.choices.map((card) => {
      const amount = h("input", {
        type: "number", min: String(option.min), max: String(option.max),
        value: String(values[card] || Math.min(Math.max(10, option.min), option.max)), inputmode: "numeric",
        "aria-label": t("create.points_for", { card: cardWords(card) }),
        onchange: () => {
          if (box.checked) values[card] = Number(amount.value);
          lobby.values[option.name] = { ...values };
        },
      });
      const box = h("input", {
        type: "checkbox", checked: card in values,
        onchange: () => {
          if (box.checked) values[card] = Number(amount.value);
          else delete values[card];
          lobby.values[option.name] = { ...values };
        },
      });
      return h("div", { class: "row" }, h("label", { class: "check inline" }, box, " ", sentence(t("create.card_scores", { card: cardWords(card) }))), amount);
    });
    wrap.append(h("fieldset", { class: "inline-set", "aria-describedby": describedBy }, h("legend", {}, label), rows), helpEl || "");
    return wrap;
  }
  return wrap;
}

/** A label's words begin with a capital in every language ("Ace of spades scores"): a
 *  card's name comes first in some texts, written as inside a sentence. */
function sentence(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function cardWords(code) {
  return faceWords(code[0], code[1]);
}

/** Whether an option counts with these values (its only_with conditions hold). */
export function optionApplies(option, values) {
  return Object.entries(option.only_with || {}).every(([name, value]) => values[name] === value);
}

/**
 * The rule options a new table is asked for: every option the form shows for this game and
 * the values chosen now (its only_with conditions hold), with its value, including values
 * equal to the preset's. What the player sees is what the table plays: the server picks
 * nothing in their place (a player count's usual deck or pass count, say).
 */
export function chosenOptions(options, values, game) {
  const out = {};
  for (const option of options) {
    if (!option.games.includes(game) || !(option.name in values)) continue;
    if (optionApplies(option, values)) out[option.name] = values[option.name];
  }
  return out;
}
