// The browser device's Live Activities, as iOS runs them on a phone: each app gets a push-to-start token; a start to
// it makes an activity on the lock screen (with a token of its own for `input-push-token`, a channel subscription for
// `input-push-channel`); updates and ends come on that token or channel, in timestamp order; an end stays until its
// dismissal date (at most 4 hours), then the activity goes and its token is retired. What is dropped is said to the
// gateway, for the delivery log. Kept in localStorage, so a reload keeps the lock screen.
import { el, timeOf } from "/assets/common.js";

const key = "herald.device.activities";
const shownAfterEnd = 4 * 3600 * 1000;
let send = () => {};

const all = () => JSON.parse(localStorage.getItem(key) || "[]");
const save = (activities) => localStorage.setItem(key, JSON.stringify(activities));

/// `transmit` sends a device link message.
export function startActivities(transmit) {
  send = transmit;
  showActivities();
  setInterval(tick, 1000);
}

/// What the link must say for the activities on each connection: tokens wanted, channels, retirements owed.
export function activityRequests() {
  const requests = [];
  for (const activity of all()) {
    if (activity.wantsToken && !activity.token) requests.push({ type: "register", topic: activity.topic, kind: "activity", activityID: activity.id });
    if (activity.channelID) requests.push({ type: "subscribe", topic: activity.topic, channelID: activity.channelID });
  }
  return requests;
}

/// An answer about an activity's token.
export function activityAnswer(message) {
  if (message.type !== "registered" || message.kind !== "activity") return;
  save(all().map((a) => (a.id === message.activityID ? { ...a, token: message.deviceToken } : a)));
  showActivities();
}

/// A `liveactivity` push: applied, or dropped with the reason told to the gateway. `pushToStart` maps apps to tokens.
export function receiveActivityPush(notification, pushToStart) {
  const aps = (notification.payload && notification.payload.aps) || {};
  const activities = all();
  const drop = (reason) => send({ type: "dropped", uniqueID: notification.uniqueID, reason });
  if (pushToStart[notification.bundleID] === notification.deviceToken && !notification.channelID) {
    if (aps.event !== "start") return drop("a push-to-start token takes start events only");
    const activity = {
      id: crypto.randomUUID(), topic: notification.bundleID, type: aps["attributes-type"], attributes: aps.attributes || {},
      state: aps["content-state"] || {}, staleDate: aps["stale-date"], timestamp: aps.timestamp, phase: "active",
      wantsToken: aps["input-push-token"] === 1, channelID: aps["input-push-channel"], alert: alertText(aps.alert), updatedAt: Date.now(),
    };
    save([...activities, activity]);
    if (activity.wantsToken) send({ type: "register", topic: activity.topic, kind: "activity", activityID: activity.id });
    if (activity.channelID) send({ type: "subscribe", topic: activity.topic, channelID: activity.channelID });
    return showActivities(activity.id);
  }
  const targets = activities.filter((a) => a.phase === "active"
    && (notification.channelID ? a.channelID === notification.channelID : a.token === notification.deviceToken));
  if (targets.length === 0) return drop(notification.channelID ? "no active activity takes this channel" : "the token is not an active activity's");
  let applied = false;
  for (const activity of targets) {
    if (!(aps.timestamp > activity.timestamp)) continue;
    applied = true;
    Object.assign(activity, { timestamp: aps.timestamp, alert: alertText(aps.alert), updatedAt: Date.now() });
    if (aps["content-state"]) activity.state = aps["content-state"];
    if (aps["stale-date"]) activity.staleDate = aps["stale-date"];
    if (aps.event === "end") {
      activity.phase = "ended";
      const latest = Date.now() + shownAfterEnd;
      activity.dismissAt = Math.min(aps["dismissal-date"] ? aps["dismissal-date"] * 1000 : latest, latest);
    }
  }
  if (!applied) return drop("its timestamp is not after the activity's");
  save(activities);
  showActivities(targets[0].id);
}

function alertText(alert) {
  if (!alert) return undefined;
  return typeof alert === "string" ? alert : [alert.title, alert.body].filter(Boolean).join(" — ");
}

/// Dismisses ended activities at their time: the token is retired, a channel no other activity takes is left.
function tick() {
  const now = Date.now();
  const activities = all();
  const gone = activities.filter((a) => a.phase === "ended" && a.dismissAt <= now);
  if (gone.length === 0) {
    // Redrawn only when time changed what a card shows (stale, "5m ago"): a redraw each second would lose selections.
    if (signature(activities) !== drawn) showActivities();
    return;
  }
  const staying = activities.filter((a) => !gone.includes(a));
  for (const activity of gone) {
    if (activity.token) send({ type: "unregister", topic: activity.topic, kind: "activity", activityID: activity.id });
    if (activity.channelID && !staying.some((a) => a.channelID === activity.channelID)) {
      send({ type: "unsubscribe", topic: activity.topic, channelID: activity.channelID });
    }
  }
  save(staying);
  showActivities();
}

let drawn = "";
const isStale = (a) => a.phase === "active" && a.staleDate && a.staleDate * 1000 <= Date.now();
const signature = (activities) => JSON.stringify(activities.map((a) => [a.id, a.phase, isStale(a), a.updatedAt, timeOf(a.updatedAt)]));

function showActivities(alerting) {
  const section = document.getElementById("activities");
  const activities = all();
  drawn = signature(activities);
  section.replaceChildren(...activities.map((a) => activityCard(a, a.id === alerting && a.alert)));
  section.hidden = activities.length === 0;
}

function activityCard(a, alerting) {
  const phase = a.phase === "ended" ? "ended" : isStale(a) ? "stale" : "active";
  const title = a.attributes.name || a.attributes.title || a.topic;
  const fields = [...Object.entries(a.attributes).filter(([k]) => k !== "name" && k !== "title"),
    ...Object.entries(a.state).filter(([k]) => k !== "progress")];
  const progress = typeof a.state.progress === "number" ? Math.max(0, Math.min(1, a.state.progress > 1 ? a.state.progress / 100 : a.state.progress)) : null;
  let bar;
  if (progress !== null) {
    const fill = el("div", { class: "fill" });
    fill.style.width = `${Math.round(progress * 100)}%`;
    bar = el("div", { class: "activity-progress", role: "progressbar", "aria-valuenow": Math.round(progress * 100) }, fill);
  }
  return el("article", { class: `activity ${phase}${alerting ? " alerting" : ""}`, "data-id": a.id, "aria-label": `${a.topic} Live Activity: ${title}` },
    el("header", {},
      el("span", { class: "app", text: a.topic }),
      phase === "active" ? undefined : el("span", { class: "phase", text: phase === "stale" ? "Outdated" : "Ended" }),
      el("time", { text: timeOf(a.updatedAt) })),
    el("div", { class: "activity-title", text: title }),
    a.alert && alerting ? el("div", { class: "activity-alert", text: a.alert }) : undefined,
    el("dl", {}, ...fields.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: typeof v === "string" ? v : JSON.stringify(v) })])),
    bar);
}
