// Entry point: the top bar, preferences, and which page to show.
//   /                        lobby
//   /?table=ID[&invite=X]    a table (play or watch); invite links look like this
//   /?replay=GAME_ID         the replay of a finished game

import { adoptLegacyToken, checkSession, session, signOut } from "./api.js";
import { h, fill } from "./dom.js";
import { applyPrefs, prefs, setPref } from "./prefs.js";

applyPrefs();

let current = null; // the page shown: {destroy()}

// The table page's modules, fetched at once with table.js rather than one import level after
// another (tests/api/test_static.py checks that every file of static/js/table/ is here).
const TABLE_MODULES = [
  "./table.js", "./socket.js", "./table/util.js", "./table/layout.js", "./table/seats.js",
  "./table/trick.js", "./table/center.js", "./table/actions.js", "./table/hand.js",
  "./table/scores.js", "./table/chat.js", "./table/motion.js", "./table/invite.js", "./table/conveniences.js",
  "./table/befriend.js",
];

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
    h("span", { class: "who-name", title: player.is_guest ? "Playing as a guest" : "Signed in" },
      player.name, player.is_guest ? " (guest)" : ""),
    h("button", {
      type: "button",
      class: "btn ghost small",
      onclick: async () => {
        await signOut();
        location.href = "/";
      },
    }, "Sign out"),
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
}

async function route() {
  const params = new URLSearchParams(location.search);
  const main = document.getElementById("main");
  if (current && current.destroy) current.destroy();
  fill(main);
  if (params.get("table")) {
    preloadModules(TABLE_MODULES);
    const [{ mountTable }] = await Promise.all([import("./table.js"), loadTableStyle()]);
    current = mountTable(main, params.get("table"), {
      invite: params.get("invite"),
      autoSit: params.get("sit") === "1",
    });
  } else if (params.get("replay")) {
    const [{ mountReplay }] = await Promise.all([import("./replay.js"), loadTableStyle()]);
    current = mountReplay(main, params.get("replay"));
  } else {
    const { mountLobby } = await import("./lobby.js");
    current = mountLobby(main);
  }
}

window.addEventListener("hearts:identity", renderWho);
window.addEventListener("popstate", route);

setupPrefs();
renderWho();
// A token an older version kept in localStorage becomes the session cookie before a page
// opens its socket (which the cookie signs).
adoptLegacyToken().finally(() => {
  checkSession().finally(renderWho);
  route();
});
