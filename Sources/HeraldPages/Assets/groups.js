// Notification groups as iOS 12 stacks them, for every page that lists notifications (the device's notification
// center, the console's browser device): the line under a stack.

/// The line under a stack, as iOS 12–14 wrote it: the newest is shown, the others are counted (each its
/// summaryArgumentCount, 1 when it has none) and named (their summaryArguments), in the category's format.
export function summaryLine(items) {
  const rest = items.slice(1);
  const count = rest.reduce((sum, n) => sum + (n.summaryArgumentCount > 0 ? n.summaryArgumentCount : 1), 0);
  const names = [...new Set(rest.map((n) => n.summaryArgument).filter(Boolean))];
  const format = items[0].summaryFormat
    || (count === 1 ? "%u more notification" : "%u more notifications") + (names.length ? " from %@" : "");
  return fillFormat(format, count, joinNames(names));
}

/// A localized format's `%u` (`%d`, `%lu`, `%1$u`) takes the count and `%@` (`%2$@`) the names; `%%` is a percent sign.
function fillFormat(format, count, names) {
  return format.replace(/%(?:(\d)\$)?(%|l?[ud]|@)/g, (_, position, kind) =>
    kind === "%" ? "%" : kind === "@" || position === "2" ? names : String(count));
}

/// "Alice", "Alice and Bob", "Alice, Bob and Carol".
function joinNames(names) {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
