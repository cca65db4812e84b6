public import Foundation

/// A view tree as the host draws it: each view's drawing and its children, in JSON for the notification center page
/// and as text for the terminal. Buttons are numbered in drawing order; a click names its button's number.
public struct ViewSnapshot: Codable, Hashable, Sendable {
    public enum Drawing: Codable, Hashable, Sendable {
        case view
        case label(text: String, color: UIColor?, pointSize: Double?, bold: Bool, lines: Int)
        /// An image from the file at `path`, or, made from bytes (`UIImage(data:)`), with its `data` when it is at most
        /// ``ViewSnapshot/inlineImageLimit`` bytes (larger ones are drawn as their type and size).
        case image(path: String?, format: String, bytes: Int, data: Data?)
        case stack(vertical: Bool, spacing: Double)
        case progress(Double, color: UIColor?)
        case button(title: String, enabled: Bool)
    }

    /// The most bytes of an image without a file that a snapshot carries.
    public static let inlineImageLimit = 1 << 20

    public var drawing: Drawing
    public var background: UIColor?
    /// The button's number, for a click to name.
    public var button: Int?
    public var children: [ViewSnapshot]

    /// The visible part of `view`'s tree, its buttons numbered from `0` in drawing order.
    @MainActor public static func of(_ view: UIView) -> ViewSnapshot {
        var buttons: [UIButton] = []
        return of(view, buttons: &buttons)
    }

    /// The buttons of `view`'s tree in the order ``of(_:)`` numbers them.
    @MainActor public static func buttons(in view: UIView) -> [UIButton] {
        var buttons: [UIButton] = []
        _ = of(view, buttons: &buttons)
        return buttons
    }

    @MainActor private static func of(_ view: UIView, buttons: inout [UIButton]) -> ViewSnapshot {
        var number: Int?
        if let button = view as? UIButton {
            number = buttons.count
            buttons.append(button)
        }
        let children = view.subviews.filter { !$0.isHidden }.map { of($0, buttons: &buttons) }
        return ViewSnapshot(drawing: view.drawing, background: view.backgroundColor, button: number, children: children)
    }

    /// The tree as lines of text, indented by depth: what `herald device show` prints.
    public var text: [String] {
        var lines: [String] = []
        write(into: &lines, depth: 0)
        return lines
    }

    private func write(into lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth)
        switch drawing {
        case .view, .stack: break
        case .label(let text, _, _, _, _): lines.append(indent + text)
        case .image(let path, let format, let bytes, _):
            lines.append(indent + "[\(format) image, \(bytes) bytes\(path.map { ": \($0)" } ?? "")]")
        case .progress(let value, _): lines.append(indent + "[progress \(Int((value * 100).rounded()))%]")
        case .button(let title, let enabled): lines.append(indent + "[\(button ?? 0)] \(title)" + (enabled ? "" : " (disabled)"))
        }
        // Containers draw nothing of their own, so their children stay at their depth.
        let drawsItself = !(drawing == .view || { if case .stack = drawing { true } else { false } }())
        for child in children { child.write(into: &lines, depth: drawsItself ? depth + 1 : depth) }
    }
}
