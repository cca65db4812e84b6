// The device's notification center: the delivered notifications of every app on this device, newest first. Clicking
// one expands it as a long press does on iOS: its app's content extension runs in the daemon and draws here (its view
// arrives as a tree, drawn below), the person's clicks and actions go to it, and what it answers decides whether the
// view stays, closes, or closes and the app hears of the action. Everything travels on one WebSocket (`live`).
import { el, timeOf } from "./elements.js";
import { showActivities, activityChanged, activityGone } from "./activities.js";
import { drawView } from "./views.js";
import { startList, showList, presented, withdrawn, listed } from "./list.js";

const defaultAction = "com.apple.UNNotificationDefaultActionIdentifier";
const dismissAction = "com.apple.UNNotificationDismissActionIdentifier";
const field = (id) => document.getElementById(id);

let socket;
let retry = 500;
/// The expanded notification as the daemon last described it (`expanded` message), or null.
let expanded = null;
/// The notification the address names (`#BUNDLE_ID/IDENTIFIER`), expanded once it is listed.
let wanted = null;

/// Expands the notification the address names, now or once it is listed.
function followAddress() {
  if (location.hash.length <= 1) return;
  const slash = location.hash.indexOf("/");
  wanted = [location.hash.slice(1, slash), location.hash.slice(slash + 1)].map(decodeURIComponent);
  expandWanted();
}

