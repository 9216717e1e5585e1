// The scores panel and the score sheet (points per hand, running totals).
//
// Methods of the table page (static/js/table.js mixes them into TablePage): `this` is the page.

import { h, fill } from "../dom.js";
import { t } from "../i18n.js";
import { cardChip, shrinkToFit, signed, shortDirection } from "./util.js";

export class ScoresPart {
  scorers() {
    const v = this.view;
    if (!v) return [];
    const list = [];
    for (let i = 0; i < v.scores.length; i++) list.push(i);
    return list;
  }

  renderScores() {
    const v = this.view;
    const table = this.el.scores;
    if (!v) {
      fill(table, h("caption", { class: "sr-only" }, t("table.head.scores")), h("tbody", {}, h("tr", {}, h("td", {}, t("table.score.not_started")))));
      return;
    }
    const best = Math.min(...v.scores);
    fill(table,
      h("caption", { class: "sr-only" }, t("table.score.caption")),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("table.score.player")),
        h("th", { scope: "col" }, t("table.score.tricks")),
        h("th", { scope: "col" }, t("table.score.this_hand")),
        h("th", { scope: "col" }, t("table.score.total")))),
      h("tbody", {}, this.scorers().map((i) => h("tr", { class: [i === this.seat ? "me" : "", v.scores[i] === best && v.history.length ? "leader" : ""] },
        h("th", { scope: "row", title: this.scorerName(i) }, this.scorerName(i)),
        h("td", {}, String(v.tricks_won[i] ?? 0)),
        h("td", {}, String(v.points_taken[i] ?? 0)),
        h("td", { class: "total" }, String(v.scores[i]))))));
    // A name with a word too long for its column is made smaller until the table fits.
    const box = table.parentElement;
    if (box && box.scrollWidth > box.clientWidth + 1) {
      const longest = (th) => Math.max(...th.textContent.split(/\s+/).map((w) => w.length));
      const rows = [...table.querySelectorAll('th[scope="row"]')].sort((a, b) => longest(b) - longest(a));
      for (const th of rows) if (shrinkToFit(th, box)) break;
    }
  }

  renderSheet() {
    const v = this.view;
    const el = this.el.sheet;
    if (!v || !v.history.length) {
      fill(el, h("p", { class: "hint" }, t("table.score.sheet_empty")));
      return;
    }
    const scorers = this.scorers();
    fill(el, h("table", { class: "sheet-table" },
      h("caption", { class: "sr-only" }, t("table.score.sheet_caption")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("table.head.hand")), scorers.map((i) => h("th", { scope: "col", title: this.scorerName(i) },
        h("span", { "aria-hidden": "true" }, this.shortName(i)), h("span", { class: "sr-only" }, this.scorerName(i)))))),
      h("tbody", {}, v.history.map((r) => h("tr", {},
        h("th", { scope: "row" },
          `${r.hand_no + 1}`,
          r.direction && r.direction !== "none" && v.game !== "twentyeight" ? h("span", { class: "dir" }, ` ${shortDirection(r.direction)}`) : null,
          r.dead && r.dead.length ? h("span", { class: "dead" }, t("table.score.face_down") + " ", r.dead.map((c) => cardChip(c))) : null),
        scorers.map((i) => h("td", {},
          h("span", { class: "pts" }, signed(r.points[i])),
          r.moon === i ? h("span", { class: "moon", title: t("table.score.moon_title") }, h("span", { "aria-hidden": "true" }, " \u263E"), h("span", { class: "sr-only" }, " " + t("table.score.moon"))) : null,
          h("span", { class: "tot" }, String(r.totals[i])))))))));
  }

  showSheet() {
    const section = this.el.sheetSection;
    section.classList.add("flash");
    section.scrollIntoView({ block: "nearest", behavior: document.documentElement.classList.contains("no-anim") ? "auto" : "smooth" });
    section.focus({ preventScroll: true });
    setTimeout(() => section.classList.remove("flash"), 800);
  }
}
