// The Live Activities page: each device's push-to-start and activity tokens with the latest pushes to them, a form
// that starts, updates or ends an activity through the provider API (as the send page does), and the broadcast
// channels with their subscribers, kept broadcast and a form to broadcast on one.
import { call, el, clock } from "/assets/common.js";

let overview = { tokens: [], channels: [] };
const field = (id) => document.getElementById(id);

function alertLine(id, answer, fallback) {
  const line = field(id);
  line.hidden = answer.status >= 200 && answer.status < 300;
  if (!line.hidden) line.textContent = answer.body.message || `${fallback} (${answer.status}).`;
  return line.hidden;
}

async function refresh() {
  const answer = await call("/v1/live-activities");
  if (!alertLine("tokens-error", answer, "Live Activities cannot be read")) return;
  // The forms keep their choice across a refresh, by token and channel id.
  const chosenToken = overview.tokens[Number(field("push-token").value)]?.deviceToken;
  const chosenChannel = overview.channels[Number(field("broadcast-channel").value)]?.id;
  overview = answer.body;
  showTokens();
  showChannels();
  const token = overview.tokens.findIndex((t) => t.deviceToken === chosenToken);
  if (token >= 0) field("push-token").value = String(token);
  const channel = overview.channels.findIndex((c) => c.id === chosenChannel);
  if (channel >= 0) field("broadcast-channel").value = String(channel);
}

function pushLine(push) {
  const what = push.dropped ? `dropped by the device: ${push.dropped}` : push.state;
  const state = push.contentState ? JSON.stringify(push.contentState) : "";
  return el("li", {},
    el("a", { href: `/log?q=${push.uniqueID}`, text: push.event || "?" }),
    el("span", { class: "mono", text: ` ${state}` }),
    el("span", { class: push.dropped ? "badge bad" : "badge", text: what }),
    el("time", { datetime: push.received, text: ` ${clock(push.received)}` }));
}

function showTokens() {
  const body = document.querySelector("#tokens tbody");
  const tokens = overview.tokens || [];
  if (tokens.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { class: "empty", colspan: 5,
      text: "No Live Activity token yet: an app with NSSupportsLiveActivities gets a push-to-start token when its device links." })));
  } else {
    body.replaceChildren(...tokens.map((token) => el("tr", {},
      el("td", { "data-label": "Device", class: "mono", text: token.deviceID.slice(0, 12) + "…" },
        el("span", { class: token.online ? "badge good" : "badge", text: token.online ? "online" : "offline" })),
      el("td", { "data-label": "App", text: token.topic }),
      el("td", { "data-label": "Token" },
        el("div", { text: token.kind === "activity" ? `activity ${token.activityID}` : "push-to-start" }),
        el("code", { title: token.deviceToken, text: token.deviceToken.slice(0, 16) + "…" })),
      el("td", { "data-label": "Latest pushes" },
        token.pushes.length ? el("ul", { class: "tokens" }, ...token.pushes.map(pushLine)) : el("span", { class: "empty", text: "none yet" })),
      el("td", {}, el("button", { type: "button", class: "quiet", text: token.kind === "activity" ? "Update…" : "Start…",
        onclick: () => choose(token) })))));
  }
  field("push-token").replaceChildren(...tokens.map((token, index) => el("option", { value: index,
    text: `${token.topic} · ${token.kind === "activity" ? "activity " + token.activityID.slice(0, 8) : "push-to-start"} · ${token.deviceToken.slice(0, 8)}…` })));
}

function choose(token) {
  field("push-token").value = String(overview.tokens.indexOf(token));
  field("push-event").value = token.kind === "activity" ? "update" : "start";
  field("push-state").focus();
}

function showChannels() {
  const body = document.querySelector("#channels tbody");
  const channels = overview.channels || [];
  if (channels.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { class: "empty", colspan: 5, text: "No channel yet: herald channels create --bundle APP …" })));
  } else {
    body.replaceChildren(...channels.map((channel) => el("tr", {},
      el("td", { "data-label": "Channel", class: "mono", text: channel.id }),
      el("td", { "data-label": "App", text: channel.bundleID }),
      el("td", { "data-label": "Policy", text: String(channel.storagePolicy) }),
      el("td", { "data-label": "Subscribers", text: String(channel.subscribers) }),
      el("td", { "data-label": "Kept broadcast" }, channel.kept
        ? el("a", { href: `/log?q=${channel.kept.uniqueID}`, text: `until ${clock(channel.kept.expires)}` })
        : el("span", { class: "empty", text: "none" })))));
  }
  field("broadcast-channel").replaceChildren(...channels.map((channel, index) => el("option", { value: index,
    text: `${channel.bundleID} · ${channel.id}` })));
}

function parsed(id) {
  try { return JSON.parse(field(id).value || "{}"); } catch { throw new Error(`${id.replace("-", " ")}: not JSON`); }
}

function describe(answer) {
  const result = answer.body;
  if (result.status === 200) return `200 · ${result.uniqueID ? "apns-unique-id " + result.uniqueID : "apns-id " + result.apnsID}`;
  return `${result.status || answer.status} ${result.reason || ""}: ${result.message || ""}`;
}

field("push").addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = overview.tokens[Number(field("push-token").value)];
  const answerLine = field("push-answer");
  if (!token) return (answerLine.textContent = "Choose a token first.");
  try {
    const eventName = field("push-event").value;
    const aps = { event: eventName, timestamp: Math.floor(Date.now() / 1000), "content-state": parsed("push-state") };
    if (eventName === "start") {
      Object.assign(aps, { "attributes-type": field("push-type").value, attributes: parsed("push-attributes"), "input-push-token": 1 });
    }
    if (field("push-alert").value) aps.alert = { title: field("push-alert").value };
    const answer = await call("/v1/send", { method: "POST", json: {
      deviceToken: token.deviceToken, topic: `${token.topic}.push-type.liveactivity`, pushType: "liveactivity",
      priority: Number(field("push-priority").value), payload: JSON.stringify({ aps }) } });
    answerLine.textContent = describe(answer);
    setTimeout(refresh, 500);
  } catch (error) {
    answerLine.textContent = error.message;
  }
});

field("broadcast").addEventListener("submit", async (event) => {
  event.preventDefault();
  const channel = overview.channels[Number(field("broadcast-channel").value)];
  const answerLine = field("broadcast-answer");
  if (!channel) return (answerLine.textContent = "Make a channel first.");
  try {
    const aps = { event: field("broadcast-event").value, timestamp: Math.floor(Date.now() / 1000), "content-state": parsed("broadcast-state") };
    const expiration = channel.storagePolicy === 1 ? Math.floor(Date.now() / 1000) + 3600 : 0;
    const answer = await call("/v1/broadcast", { method: "POST", json: {
      bundleID: channel.bundleID, channelID: channel.id, payload: JSON.stringify({ aps }), expiration, priority: 10 } });
    answerLine.textContent = describe(answer);
    setTimeout(refresh, 500);
  } catch (error) {
    answerLine.textContent = error.message;
  }
});

field("refresh").addEventListener("click", refresh);
refresh();
