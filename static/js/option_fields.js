// The create-table form's field for one rule option, built from what /api/presets says of it
// (its kind, choices, bounds, label): the value lives in lobby.values, and changing the number
// of players updates the options whose defaults follow it (lobby.js renders the form).

import { h } from "./dom.js";
import { DUMMY_PASSING_LABELS, OPTION_HELP, valueLabel } from "./labels.js";

export function optionField(lobby, option, preset) {
  const id = `opt-${option.name}`;
  const value = lobby.values[option.name];
  const help = OPTION_HELP[option.name];
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
    wrap.append(h("label", { class: "check", for: id }, input, " ", option.label), helpEl || "");
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
    }, option.name === "passing" && preset.game === "dummy" ? DUMMY_PASSING_LABELS[c] || c
      : option.name === "players" ? `${c} players` : valueLabel(option.name, c))));
    wrap.append(h("label", { for: id }, option.label), select, helpEl || "");
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
    wrap.append(h("label", { for: id }, option.label), input, helpEl || "");
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
      return h("label", { class: "check inline" }, box, " ", cardWords(card));
    });
    wrap.append(h("fieldset", { class: "inline-set", "aria-describedby": describedBy }, h("legend", {}, option.label), boxes), helpEl || "");
    return wrap;
  }
  if (option.kind === "card_values") {
    const values = { ...(value || {}) };
    const rows = option.choices.map((card) => {
      const amount = h("input", {
        type: "number", min: String(option.min), max: String(option.max),
        value: String(values[card] || Math.min(Math.max(10, option.min), option.max)), inputmode: "numeric",
        "aria-label": `Points for the ${cardWords(card)}`,
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
      return h("div", { class: "row" }, h("label", { class: "check inline" }, box, " ", cardWords(card), " scores"), amount);
    });
    wrap.append(h("fieldset", { class: "inline-set", "aria-describedby": describedBy }, h("legend", {}, option.label), rows), helpEl || "");
    return wrap;
  }
  return wrap;
}

function cardWords(code) {
  const ranks = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };
  const suits = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  return `${ranks[code[0]] || code[0]} of ${suits[code[1]]}`;
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
