// The browser device: this browser becomes a Herald device. Its identity is a P-256 key pair made by WebCrypto with
// a non-extractable private key, kept in IndexedDB; it links over the console's own origin (/device/link, which the
// gateway relays to its device port) and speaks the device link like `herald device`: it signs the challenge,
// registers apps, acknowledges each notification once it is kept, drops duplicates by apns-id, and reports what the
// person does with a card as a response.
import { el, timeOf } from "/assets/common.js";
import { summaryLine } from "/assets/groups.js";
import { startSummary, heldUntil, showSummary } from "/assets/device-summary.js";
import { startActivities, activityRequests, activityAnswer, receiveActivityPush } from "/assets/device-activities.js";
import { startWebPush, webPushRequests, webPushAnswer, webPushCard } from "/assets/device-webpush.js";

const field = (id) => document.getElementById(id);
const appsKey = "herald.device.apps";
const categoriesKey = "herald.device.categories";
const defaultAction = "com.apple.UNNotificationDefaultActionIdentifier";
const dismissAction = "com.apple.UNNotificationDismissActionIdentifier";
const exampleCategories = {
  MESSAGE: [
    { id: "REPLY", title: "Reply", textInput: { button: "Send", placeholder: "Message" } },
    { id: "MARK_READ", title: "Mark as Read" },
  ],
  INVITE: [
    { id: "ACCEPT", title: "Accept" },
    { id: "DECLINE", title: "Decline", destructive: true },
  ],
};

// ---- storage: the key pair, the apns-ids seen, the cards on screen ----
const database = await new Promise((resolve, reject) => {
  const request = indexedDB.open("herald-device", 1);
  request.onupgradeneeded = () => {
    for (const name of ["identity", "seen", "cards"]) request.result.createObjectStore(name);
  };
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

function stored(store, mode, work) {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(store, mode);
    const result = work(transaction.objectStore(store));
    transaction.oncomplete = () => resolve(result.result);
    transaction.onerror = () => reject(transaction.error);
  });
}
const read = (store, key) => stored(store, "readonly", (s) => s.get(key));
const write = (store, key, value) => stored(store, "readwrite", (s) => s.put(value, key));
const remove = (store, key) => stored(store, "readwrite", (s) => s.delete(key));
const readAll = (store) => stored(store, "readonly", (s) => s.getAll());

async function identity() {
  const existing = await read("identity", "key");
  if (existing) return existing;
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  await write("identity", "key", pair);
  return pair;
}

const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

// ---- apps and categories the person set up ----
const apps = () => JSON.parse(localStorage.getItem(appsKey) || "{}");
function saveApp(topic, fields) {
  const all = apps();
  all[topic] = { ...(all[topic] || {}), ...fields };
  localStorage.setItem(appsKey, JSON.stringify(all));
  showApps();
}
function forgetApp(topic) {
  const all = apps();
  delete all[topic];
  localStorage.setItem(appsKey, JSON.stringify(all));
  showApps();
}
function categories() {
  try { return JSON.parse(field("categories").value || "{}"); } catch { return JSON.parse(localStorage.getItem(categoriesKey) || "{}"); }
}

/// A category as the editor holds it: its actions, or `{"actions": […], "summaryFormat": "%u more messages from %@"}`.
function category(identifier) {
  const value = categories()[identifier];
  return Array.isArray(value) ? { actions: value } : { actions: (value && value.actions) || [], summaryFormat: value && value.summaryFormat };
}

function showApps() {
  const all = Object.entries(apps());
  const body = document.querySelector("#apps tbody");
  if (all.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: 3, class: "empty", text: "Add an app to get a device token for it." })));
    return;
  }
  body.replaceChildren(...all.map(([topic, app]) => el("tr", { "data-topic": topic },
    el("td", { text: topic }),
    el("td", { class: "mono token" },
      el("div", { text: app.deviceToken || (app.error ? app.error : "registering…") }),
      app.pushToStartToken ? el("div", { class: "hint", "data-push-to-start": app.pushToStartToken, text: `push-to-start ${app.pushToStartToken}` }) : undefined),
    el("td", {}, el("div", { class: "row" },
      app.deviceToken ? el("button", { type: "button", class: "quiet", text: "Copy", onclick: () => navigator.clipboard.writeText(app.deviceToken) }) : undefined,
      el("button", { type: "button", class: "quiet", text: "Remove", onclick: () => removeApp(topic) }))))));
}

