// The fault rules page: the rules in force with what each took on this gateway, a form that adds one (the JSON
// `POST /v1/faults` takes, docs/faults.md), and removal. Rules change from other places too (herald faults), so the
// list refreshes every few seconds.
import { call, el, clock } from "/assets/common.js";

const field = (id) => document.getElementById(id);

async function refresh() {
  const answer = await call("/v1/faults");
  const error = field("rules-error");
  error.hidden = answer.status === 200;
  if (!error.hidden) { error.textContent = answer.body.message || `The rules cannot be read (${answer.status}).`; return; }
  field("honoured").hidden = answer.body.honoured;
  showRules(answer.body.rules);
}

/// What a rule does, in words.
function action(rule) {
  const a = rule.action;
  switch (a.kind) {
    case "answer": return `answer ${a.status} ${a.reason}` + (a.timestamp !== undefined ? ` (timestamp ${a.timestamp})` : "");
    case "delay": return `answer ${a.milliseconds} ms late`;
    case "reset": return "reset the stream";
    case "goaway": return `GOAWAY ${a.reason} after ${a.after} more`;
    case "close": return "close the connection";
    case "stall": return "stall the connection";
    default: return "answer 200, never deliver";
  }
}

function matchText(match) {
  const parts = Object.entries(match).map(([key, value]) => {
    if (key === "payload") return `payload ${value.pointer} = ${JSON.stringify(value.value)}`;
    if (key === "header") return `${value.name}: ${value.value}`;
    return `${key} ${value}`;
  });
  return parts.length ? parts.join(" · ") : "every request";
}

function showRules(rules) {
  const body = document.querySelector("#rules tbody");
  if (rules.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { class: "empty", colspan: 7, text: "No rule: every request gets this gateway's own answer." })));
    return;
  }
  body.replaceChildren(...rules.map((rule) => el("tr", { "data-id": rule.id },
    el("td", { "data-label": "Rule", class: "mono", text: rule.id }),
    el("td", { "data-label": "Does", text: action(rule) }),
    el("td", { "data-label": "To requests", class: "mono", text: matchText(rule.match) }),
    el("td", { "data-label": "Which", text: rule.count ? `next ${rule.count}` : rule.share ? `${rule.share}% (seed ${rule.seed})` : "every one" }),
    el("td", { "data-label": "Taken", text: String(rule.taken) }),
    el("td", { "data-label": "Expires" }, el("time", { datetime: rule.expiresAt, text: clock(rule.expiresAt) }),
      rule.persistent ? el("span", { class: "badge", text: "persistent" }) : undefined),
    el("td", {}, el("button", { type: "button", class: "quiet", text: "Remove", onclick: () => remove(rule.id) })))));
}

async function remove(id) {
  await call(`/v1/faults/${encodeURIComponent(id)}`, { method: "DELETE" });
  refresh();
}

/// The form's rule, as `POST /v1/faults` takes it.
function rule() {
  const match = {};
  const token = field("match-token").value.trim().toLowerCase();
  if (token) match[token.length >= 64 ? "token" : "tokenPrefix"] = token;
  if (field("match-topic").value.trim()) match.topic = field("match-topic").value.trim();
  if (field("match-push-type").value) match.pushType = field("match-push-type").value;
  const payload = field("match-payload").value.trim();
  if (payload) {
    const equals = payload.indexOf("=");
    const text = equals < 0 ? "" : payload.slice(equals + 1);
    let value;
    try { value = JSON.parse(text); } catch { value = text; }
    match.payload = { pointer: equals < 0 ? payload : payload.slice(0, equals), value };
  }
  const kind = field("action").value;
  const action = { kind };
  if (kind === "answer") {
    const [status, reason] = field("answer").value.split("/");
    Object.assign(action, { status: Number(status), reason });
    if (status === "410" && field("timestamp").value) action.timestamp = Number(field("timestamp").value);
  }
  if (kind === "delay") action.milliseconds = Number(field("delay").value);
  if (kind === "goaway") Object.assign(action, { reason: field("goaway").value, after: Number(field("goaway-after").value) });
  const rule = { match, action, expiresIn: Number(field("expires").value) };
  if (field("scope").value === "count") rule.count = Number(field("scope-value").value);
  if (field("scope").value === "share") Object.assign(rule, { share: Number(field("scope-value").value), seed: Number(field("seed").value) });
  return rule;
}

/// Shows the inputs of the chosen scope and action only.
function showInputs() {
  const scope = field("scope").value;
  field("scope-value-label").hidden = scope === "every";
  field("scope-value-label").firstChild.textContent = scope === "share" ? "Percent " : "N ";
  field("seed-label").hidden = scope !== "share";
  for (const label of document.querySelectorAll("label[data-for]")) label.hidden = label.dataset.for !== field("action").value;
}

field("add").addEventListener("submit", async (event) => {
  event.preventDefault();
  const answer = await call("/v1/faults", { method: "POST", json: rule() });
  const line = field("add-answer");
  line.className = answer.status === 201 ? "answer good" : "answer bad";
  line.textContent = answer.status === 201
    ? `Added ${answer.body.id}: in force now.` + (answer.body.warning ? ` ${answer.body.warning}.` : "")
    : answer.body.message || `Not added (${answer.status}).`;
  refresh();
});
field("scope").addEventListener("change", showInputs);
field("action").addEventListener("change", showInputs);
field("refresh").addEventListener("click", refresh);
field("clear").addEventListener("click", async () => { await call("/v1/faults", { method: "DELETE" }); refresh(); });
showInputs();
refresh();
setInterval(refresh, 5000);
