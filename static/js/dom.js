// Tiny DOM helpers. Text always goes in through textContent / text nodes, never innerHTML,
// so names and chat from other players can never become markup. The server sends what people
// typed as it was typed (docs/protocol.md, "User text"): nothing to unescape.

/**
 * h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child, [more])
 * Attribute values are set with setAttribute (strings) or as properties (on* handlers,
 * `text`, `value`, `checked`, `disabled`, `hidden`).
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") el.textContent = String(value);
      else if (key === "class") el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
      else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
      else if (key === "value" || key === "checked" || key === "disabled" || key === "hidden" || key === "selected") el[key] = value;
      else if (key === "dataset") Object.assign(el.dataset, value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Replace the children of `el` with `children`. */
export function fill(el, ...children) {
  clear(el);
  return append(el, children);
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** Set text only when it changed (keeps screen readers and layout calm). */
export function setText(el, text) {
  const value = String(text ?? "");
  if (el.textContent !== value) el.textContent = value;
}

let toastTimer = null;
/** A short message at the bottom of the screen (role=alert for errors, status otherwise). */
export function toast(message, kind = "info") {
  const el = document.getElementById("toast");
  if (!el) return;
  el.setAttribute("role", kind === "error" ? "alert" : "status");
  el.className = `toast show ${kind}`;
  el.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.className = "toast";
  }, 4000);
}

/** Add a page's own stylesheet once (``id`` names the link; ``href`` resolved by the caller
 *  against its own module URL, so versioned URLs keep working). */
export function addStylesheet(id, href) {
  if (document.getElementById(id)) return;
  const link = document.createElement("link");
  link.id = id;
  link.rel = "stylesheet";
  link.href = href;
  document.head.append(link);
}
