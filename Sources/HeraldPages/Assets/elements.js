// What every Herald page builds its elements with, the console's and the device's notification center alike.

/// An element with attributes (`class`, `text`, `on…` handlers, anything else as an attribute) and children.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child !== undefined && child !== null));
  return node;
}

/// When a notification arrived, as iOS writes it on a card: "now", "5m ago", else the time of day.
export function timeOf(milliseconds) {
  const seconds = Math.round((Date.now() - milliseconds) / 1000);
  if (seconds < 60) return "now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  return new Date(milliseconds).toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
}
