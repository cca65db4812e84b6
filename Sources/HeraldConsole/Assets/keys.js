// The keys and tokens page: provider keys (list, revoke, create with a one-time .p8 download, import), and device
// tokens (issue a virtual device's, unregister any).
import { call, el, clock } from "/assets/common.js";

/// Shows `message` in the form's alert line, or hides it.
function say(form, message, kind = "error") {
  for (const line of form.querySelectorAll(".error, .good")) line.hidden = true;
  const line = form.querySelector(kind === "error" ? ".error" : ".good");
  if (line && message) {
    line.textContent = message;
    line.hidden = false;
  }
}

/// Bundle ids from a field: separated by commas or spaces.
function topics(text) {
  return text.split(/[\s,]+/).filter((topic) => topic !== "");
}

function warnings(list, items) {
  list.replaceChildren(...(items || []).map((text) => el("li", { class: "warning", text })));
}

/// Runs `work` with the form's submit button disabled, so a double press sends once.
async function busy(form, work) {
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try { await work(); } finally { button.disabled = false; }
}

// MARK: Keys

async function showKeys() {
  const body = document.querySelector("#keys tbody");
  const answer = await call("/v1/keys");
  const error = document.getElementById("keys-error");
  error.hidden = answer.status === 200;
  if (answer.status !== 200) error.textContent = answer.body.message || "The keys cannot be read.";
  const keys = answer.body.keys || [];
  if (keys.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { class: "empty", colspan: 6, text: "No keys yet: create one below, or import the .p8 you have." })));
    return;
  }
  body.replaceChildren(...keys.map((key) => el("tr", {},
    el("td", { "data-label": "Team", class: "mono", text: key.teamID }),
    el("td", { "data-label": "Key", class: "mono", text: key.keyID }),
    el("td", { "data-label": "Topics", text: key.topics.length ? key.topics.join(", ") : "all of the team's" }),
    el("td", { "data-label": "Environment", text: key.environment }),
    el("td", { "data-label": "Created", text: clock(key.createdAt) }),
    el("td", { "data-label": "State" }, key.revokedAt
      ? el("span", { class: "badge bad", title: "revoked " + clock(key.revokedAt), text: "revoked" })
      : el("button", { type: "button", class: "quiet danger", text: "Revoke", "aria-label": `Revoke key ${key.keyID} of team ${key.teamID}`, onclick: () => revoke(key) })))));
}

async function revoke(key) {
  if (!confirm(`Revoke key ${key.keyID} of team ${key.teamID}? Providers signing with it are refused from now on. This cannot be undone.`)) return;
  const answer = await call(`/v1/keys/${encodeURIComponent(key.teamID)}/${encodeURIComponent(key.keyID)}/revoke`, { method: "POST" });
  const error = document.getElementById("keys-error");
  error.hidden = answer.status === 200;
  if (answer.status !== 200) error.textContent = answer.body.message || `Revoking failed (${answer.status}).`;
  await showKeys();
}

function keyFields(form) {
  const data = new FormData(form);
  const fields = { teamID: data.get("teamID").trim(), keyID: data.get("keyID").trim(), topics: topics(data.get("topics")) };
  if (data.get("environment")) fields.environment = data.get("environment");
  return fields;
}

let download = null;

function forgetDownload() {
  if (download) URL.revokeObjectURL(download);
  download = null;
  const link = document.getElementById("created-download");
  link.removeAttribute("download");
  link.href = "#";
  document.getElementById("created").hidden = true;
}

const createForm = document.getElementById("create");
createForm.addEventListener("submit", (event) => {
  event.preventDefault();
  busy(createForm, async () => {
    forgetDownload();
    const answer = await call("/v1/keys", { method: "POST", json: keyFields(createForm) });
    if (answer.status !== 201) return say(createForm, answer.body.message || `Creating failed (${answer.status}).`);
    say(createForm, null);
    // The private key lives only in this Blob until the person saves it or leaves.
    download = URL.createObjectURL(new Blob([answer.body.p8], { type: "application/pkcs8" }));
    const link = document.getElementById("created-download");
    link.href = download;
    link.download = answer.body.fileName;
    link.textContent = `Download ${answer.body.fileName}`;
    warnings(document.querySelector("#created .warnings"), answer.body.warnings);
    document.getElementById("created").hidden = false;
    createForm.reset();
    link.focus();
    await showKeys();
  });
});
document.getElementById("created-done").addEventListener("click", forgetDownload);
window.addEventListener("beforeunload", (event) => {
  if (download) event.preventDefault();  // the private key would be lost unsaved
});

