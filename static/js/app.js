// Entry point: the top bar, preferences, and which page to show.
//   /                        lobby
//   /?table=ID[&invite=X]    a table (play or watch); invite links look like this
//   /?replay=GAME_ID         the replay of a finished game
//   /?player=ID              a player's page (ratings with their uncertainty)
//   /?leaderboard=VARIANT    a variant's leaderboard (established ratings)
//   /?daily=PRESET           the daily challenge of a preset (play, results, leaderboards)
//   /?clubs=1, /?club=ID     my clubs; one club (&link=TOKEN: its join link)
//   /?event=ID               an event: register, standings, one's table (static/js/events.js)
//   /?games=1                My games: every table the player sits at (static/js/mygames.js)

import { adoptLegacyToken, checkSession, session, signOut } from "./api.js";
import { h, fill, toast } from "./dom.js";
import { applyPrefs, prefs, setPref } from "./prefs.js";
import { language, loadSection, setLanguage, t } from "./i18n.js";
import { setupNotifications } from "./notify.js";
import { mountMyGames, setupMyGames } from "./mygames.js";
import { followFriends, setupFriendAlerts } from "./alerts.js";

applyPrefs();

let current = null; // the page shown: {destroy()}

// The table page's modules, fetched at once with table.js rather than one import level after
// another (tests/api/test_static.py checks that every file of static/js/table/ is here).
const TABLE_MODULES = [
  "./table.js", "./socket.js", "./table/util.js", "./table/layout.js", "./table/seats.js",
  "./table/trick.js", "./table/center.js", "./table/actions.js", "./table/hand.js",
  "./table/scores.js", "./table/chat.js", "./table/motion.js", "./table/invite.js", "./table/conveniences.js",
  "./table/befriend.js", "./table/moretime.js", "./table/hint.js",
];

// The sections of words each page's modules load at their top (static/i18n/<lang>.<name>.json;
// bench/catalogs.py finds them, tests/bench/test_catalogs.py checks this list against it):
// asked for as the page's modules are, not once those have arrived, a round trip sooner.
const PAGE_SECTIONS = {
  table: ["room", "rules", "table"],
  clubs: ["clubs", "daily", "events"],
  events: ["events"],
  daily: ["daily"],
  player: ["player"],
  replay: ["create", "replay", "review", "room"],
  lobby: ["create", "lobby", "rules"],
};

function preloadWords(page) {
  loadSection(...(PAGE_SECTIONS[page] || []));
}

/** The table page's stylesheet (css/table.css; the replay page's too), added once; resolves
 *  when it has loaded (or failed), so the page is never drawn without it. Not in index.html:
 *  the lobby's first paint waits only for style.css. */
let tableStyle = null;
function loadTableStyle() {
  if (!tableStyle) {
    tableStyle = new Promise((resolve) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = new URL("../css/table.css", import.meta.url).href;
      link.addEventListener("load", resolve);
      link.addEventListener("error", resolve);
      document.head.append(link);
    });
  }
  return tableStyle;
}

/** Fetch modules now (versioned URLs: they resolve against this module's own). */
function preloadModules(specs) {
  for (const spec of specs) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = new URL(spec, import.meta.url).href;
    document.head.append(link);
  }
}

function renderWho() {
  const who = document.getElementById("who");
  const player = session.player;
  if (!player) {
    fill(who);
    return;
  }
  fill(
    who,
    h("span", { class: "who-name", title: player.is_guest ? t("who.guest_title") : t("who.signed_in") },
      player.is_guest ? t("who.guest_name", { name: player.name }) : player.name),
    h("button", {
      type: "button",
      class: "btn ghost small",
      onclick: async () => {
        await signOut();
        location.href = "/";
      },
    }, t("who.sign_out")),
  );
}

function setupPrefs() {
  const dialog = document.getElementById("prefs-dialog");
  const four = document.getElementById("pref-four");
  const anim = document.getElementById("pref-anim");
  const forced = document.getElementById("pref-forced");
  document.getElementById("prefs-button").addEventListener("click", () => {
    four.checked = !!prefs.fourColour;
    anim.checked = !!prefs.animations;
    forced.checked = !!prefs.autoForced;
    dialog.showModal();
  });
  four.addEventListener("change", () => setPref("fourColour", four.checked));
  anim.addEventListener("change", () => setPref("animations", anim.checked));
  forced.addEventListener("change", () => setPref("autoForced", forced.checked));
  // The language (static/js/i18n.js): switched at once, the page drawn again, no reload.
  const lang = document.getElementById("pref-lang");
  lang.value = language();
  lang.addEventListener("change", () => {
    setLanguage(lang.value).catch(() => {
      lang.value = language();
      toast(t("common.network"), "error");
    });
  });
}

async function route() {
  const params = new URLSearchParams(location.search);
  const main = document.getElementById("main");
  if (current && current.destroy) current.destroy();
  fill(main);
  // The invitations banner (static/js/alerts.js): the lobby's socket feeds it on the lobby.
  const lobbyPage = !["table", "club", "clubs", "event", "games", "daily", "player", "leaderboard", "replay"]
    .some((key) => params.get(key));
  followFriends(!lobbyPage);
  if (params.get("table")) {
    preloadModules(TABLE_MODULES);
    preloadWords("table");
    const [{ mountTable }] = await Promise.all([import("./table.js"), loadTableStyle()]);
    current = mountTable(main, params.get("table"), {
      invite: params.get("invite"),
      autoSit: params.get("sit") === "1",
    });
  } else if (params.get("club") || params.get("clubs")) {
    preloadWords("clubs");
    const { mountClubs } = await import("./clubs.js");
    current = mountClubs(main, params.get("club"), params.get("link"));
  } else if (params.get("event")) {
    preloadWords("events");
    const { mountEvent } = await import("./events.js");
    current = mountEvent(main, params.get("event"));
  } else if (params.get("games")) {
    current = mountMyGames(main);
  } else if (params.get("daily")) {
    preloadWords("daily");
    const [{ mountDaily }] = await Promise.all([import("./daily.js"), loadTableStyle()]);
    current = mountDaily(main, params.get("daily"));
  } else if (params.get("player")) {
    preloadWords("player");
    const { mountPlayer } = await import("./player.js");
    current = mountPlayer(main, params.get("player"));
  } else if (params.get("leaderboard")) {
    preloadWords("player");
    const { mountLeaderboard } = await import("./player.js");
    current = mountLeaderboard(main, params.get("leaderboard"));
  } else if (params.get("replay")) {
    preloadWords("replay");
    const [{ mountReplay }] = await Promise.all([import("./replay.js"), loadTableStyle()]);
    current = mountReplay(main, params.get("replay"));
  } else {
    preloadWords("lobby");
    const { mountLobby } = await import("./lobby.js");
    current = mountLobby(main);
  }
}

window.addEventListener("hearts:identity", renderWho);
window.addEventListener("hearts:language", () => {
  renderWho();
  route();
});
window.addEventListener("popstate", route);

setupPrefs();
setupNotifications(); // the service worker, pushes, e-mail (static/js/notify.js)
setupMyGames(); // the "Your games" strip, the badge and the title's count on every page
setupFriendAlerts(); // invitations and friend requests at the top of every page
renderWho();
// A token an older version kept in localStorage becomes the session cookie before a page
// opens its socket (which the cookie signs).
adoptLegacyToken().finally(() => {
  checkSession().finally(renderWho);
  route();
});
