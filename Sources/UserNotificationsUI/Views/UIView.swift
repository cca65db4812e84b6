public import Foundation

/// The base of every view: children, a background, hiding. Layout is the host's (a vertical flow, stacks as their
/// axis says); `frame` is kept for code that sets it and otherwise ignored.
@MainActor
open class UIView {
    public private(set) var subviews: [UIView] = []
    public private(set) weak var superview: UIView?
    public var backgroundColor: UIColor?
    public var isHidden = false
    public var tag = 0
    public var frame = CGRect.zero
    /// The frame's size at the origin, as UIKit gives it (code such as `preferredContentSize = CGSize(width:
    /// view.bounds.width, height: 300)` ports unchanged; the host decides the width).
    public var bounds: CGRect { CGRect(origin: .zero, size: frame.size) }
    public var tintColor: UIColor?

    public init() {}

    public init(frame: CGRect) {
        self.frame = frame
    }

    public func addSubview(_ view: UIView) {
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
    }

    public func removeFromSuperview() {
        superview?.subviews.removeAll { $0 === self }
        superview = nil
    }

    /// Layout happens in the host; these are kept so ported code compiles.
    public func setNeedsLayout() {}
    public func layoutIfNeeded() {}

    /// What this view draws itself, without its children (subclasses say more).
    open var drawing: ViewSnapshot.Drawing { .view }
}

/// Text.
@MainActor
open class UILabel: UIView {
    public var text: String?
    public var textColor: UIColor?
    public var font: UIFont?
    /// 0: as many lines as the text needs.
    public var numberOfLines = 1
    public var textAlignment = NSTextAlignment.natural

    override open var drawing: ViewSnapshot.Drawing {
        .label(text: text ?? "", color: textColor, pointSize: font?.pointSize, bold: font?.isBold ?? false, lines: numberOfLines)
    }
}

/// An image.
@MainActor
open class UIImageView: UIView {
    public enum ContentMode: Int, Sendable {
        case scaleToFill = 0
        case scaleAspectFit, scaleAspectFill
    }

    public var image: UIImage?
    public var contentMode = ContentMode.scaleToFill

    public init(image: UIImage?) {
        self.image = image
        super.init()
    }

    override public init() {
        super.init()
    }

    override open var drawing: ViewSnapshot.Drawing {
        guard let image else { return .view }
        let inline = image.path == nil && image.data.count <= ViewSnapshot.inlineImageLimit
        return .image(path: image.path, format: image.format, bytes: image.data.count, data: inline ? image.data : nil)
    }
}

/// Views in a row or a column.
@MainActor
open class UIStackView: UIView {
    public enum Axis: Int, Sendable {
        case horizontal = 0
        case vertical
    }

    public var axis = Axis.horizontal
    public var spacing = 0.0

    public init(arrangedSubviews: [UIView]) {
        super.init()
        for view in arrangedSubviews { addArrangedSubview(view) }
    }

    override public init() {
        super.init()
    }

    public var arrangedSubviews: [UIView] { subviews }

    public func addArrangedSubview(_ view: UIView) {
        addSubview(view)
    }

    override open var drawing: ViewSnapshot.Drawing {
        .stack(vertical: axis == .vertical, spacing: spacing)
    }
}

/// How far along something is, 0…1.
@MainActor
open class UIProgressView: UIView {
    public var progress: Float = 0
    public var progressTintColor: UIColor?

    public func setProgress(_ progress: Float, animated: Bool) {
        self.progress = progress
    }

    override open var drawing: ViewSnapshot.Drawing {
        .progress(Double(min(max(progress, 0), 1)), color: progressTintColor)
    }
}