/// The public key of a PKCS#8 P-256 private key in PEM, derived here so the private key never leaves the browser;
/// null when the browser cannot (no WebCrypto off a secure origin, or not a P-256 PKCS#8 key: the gateway then judges).
async function publicHalf(pem) {
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(pem);
  if (!match || !globalThis.crypto || !crypto.subtle) return null;
  try {
    const der = Uint8Array.from(atob(match[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    const algorithm = { name: "ECDSA", namedCurve: "P-256" };
    const privateKey = await crypto.subtle.importKey("pkcs8", der, algorithm, true, ["sign"]);
    const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", privateKey);
    const publicKey = await crypto.subtle.importKey("jwk", { kty, crv, x, y, ext: true }, algorithm, true, ["verify"]);
    const spki = new Uint8Array(await crypto.subtle.exportKey("spki", publicKey));
    const base64 = btoa(String.fromCharCode(...spki)).replace(/.{1,64}/g, "$&\n");
    return `-----BEGIN PUBLIC KEY-----\n${base64}-----END PUBLIC KEY-----\n`;
  } catch {
    return null;
  }
}

const importForm = document.getElementById("import");
document.getElementById("import-file").addEventListener("change", (event) => {
  const file = event.target.files[0];
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => { document.getElementById("import-pem").value = reader.result; };
  reader.onerror = () => say(importForm, `${file.name} cannot be read.`);
  reader.readAsText(file);
});
importForm.addEventListener("submit", (event) => {
  event.preventDefault();
  busy(importForm, async () => {
    const pem = document.getElementById("import-pem").value;
    const derived = await publicHalf(pem);
    const answer = await call("/v1/keys/import", { method: "POST", json: { ...keyFields(importForm), pem: derived || pem } });
    if (answer.status !== 201) return say(importForm, answer.body.message || `Importing failed (${answer.status}).`);
    const key = answer.body.key;
    const sent = derived ? " Only its public half left this browser." : "";
    say(importForm, `Imported key ${key.keyID} of team ${key.teamID} (${key.environment}).${sent} ${(answer.body.warnings || []).join(" ")}`, "good");
    importForm.reset();
    await showKeys();
  });
});

// MARK: Tokens

const issueForm = document.getElementById("issue");
issueForm.addEventListener("submit", (event) => {
  event.preventDefault();
  busy(issueForm, async () => {
    const data = new FormData(issueForm);
    const fields = { topic: data.get("topic").trim() };
    if (data.get("environment")) fields.environment = data.get("environment");
    const answer = await call("/v1/tokens", { method: "POST", json: fields });
    if (answer.status !== 201) return say(issueForm, answer.body.message || `Issuing failed (${answer.status}).`);
    say(issueForm, null);
    document.getElementById("issued-token").value = answer.body.deviceToken;
    warnings(document.querySelector("#issued .warnings"), answer.body.warnings);
    document.getElementById("issued").hidden = false;
  });
});
document.getElementById("issued-copy").addEventListener("click", async (event) => {
  const token = document.getElementById("issued-token").value;
  try {
    await navigator.clipboard.writeText(token);
    event.target.textContent = "Copied";
  } catch {
    getSelection().selectAllChildren(document.getElementById("issued-token"));  // the person copies it
    event.target.textContent = "Selected: copy it";
  }
  setTimeout(() => { event.target.textContent = "Copy"; }, 2000);
});

const retireForm = document.getElementById("retire");
retireForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const data = new FormData(retireForm);
  const token = data.get("token").trim();
  if (!confirm(`Unregister token ${token.slice(0, 8)}…? Later pushes to it get 410, and what waits for it is discarded.`)) return;
  busy(retireForm, async () => {
    const answer = await call(`/v1/tokens/${encodeURIComponent(token)}/unregister`, { method: "POST", json: { reason: data.get("reason") } });
    if (answer.status !== 200) return say(retireForm, answer.body.message || `Unregistering failed (${answer.status}).`);
    say(retireForm, `${answer.body.topic}: ${token.slice(0, 8)}… is ${answer.body.retired.as} since ${clock(answer.body.retired.at)}.`, "good");
    retireForm.reset();
  });
});

await showKeys();
