// The chat and the table log (seat events, moons): one polite live region.
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { fill, h } from "../dom.js";
import { t } from "../i18n.js";
import { botLabel } from "../labels.js";

export class ChatPart {
  onEvent(event, replayed) {
    switch (event.kind) {
      case "chat":
        this.addChat(event, replayed);
        break;
      case "sat":
        this.addLog(t("table.log.sat", { name: event.name }));
        break;
      case "left":
        this.addLog(t("table.log.left", { name: event.name }));
        break;
      case "bot_added":
        this.addLog(t("table.log.bot", { level: botLabel(event.level) }));
        break;
      case "started":
        if (!replayed) this.addLog(event.game_no > 1 ? t("table.log.game_n", { n: event.game_no }) : t("table.log.started"));
        break;
      case "away":
        if (!replayed) {
          const name = this.seatName(event.seat);
          this.addLog(event.reason === "timeout" ? t("table.log.away_timeout", { name }) : t("table.log.away", { name }));
        }
        break;
      case "back":
        if (!replayed) this.addLog(t("table.log.back", { name: this.seatName(event.seat) }));
        break;
      case "claim":
      case "claim_refused":
        this.onClaimEvent(event);
        break;
      case "game_over":
        if (!replayed) this.addLog(t("table.over"));
        break;
      default:
        break;
    }
  }

  addChat(event, replayed = false) {
    const { name, text } = event; // as typed: set as text, never as HTML
    const mine = this.player && event.player_id === this.player.id;
    this.pushLog(h("li", { class: mine ? "chat-line mine" : "chat-line" },
      h("span", { class: "chat-name" }, name), ": ", h("span", { class: "chat-text" }, text)));
    if (!replayed && !mine && !this.chatInView) {
      this.unread = (this.unread || 0) + 1;
      this.renderChatCount();
    }
  }

  /** Follow whether the chat is on screen (on a phone it is under the table): lines that
   *  come while it is not are counted on the head's Chat button until it is seen. */
  watchChat() {
    this.chatInView = true;
    this.unread = 0;
    if (typeof IntersectionObserver !== "function") return;
    this.chatObserver = new IntersectionObserver((entries) => {
      for (const entry of entries) this.chatInView = entry.isIntersecting;
      if (this.chatInView && this.unread) {
        this.unread = 0;
        this.renderChatCount();
      }
    }, { threshold: 0.3 });
    this.chatObserver.observe(this.el.chatLog);
  }

  renderChatCount() {
    const n = this.unread || 0;
    const e = this.el;
    e.chatCount.hidden = !n;
    fill(e.chatCount, n > 99 ? "99+" : String(n), h("span", { class: "sr-only" }, " " + t("table.log.unread")));
  }

  /** The head's Chat button: to the chat, ready to type. */
  jumpToChat() {
    const section = this.el.chatLog.closest("section");
    section.scrollIntoView({ block: "end", behavior: document.documentElement.classList.contains("no-anim") ? "auto" : "smooth" });
    this.el.chatInput.focus({ preventScroll: true });
    this.unread = 0;
    this.renderChatCount();
  }

  addLog(text, kind = "") {
    this.pushLog(h("li", { class: ["log-line", kind] }, text));
  }

  /** "Ann shot the moon!" ("You shot the moon!" for me). */
  moonWords(scorer) {
    return scorer === this.seat ? t("table.log.you_moon") : t("table.log.moon", { name: this.scorerName(scorer) });
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
