/// A color, by its components (0…1). The names iOS code uses most are here; a port keeps them.
public struct UIColor: Codable, Hashable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    public init(white: Double, alpha: Double) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    public static let black = UIColor(white: 0, alpha: 1)
    public static let white = UIColor(white: 1, alpha: 1)
    public static let gray = UIColor(white: 0.5, alpha: 1)
    public static let clear = UIColor(white: 0, alpha: 0)
    public static let red = UIColor(red: 1, green: 0.23, blue: 0.19, alpha: 1)
    public static let green = UIColor(red: 0.2, green: 0.78, blue: 0.35, alpha: 1)
    public static let blue = UIColor(red: 0, green: 0.48, blue: 1, alpha: 1)
    public static let orange = UIColor(red: 1, green: 0.58, blue: 0, alpha: 1)
    public static let systemBlue = blue
    public static let systemRed = red
    public static let systemGreen = green
    public static let label = black
    public static let secondaryLabel = UIColor(red: 0.24, green: 0.24, blue: 0.26, alpha: 0.6)
    public static let systemBackground = white

    /// `#rrggbbaa`, as the pages and the terminal draw it.
    public var description: String {
        "#"
            + [red, green, blue, alpha].map { component in
                let byte = Int((min(max(component, 0), 1) * 255).rounded())
                return (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }.joined()
    }
}

/// A font: its size in points and whether it is bold.
public struct UIFont: Hashable, Sendable {
    public var pointSize: Double
    public var isBold: Bool

    public static func systemFont(ofSize size: Double) -> UIFont { UIFont(pointSize: size, isBold: false) }
    public static func boldSystemFont(ofSize size: Double) -> UIFont { UIFont(pointSize: size, isBold: true) }
}

/// How text lines up in a label.
public enum NSTextAlignment: Int, Sendable {
    case left = 0
    case center, right, justified, natural
}
