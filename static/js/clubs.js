// Clubs (/?clubs=1: my clubs and a new one; /?club=ID[&link=TOKEN]: one club): join by the
// club's link or a request, the members, join requests and the link for admins, the club's
// chat and announcements, its standings over its events and in the daily challenge
// (docs/compete.md "Clubs"), and its events, with the form that schedules one for admins
// (static/js/events.js). Words: the catalog's clubs.* (i18n.js); app.js draws the page again
// on a change of language.

import { api, checkSession, session } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { clubEvents } from "./events.js";
import { formatNumber, loadSection, plural, t } from "./i18n.js";

// This module's words (<lang>.clubs.json, <lang>.daily.json for the daily's standings and
// <lang>.events.json for the events' standings), before anything of it is drawn.
await loadSection("clubs", "daily", "events");

export function mountClubs(root, clubId, link) {
  const page = new ClubsPage(root, clubId, link);
  page.start();
  return page;
}

function loadStyle() {
  if (document.getElementById("daily-css")) return; // the daily page's sheet, shared
  const style = document.createElement("link");
  style.id = "daily-css";
  style.rel = "stylesheet";
  style.href = new URL("../css/daily.css", import.meta.url).href;
  document.head.append(style);
}

/** A member's role (the server's owner, admin, member) in the page's language. */
function roleWord(role) {
  const words = { owner: t("clubs.owner"), admin: t("clubs.admin"), member: t("clubs.member") };
  return words[role] || role;
}

class ClubsPage {
  constructor(root, clubId, link) {
    this.root = root;
    this.clubId = clubId;
    this.link = link;
  }

  destroy() {
    this.root.classList.remove("daily");
  }

  async start() {
    loadStyle();
    this.root.classList.add("daily");
    await checkSession();
    if (!session.player) {
      fill(this.root, h("section", { class: "panel" }, h("p", {}, t("clubs.sign_in")), h("a", { class: "btn", href: "/" }, t("common.lobby"))));
      return;
    }
    if (this.clubId) await this.showClub();
    else await this.showMine();
  }

  async call(path, body) {
    try {
      return await api(path, body === undefined ? {} : { method: "POST", body });
    } catch (error) {
      toast(error.message, "error");
      return null;
    }
  }

  async showMine() {
    document.title = t("common.doc_title", { title: t("common.clubs") });
    const data = await this.call("/api/clubs/mine");
    const name = h("input", { id: "club-name", maxlength: "40", required: true, autocomplete: "off" });
    const closed = h("input", { type: "checkbox", id: "club-closed" });
    const form = h("form", { class: "club-create", onsubmit: async (event) => {
      event.preventDefault();
      const made = await this.call("/api/clubs", { name: name.value, open: !closed.checked });
      if (made) location.href = `/?club=${made.id}`;
    } },
      h("label", { for: "club-name" }, t("common.name")), name,
      h("label", { class: "check" }, closed, " ", t("clubs.closed_hint")),
      h("button", { class: "btn primary", id: "club-create" }, t("clubs.create")));
    const rows = (data ? data.clubs : []).map((c) => h("li", {},
      h("a", { href: `/?club=${c.id}` }, c.name), " ",
      h("span", { class: "hint" }, c.invited ? t("clubs.invited") : plural("clubs.role_members", c.members, { role: roleWord(c.role) }))));
    fill(this.root,
      h("h1", { class: "daily-title" }, t("common.clubs")),
      h("section", { class: "panel" }, h("h2", {}, t("clubs.mine")), rows.length ? h("ul", {}, rows) : h("p", { class: "hint" }, t("clubs.none"))),
      h("section", { class: "panel" }, h("h2", {}, t("clubs.new")), form));
  }

