// The browser device's Web Push subscription (docs/web-push.md): made over the device link like a UnifiedPush app's
// (`register` with kind webPush), its endpoint shown to paste into a sender; its messages arrive as ciphertext, and the
// card says what the push service saw of each: size, topic, urgency. Only the subscriber's own keys could read them,
// and a browser device made with a link has none.
import { el } from "/assets/common.js";

const field = (id) => document.getElementById(id);
const key = "herald.device.webpush";
const app = "web.browser-device";
const name = "console";

const subscription = () => JSON.parse(localStorage.getItem(key) || "null");
const request = () => ({ type: "register", topic: app, kind: "webPush", activityID: name });

function showSubscription() {
  const saved = subscription();
  field("webpush-endpoint").replaceChildren(
    saved && saved.endpoint
      ? el("span", { class: "mono", text: saved.endpoint })
      : el("span", { class: saved && saved.error ? "error" : "hint", text: saved ? saved.error || "subscribing…" : "No subscription." }));
  field("webpush-subscribe").hidden = Boolean(saved && saved.endpoint);
  field("webpush-copy").hidden = !(saved && saved.endpoint);
}

export function startWebPush(send) {
  field("webpush-subscribe").addEventListener("click", () => {
    localStorage.setItem(key, JSON.stringify({}));
    showSubscription();
    send(request());
  });
  field("webpush-copy").addEventListener("click", () => navigator.clipboard.writeText(subscription().endpoint));
  showSubscription();
}

/// What the link asks again on each welcome: the subscription, when this browser made one.
export const webPushRequests = () => (subscription() ? [request()] : []);

/// A `registered` or `error` about the subscription.
export function webPushAnswer(message) {
  if (message.type === "registered") {
    localStorage.setItem(key, JSON.stringify({ endpoint: message.endpoint, deviceToken: message.deviceToken }));
  } else {
    localStorage.setItem(key, JSON.stringify({ error: `${message.reason}: ${message.message}` }));
  }
  showSubscription();
}

/// A card for a web push message: what the push service knew of it; the body stays encrypted.
export function webPushCard(notification) {
  const message = (notification.payload && notification.payload.webPush) || {};
  const size = message.body ? Math.floor((message.body.length * 3) / 4) : 0;
  const facts = [`${size} bytes, encrypted end to end`, `urgency ${message.urgency || "normal"}`];
  if (message.topic) facts.push(`topic ${message.topic}`);
  return {
    identifier: notification.collapseID || notification.apnsID,
    apnsID: notification.apnsID,
    uniqueID: notification.uniqueID,
    app: notification.bundleID,
    receivedAt: notification.receivedAt,
    title: "Web Push message",
    body: facts.join(" · "),
  };
}
