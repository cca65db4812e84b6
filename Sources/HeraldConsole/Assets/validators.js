// The validators: a provider JWT decoded and judged exactly as the provider API would judge it now, and a device
// token looked up (its app, environment, device, and since when it no longer takes notifications).
import { call, el, clock } from "/assets/common.js";

const field = (id) => document.getElementById(id);
const options = (await call("/v1/send/options")).body;
field("jwt-push-type").append(...options.pushTypes.map((type) => el("option", { value: type.name, text: type.name })));

function facts(rows) {
  return el("dl", { class: "facts" }, ...rows.filter(([, value]) => value !== undefined && value !== null && value !== "")
    .flatMap(([name, value]) => [el("dt", { text: name }), el("dd", { class: "mono", text: String(value) })]));
}

function verdict(status, reason, message) {
  const ok = status === 200;
  return el("p", { class: ok ? "verdict good" : "verdict error", role: "status" },
    el("strong", { text: ok ? "200 — the provider API would accept it" : `${status} ${reason}` }),
    message ? el("span", { text: ` · ${message}` }) : undefined);
}

field("jwt-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const request = { jwt: field("jwt").value.trim(), pushType: field("jwt-push-type").value };
  if (field("jwt-topic").value.trim()) request.topic = field("jwt-topic").value.trim();
  const { status, body } = await call("/v1/validate/jwt", { method: "POST", json: request });
  if (status !== 200) {
    field("jwt-result").replaceChildren(verdict(status, body.reason, body.message));
    return;
  }
  const key = body.key;
  const issued = body.claims && typeof body.claims.iat === "number" ? new Date(body.claims.iat * 1000).toISOString() : undefined;
  field("jwt-result").replaceChildren(
    verdict(body.status, body.reason, body.message),
    el("h3", { text: "Header" }), el("pre", { text: JSON.stringify(body.header ?? "not readable", null, 2) }),
    el("h3", { text: "Claims" }), el("pre", { text: JSON.stringify(body.claims ?? "not readable", null, 2) }),
    facts([
      ["Issued", issued && clock(issued)],
      ["Age", body.ageSeconds !== undefined ? `${body.ageSeconds} s (APNs refuses tokens older than 3600 s)` : undefined],
      ["Signature", body.signature || "not checked"],
      ["Key", key ? `${key.teamID} / ${key.keyID} · ${key.environment} · ${key.topics.length ? key.topics.join(", ") : "all topics"}${key.revoked ? " · revoked" : ""}` : "not registered on this gateway"],
    ]));
});

field("token-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const hex = field("device-token").value.trim();
  const { status, body } = await call(`/v1/validate/token/${encodeURIComponent(hex)}`);
  if (status !== 200) {
    field("token-result").replaceChildren(verdict(status, body.reason, body.message));
    return;
  }
  const retired = body.retired;
  field("token-result").replaceChildren(
    verdict(retired ? 410 : 200, retired ? (retired.as === "expired" ? "ExpiredToken" : "Unregistered") : "", retired ? `since ${clock(retired.at)}` : "a push to it would be accepted"),
    facts([
      ["App", body.topic],
      ["Environment", body.environment],
      ["Device", body.virtual ? "virtual (from herald tokens issue; never online)" : `${body.deviceID} · ${body.online ? "online" : "offline"}`],
      ["Issued", clock(body.createdAt)],
    ]));
});
