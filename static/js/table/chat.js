// The chat and the table log (seat events, moons): one polite live region.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { h } from "../dom.js";
import { botLabel } from "../labels.js";

export class ChatPart {
  onEvent(event, replayed) {
    switch (event.kind) {
      case "chat":
        this.addChat(event);
        break;
      case "sat":
        this.addLog(`${event.name} sat down.`);
        break;
      case "left":
        this.addLog(`${event.name} left the table.`);
        break;
      case "bot_added":
        this.addLog(`A computer player (${botLabel(event.level)}) joined.`);
        break;
      case "started":
        if (!replayed) this.addLog(event.game_no > 1 ? `Game ${event.game_no} started.` : "The game started.");
        break;
      case "away":
        if (!replayed) {
          this.addLog(`${this.seatName(event.seat)} is away: the computer plays for them${event.reason === "timeout" ? " (the turn timer ran out)" : ""}.`);
        }
        break;
      case "back":
        if (!replayed) this.addLog(`${this.seatName(event.seat)} is back.`);
        break;
      case "claim":
      case "claim_refused":
        this.onClaimEvent(event);
        break;
      case "game_over":
        if (!replayed) this.addLog("The game is over.");
        break;
      default:
        break;
    }
  }

  addChat(event) {
    const { name, text } = event; // as typed: set as text, never as HTML
    const mine = this.player && event.player_id === this.player.id;
    this.pushLog(h("li", { class: mine ? "chat-line mine" : "chat-line" },
      h("span", { class: "chat-name" }, name), ": ", h("span", { class: "chat-text" }, text)));
  }

  addLog(text, kind = "") {
    this.pushLog(h("li", { class: ["log-line", kind] }, text));
  }

  /** "Ann shot the moon!" ("You shot the moon!" for me). */
  moonWords(scorer) {
    return `${scorer === this.seat ? "You" : this.scorerName(scorer)} shot the moon!`;
  }

  pushLog(li) {
    const log = this.el.chatLog;
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 20;
    log.appendChild(li);
    while (log.children.length > 200) log.removeChild(log.firstChild);
    if (atBottom) log.scrollTop = log.scrollHeight;
    // A log that scrolls is reachable with the keyboard (to scroll it back).
    if (log.scrollHeight > log.clientHeight && log.tabIndex !== 0) log.tabIndex = 0;
  }
}
