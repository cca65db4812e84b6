public import Foundation

/// A content extension's controller: its `view` is what the notification shows, built in `viewDidLoad()` (iOS builds
/// it from a storyboard; here code does) and changed in `didReceive(_:)`.
@MainActor
open class UIViewController {
    /// A title that replaces the notification's when the extension's Info.plist sets
    /// `UNNotificationExtensionOverridesDefaultTitle`.
    open var title: String?
    /// The size the view asks for, in points, sent to the host with each view: the host draws the view as wide as its
    /// surface allows and as high as asked, within bounds (docs/content-extensions.md). `.zero`: the Info.plist's
    /// `UNNotificationExtensionInitialContentSizeRatio` decides. Set it in `viewDidLoad()`, or later to resize.
    open var preferredContentSize = CGSize.zero
    /// The host's side: media, the default action, dismissal, the actions shown. Set before `viewDidLoad()`.
    public package(set) var extensionContext: NSExtensionContext?
    private var loadedView: UIView?

    /// Required, so that a content extension's `main()` can make its controller as `Self()`.
    public required init() {}

    /// The root view, made (and `viewDidLoad()` called) on first use.
    public var view: UIView {
        get {
            loadViewIfNeeded()
            return loadedView!
        }
        set { loadedView = newValue }
    }

    public var isViewLoaded: Bool { loadedView != nil }

    public func loadViewIfNeeded() {
        guard loadedView == nil else { return }
        loadView()
        if loadedView == nil { loadedView = UIView() }
        viewDidLoad()
    }

    /// Makes `view`; the default is an empty view.
    open func loadView() {
        loadedView = UIView()
    }

    /// Builds the interface.
    open func viewDidLoad() {}
}
