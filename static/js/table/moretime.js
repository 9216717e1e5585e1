// A turn-based table's pace in the head ("Turn-based, 1 day a move") and the host's "Give more
// time" button: a dialog to choose whose clock (the seats with a move to make now) and how
// much, sent as the `give_time` command (docs/turn-based.md, docs/protocol.md). The server
// checks every choice; its refusal comes back as any command's error.

import { h, fill } from "../dom.js";
import { paceText } from "../mygames.js";

const AMOUNTS = [
  [3600, "1 hour"],
  [12 * 3600, "12 hours"],
  [86400, "1 day"],
  [3 * 86400, "3 days"],
];

/** The head's pace badge of a turn-based table, or null for a live one. */
export function paceBadge(t) {
  if (t.pace !== "turn") return null;
  const text = paceText(t);
  return h("span", { class: "badge pace" }, text.charAt(0).toUpperCase() + text.slice(1));
}

/** The button, made once by the page's build (hidden until it applies). */
export function moreTimeButton(page) {
  return h("button", {
    type: "button", class: "btn small", id: "more-time", hidden: true,
    onclick: () => openMoreTime(page),
  }, "Give more time");
}

/** Shown to the host of a playing turn-based table while someone has a move to make. */
export function moreTimeApplies(page) {
  const t = page.table;
  return Boolean(t && t.pace === "turn" && t.status === "playing" && page.player &&
    t.host === page.player.id && t.deadline_ms && (t.deadline_seats || []).length);
}

function openMoreTime(page) {
  const t = page.table;
  if (!moreTimeApplies(page)) return;
  const dialog = h("dialog", { class: "invite-dialog", id: "more-time-dialog", "aria-labelledby": "more-time-title" });
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  const seat = h("select", { id: "more-time-seat" },
    t.deadline_seats.map((s) => h("option", { value: String(s) }, page.seatName(s))));
  const amount = h("select", { id: "more-time-amount" },
    AMOUNTS.map(([seconds, label]) => h("option", { value: String(seconds), selected: seconds === 86400 }, label)));
  fill(dialog,
    h("h2", { id: "more-time-title" }, "Give more time"),
    h("p", {}, t.deadline_seats.length > 1
      ? "Everyone still passing shares one clock: they all get it."
      : "The clock of the player whose move it is runs longer."),
    h("div", { class: "row" }, h("label", { for: "more-time-seat" }, "Player"), seat),
    h("div", { class: "row" }, h("label", { for: "more-time-amount" }, "Extra time"), amount),
    h("div", { class: "row end" },
      h("button", { type: "button", class: "btn small", onclick: close }, "Cancel"),
      h("button", {
        type: "button", class: "btn small primary", id: "more-time-go",
        onclick: () => {
          page.send("give_time", { seat: Number(seat.value), seconds: Number(amount.value) });
          close();
        },
      }, "Give")));
  document.body.append(dialog);
  dialog.showModal();
}
