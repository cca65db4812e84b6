// The Live Activities section of the notification center, above the notifications, as the Lock Screen shows them:
// one card per activity with its app and, below, the view its app's widget extension drew — or, without one, its
// title, values and progress — redrawn in place on every change. A change that alerts makes its card pulse; an ended
// activity stays, dimmed, until it is dismissed.
import { el, timeOf } from "./elements.js";
import { drawView } from "./views.js";

const section = () => document.getElementById("activities");
let activities = [];

/// The whole section, when the page connects.
export function showActivities(list) {
  activities = list;
  section().replaceChildren(...activities.map(activityCard));
  section().hidden = activities.length === 0;
}

/// An activity started or changed: its card is redrawn where it was (a new one goes last).
export function activityChanged(activity) {
  const index = activities.findIndex((a) => a.id === activity.id);
  const drawn = activityCard(activity);
  if (index >= 0) {
    activities[index] = activity;
    section().children[index].replaceWith(drawn);
  } else {
    activities.push(activity);
    section().append(drawn);
  }
  section().hidden = false;
  if (activity.alertTitle) {
    drawn.classList.add("alerting");
    setTimeout(() => drawn.classList.remove("alerting"), 3000);
  }
}

export function activityGone(id) {
  const index = activities.findIndex((a) => a.id === id);
  if (index < 0) return;
  activities.splice(index, 1);
  section().children[index].remove();
  section().hidden = activities.length === 0;
}

function activityCard(a) {
  const phase = a.phase === "active" ? undefined : el("span", { class: `phase ${a.phase}`, text: a.phase === "stale" ? "Outdated" : "Ended" });
  return el("article", { class: `activity ${a.phase}`, "data-id": a.id, "aria-label": `${a.appName} Live Activity: ${a.title}` },
    el("header", {},
      el("span", { class: "icon", "aria-hidden": "true", text: (a.appName || a.app)[0].toUpperCase() }),
      el("span", { class: "app", text: a.appName }),
      phase,
      el("time", { class: "when", datetime: new Date(a.date).toISOString(), text: timeOf(a.date) })),
    a.view ? undefined : el("div", { class: "activity-title", text: a.title }),
    a.alertTitle ? el("div", { class: "activity-alert", text: [a.alertTitle, a.alertBody].filter(Boolean).join(" — ") }) : undefined,
    ...(a.view ? [el("div", { class: "activity-view" }, drawView(a.view))] : defaultView(a)));
}

/// Without a widget extension: the attributes' and the state's values, and a progress bar where the state has one.
function defaultView(a) {
  const fields = el("dl", { class: "activity-fields" }, ...a.fields.flatMap((f) => [el("dt", { text: f.name }), el("dd", { text: f.value })]));
  if (a.progress === null) return [fields];
  const fill = el("div", { class: "fill" });
  fill.style.width = `${Math.round(a.progress * 100)}%`; // through the CSSOM: the page's policy refuses style attributes
  return [fields, el("div", { class: "activity-progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100,
    "aria-valuenow": Math.round(a.progress * 100) }, fill)];
}
