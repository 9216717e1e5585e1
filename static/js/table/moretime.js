// A turn-based table's pace in the head ("Turn-based, 1 day a move") and the host's "Give more
// time" button: a dialog to choose whose clock (the seats with a move to make now) and how
// much, sent as the `give_time` command (docs/turn-based.md, docs/protocol.md). The server
// checks every choice; its refusal comes back as any command's error.

import { h, fill } from "../dom.js";
import { plural, t } from "../i18n.js";
import { paceText } from "../mygames.js";

/** The amounts of time the host may give, with their words (at drawing time). */
function amounts() {
  return [
    [3600, plural("table.more.hours", 1)],
    [12 * 3600, plural("table.more.hours", 12)],
    [86400, plural("table.more.days", 1)],
    [3 * 86400, plural("table.more.days", 3)],
  ];
}

/** The head's pace badge of a turn-based table, or null for a live one. */
export function paceBadge(tb) {
  if (tb.pace !== "turn") return null;
  const text = paceText(tb);
  return h("span", { class: "badge pace" }, text.charAt(0).toUpperCase() + text.slice(1));
}

/** The button, made once by the page's build (hidden until it applies). */
export function moreTimeButton(page) {
  return h("button", {
    type: "button", class: "btn small", id: "more-time", hidden: true,
    onclick: () => openMoreTime(page),
  }, t("table.more.title"));
}

/** Shown to the host of a playing turn-based table while someone has a move to make. */
export function moreTimeApplies(page) {
  const tb = page.table;
  return Boolean(tb && tb.pace === "turn" && tb.status === "playing" && page.player &&
    tb.host === page.player.id && tb.deadline_ms && (tb.deadline_seats || []).length);
}

function openMoreTime(page) {
  const tb = page.table;
  if (!moreTimeApplies(page)) return;
  const dialog = h("dialog", { class: "invite-dialog", id: "more-time-dialog", "aria-labelledby": "more-time-title" });
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  const seat = h("select", { id: "more-time-seat" },
    tb.deadline_seats.map((s) => h("option", { value: String(s) }, page.seatName(s))));
  const amount = h("select", { id: "more-time-amount" },
    amounts().map(([seconds, label]) => h("option", { value: String(seconds), selected: seconds === 86400 }, label)));
  fill(dialog,
    h("h2", { id: "more-time-title" }, t("table.more.title")),
    h("p", {}, tb.deadline_seats.length > 1 ? t("table.more.shared") : t("table.more.one")),
    h("div", { class: "row" }, h("label", { for: "more-time-seat" }, t("table.score.player")), seat),
    h("div", { class: "row" }, h("label", { for: "more-time-amount" }, t("table.more.extra")), amount),
    h("div", { class: "row end" },
      h("button", { type: "button", class: "btn small", onclick: close }, t("table.cancel")),
      h("button", {
        type: "button", class: "btn small primary", id: "more-time-go",
        onclick: () => {
          page.send("give_time", { seat: Number(seat.value), seconds: Number(amount.value) });
          close();
        },
      }, t("table.more.give"))));
  document.body.append(dialog);
  dialog.showModal();
}
