public import Foundation

/// An image, sound or movie shown with a notification.
///
/// The initializer validates the file: it must be a local file of a supported type (JPEG, PNG, GIF up to
/// 10 MB; MP3, WAV, AIFF, MPEG-4 audio up to 5 MB; MPEG, MPEG-2, MPEG-4, AVI movies up to 50 MB, where
/// MB is 10^6 bytes), complete, with options that fit it. The type comes from the file's content; the file
/// extension and `UNNotificationAttachmentOptionsTypeHintKey` only decide when the content is ambiguous.
///
/// ```swift
/// let attachment = try UNNotificationAttachment(identifier: "photo", url: fileURL, options: [
///     UNNotificationAttachmentOptionsThumbnailClippingRectKey: ["X": 0.25, "Y": 0.25, "Width": 0.5, "Height": 0.5],
/// ])
/// content.attachments = [attachment]
/// ```
open class UNNotificationAttachment: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    /// The attachment's identifier (a generated UUID string when created with an empty one).
    public let identifier: String
    /// Where the file is: as given until the notification is scheduled, then in the attachment store.
    public let url: URL
    /// The file's uniform type identifier, like "public.jpeg".
    public let type: String
    /// The options the attachment was created with.
    package let options: AttachmentOptions

    /// An attachment without validation: for the engine, which re-creates stored attachments and those it
    /// moved into its store.
    package init(identifier: String, url: URL, type: String, options: AttachmentOptions) {
        self.identifier = identifier
        self.url = url
        self.type = type
        self.options = options
    }

    /// An attachment for the file at `url`, validated.
    /// - Parameters:
    ///   - identifier: The attachment's identifier; empty generates a UUID string.
    ///   - url: A file URL of a readable image, sound or movie.
    ///   - options: `UNNotificationAttachmentOptions…Key` values.
    /// - Throws: `UNError` with `attachmentInvalidURL` (not a file URL, no such file), `attachmentUnrecognizedType`
    ///   (unsupported content), `attachmentInvalidFileSize` (over its kind's limit) or `attachmentCorrupt`
    ///   (empty or truncated file, malformed options, thumbnail time past the end).
    public convenience init(identifier: String, url: URL, options: [AnyHashable: Any]? = nil) throws {
        let validated = try AttachmentValidator.validate(url: url, options: options)
        self.init(
            identifier: identifier.isEmpty ? UUID().uuidString : identifier, url: url,
            type: validated.format.typeIdentifier, options: validated.options)
    }

    /// The same attachment with its file at `url`: the engine's hook after it moved (or copied) the file
    /// into the attachment store.
    package func relocated(to url: URL) -> UNNotificationAttachment {
        UNNotificationAttachment(identifier: identifier, url: url, type: type, options: options)
    }

    /// The attachment itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Attachments are equal when identifier, URL, type and options are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAttachment else { return false }
        return identifier == other.identifier && url == other.url && type == other.type && options == other.options
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(identifier)
        hasher.combine(url)
        return hasher.finalize()
    }
}
