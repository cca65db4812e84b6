// Draws a view tree an extension sent (a content extension's expanded notification, a widget extension's Live
// Activity): labels, images, stacks, progress bars and buttons, as NotificationCenterJSON.view describes them.
import { el } from "./elements.js";

/// `buttons`: how a button of the tree is drawn — `{ enabled(node), click(node) }`, or undefined for buttons that
/// only show (a Live Activity's view takes no clicks).
export function drawView(node, buttons) {
  let drawn;
  switch (node.kind) {
    case "label": {
      drawn = el("div", { class: node.lines > 0 ? "v-label clamped" : "v-label", text: node.text });
      if (node.lines > 0) drawn.style.webkitLineClamp = String(node.lines);
      if (node.color) drawn.style.color = node.color;
      if (node.size) drawn.style.fontSize = `${node.size}px`;
      if (node.bold) drawn.style.fontWeight = "600";
      break;
    }
    case "image":
      drawn = node.src ? el("img", { class: "v-image", src: node.src, alt: "" }) : el("div", { class: "v-image missing", text: `${node.format} image, ${node.bytes} bytes` });
      break;
    case "stack":
      drawn = el("div", { class: node.vertical ? "v-stack vertical" : "v-stack" });
      drawn.style.gap = `${node.spacing}px`;
      break;
    case "progress":
      drawn = el("progress", { class: "v-progress", max: 1, value: node.value });
      if (node.color) drawn.style.accentColor = node.color;
      break;
    case "button":
      drawn = el("button", { type: "button", class: "v-button", "data-button": node.number, text: node.title,
        disabled: !node.enabled || !buttons?.enabled(node),
        onclick: (event) => { event.stopPropagation(); buttons?.click(node); } });
      break;
    default:
      drawn = el("div", { class: "v-view" });
  }
  if (node.background) drawn.style.backgroundColor = node.background;
  drawn.append(...node.children.map((child) => drawView(child, buttons)));
  return drawn;
}
