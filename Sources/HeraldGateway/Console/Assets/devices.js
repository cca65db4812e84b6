// The devices page: linked devices with their apps, and the apps with their storage policies.
import { call, el } from "/assets/common.js";

async function showDevices() {
  const body = document.querySelector("#devices tbody");
  const devices = (await call("/v1/devices")).body.devices || [];
  if (devices.length === 0) {
    const empty = el("td", { class: "empty", colspan: 3, text: "No device has linked yet: run herald device --gateway … on a machine, or open the browser device." });
    body.replaceChildren(el("tr", {}, empty));
    return;
  }
  body.replaceChildren(...devices.map((device) => el("tr", {},
    el("td", { text: device.deviceID }),
    el("td", { text: device.online ? "yes" : "no" }),
    el("td", { text: (device.apps || []).map((app) => app.topic).join(", ") }))));
}

await showDevices();
