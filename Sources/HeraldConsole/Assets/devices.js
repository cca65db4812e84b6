// The devices page: linked devices with their apps and tokens (each can be unregistered), and the apps with their
// storage policies, changeable in place.
import { call, el, clock } from "/assets/common.js";

function alertLine(id, answer, fallback) {
  const line = document.getElementById(id);
  line.hidden = answer.status >= 200 && answer.status < 300;
  if (line.hidden) return true;
  line.textContent = answer.body.message || `${fallback} (${answer.status}).`;
  return false;
}

async function showDevices() {
  const body = document.querySelector("#devices tbody");
  const answer = await call("/v1/devices");
  if (!alertLine("devices-error", answer, "The devices cannot be read")) return;
  const devices = answer.body.devices || [];
  if (devices.length === 0) {
    const empty = el("td", { class: "empty", colspan: 5, text: "No device has linked yet: run herald device --gateway … on a machine, or open the browser device." });
    body.replaceChildren(el("tr", {}, empty));
    return;
  }
  body.replaceChildren(...devices.map((device) => el("tr", {},
    el("td", { "data-label": "Device", class: "mono", title: `first seen ${clock(device.firstSeen)}`, text: device.deviceID }),
    el("td", { "data-label": "Online" }, el("span", { class: device.online ? "badge good" : "badge", text: device.online ? "online" : "offline" })),
    el("td", { "data-label": "Last seen", text: device.online ? "now" : clock(device.lastSeen) }),
    el("td", { "data-label": "Waiting", text: String(device.pending ?? 0) }),
    el("td", { "data-label": "Apps" }, appList(device)))));
}

function appList(device) {
  const apps = device.apps || [];
  if (apps.length === 0) return el("span", { class: "empty", text: "no app registered" });
  return el("ul", { class: "tokens" }, ...apps.map((app) => el("li", {},
    el("span", { class: "topic", text: app.kind && app.kind !== "app" ? `${app.topic} · ${app.kind === "activity" ? "activity " + app.activityID : "push-to-start"}` : app.topic }),
    el("code", { title: app.deviceToken, text: app.deviceToken }),
    el("button", {
      type: "button", class: "quiet danger", text: "Unregister",
      "aria-label": `Unregister ${app.topic} on device ${device.deviceID.slice(0, 12)}`,
      onclick: () => unregister(app),
    }))));
}

async function unregister(app) {
  if (!confirm(`Unregister ${app.topic} (token ${app.deviceToken.slice(0, 8)}…)? Pushes to the token get 410 Unregistered from now on, and what waits for it is discarded.`)) return;
  const answer = await call(`/v1/tokens/${app.deviceToken}/unregister`, { method: "POST", json: { reason: "unregistered" } });
  if (alertLine("devices-error", answer, "Unregistering failed")) await Promise.all([showDevices(), showApps()]);
}

async function showApps() {
  const body = document.querySelector("#apps tbody");
  const answer = await call("/v1/apps");
  if (!alertLine("apps-error", answer, "The apps cannot be read")) return;
  const apps = answer.body.apps || [];
  if (apps.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { class: "empty", colspan: 3, text: "No app yet: apps appear when a device registers for one or a token is issued." })));
    return;
  }
  body.replaceChildren(...apps.map((app, index) => el("tr", {},
    el("td", { "data-label": "App", text: app.bundleID }),
    el("td", { "data-label": "Devices", text: String(app.devices) }),
    el("td", { "data-label": "Storage policy" }, policyForm(app, index)))));
}

function policyForm(app, index) {
  const kind = el("select", { id: `policy-${index}`, name: "kind" },
    el("option", { value: "latest", text: "latest", selected: app.storagePolicy.kind === "latest" }),
    el("option", { value: "all", text: "all", selected: app.storagePolicy.kind === "all" }));
  const cap = el("input", {
    id: `cap-${index}`, name: "cap", type: "number", min: 1, step: 1, required: true, class: "cap",
    value: app.storagePolicy.cap ?? 100, disabled: app.storagePolicy.kind !== "all",
  });
  const status = el("span", { class: "hint", role: "status" });
  kind.addEventListener("change", () => { cap.disabled = kind.value !== "all"; });
  const form = el("form", { class: "row policy" },
    el("label", { for: `policy-${index}`, class: "visually-hidden", text: `Storage policy of ${app.bundleID}` }), kind,
    el("label", { for: `cap-${index}`, text: "cap" }), cap,
    el("button", { type: "submit", class: "quiet", text: "Save" }), status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const policy = kind.value === "all" ? { kind: "all", cap: Number(cap.value) } : { kind: "latest" };
    const answer = await call(`/v1/apps/${encodeURIComponent(app.bundleID)}`, { method: "PUT", json: policy });
    status.className = answer.status === 200 ? "good" : "error";
    status.textContent = answer.status === 200 ? "Saved" : (answer.body.message || `Saving failed (${answer.status})`);
  });
  return form;
}

document.getElementById("refresh").addEventListener("click", () => Promise.all([showDevices(), showApps()]));
// Online state changes while the page is open; the apps' forms are left alone so an edit is not lost.
setInterval(() => { if (!document.hidden) showDevices(); }, 10000);
await Promise.all([showDevices(), showApps()]);
