// The list of delivered notifications, grouped as iOS 12 stacks them: an app's notifications of one thread
// (threadIdentifier; those without one are the app's own group) make one stack, showing the newest with a line under
// it — "3 more notifications", or the category's categorySummaryFormat filled with the count of summaryArgumentCount
// and the summaryArgument names ("2 more messages from Alice and Bob"). Clicking the line opens the group; "Show
// less" closes it. The newest `drawn` groups are drawn; "Show more" draws the next page, and an open group draws its
// cards a page at a time too. A change redraws only the group it touches (scripts/bench-center.sh).
import { el } from "./elements.js";
import { summaryLine } from "./groups.js";

const page = 50;
const field = (id) => document.getElementById(id);

/// Newest first, as the daemon lists them.
let notifications = [];
/// `{key, items}` newest group first, each group's items newest first.
let groups = [];
let drawn = page;
/// Open groups, with how many of their cards are drawn.
const open = new Map();
/// Draws one notification's card (center.js: clicks expand it or answer it).
let drawCard = () => el("div");
/// Answers a notification (center.js: the dismiss of "Clear").
let clear = () => {};

export function startList(card, dismiss) {
  drawCard = card;
  clear = dismiss;
  field("more").addEventListener("click", () => {
    drawn += page;
    fill();
  });
}

/// The listed notification with this app and id, if any.
export const listed = (app, id) => notifications.find((n) => n.app === app && n.id === id);

const keyOf = (n) => `${n.app}\u0000${n.thread || ""}`;
const same = (a, b) => a.app === b.app && a.id === b.id;

function regroup() {
  const byKey = new Map();
  groups = [];
  for (const n of notifications) {
    const key = keyOf(n);
    let group = byKey.get(key);
    if (!group) {
      group = { key, items: [] };
      byKey.set(key, group);
      groups.push(group);
    }
    group.items.push(n);
  }
}

/// The whole list, as a page gets it when it connects.
export function showList(list) {
  notifications = list;
  regroup();
  field("cards").replaceChildren(...groups.slice(0, drawn).map(groupElement));
  showMore();
}

/// A notification presented: its group goes first, redrawn; the other groups stay as drawn.
export function presented(notification) {
  const replaced = notifications.find((n) => same(n, notification));
  notifications = [notification, ...notifications.filter((n) => !same(n, notification))];
  regroup();
  const key = keyOf(notification);
  elementOf(key)?.remove();
  field("cards").prepend(groupElement(groups[0]));
  // An update that changed its thread left its old group.
  if (replaced && keyOf(replaced) !== key) redraw(keyOf(replaced));
  fill();
}

/// Notifications taken out: their groups are redrawn, or go when empty.
export function withdrawn(gone) {
  const keys = new Set(notifications.filter((n) => gone.some((g) => same(n, g))).map(keyOf));
  notifications = notifications.filter((n) => !gone.some((g) => same(n, g)));
  regroup();
  for (const key of keys) redraw(key);
  fill();
}

const elementOf = (key) => [...field("cards").children].find((element) => element.dataset.key === key);

function redraw(key) {
  const element = elementOf(key);
  if (!element) return;
  const group = groups.find((g) => g.key === key);
  if (group) element.replaceWith(groupElement(group));
  else element.remove();
}

/// Brings the drawn groups to the first `drawn` after a change.
function fill() {
  const cards = field("cards");
  const wanted = Math.min(drawn, groups.length);
  while (cards.children.length > wanted) cards.lastElementChild.remove();
  while (cards.children.length < wanted) cards.append(groupElement(groups[cards.children.length]));
  showMore();
}

function showMore() {
  field("empty").hidden = notifications.length > 0;
  const hidden = groups.length - field("cards").children.length;
  field("more").hidden = hidden <= 0;
  field("more").textContent = `Show ${Math.min(hidden, page)} more (${hidden} not shown)`;
}

function groupElement(group) {
  const [first] = group.items;
  const box = el("section", { class: "group", "data-key": group.key, "data-app": first.app, "data-thread": first.thread || "" });
  const top = first;
  if (group.items.length > 1 && open.has(group.key)) {
    const shown = open.get(group.key);
    box.classList.add("open");
    box.append(
      el("div", { class: "group-head" },
        el("span", { class: "group-name", text: top.appName }),
        el("button", { type: "button", class: "group-button", text: "Show less", onclick: () => toggle(group.key, false) }),
        el("button", { type: "button", class: "group-button", text: "Clear", onclick: () => group.items.forEach(clear) })),
      ...group.items.slice(0, shown).map(drawCard));
    const rest = group.items.length - shown;
    if (rest > 0) {
      box.append(el("button", { type: "button", class: "group-more", text: `Show ${Math.min(rest, page)} more of ${group.items.length}`,
        onclick: () => { open.set(group.key, shown + page); redraw(group.key); } }));
    }
    return box;
  }
  box.append(drawCard(top));
  if (group.items.length > 1) {
    box.classList.add("stack");
    box.append(el("button", { type: "button", class: "stack-line", "aria-expanded": "false", text: summaryLine(group.items),
      onclick: () => toggle(group.key, true) }));
  }
  return box;
}

function toggle(key, opening) {
  if (opening) open.set(key, page);
  else open.delete(key);
  redraw(key);
}
