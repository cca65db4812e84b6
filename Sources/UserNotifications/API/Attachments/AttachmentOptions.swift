import Foundation

/// A thumbnail clipping rectangle in unit coordinates (0…1 of the image's width and height).
package struct ClippingRect: Codable, Hashable, Sendable {
    package var x: Double
    package var y: Double
    package var width: Double
    package var height: Double

    package init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The options of a `UNNotificationAttachment`, checked and typed.
package struct AttachmentOptions: Codable, Hashable, Sendable {
    /// `UNNotificationAttachmentOptionsTypeHintKey`.
    package var typeHint: String?
    /// `UNNotificationAttachmentOptionsThumbnailHiddenKey`.
    package var thumbnailHidden: Bool?
    /// `UNNotificationAttachmentOptionsThumbnailClippingRectKey`.
    package var thumbnailClippingRect: ClippingRect?
    /// `UNNotificationAttachmentOptionsThumbnailTimeKey`: seconds into a movie, or a GIF's frame number.
    package var thumbnailTime: Double?

    package init() {}

    /// Parses the options dictionary given to `UNNotificationAttachment(identifier:url:options:)`; unknown keys
    /// are ignored. Throws `attachmentCorrupt` for a value of the wrong type, a clipping rectangle outside
    /// 0…1 or empty, or a negative or non-finite thumbnail time; `attachmentUnrecognizedType` for a TypeHint
    /// that is not a string.
    package init(_ options: [AnyHashable: Any]?) throws(UNError) {
        guard let options else { return }
        if let hint = options[UNNotificationAttachmentOptionsTypeHintKey] {
            guard let string = hint as? String else {
                throw UNError(
                    .attachmentUnrecognizedType,
                    "options[\(UNNotificationAttachmentOptionsTypeHintKey)] must be a type identifier string such as \"public.jpeg\"")
            }
            typeHint = string
        }
        if let hidden = options[UNNotificationAttachmentOptionsThumbnailHiddenKey] {
            guard let bool = Self.bool(hidden) else {
                throw Self.invalid(UNNotificationAttachmentOptionsThumbnailHiddenKey, "must be a Bool")
            }
            thumbnailHidden = bool
        }
        if let rect = options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] {
            thumbnailClippingRect = try Self.clippingRect(rect)
        }
        if let time = options[UNNotificationAttachmentOptionsThumbnailTimeKey] {
            guard let seconds = Self.seconds(time), seconds.isFinite, seconds >= 0 else {
                throw Self.invalid(
                    UNNotificationAttachmentOptionsThumbnailTimeKey, "must be a number of seconds (or a CMTime dictionary) of at least 0")
            }
            thumbnailTime = seconds
        }
    }

    /// The options as a dictionary with the `UNNotificationAttachmentOptions…Key` keys.
    package var dictionary: [AnyHashable: Any] {
        var options: [AnyHashable: Any] = [:]
        options[UNNotificationAttachmentOptionsTypeHintKey] = typeHint
        options[UNNotificationAttachmentOptionsThumbnailHiddenKey] = thumbnailHidden
        if let rect = thumbnailClippingRect {
            options[UNNotificationAttachmentOptionsThumbnailClippingRectKey] = [
                "X": rect.x, "Y": rect.y, "Width": rect.width, "Height": rect.height,
            ]
        }
        options[UNNotificationAttachmentOptionsThumbnailTimeKey] = thumbnailTime
        return options
    }

    private static func invalid(_ key: String, _ problem: String) -> UNError {
        UNError(.attachmentCorrupt, "options[\(key)] \(problem)")
    }

    private static func bool(_ value: Any) -> Bool? {
        if type(of: value) is AnyClass, let number = value as? NSNumber { return number.boolValue }
        return value as? Bool
    }

    /// A number of any numeric type (not a Bool).
    private static func number(_ value: Any) -> Double? {
        if type(of: value) is AnyClass, let number = value as? NSNumber {
            return number === NSNumber(value: true) || number === NSNumber(value: false) ? nil : number.doubleValue
        }
        switch value {
        case let double as Double: return double
        case let float as Float: return Double(float)
        case let float as CGFloat: return Double(float)
        case let int as Int: return Double(int)
        case let int as Int32: return Double(int)
        case let int as Int64: return Double(int)
        case let uint as UInt: return Double(uint)
        default: return nil
        }
    }

    /// Seconds from a number or a CMTime dictionary ("value" / "timescale", "flags" bit 0 = valid).
    private static func seconds(_ value: Any) -> Double? {
        if let seconds = number(value) { return seconds }
        guard let time = value as? [AnyHashable: Any],
            let units = time["value"].flatMap(number), let timescale = time["timescale"].flatMap(number), timescale > 0
        else { return nil }
        if let flags = time["flags"].flatMap(number), Int(flags) & 1 == 0 { return nil }
        return units / timescale
    }

    private static func clippingRect(_ value: Any) throws(UNError) -> ClippingRect {
        let key = UNNotificationAttachmentOptionsThumbnailClippingRectKey
        let rect: ClippingRect
        if let cgRect = value as? CGRect {
            rect = ClippingRect(
                x: Double(cgRect.origin.x), y: Double(cgRect.origin.y),
                width: Double(cgRect.size.width), height: Double(cgRect.size.height))
        } else if let dictionary = value as? [AnyHashable: Any] {
            guard let x = dictionary["X"].flatMap(number), let y = dictionary["Y"].flatMap(number),
                let width = dictionary["Width"].flatMap(number), let height = dictionary["Height"].flatMap(number)
            else { throw invalid(key, "must have the numbers X, Y, Width and Height") }
            rect = ClippingRect(x: x, y: y, width: width, height: height)
        } else {
            throw invalid(key, "must be a CGRect or its dictionary representation (X, Y, Width, Height)")
        }
        let tolerance = 1e-9
        let values = [rect.x, rect.y, rect.width, rect.height]
        guard values.allSatisfy(\.isFinite), rect.x >= 0, rect.y >= 0, rect.width > 0, rect.height > 0,
            rect.x + rect.width <= 1 + tolerance, rect.y + rect.height <= 1 + tolerance
        else {
            throw invalid(key, "must be a non-empty rectangle within the unit square 0…1, got (\(rect.x), \(rect.y), \(rect.width), \(rect.height))")
        }
        return rect
    }
}
