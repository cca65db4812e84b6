// The delivery log: notifications newest first, searched by apns-id, apns-unique-id or the start of a device token
// (`?q=` in the page's address, so a search can be linked). A row opens its timeline; new notifications that match
// and changes of state arrive live over the event stream.
import { call, el, clock, followEvents } from "/assets/common.js";

const pageSize = 50;
/// Rows kept while new ones arrive live; past this the oldest leave the table, and "Older" brings them back.
const keptRows = 500;

const search = (new URLSearchParams(location.search).get("q") || "").trim();
document.querySelector("#q").value = search;
const body = document.querySelector("#log tbody");
const status = document.querySelector("#status");
const older = document.querySelector("#older");

/// Whether a notification (a page's item or an event) is one the search finds, read as the server reads `q`.
const matches = (() => {
  if (search === "") return () => true;
  const text = search.toLowerCase();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text)) {
    return (notification) => notification.apnsID === text || notification.uniqueID === text;
  }
  return (notification) => (notification.deviceToken || "").startsWith(text);
})();

/// The rows shown, by unique id: `{ summary, row, detail }` (`detail`: the open timeline's row).
const shown = new Map();
/// The `before` of the next older page; undefined when there is none.
let cursor;

/// What a row shows, from a page's item (with its timeline) or from a live event.
function summary(item) {
  const steps = item.timeline || [];
  const stored = steps.find((step) => step.event === "stored");
  const discarded = steps.find((step) => step.event === "discarded");
  // A request a fault rule took: its step from a page, or the live `faulted` event itself.
  const faulted = steps.find((step) => step.event === "faulted")?.text ?? (item.event === "faulted" ? item.detail : undefined);
  return {
    // A live `faulted` event comes before its commit, without a place in the log: it counts as the newest.
    logID: item.logID ?? Number.MAX_SAFE_INTEGER, apnsID: item.apnsID, uniqueID: item.uniqueID, deviceToken: item.deviceToken, topic: item.topic,
    pushType: item.pushType, state: item.state, at: steps.length ? steps[0].at : item.at,
    stored: stored ? stored.reason : undefined, reason: discarded ? discarded.reason : undefined, faulted,
  };
}

function badge(row) {
  if (row.faulted && row.state === "discarded") return el("span", { class: "badge bad", title: row.faulted, text: "faulted" });
  if (row.state === "delivered") return el("span", { class: "badge good", text: "delivered" });
  if (row.state === "discarded") {
    const text = row.reason === "coalesced" ? "replaced" : `discarded: ${row.reason || "?"}`;
    return el("span", { class: "badge bad", text });
  }
  if (row.stored === "virtual") return el("span", { class: "badge", text: "stored: virtual device" });
  if (row.stored) return el("span", { class: "badge", text: "stored: offline" });
  return el("span", { class: "badge", text: "pending" });
}

function abbreviated(token) {
  return token.length > 16 ? `${token.slice(0, 8)}…${token.slice(-4)}` : token;
}

function draw(entry) {
  const row = entry.summary;
  entry.row.replaceChildren(
    el("td", { text: clock(row.at) }),
    el("td", { class: "mono", text: row.apnsID }),
    el("td", { class: "mono", title: row.deviceToken, text: abbreviated(row.deviceToken) }),
    el("td", { class: "wide-only", text: row.topic }),
    el("td", { class: "wide-only", text: row.pushType }),
    el("td", {}, badge(row)));
}

/// A row for `row` (a summary), which opens and closes its timeline by click, Enter or Space.
function entryFor(row) {
  const entry = { summary: row, detail: null };
  entry.row = el("tr", {
    class: "entry", tabindex: 0, "aria-expanded": "false",
    onclick: () => toggle(entry),
    onkeydown: (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      toggle(entry);
    },
  });
  draw(entry);
  shown.set(row.uniqueID, entry);
  return entry;
}

/// The notification as the log has it now, with its timeline.
/// One notification by its unique id, with its payload (a web push's decrypted text, when the gateway can read it).
async function fetchItem(uniqueID) {
  const { status: code, body: item } = await call(`/v1/notifications/${uniqueID}`);
  return code === 200 && item.uniqueID === uniqueID ? item : undefined;
}

function timelineRow(item) {
  const steps = (item.timeline || []).map((step) => el("li", {},
    el("time", { datetime: step.at, text: clock(step.at) }),
    el("span", { class: "badge", text: step.event }),
    el("span", { text: step.detail || step.reason || "" })));
  const policy = item.storagePolicy && (item.storagePolicy.kind === "all" ? `all (cap ${item.storagePolicy.cap})` : "latest");
  const fanOut = item.fanOut && `${item.fanOut.acknowledged} of ${item.fanOut.subscribers} subscribed devices acknowledged it (or a later broadcast)`;
  // A Web Push message: its RFC 8030 headers, its sender, and its text when this gateway holds the subscriber's keys.
  const web = item.webPush;
  const body = item.payload && item.payload.encrypted !== undefined
    && (item.payload.text ?? `${item.payload.size} bytes, encrypted end to end (only the subscriber can read it)`);
  const facts = (web ? [
    ["apns-unique-id", item.uniqueID], ["Subscription", item.deviceToken], ["Subscriber", item.deviceID], ["App", item.bundleID],
    ["Sender (VAPID sub)", web.subject], ["Urgency", web.urgency], ["TTL", `${web.ttl} s`], ["Topic", item.collapseID],
    ["Size", `${web.size} bytes`], ["Message", body], ["Kept under", policy],
  ] : [
    ["apns-unique-id", item.uniqueID], ["Channel", item.channelID], ["Fan-out", fanOut],
    ["Device token", item.deviceToken], ["Device", item.deviceID], ["Bundle id", item.bundleID],
    ["Priority", item.priority], ["Collapse id", item.collapseID], ["apns-expiration", item.expiration], ["Kept under", policy],
  ]).filter(([, value]) => value !== undefined && value !== null && value !== "");
  const list = facts.flatMap(([name, value]) => [el("dt", { text: name }), el("dd", { class: "mono", text: String(value) })]);
  return el("tr", { class: "timeline" },
    el("td", { colspan: 6 }, el("ol", { class: "steps", "aria-label": "Timeline" }, ...steps), el("dl", { class: "facts" }, ...list)));
}