// ---- the link ----
let socket;
let retry = 1000;

function setState(text, kind) {
  field("link-state").textContent = text;
  field("link-state").className = `badge ${kind || ""}`;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  setState("Connecting…");
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/device/link`);
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = async (event) => {
    // A lapsed session refuses the link: sign in again and come back here.
    if ((await fetch("/v1/session")).status === 401) return location.assign("/sign-in?next=/device");
    const why = event.reason ? `: ${event.reason}` : "";
    setState(`Offline${why} — reconnecting`, "bad");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 30000);
  };
}

async function receive(message) {
  switch (message.type) {
    case "challenge": {
      const pair = await identity();
      const signed = new TextEncoder().encode(`herald-device-link-v${message.version}:${message.nonce}`);
      const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, signed);
      const publicKey = await crypto.subtle.exportKey("raw", pair.publicKey);
      send({ type: "hello", version: message.version, publicKey: base64url(publicKey), signature: base64url(signature) });
      break;
    }
    case "welcome":
      retry = 1000;
      setState("Online", "good");
      field("device-id").textContent = `device ${message.deviceID}`;
      // Every app, then its push-to-start token (a browser app has Live Activities), then what its activities owe.
      for (const topic of Object.keys(apps())) {
        send({ type: "register", topic });
        send({ type: "register", topic, kind: "pushToStart" });
      }
      for (const request of activityRequests()) send(request);
      for (const request of webPushRequests()) send(request);
      break;
    case "registered":
      if (message.kind === "webPush") webPushAnswer(message);
      else if (message.kind === "pushToStart") saveApp(message.topic, { pushToStartToken: message.deviceToken });
      else if (message.kind === "activity") activityAnswer(message);
      else saveApp(message.topic, { deviceToken: message.deviceToken, error: undefined });
      break;
    case "unregistered":
      if (!message.kind || message.kind === "app") forgetApp(message.topic);
      break;
    case "error":
      if (message.kind === "webPush") webPushAnswer(message);
      else if (message.topic && !message.kind && !message.channelID) saveApp(message.topic, { error: `${message.reason}: ${message.message}` });
      break;
    case "notification":
      if (message.pushType === "liveactivity") {
        const tokens = Object.fromEntries(Object.entries(apps()).map(([topic, app]) => [topic, app.pushToStartToken]));
        receiveActivityPush(message, tokens);
        send({ type: "ack", uniqueID: message.uniqueID });
      } else {
        await deliver(message);
      }
      break;
  }
}

// ---- notifications ----
/// Keeps, shows and acknowledges a notification; one already seen (a resend after a lost acknowledgement) is only
/// acknowledged again.
async function deliver(notification) {
  const seen = await read("seen", notification.apnsID);
  if (!seen) {
    await write("seen", notification.apnsID, Date.now());
    const card = cardOf(notification);
    if (card) {
      // iOS 15: the scheduled summary holds passive and active cards until its time; else the Focus silences what it
      // does not let through (listed, no system notification); critical and time-sensitive ones break through both.
      card.heldUntil = heldUntil(card);
      if (!card.heldUntil && field("focus").checked && !["critical", "time-sensitive"].includes(card.level)) card.silencedBy = "Do Not Disturb";
      await write("cards", card.identifier, card);
      if (!card.heldUntil) {
        show(card);
        if (!card.silencedBy) raise(card);
      }
    }
  }
  send({ type: "ack", uniqueID: notification.uniqueID });
}

/// What a card shows, from the payload as iOS reads it; nil for a push that shows nothing (background, say).
function cardOf(notification) {
  if (notification.pushType === "webpush") return webPushCard(notification);
  const aps = (notification.payload && notification.payload.aps) || {};
  let alert = aps.alert;
  if (typeof alert === "string") alert = { body: alert };
  if (!alert || (!alert.title && !alert.body && !alert.subtitle && !alert["loc-key"] && !alert["title-loc-key"])) return null;
  const localized = (key, args) => key ? `${key}${args && args.length ? " (" + args.join(", ") + ")" : ""}` : undefined;
  const image = notification.payload["attachment-url"];
  return {
    identifier: notification.collapseID || notification.apnsID,
    apnsID: notification.apnsID,
    uniqueID: notification.uniqueID,
    app: notification.bundleID,
    receivedAt: notification.receivedAt,
    title: alert.title || localized(alert["title-loc-key"], alert["title-loc-args"]),
    subtitle: alert.subtitle || localized(alert["subtitle-loc-key"], alert["subtitle-loc-args"]),
    body: alert.body || localized(alert["loc-key"], alert["loc-args"]),
    category: aps.category,
    level: aps["interruption-level"] || "active",
    relevance: typeof aps["relevance-score"] === "number" ? aps["relevance-score"] : 0,
    thread: aps["thread-id"],
    summaryArgument: alert["summary-arg"],
    summaryArgumentCount: alert["summary-arg-count"],
    image: typeof image === "string" && (image.startsWith("data:image/") || image.startsWith("/")) ? image : undefined,
  };
}

function show(card) {
  const existing = document.querySelector(`.card[data-identifier="${CSS.escape(card.identifier)}"]`);
  const actions = category(card.category).actions;
  const node = el("article", { class: "card", tabindex: 0, "data-identifier": card.identifier, "data-group": `${card.app} ${card.thread || ""}`, "data-apns-id": card.apnsID, "aria-label": `${card.app}: ${card.title || card.body}` },
    el("header", {},
      el("span", { class: "icon", "aria-hidden": "true", text: (card.app.split(".").pop() || "?")[0].toUpperCase() }),
      el("span", { class: "app", text: card.app }),
      el("time", { class: "when", datetime: new Date(card.receivedAt).toISOString(), text: timeOf(card.receivedAt) }),
      el("button", { type: "button", class: "dismiss", "aria-label": "Dismiss", text: "×", onclick: (event) => { event.stopPropagation(); respond(card, dismissAction); } })),
    card.title ? el("div", { class: "title", text: card.title }) : undefined,
    card.subtitle ? el("div", { class: "subtitle", text: card.subtitle }) : undefined,
    card.body ? el("div", { class: "body", text: card.body }) : undefined,
    card.image ? el("img", { src: card.image, alt: "" }) : undefined,
    levelTag(card));
  if (actions.length) {
    const list = el("div", { class: "actions", hidden: true });
    for (const action of actions) {
      list.append(el("button", { type: "button", class: action.destructive ? "destructive" : undefined, text: action.title,
        onclick: (event) => { event.stopPropagation(); action.textInput ? reply(node, card, action) : respond(card, action.id); } }));
    }
    node.append(list);
  }
  // Opening the card (click, Enter) expands its actions, as a long press does on iOS; a card without actions opens the app.
  const open = () => {
    const list = node.querySelector(".actions");
    if (list && list.hidden) { list.hidden = false; return; }
    if (!list) respond(card, defaultAction);
  };
  node.addEventListener("click", open);
  node.addEventListener("keydown", (event) => { if (event.key === "Enter" && event.target === node) open(); });
  node.dataset.shownAt = String(Date.now());
  if (existing) existing.replaceWith(node); else field("cards").prepend(node);
  shown.set(card.identifier, card);
  field("no-cards").hidden = true;
  restack();
}

/// "Time Sensitive", "Critical", "Silenced by Do Not Disturb": how it was delivered, when not as usual.
function levelTag(card) {
  const words = [
    { "time-sensitive": "Time Sensitive", critical: "Critical", passive: "Passive" }[card.level],
    card.silencedBy && `Silenced by ${card.silencedBy}`, card.inSummary && "Scheduled Summary",
  ];
  const text = words.filter(Boolean).join(" · ");
  return text ? el("div", { class: "tag", text }) : undefined;
}

field("focus").checked = localStorage.getItem("herald.device.focus") === "on";
field("focus").addEventListener("change", () => localStorage.setItem("herald.device.focus", field("focus").checked ? "on" : "off"));

/// Delivers the cards the summary held that are due at `now` (all of them when it was turned off), as one summary.
async function releaseSummary(now, all) {
  const due = (await readAll("cards")).filter((card) => card.heldUntil && (all || card.heldUntil <= now));
  if (!due.length) return;
  // Least relevant first: each card goes on top, so the most relevant ends up on top of its stack.
  due.sort((a, b) => (a.relevance || 0) - (b.relevance || 0));
  for (const card of due) {
    delete card.heldUntil;
    card.inSummary = true;
    await write("cards", card.identifier, card);
    show(card);
  }
  showSummary(due);
}
startSummary(releaseSummary);

// ---- groups (iOS 12): an app's cards of one thread stack under the newest, with a line counting the rest ----
/// The cards on screen by identifier, for the lines under stacks.
const shown = new Map();
const openGroups = new Set();

/// Lays the cards out newest group first, each group's cards together; a stack shows its newest card and a line
/// ("2 more notifications from Bob"), which opens it; an open group ends with "Show less".
function restack() {
  const groups = new Map();
  for (const node of field("cards").querySelectorAll(".card")) {
    if (!groups.has(node.dataset.group)) groups.set(node.dataset.group, []);
    groups.get(node.dataset.group).push(node);
  }
  const laidOut = [];
  for (const [key, nodes] of groups) {
    const open = openGroups.has(key);
    nodes.forEach((node, index) => {
      node.hidden = index > 0 && !open;
      node.classList.toggle("stacked", index === 0 && nodes.length > 1 && !open);
    });
    laidOut.push(...nodes);
    if (nodes.length > 1) {
      const cards = nodes.map((node) => shown.get(node.dataset.identifier));
      const format = category(cards[0].category).summaryFormat;
      const text = open ? "Show less" : summaryLine(cards.map((card, index) => ({ ...card, summaryFormat: index === 0 ? format : undefined })));
      laidOut.push(el("button", { type: "button", class: "stack-line", "data-group": key, text,
        onclick: () => { if (open) openGroups.delete(key); else openGroups.add(key); restack(); } }));
    }
  }
  field("cards").replaceChildren(...laidOut);
}

function reply(node, card, action) {
  const input = el("input", { type: "text", placeholder: action.textInput.placeholder || "", "aria-label": action.title });
  const form = el("form", { class: "reply" }, input, el("button", { type: "submit", text: action.textInput.button || "Send" }));
  form.addEventListener("click", (event) => event.stopPropagation());
  form.addEventListener("submit", (event) => { event.preventDefault(); respond(card, action.id, input.value); });
  node.querySelector(".actions").replaceWith(form);
  input.focus();
}

/// Reports the person's response to the gateway (it shows in the delivery log) and takes the card away.
async function respond(card, action, text) {
  const message = { type: "response", uniqueID: card.uniqueID, action };
  if (text !== undefined) message.text = text;
  send(message);
  await remove("cards", card.identifier);
  document.querySelector(`.card[data-identifier="${CSS.escape(card.identifier)}"]`)?.remove();
  shown.delete(card.identifier);
  restack();
  field("no-cards").hidden = document.querySelector(".card") !== null;
}

// ---- system notifications (with the person's permission) ----
function showSystemState() {
  if (!("Notification" in window)) { field("system-state").textContent = "This browser has no system notifications."; return; }
  field("system-state").textContent = { granted: "System notifications on.", denied: "System notifications are blocked for this page.", default: "" }[Notification.permission];
  field("allow-system").hidden = Notification.permission !== "default";
}
field("allow-system").addEventListener("click", async () => { await Notification.requestPermission(); showSystemState(); });

function raise(card) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const system = new Notification(card.title || card.app, { body: [card.subtitle, card.body].filter(Boolean).join("\n"), tag: card.identifier });
  system.onclick = () => { window.focus(); respond(card, defaultAction); };
}

// ---- setting up ----
field("add-app").addEventListener("submit", (event) => {
  event.preventDefault();
  const topic = field("topic").value.trim();
  if (!topic) return;
  saveApp(topic, {});
  send({ type: "register", topic });
  send({ type: "register", topic, kind: "pushToStart" });
  field("topic").value = "";
});

function removeApp(topic) {
  if (!confirm(`Remove ${topic} from this device? Its token will answer 410 Unregistered.`)) return;
  send({ type: "unregister", topic });
  forgetApp(topic);
}

field("categories").value = localStorage.getItem(categoriesKey) || JSON.stringify(exampleCategories, null, 2);
field("categories").addEventListener("input", () => {
  try {
    JSON.parse(field("categories").value);
    localStorage.setItem(categoriesKey, field("categories").value);
    field("categories-state").textContent = "Saved.";
    field("categories-state").className = "hint";
  } catch (error) {
    field("categories-state").textContent = `Not JSON: ${error.message}`;
    field("categories-state").className = "error";
  }
});

showApps();
showSystemState();
startActivities(send);
startWebPush(send);
for (const card of (await readAll("cards")).sort((a, b) => a.receivedAt - b.receivedAt)) if (!card.heldUntil) show(card);
connect();
