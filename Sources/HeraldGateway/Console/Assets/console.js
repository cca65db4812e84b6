// The console page: works over the JSON API with the session cookie; changes carry the session's CSRF token.
const session = await (await fetch("/v1/session")).json();

export async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (options.method && options.method !== "GET") headers["X-Herald-CSRF"] = session.csrf;
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) location.assign("/sign-in");
  return response;
}

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

async function showDevices() {
  const body = document.querySelector("#devices tbody");
  const reply = await (await api("/v1/devices")).json();
  const devices = reply.devices || [];
  if (devices.length === 0) {
    const row = document.createElement("tr");
    const empty = cell("No device has linked yet: run herald device --gateway … on a machine.");
    empty.colSpan = 3;
    empty.className = "empty";
    row.append(empty);
    body.replaceChildren(row);
    return;
  }
  body.replaceChildren(...devices.map((device) => {
    const row = document.createElement("tr");
    row.append(cell(device.deviceID), cell(device.online ? "yes" : "no"), cell((device.apps || []).map((app) => app.topic).join(", ")));
    return row;
  }));
}

document.getElementById("sign-out").addEventListener("click", async () => {
  await api("/sign-out", { method: "POST" });
  location.assign("/sign-in");
});

await showDevices();
