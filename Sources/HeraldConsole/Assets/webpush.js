// The Web Push page: Apple's checks of a pasted VAPID header (`POST /v1/webpush/check`), and the requests the Web Push
// port refused lately (`GET /v1/webpush/refusals`, then each `refused` event as it happens). docs/web-push.md.
import { call, clock, el, followEvents } from "/assets/common.js";

const field = (id) => document.getElementById(id);
const rows = [];

async function refresh() {
  const answer = await call("/v1/webpush/refusals");
  if (answer.status !== 200) return;
  if (!field("origin").value) field("origin").value = answer.body.origin;
  rows.length = 0;
  rows.push(...answer.body.refusals);
  draw();
}

function draw() {
  const body = field("refusals").tBodies[0];
  body.replaceChildren(...(rows.length ? rows.map(row) : [el("tr", {}, el("td", { colspan: 5, class: "empty", text: "None yet." }))]));
}

function row(refusal) {
  return el("tr", {},
    el("td", { "data-label": "When" }, el("time", { datetime: refusal.at, text: clock(refusal.at) })),
    el("td", { "data-label": "Answer" }, el("span", { class: "badge bad", text: `${refusal.status} ${refusal.reason}` })),
    el("td", { "data-label": "Check that failed", text: refusal.detail }),
    el("td", { "data-label": "Sender", class: "mono", text: refusal.subject ?? "—" }),
    el("td", { "data-label": "Subscription", class: "mono", text: refusal.deviceToken ? refusal.deviceToken.slice(0, 12) + "…" : "—" }));
}

field("check").addEventListener("submit", async (event) => {
  event.preventDefault();
  const verdict = field("verdict");
  const answer = await call("/v1/webpush/check", {
    method: "POST", json: { authorization: field("authorization").value, origin: field("origin").value.trim() },
  });
  verdict.hidden = false;
  if (answer.status !== 200) {
    verdict.className = "error";
    verdict.textContent = answer.body.message || `The check failed (${answer.status}).`;
  } else if (answer.body.ok) {
    verdict.className = "ok";
    verdict.replaceChildren(el("strong", { text: "Apple would take it. " }), `aud ${answer.body.origin}, sub ${answer.body.subject}.`
      + (answer.body.note ? ` (${answer.body.note})` : ""));
  } else {
    verdict.className = "error";
    verdict.replaceChildren(el("strong", { text: `${answer.body.status} ${answer.body.reason}: ` }), answer.body.detail);
  }
});

field("refresh").addEventListener("click", refresh);
followEvents({
  refused: (refusal) => {
    rows.unshift(refusal);
    rows.length = Math.min(rows.length, 200);
    draw();
  },
});
await refresh();
