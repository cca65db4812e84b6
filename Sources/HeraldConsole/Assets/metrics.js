// Live metrics from the gateway's Prometheus text at /metrics: request rate, answers by reason, accept latency
// (estimated from the histogram's buckets over the last ten seconds) and devices online.
import { el } from "/assets/common.js";

const field = (id) => document.getElementById(id);
const history = [];

/// The samples of the Prometheus text: `name{labels} value` → [{ name, labels, value }].
function parse(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = line.match(/^([a-zA-Z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/);
    if (!match) continue;
    const labels = {};
    for (const pair of (match[3] || "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    samples.push({ name: match[1], labels, value: Number(match[4]) });
  }
  return samples;
}

function sum(samples, name, filter = () => true) {
  return samples.filter((s) => s.name === name && filter(s.labels)).reduce((total, s) => total + s.value, 0);
}

/// What one reading says: counters per answer, the latency buckets, devices online.
function reading(samples) {
  const answers = { "200 accepted": sum(samples, "herald_notifications_accepted_total") };
  for (const s of samples.filter((s) => s.name === "herald_notifications_rejected_total")) answers[s.labels.reason || "?"] = s.value;
  const buckets = samples.filter((s) => s.name === "herald_provider_request_duration_seconds_bucket")
    .map((s) => ({ le: s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), count: s.value })).sort((a, b) => a.le - b.le);
  return {
    at: performance.now(),
    answers,
    total: Object.values(answers).reduce((a, b) => a + b, 0),
    buckets,
    online: sum(samples, "herald_devices_online_links"),
    sent: sum(samples, "herald_notifications_sent_total"),
    delivered: sum(samples, "herald_notifications_delivered_total"),
  };
}

/// The latency below which `share` of the requests between two readings were answered (a bucket's upper bound).
function quantile(older, newer, share) {
  const counts = newer.buckets.map((bucket, index) => ({ le: bucket.le, count: bucket.count - (older.buckets[index]?.count || 0) }));
  const total = counts.at(-1)?.count || 0;
  if (total === 0) return null;
  return counts.find((bucket) => bucket.count >= share * total)?.le ?? Infinity;
}

const milliseconds = (seconds) => seconds === null ? "–" : seconds === Infinity ? "> 1 s" : `≤ ${+(seconds * 1000).toFixed(2)} ms`;

function draw(values) {
  const canvas = field("rate-chart");
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, canvas.width, canvas.height);
  const top = Math.max(1, ...values);
  context.strokeStyle = "#3a6ea5";
  context.lineWidth = 2;
  context.beginPath();
  values.forEach((value, index) => {
    const x = (index / Math.max(1, values.length - 1)) * canvas.width;
    const y = canvas.height - 2 - (value / top) * (canvas.height - 6);
    index === 0 ? context.moveTo(x, y) : context.lineTo(x, y);
  });
  context.stroke();
}

async function tick() {
  const response = await fetch("/metrics");
  const now = reading(parse(await response.text()));
  history.push(now);
  if (history.length > 121) history.shift();
  const previous = history.at(-2);
  const rates = history.slice(1).map((r, i) => (r.total - history[i].total) / ((r.at - history[i].at) / 1000));
  field("rate").textContent = previous ? rates.at(-1).toFixed(1) : "…";
  draw(rates);
  const window = history[Math.max(0, history.length - 11)];
  const p50 = quantile(window, now, 0.5), p99 = quantile(window, now, 0.99);
  field("latency").textContent = p50 === null ? "no requests" : `p50 ${milliseconds(p50)}`;
  field("latency-detail").textContent = p99 === null ? "" : `p99 ${milliseconds(p99)}`;
  field("online").textContent = String(now.online);
  field("delivery").textContent = `${now.sent} sent, ${now.delivered} acknowledged`;
  const body = document.querySelector("#answers tbody");
  const rows = Object.entries(now.answers).sort((a, b) => b[1] - a[1]);
  body.replaceChildren(...rows.map(([answer, total]) => el("tr", {},
    el("td", { text: answer }),
    el("td", { text: String(total) }),
    el("td", { text: previous ? ((total - (previous.answers[answer] || 0)) / ((now.at - previous.at) / 1000)).toFixed(1) : "…" }))));
}

await tick();
setInterval(tick, 1000);
