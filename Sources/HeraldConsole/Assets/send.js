// The send form: Apple's console's fields, a payload editor checked live by the gateway's rules, templates per push
// type, the gateway's answer, the same request as curl or herald send, and this browser's recent sends.
import { call, el, clock } from "/assets/common.js";

const form = document.getElementById("send");
const field = (id) => document.getElementById(id);
const options = (await call("/v1/send/options")).body;
const pushTypes = Object.fromEntries(options.pushTypes.map((type) => [type.name, type]));
const recentKey = "herald.recentSends";

const templates = {
  alert: () => ({ aps: { alert: { title: "Hello", subtitle: "From the Herald console", body: "It works." }, sound: "default", badge: 1 } }),
  background: () => ({ aps: { "content-available": 1 }, refresh: "inbox" }),
  location: () => ({ aps: {} }),
  voip: () => ({ aps: {}, caller: "Ada Lovelace", handle: "+44 20 7946 0000" }),
  complication: () => ({ aps: {}, complication: "score" }),
  fileprovider: () => ({ "container-identifier": "NSFileProviderWorkingSetContainerItemIdentifier", domain: "com.example.domain" }),
  mdm: () => ({ mdm: "00000000-0000-0000-0000-000000000000" }),
  liveactivity: () => ({
    aps: { timestamp: Math.floor(Date.now() / 1000), event: "update", "content-state": { progress: 0.5, status: "On its way" },
      alert: { title: "Delivery", body: "Your order is on its way." } },
  }),
  pushtotalk: () => ({ aps: {}, speaker: "Dispatch" }),
  widgets: () => ({ aps: { "content-changed": true } }),
  controls: () => ({ aps: { "content-changed": true } }),
};

field("environment").append(el("option", { text: options.environment, value: options.environment }));
field("pushType").append(...options.pushTypes.map((type) => el("option", { value: type.name, text: type.name })));

/// The bundle id in the topic field, without any push type's suffix.
function bundleID() {
  const topic = field("topic").value.trim();
  const suffix = options.pushTypes.map((type) => type.topicSuffix).filter((s) => s && topic.endsWith(s)).sort((a, b) => b.length - a.length)[0];
  return suffix ? topic.slice(0, -suffix.length) : topic;
}

function useTemplate() {
  const make = templates[field("pushType").value] || templates.alert;
  field("payload").value = JSON.stringify(make(), null, 2);
  checkSoon();
}

field("pushType").addEventListener("change", () => {
  const type = pushTypes[field("pushType").value];
  if (field("topic").value.trim()) field("topic").value = bundleID() + type.topicSuffix;
  if (field("pushType").value === "background") field("priority").value = "5";
  useTemplate();
});
field("template").addEventListener("click", useTemplate);

field("expiry").addEventListener("change", () => {
  const choice = field("expiry").value;
  field("expiration").hidden = choice !== "custom";
  if (choice === "custom") field("expiration").focus();
});

function expiration() {
  const choice = field("expiry").value;
  if (choice === "") return undefined;
  if (choice === "custom") return field("expiration").value.trim() === "" ? undefined : Number(field("expiration").value);
  return choice === "0" ? 0 : Math.floor(Date.now() / 1000) + Number(choice);
}

/// The request as the console API takes it.
function request() {
  const optional = (id) => field(id).value.trim() || undefined;
  return {
    deviceToken: field("deviceToken").value.trim(),
    topic: field("topic").value.trim(),
    pushType: field("pushType").value,
    priority: field("priority").value ? Number(field("priority").value) : undefined,
    expiration: expiration(),
    collapseID: optional("collapseID"),
    apnsID: optional("apnsID"),
    payload: field("payload").value,
  };
}

// Live checks by the gateway's own rules, a quarter of a second after typing stops.
let checkTimer;
function checkSoon() {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(check, 250);
}
async function check() {
  const { body } = await call("/v1/check", { method: "POST", json: { payload: field("payload").value, pushType: field("pushType").value } });
  const line = field("check");
  const size = `${body.size} of ${body.limit} bytes`;
  line.className = body.status === 200 ? "hint good" : "error";
  line.textContent = body.status === 200 ? `Valid for ${field("pushType").value} · ${size}` : `${body.reason}: ${body.message} · ${size}`;
  for (const warning of body.warnings || []) line.append(el("br"), el("span", { class: "warning", text: warning }));
}
field("payload").addEventListener("input", checkSoon);

