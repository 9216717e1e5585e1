// A player's page (/?player=ID): per variant, games and wins, and the rating with its
// uncertainty ("1612 ± 170", twice the deviation), marked provisional until it is
// established; and a variant's leaderboard (/?leaderboard=VARIANT), which lists established
// ratings only (docs/persistence.md "Ratings").

import { api } from "./api.js";
import { addStylesheet, h, fill } from "./dom.js";
import { loadSection, t } from "./i18n.js";

// This module's words (<lang>.player.json), before anything of it is drawn.
await loadSection("player");

function loadStyle() {
  addStylesheet("player-css", new URL("../css/player.css", import.meta.url).href);
}

export function mountPlayer(root, playerId) {
  loadStyle();
  const page = new Page(root);
  page.player(playerId);
  return page;
}

export function mountLeaderboard(root, variant) {
  loadStyle();
  const page = new Page(root);
  page.leaderboard(variant);
  return page;
}

/** "1612 ± 170": the rating and twice its deviation (about a 95% range), rounded. */
export function ratingText(rating, deviation) {
  return `${Math.round(rating)} \u00b1 ${Math.round(2 * deviation)}`;
}

function ratingCell(v) {
  if (v.rating === null || v.rating === undefined) return h("span", { class: "hint" }, t("player.not_rated"));
  return h("span", { class: "rating" },
    h("span", { class: "rating-value" }, ratingText(v.rating, v.deviation)),
    v.provisional
      ? h("span", { class: "badge provisional", title: t("player.provisional_title") }, t("player.provisional"))
      : null);
}

class Page {
  constructor(root) {
    this.root = root;
  }

  destroy() {}

  /** The answer of ``path``, with "Loading…" shown meanwhile; null (the error shown) when
   *  it fails. */
  async load(title, path) {
    document.title = t("common.doc_title", { title });
    const status = h("p", { "aria-live": "polite" }, t("player.loading"));
    fill(this.root, h("section", { class: "panel player-page" }, status));
    try {
      return await api(path);
    } catch (error) {
      fill(status, error.message);
      return null;
    }
  }

  async player(playerId) {
    const data = await this.load(t("player.player"), `/api/players/${encodeURIComponent(playerId)}`);
    if (!data) return;
    document.title = t("common.doc_title", { title: data.player.name });
    const rows = data.variants.map((v) => h("tr", { "data-variant": v.variant },
      h("th", { scope: "row" }, h("a", { href: `/?leaderboard=${encodeURIComponent(v.variant)}` }, v.variant)),
      h("td", {}, String(v.games)),
      h("td", {}, String(v.wins)),
      h("td", {}, String(v.rated_games)),
      h("td", {}, ratingCell(v))));
    fill(this.root, h("section", { class: "panel player-page" },
      h("h1", {}, data.player.name, data.player.is_guest ? h("span", { class: "hint" }, t("player.guest")) : null),
      rows.length
        ? h("div", { class: "table-scroll" }, h("table", { class: "stats" },
          h("caption", {}, t("player.caption")),
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, t("player.variant")), h("th", { scope: "col" }, t("player.games")),
            h("th", { scope: "col" }, t("player.wins")), h("th", { scope: "col" }, t("player.rated")),
            h("th", { scope: "col" }, t("player.rating")))),
          h("tbody", {}, rows)))
        : h("p", {}, t("player.no_games")),
      h("a", { class: "btn ghost", href: "/" }, t("player.back"))));
  }

  async leaderboard(variant) {
    const data = await this.load(t("player.leaderboard_short", { variant }), `/api/leaderboards/${encodeURIComponent(variant)}`);
    if (!data) return;
    const rows = data.entries.map((e) => h("li", {},
      h("span", { class: "rank" }, `${e.rank}.`),
      h("a", { href: `/?player=${encodeURIComponent(e.player.id)}` }, e.player.name),
      h("span", { class: "rating-value" }, ratingText(e.rating, e.deviation))));
    fill(this.root, h("section", { class: "panel player-page" },
      h("h1", {}, t("player.leaderboard", { variant })),
      h("p", { class: "hint" }, t("player.established_only")),
      rows.length ? h("ol", { class: "leaderboard" }, rows) : h("p", {}, t("player.nobody")),
      h("a", { class: "btn ghost", href: "/" }, t("player.back"))));
  }
}