  async showClub() {
    const id = encodeURIComponent(this.clubId);
    const club = await this.call(`/api/clubs/${id}`);
    if (!club) return;
    document.title = t("common.doc_title", { title: club.name });
    const parts = [h("h1", { class: "daily-title" }, club.name)];
    const about = [h("p", {}, club.open ? plural("clubs.open_club", club.members) : plural("clubs.closed_club", club.members))];
    if (!club.role) {
      const label = club.open || this.link ? t("clubs.join") : club.pending === "request" ? t("clubs.asked") : t("clubs.ask");
      about.push(h("button", { type: "button", class: "btn primary", id: "club-join", disabled: club.pending === "request",
        onclick: async () => {
          const done = await this.call(`/api/clubs/${id}/join`, this.link ? { link: this.link } : {});
          if (done) this.showClub();
        } }, label));
    } else {
      about.push(h("p", {}, t("clubs.you_are", { role: roleWord(club.role) })));
      about.push(h("p", {}, h("button", { type: "button", class: "btn ghost", id: "club-leave", onclick: async () => {
        if (await this.call(`/api/clubs/${id}/leave`, {})) location.href = "/?clubs=1";
      } }, t("clubs.leave"))));
    }
    if (club.link) {
      about.push(h("div", { class: "club-create" }, h("label", { for: "club-link" }, t("clubs.link")),
        h("input", { id: "club-link", readonly: true, value: new URL(club.link, location.href).href })));
    }
    parts.push(h("section", { class: "panel" }, about));
    if (club.requests && club.requests.length) {
      parts.push(h("section", { class: "panel" }, h("h2", {}, t("clubs.requests")), h("ul", {}, club.requests.map((r) => h("li", {},
        r.name, " ",
        h("button", { type: "button", class: "btn", onclick: () => this.answer(id, r.player_id, true) }, t("clubs.accept", { name: r.name })), " ",
        h("button", { type: "button", class: "btn ghost", onclick: () => this.answer(id, r.player_id, false) }, t("clubs.refuse")))))));
    }
    if (club.member_list) {
      parts.push(h("section", { class: "panel" }, h("h2", {}, t("clubs.members")),
        h("ul", { class: "club-members" }, club.member_list.map((m) => h("li", {}, m.name, " ", h("span", { class: "hint" }, roleWord(m.role)))))));
    }
    if (club.role) parts.push(await clubEvents(this.clubId, club.role !== "member")); // members' only
    if (club.role) parts.push(await this.chat(id, club.role !== "member"));
    if (club.open || club.role) parts.push(...await this.standings(id)); // a closed club's are its members'

    fill(this.root, ...parts);
  }

  async answer(id, playerId, accept) {
    if (await this.call(`/api/clubs/${id}/requests/${encodeURIComponent(playerId)}`, { accept })) this.showClub();
  }

  async chat(id, admin) {
    const data = await this.call(`/api/clubs/${id}/posts`);
    const lines = (data ? data.posts : []).map((p) => h("li", { class: p.announcement ? "club-post announcement" : "club-post" },
      h("strong", {}, p.name), p.announcement ? ` ${t("clubs.announced")}` : "", ": ", h("span", {}, p.text)));
    const text = h("input", { id: "club-text", maxlength: "300", autocomplete: "off", "aria-label": t("clubs.your_message") });
    const announce = admin ? h("input", { type: "checkbox", id: "club-announce" }) : null;
    const form = h("form", { class: "row", onsubmit: async (event) => {
      event.preventDefault();
      const body = { text: text.value, announcement: !!(announce && announce.checked) };
      if (await this.call(`/api/clubs/${id}/posts`, body)) this.showClub();
    } }, text, announce ? h("label", { class: "check inline" }, announce, " ", t("clubs.announcement")) : null,
      h("button", { class: "btn primary", id: "club-send" }, t("clubs.send")));
    return h("section", { class: "panel" }, h("h2", {}, t("clubs.chat")), form,
      lines.length ? h("ul", { class: "club-posts" }, lines) : h("p", { class: "hint" }, t("clubs.nothing_said")));
  }

  /** The club's standings of the month: over its events (each event's places as points),
   *  then in the daily challenge. */
  async standings(id) {
    const data = await this.call(`/api/clubs/${id}/standings`);
    const rows = data ? data.lines.map((l) => h("li", { value: l.rank }, l.name, " ", h("span", { class: "hint" }, plural("daily.over_days", l.days, { total: formatNumber(l.total, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) })))) : [];
    return [this.eventStandings(data ? data.events : null),
      h("section", { class: "panel" }, h("h2", {}, t("clubs.standings")),
        rows.length ? h("ol", { class: "daily-board" }, rows) : h("p", { class: "hint" }, t("clubs.no_standings")))];
  }

  eventStandings(events) {
    const me = session.player ? session.player.id : null;
    const lines = events ? events.lines : [];
    const body = lines.length
      ? h("div", { class: "club-scroll", tabindex: "0" }, h("table", { class: "event-standings club-event-standings" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("events.place")), h("th", { scope: "col" }, t("common.player")),
          h("th", { scope: "col" }, t("clubs.points")), h("th", { scope: "col" }, t("clubs.events_played")))),
        h("tbody", {}, lines.map((l) => h("tr", { class: l.player_id === me ? "mine" : "" },
          h("td", {}, formatNumber(l.rank)), h("th", { scope: "row" }, l.name),
          h("td", {}, formatNumber(l.points, { maximumFractionDigits: 1 })), h("td", {}, formatNumber(l.events)))))))
      : h("p", { class: "hint" }, t("clubs.no_event_standings"));
    // The events counted, each a link to its own standings (a finished one is no longer
    // among the events to come).
    const counted = events && events.counted.length
      ? h("p", { class: "hint" }, t("clubs.counted"), " ", ...events.counted.flatMap((e, i) => [
        i ? ", " : "", h("a", { href: `/?event=${e.id}` }, e.name),
        e.state === "finished" ? ` (${t("events.finished")})` : ""]))
      : null;
    return h("section", { class: "panel", "aria-labelledby": "club-event-standings-title" },
      h("h2", { id: "club-event-standings-title" }, t("clubs.event_standings")),
      h("p", { class: "hint" }, t("clubs.event_scoring")), body, counted);
  }
}