function expandWanted() {
  if (!wanted || !socket || socket.readyState !== WebSocket.OPEN) return;
  const [app, id] = wanted;
  if (listed(app, id)) {
    wanted = null;
    history.replaceState(null, "", location.pathname);
    expand(app, id);
  }
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  socket = new WebSocket(new URL("live", location.href).href.replace(/^http/, "ws"));
  socket.onopen = () => { retry = 500; setState("Live"); };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    setState("Offline — is `herald device` running? Reconnecting…", true);
    closeSheet();
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

function setState(text, bad) {
  field("state").textContent = text;
  field("state").className = bad ? "state bad" : "state";
}

function receive(message) {
  switch (message.type) {
    case "notifications":
      showList(message.notifications);
      expandWanted();
      break;
    case "presented":
      presented(message.notification);
      expandWanted();
      break;
    case "activities": showActivities(message.activities); break;
    case "activity": activityChanged(message.activity); break;
    case "activityGone": activityGone(message.id); break;
    case "focus": showFocus(message.focus); break;
    case "summary": showSummary(message.summary); break;
    case "withdrawn": withdrawn(message.notifications); break;
    case "expanded": expanded = message; showExpanded(); break;
    case "view":
      if (!expanded) break;
      expanded.view = message.view;
      expanded.height = message.height;
      if (message.title !== null) expanded.title = message.title;
      showExpanded();
      break;
    case "actions": if (expanded) { expanded.actions = message.actions; showExpanded(); } break;
    case "media": if (expanded) { expanded.playing = message.playing; showExpanded(); } break;
    case "collapsed": closeSheet(); break;
    case "error": setState(message.message, true); break;
  }
}

// ---- the Focus ----

/// The Focus, when it is on: its name and why, at the top of the page, as iOS shows it on the lock screen.
function showFocus(focus) {
  const chip = field("focus");
  chip.hidden = !focus;
  if (!focus) return;
  const why = focus.reason === "schedule" ? "scheduled"
    : focus.reason === "desktop" ? "the desktop's do-not-disturb"
    : focus.until ? `until ${timeOf(focus.until)}` : "on";
  chip.textContent = `☾ ${focus.name} · ${why}`;
}

// ---- the scheduled summary ----

/// The last scheduled summary: its title, how many it brought, the most relevant ones; × puts it away (its
/// notifications stay in the list).
function showSummary(summary) {
  const section = field("summary");
  const close = el("button", { type: "button", class: "close", "aria-label": "Dismiss summary", text: "×",
    onclick: () => { section.hidden = true; } });
  section.replaceChildren(...[
    el("header", {},
      el("span", { class: "summary-title", text: summary.title }),
      el("time", { class: "when", datetime: new Date(summary.date).toISOString(), text: timeOf(summary.date) }),
      close),
    el("div", { class: "summary-count", text: `${summary.count} notification${summary.count === 1 ? "" : "s"}` }),
    ...summary.highlights.map((h) => el("div", { class: "highlight" },
      el("span", { class: "icon", "aria-hidden": "true", text: (h.appName || h.app)[0].toUpperCase() }),
      el("span", { class: "highlight-text" },
        el("strong", { text: h.title || h.appName }), h.body ? ` ${h.body}` : ""))),
    summary.count > summary.highlights.length
      ? el("div", { class: "summary-more", text: `and ${summary.count - summary.highlights.length} more below` }) : undefined,
  ].filter(Boolean));
  section.hidden = false;
}

// ---- the list ----

/// A card's header: the app's initial and name — or, for a communication notification, the sender's avatar and name
/// (the group's for a group conversation).
function header(notification, title) {
  const sender = notification.sender;
  const name = sender ? sender.group || sender.name : notification.appName;
  const icon = sender && sender.avatar
    ? el("img", { class: "icon avatar", src: sender.avatar, alt: "" })
    : el("span", { class: sender ? "icon avatar" : "icon", "aria-hidden": "true", text: (name || notification.app)[0].toUpperCase() });
  return el("header", {},
    icon,
    el("span", { class: "app", id: title ? "expanded-title" : undefined, text: title || name }),
    el("time", { class: "when", datetime: new Date(notification.date).toISOString(), text: timeOf(notification.date) }));
}

/// One listed notification's card.
function card(n) {
  const item = el("article", { class: "card", tabindex: 0, "data-app": n.app, "data-id": n.id, "data-thread": n.thread || undefined, "aria-label": `${n.appName}: ${n.title || n.body || ""}` },
    header(n),
    n.title ? el("div", { class: "title", text: n.title }) : undefined,
    n.subtitle ? el("div", { class: "subtitle", text: n.subtitle }) : undefined,
    n.body ? el("div", { class: "body", text: n.sender && n.sender.group ? `${n.sender.name}: ${n.body}` : n.body }) : undefined,
    tag(n),
    n.image ? thumbnail(n) : undefined,
    n.expandable || n.actions.length ? el("div", { class: "more", text: n.expandable ? "Click to expand" : "Click for actions" }) : undefined);
  const dismiss = el("button", { type: "button", class: "close", "aria-label": "Dismiss", text: "×",
    onclick: (event) => { event.stopPropagation(); respond(n, dismissAction); } });
  item.querySelector("header").append(dismiss);
  // A notification with an extension or actions expands; one without opens its app, as a tap does.
  const open = () => (n.expandable || n.actions.length ? expand(n.app, n.id) : respond(n, defaultAction));
  item.addEventListener("click", open);
  item.addEventListener("keydown", (event) => { if (event.key === "Enter" && event.target === item) open(); });
  return item;
}

/// The card's image; a clipping rectangle (UNNotificationAttachmentOptionsThumbnailClippingRectKey, fractions of the
/// image) shows only that part.
function thumbnail(n) {
  const image = el("img", { class: "thumb", src: n.image, alt: "" });
  if (n.imageClip) {
    const [x, y, width, height] = n.imageClip.map((value) => value * 100);
    image.style.objectViewBox = `inset(${y}% ${100 - x - width}% ${100 - y - height}% ${x}%)`;
  }
  return image;
}

/// How it was delivered, when not as usual: "Time Sensitive", "Critical", "Silenced by Work", "Delivered Quietly".
function tag(n) {
  const words = [];
  if (n.level === "timeSensitive") words.push("Time Sensitive");
  if (n.level === "critical") words.push("Critical");
  if (n.silencedBy) words.push(`Silenced by ${n.silencedBy}`);
  if (n.quiet) words.push("Delivered Quietly");
  if (n.inSummary) words.push("Scheduled Summary");
  return words.length ? el("div", { class: `tag ${n.level}`, text: words.join(" · ") }) : undefined;
}

function respond(notification, action, text) {
  const message = { type: "respond", app: notification.app, id: notification.id, action };
  if (text !== undefined) message.text = text;
  send(message);
}

// ---- the expanded notification ----
function expand(app, id) {
  expanded = null;
  field("expanded").replaceChildren(el("p", { class: "default", text: "Opening…" }));
  field("sheet").hidden = false;
  send({ type: "expand", app, id });
}

function collapse() {
  send({ type: "collapse" });
  closeSheet();
}

function closeSheet() {
  expanded = null;
  field("sheet").hidden = true;
  field("expanded").replaceChildren();
}

function showExpanded() {
  const notification = listed(expanded.app, expanded.id);
  if (!notification) return closeSheet();
  const failure = expanded.failure;
  const hasView = expanded.view !== null && !failure;
  // UNNotificationExtensionOverridesDefaultTitle: the extension's title in place of the app's name.
  const title = hasView && expanded.overridesDefaultTitle && expanded.title ? expanded.title : notification.appName;
  const closeButton = el("button", { type: "button", class: "close", "aria-label": "Close", text: "×", onclick: collapse });
  const head = header(notification, title);
  head.append(closeButton);
  const parts = [head];
  if (hasView) parts.push(extensionView());
  if (failure) parts.push(el("p", { class: "failure", role: "alert", text: `The app's custom view could not be shown: ${failure}. This is the notification's default view.` }));
  // UNNotificationExtensionDefaultContentHidden: the extension's view alone.
  if (!(hasView && expanded.defaultContentHidden)) {
    parts.push(el("div", { class: "default", title: "Open the app", onclick: () => respond(notification, defaultAction) },
      notification.title ? el("div", { class: "title", text: notification.title }) : undefined,
      notification.subtitle ? el("div", { class: "subtitle", text: notification.subtitle }) : undefined,
      notification.body ? el("div", { class: "body", text: notification.body }) : undefined,
      notification.image && !hasView ? el("img", { src: notification.image, alt: "" }) : undefined));
  }
  if (expanded.actions.length) {
    parts.push(el("div", { class: "actions" }, ...expanded.actions.map((action) => el("button", {
      type: "button", class: action.destructive ? "destructive" : undefined, "data-action": action.id, text: action.title,
      onclick: () => (action.textInput ? reply(action) : send({ type: "action", action: action.id })),
    }))));
  }
  field("expanded").replaceChildren(...parts);
}

function extensionView() {
  const view = el("div", { class: expanded.interactive ? "extension-view" : "extension-view passive" }, drawView(expanded.view, extensionButtons));
  // The controller's preferredContentSize: as high as asked (the daemon keeps it within bounds), as wide as the sheet;
  // a taller view scrolls. Until it sets one, UNNotificationExtensionInitialContentSizeRatio: the height as a share
  // of the width.
  if (expanded.height) {
    view.style.height = `${expanded.height}px`;
    view.classList.add("sized");
  } else if (expanded.sizeRatio) {
    view.style.minHeight = `${Math.round(Math.min(28 * 16, window.innerWidth - 32) * expanded.sizeRatio)}px`;
  }
  // Without UNNotificationExtensionUserInteractionEnabled, a click on the view opens the app.
  if (!expanded.interactive) view.addEventListener("click", () => send({ type: "respond", app: expanded.app, id: expanded.id, action: defaultAction }));
  if (expanded.mediaButton !== "none") {
    const playing = Boolean(expanded.playing);
    view.append(el("button", { type: "button", class: `media ${expanded.mediaButton}`, "aria-label": playing ? "Pause" : "Play", text: playing ? "❚❚" : "▶",
      onclick: (event) => {
        event.stopPropagation();
        expanded.playing = !playing;
        send({ type: "media", command: playing ? "pause" : "play" });
        showExpanded();
      } }));
  }
  return view;
}

function reply(action) {
  const input = el("input", { type: "text", placeholder: action.textInput.placeholder || "", "aria-label": action.title });
  const form = el("form", { class: "reply" }, input, el("button", { type: "submit", text: action.textInput.button || "Send" }));
  form.addEventListener("submit", (event) => { event.preventDefault(); send({ type: "action", action: action.id, text: input.value }); });
  field("expanded").querySelector(".actions").replaceWith(form);
  input.focus();
}

/// The expanded view's buttons: clickable when the extension takes clicks; a click goes to it.
const extensionButtons = {
  enabled: () => expanded.interactive,
  click: (node) => send({ type: "click", button: node.number }),
};

field("sheet").addEventListener("click", (event) => { if (event.target === field("sheet")) collapse(); });
document.addEventListener("keydown", (event) => { if (event.key === "Escape" && !field("sheet").hidden) collapse(); });
window.addEventListener("hashchange", followAddress);
startList(card, (n) => respond(n, dismissAction));
followAddress();
connect();
