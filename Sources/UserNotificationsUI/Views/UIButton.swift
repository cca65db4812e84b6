/// A handler for a control's event (iOS 14's `UIAction`): Swift closures instead of selectors, which Linux lacks.
@MainActor
public struct UIAction {
    public var title: String
    let handler: @MainActor (UIAction) -> Void

    public init(title: String = "", handler: @escaping @MainActor (UIAction) -> Void) {
        self.title = title
        self.handler = handler
    }
}

/// The events and states controls know.
public enum UIControl {
    public struct Event: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let touchUpInside = Event(rawValue: 1 << 6)
        public static let primaryActionTriggered = Event(rawValue: 1 << 13)
    }

    public struct State: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let normal = State([])
    }
}

/// A button; the person's click on it (on the notification center page, or `herald device show`) runs its actions.
@MainActor
open class UIButton: UIView {
    public enum ButtonType: Int, Sendable {
        case custom = 0
        case system
    }

    private var titles: [UInt: String] = [:]
    private var actions: [UIAction] = []
    public var isEnabled = true

    public init(type: ButtonType = .system, primaryAction: UIAction? = nil) {
        super.init()
        if let primaryAction {
            titles[UIControl.State.normal.rawValue] = primaryAction.title
            actions.append(primaryAction)
        }
    }

    public func setTitle(_ title: String?, for state: UIControl.State) {
        titles[state.rawValue] = title
    }

    public func title(for state: UIControl.State) -> String? {
        titles[state.rawValue]
    }

    public func addAction(_ action: UIAction, for events: UIControl.Event) {
        actions.append(action)
    }

    /// Runs the button's actions, as a click does.
    public func sendActions() {
        guard isEnabled else { return }
        for action in actions { action.handler(action) }
    }

    override open var drawing: ViewSnapshot.Drawing {
        .button(title: title(for: .normal) ?? "", enabled: isEnabled)
    }
}
