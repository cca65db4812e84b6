// What every console page shares: the session (its CSRF token), the JSON API helper, element building and the
// header with the pages' navigation. A page imports it and fills its own <main>.
import { el, timeOf } from "/assets/elements.js";

export { el, timeOf };
export const session = await (await fetch("/v1/session")).json();

const pages = [
  ["/", "Send"],
  ["/log", "Delivery log"],
  ["/devices", "Devices & apps"],
  ["/live-activities", "Live Activities"],
  ["/faults", "Faults"],
  ["/webpush", "Web Push"],
  ["/keys", "Keys & tokens"],
  ["/validators", "Validators"],
  ["/dashboard", "Metrics"],
  ["/device", "Browser device"],
];

/// Calls the console API; changes carry the CSRF token. A lapsed session goes back to the sign-in page.
export async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (options.method && options.method !== "GET") headers["X-Herald-CSRF"] = session.csrf;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    options = { ...options, body: JSON.stringify(options.json) };
  }
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) location.assign("/sign-in");
  return response;
}

/// `api` for an answer in JSON: `{ status, body }`.
export async function call(path, options = {}) {
  const response = await api(path, options);
  const text = await response.text();
  let body = {};
  try { body = text ? JSON.parse(text) : {}; } catch { body = { reason: "BadAnswer", message: text }; }
  return { status: response.status, body };
}

/// A time as the person's clock shows it, with milliseconds.
export function clock(iso) {
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }) + "." + String(date.getMilliseconds()).padStart(3, "0");
}

/// Follows `GET /v1/events`; `handlers` maps event names to functions of the event's JSON.
export function followEvents(handlers) {
  const source = new EventSource("/v1/events");
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (message) => handler(JSON.parse(message.data)));
  }
  return source;
}

function header() {
  const here = location.pathname;
  const signOut = el("button", {
    type: "button", class: "quiet", text: "Sign out",
    onclick: async () => { await api("/sign-out", { method: "POST" }); location.assign("/sign-in"); },
  });
  const links = pages.map(([path, title]) => el("a", { href: path, text: title, "aria-current": path === here ? "page" : undefined }));
  return el("header", {}, el("a", { class: "brand", href: "/", text: "Herald" }), el("nav", { "aria-label": "Console pages" }, ...links), signOut);
}

document.body.prepend(header());