async function toggle(entry) {
  if (entry.detail) {
    entry.detail.remove();
    entry.detail = null;
    entry.row.setAttribute("aria-expanded", "false");
    return;
  }
  entry.row.setAttribute("aria-expanded", "true");
  entry.detail = el("tr", { class: "timeline" }, el("td", { colspan: 6, class: "empty", text: "Loading the timeline…" }));
  entry.row.after(entry.detail);
  await reload(entry);
}

/// Reads the notification again: its row, and its timeline when open.
async function reload(entry) {
  const item = await fetchItem(entry.summary.uniqueID);
  if (!item || shown.get(item.uniqueID) !== entry) return;
  entry.summary = summary(item);
  draw(entry);
  if (entry.detail) {
    const detail = timelineRow(item);
    entry.detail.replaceWith(detail);
    entry.detail = detail;
  }
}

// Rows whose notification changed in ways an event does not say (replaced, unregistered) or whose timeline is open,
// read again together a moment later, so a burst of events costs one read per row.
const stale = new Set();
let flushing = null;
function refresh(uniqueID) {
  stale.add(uniqueID);
  flushing ??= setTimeout(flush, 300);
}

async function flush() {
  const ids = [...stale];
  stale.clear();
  for (const id of ids) {
    const entry = shown.get(id);
    if (entry) await reload(entry);
  }
  flushing = stale.size ? setTimeout(flush, 300) : null;
}

function remove(entry) {
  entry.row.remove();
  if (entry.detail) entry.detail.remove();
  shown.delete(entry.summary.uniqueID);
}

function showEmpty() {
  if (shown.size > 0) return;
  const text = search === ""
    ? "No notification yet: send one with herald send, and it appears here as it is accepted."
    : "No notification matches this search yet; new ones that do appear here as they are accepted.";
  body.replaceChildren(el("tr", { class: "placeholder" }, el("td", { class: "empty", colspan: 6, text })));
}

function describe() {
  const what = search === "" ? "every notification" : `notifications matching ${search}`;
  status.textContent = `${shown.size} shown of ${what}, newest first. New ones appear at the top as they are accepted.`;
}

/// A page older than what is shown (the newest page first).
async function load() {
  const query = new URLSearchParams({ limit: String(pageSize) });
  if (search !== "") query.set("q", search);
  if (cursor !== undefined) query.set("before", String(cursor));
  older.disabled = true;
  const { status: code, body: answer } = await call(`/v1/notifications?${query}`);
  older.disabled = false;
  if (code !== 200) {
    status.replaceChildren(el("span", { class: "error", text: answer.message || `The log cannot be read (${code}).` }));
    older.hidden = true;
    return;
  }
  body.querySelector(".placeholder")?.remove();
  for (const item of answer.notifications || []) {
    if (shown.has(item.uniqueID)) continue;
    body.append(entryFor(summary(item)).row);
  }
  cursor = answer.next;
  older.hidden = cursor === undefined;
  showEmpty();
  describe();
}

/// A notification accepted just now that the search finds: a row at the top.
function accepted(event) {
  if (!matches(event) || shown.has(event.uniqueID)) return;
  body.querySelector(".placeholder")?.remove();
  body.prepend(entryFor(summary(event)).row);
  if (shown.size > keptRows) {
    const rows = [...shown.values()];
    remove(rows.reduce((oldest, entry) => (entry.summary.logID < oldest.summary.logID ? entry : oldest)));
    cursor = Math.min(...[...shown.values()].map((entry) => entry.summary.logID));
    older.hidden = false;
  }
  describe();
}

/// A change of state of a shown notification.
function changed(event, change) {
  const entry = shown.get(event.uniqueID);
  if (!entry) return;
  Object.assign(entry.summary, change);
  draw(entry);
  if (entry.detail) refresh(event.uniqueID);
}

/// The token's other pending rows: a newer notification or an unregistration may have discarded them.
function recheckToken(token, except) {
  for (const entry of shown.values()) {
    const row = entry.summary;
    if (row.deviceToken === token && row.state === "pending" && row.uniqueID !== except) refresh(row.uniqueID);
  }
}

older.addEventListener("click", load);
followEvents({
  accepted,
  faulted: (event) => (shown.has(event.uniqueID) ? changed(event, { faulted: event.detail }) : accepted(event)),
  stored: (event) => {
    changed(event, { stored: event.reason, state: event.state });
    recheckToken(event.deviceToken, event.uniqueID);
  },
  delivered: (event) => changed(event, { state: "delivered" }),
  discarded: (event) => changed(event, { state: "discarded", reason: event.reason }),
  unregistered: (event) => recheckToken(event.deviceToken),
  responded: (event) => refresh(event.uniqueID),
});
await load();