// Devices to pick from: every linked device's app tokens, online ones first.
async function showDevices() {
  const devices = (await call("/v1/devices")).body.devices || [];
  devices.sort((a, b) => Number(b.online) - Number(a.online));
  const picks = devices.flatMap((device) => (device.apps || []).map((app) => el("option", {
    value: JSON.stringify({ token: app.deviceToken, topic: app.topic }),
    text: `${app.topic} on ${device.browser ? "the browser device " : ""}${device.deviceID.slice(0, 8)} (${device.online ? "online" : "offline"})`,
  })));
  field("pick").replaceChildren(field("pick").firstElementChild, ...picks);
}
field("pick").addEventListener("change", () => {
  if (!field("pick").value) return;
  const { token, topic } = JSON.parse(field("pick").value);
  field("deviceToken").value = token;
  field("topic").value = topic + pushTypes[field("pushType").value].topicSuffix;
});

function showOutcome(body) {
  const outcome = field("outcome");
  const ok = body.status === 200;
  const rows = [
    ["Status", `${body.status}${body.reason ? " " + body.reason : ""}`],
    ["apns-id", body.apnsID],
    ["apns-unique-id", body.uniqueID],
    ["Message", body.message && (body.checkedBy === "client" ? `${body.message} (refused before sending, as a client library would)` : body.message)],
    ["Timestamp", body.timestamp],
  ].filter(([, value]) => value);
  const list = el("dl", { class: "facts" }, ...rows.flatMap(([name, value]) => [el("dt", { text: name }), el("dd", { class: "mono", text: String(value) })]));
  const id = body.uniqueID || body.apnsID;
  outcome.replaceChildren(
    el("h2", { id: "outcome-title", class: ok ? "good" : "error", text: ok ? "Accepted" : "Refused" }),
    list,
    ok && id ? el("a", { href: `/log?q=${encodeURIComponent(id)}`, text: "Follow it in the delivery log" }) : undefined,
  );
  outcome.hidden = false;
}

function remember(sent, body) {
  const recent = JSON.parse(localStorage.getItem(recentKey) || "[]");
  recent.unshift({ at: new Date().toISOString(), request: sent, status: body.status, reason: body.reason, id: body.uniqueID || body.apnsID });
  localStorage.setItem(recentKey, JSON.stringify(recent.slice(0, 20)));
  showRecent();
}

function load(sent) {
  for (const name of ["deviceToken", "topic", "pushType", "collapseID", "apnsID", "payload"]) field(name).value = sent[name] ?? "";
  field("priority").value = sent.priority ?? "";
  field("expiry").value = sent.expiration === undefined ? "" : "custom";
  field("expiration").hidden = sent.expiration === undefined;
  field("expiration").value = sent.expiration ?? "";
  checkSoon();
  field("deviceToken").focus();
}

function showRecent() {
  const recent = JSON.parse(localStorage.getItem(recentKey) || "[]");
  const body = document.querySelector("#recent tbody");
  if (recent.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: 5, class: "empty", text: "Nothing sent from this browser yet." })));
    return;
  }
  body.replaceChildren(...recent.map((sent) => el("tr", {},
    el("td", { text: clock(sent.at) }),
    el("td", {}, el("span", { class: sent.status === 200 ? "badge good" : "badge bad", text: `${sent.status}${sent.reason ? " " + sent.reason : ""}` })),
    el("td", { class: "wide-only", text: sent.request.topic }),
    el("td", { class: "mono", text: sent.request.deviceToken.slice(0, 16) + "…" }),
    el("td", {}, el("button", { type: "button", class: "quiet", text: "Load", onclick: () => load(sent.request) }),
      sent.id ? el("a", { href: `/log?q=${encodeURIComponent(sent.id)}`, text: "Log" }) : undefined))));
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const sent = request();
  field("submit").disabled = true;
  try {
    const { status, body } = await call("/v1/send", { method: "POST", json: sent });
    const answer = status === 200 ? body : { status, reason: body.reason, message: body.message, checkedBy: "console" };
    showOutcome(answer);
    remember(sent, answer);
  } finally {
    field("submit").disabled = false;
  }
});

async function copyCommand(kind) {
  const { status, body } = await call("/v1/send/commands", { method: "POST", json: request() });
  const text = status === 200 ? body[kind] : `${body.reason}: ${body.message}`;
  field("command-title").textContent = kind === "curl" ? "curl" : "herald send";
  field("command-text").textContent = text;
  let note = status === 200 ? `Signed with the console's key ${options.key.keyID}; the JWT is good until ${clock(body.jwtExpires)}.` : "";
  if (status === 200) {
    try {
      await navigator.clipboard.writeText(text);
      note += " Copied to the clipboard.";
    } catch {
      note += " Select the text to copy it (this browser does not let the page write to the clipboard).";
    }
  }
  field("command-note").textContent = note;
  field("command").hidden = false;
}
field("copy-curl").addEventListener("click", () => copyCommand("curl"));
field("copy-herald").addEventListener("click", () => copyCommand("heraldSend"));

useTemplate();
showRecent();
await showDevices();
