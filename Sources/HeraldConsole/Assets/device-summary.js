// The browser device's scheduled summary (iOS 15): while it is on, passive and active notifications wait (kept with
// the cards, marked with the time they are due) and arrive together at its time as one summary card, most relevant
// first (relevance-score); time-sensitive and critical ones come at once. Turning it off delivers what it holds.
import { el, timeOf } from "/assets/common.js";

const field = (id) => document.getElementById(id);
const key = "herald.device.summary";

/// `{on, time: "HH:MM"}` as the person set it.
const settings = () => JSON.parse(localStorage.getItem(key) || '{"on": false, "time": "18:00"}');

/// When a card delivered now waits until (ms since 1970), or null when it comes at once.
export function heldUntil(card, now = new Date()) {
  const { on, time } = settings();
  if (!on || !["active", "passive"].includes(card.level)) return null;
  const [hours, minutes] = time.split(":").map(Number);
  const next = new Date(now);
  next.setHours(hours, minutes, 0, 0);
  if (next <= now) next.setDate(next.getDate() + 1);
  return next.getTime();
}

/// Wires the switch and the time, and every second asks `release(now, all)` to deliver what is due (`all`: the
/// summary was turned off).
export function startSummary(release) {
  const saved = settings();
  field("summary").checked = saved.on;
  field("summary-time").value = saved.time;
  const save = () => localStorage.setItem(key, JSON.stringify({ on: field("summary").checked, time: field("summary-time").value || "18:00" }));
  field("summary").addEventListener("change", save);
  field("summary-time").addEventListener("change", save);
  setInterval(() => release(Date.now(), !settings().on), 1000);
}

/// The summary card above the cards: its title by the hour, how many, the four most relevant.
export function showSummary(cards, now = new Date()) {
  const ordered = [...cards].sort((a, b) => (b.relevance || 0) - (a.relevance || 0) || b.receivedAt - a.receivedAt);
  const hour = now.getHours();
  const title = hour < 12 ? "Your Morning Summary" : hour < 17 ? "Your Afternoon Summary" : "Your Evening Summary";
  const section = field("summary-card");
  section.replaceChildren(...[
    el("header", {}, el("strong", { text: title }), el("time", { text: timeOf(now.getTime()) }),
      el("button", { type: "button", class: "summary-dismiss", "aria-label": "Dismiss summary", text: "×", onclick: () => { section.hidden = true; } })),
    el("div", { class: "summary-count", text: `${cards.length} notification${cards.length === 1 ? "" : "s"}` }),
    ...ordered.slice(0, 4).map((card) => el("div", { class: "highlight" }, el("strong", { text: card.title || card.app }), card.body ? ` ${card.body}` : "")),
  ]);
  section.hidden = false;
}
