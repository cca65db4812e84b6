public import Foundation

/// The error domain of `UNError`, as `NSError.domain`.
public let UNErrorDomain: String = "UNErrorDomain"

/// An error of the UserNotifications framework.
///
/// Bridges to `NSError` with domain `UNErrorDomain` and the code's raw value, and carries a message a person
/// can act on (its `localizedDescription`).
///
/// ```swift
/// do {
///     let attachment = try UNNotificationAttachment(identifier: "photo", url: url)
/// } catch let error as UNError where error.code == .attachmentInvalidFileSize {
///     print(error.localizedDescription)
/// }
/// ```
public struct UNError: CustomNSError, Hashable, CustomStringConvertible {
    /// The kinds of UserNotifications errors, with Apple's raw values.
    public enum Code: Int, Sendable {
        /// The app is not allowed to post notifications.
        case notificationsNotAllowed = 1
        /// The attachment's URL is not a file URL, or no readable file is there.
        case attachmentInvalidURL = 100
        /// The attachment's file is not of a supported type.
        case attachmentUnrecognizedType = 101
        /// The attachment's file is larger than its type allows.
        case attachmentInvalidFileSize = 102
        /// The attachment's file is not in the attachment store.
        case attachmentNotInDataStore = 103
        /// The attachment's file could not be moved into the attachment store.
        case attachmentMoveIntoDataStoreFailed = 104
        /// The attachment's file is empty, truncated or malformed, or its options do not fit it.
        case attachmentCorrupt = 105
        /// The notification's trigger has no valid date.
        case notificationInvalidNoDate = 1400
        /// The notification has no content to show.
        case notificationInvalidNoContent = 1401
        /// The content-providing object is not allowed.
        case contentProvidingObjectNotAllowed = 1500
        /// The content-providing object is invalid.
        case contentProvidingInvalid = 1501
        /// The badge count is invalid.
        case badgeInputInvalid = 1600
    }

    /// What went wrong.
    public let code: Code
    /// A description of the failure a person can act on.
    package let message: String
    /// The error that caused this one, if any.
    package let underlying: (any Error)?

    /// An error with `code`; `userInfo[NSLocalizedDescriptionKey]`, when a string, becomes its message.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        message = userInfo[NSLocalizedDescriptionKey] as? String ?? Self.defaultMessage(for: code)
        underlying = userInfo[NSUnderlyingErrorKey] as? any Error
    }

    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// `UNErrorDomain`.
    public static var errorDomain: String { UNErrorDomain }

    /// The code's raw value.
    public var errorCode: Int { code.rawValue }

    /// The message under `NSLocalizedDescriptionKey`, and the cause under `NSUnderlyingErrorKey` if any.
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let underlying {
            userInfo[NSUnderlyingErrorKey] = underlying as NSError
        }
        return userInfo
    }

    /// The message, for logs.
    public var description: String { "UNError(\(code)): \(message)" }

    /// Errors are equal when their codes and messages are.
    public static func == (lhs: UNError, rhs: UNError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the code and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    private static func defaultMessage(for code: Code) -> String {
        switch code {
        case .notificationsNotAllowed: "Notifications are not allowed for this application."
        case .attachmentInvalidURL: "The attachment's URL is not a readable file."
        case .attachmentUnrecognizedType: "The attachment's file is not of a supported type."
        case .attachmentInvalidFileSize: "The attachment's file is too large for its type."
        case .attachmentNotInDataStore: "The attachment's file is not in the attachment store."
        case .attachmentMoveIntoDataStoreFailed: "The attachment's file could not be moved into the attachment store."
        case .attachmentCorrupt: "The attachment's file is corrupt."
        case .notificationInvalidNoDate: "The notification's trigger has no valid date."
        case .notificationInvalidNoContent: "The notification has no content."
        case .contentProvidingObjectNotAllowed: "The content-providing object is not allowed."
        case .contentProvidingInvalid: "The content-providing object is invalid."
        case .badgeInputInvalid: "The badge count is invalid."
        }
    }
}

extension UNError.Code {
    /// Matches a thrown error against a code, so `catch UNError.attachmentCorrupt { … }` works.
    public static func ~= (match: UNError.Code, error: any Error) -> Bool {
        (error as? UNError)?.code == match
    }
}

extension UNError {
    /// `Code.notificationsNotAllowed`.
    public static var notificationsNotAllowed: Code { .notificationsNotAllowed }
    /// `Code.attachmentInvalidURL`.
    public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
    /// `Code.attachmentUnrecognizedType`.
    public static var attachmentUnrecognizedType: Code { .attachmentUnrecognizedType }
    /// `Code.attachmentInvalidFileSize`.
    public static var attachmentInvalidFileSize: Code { .attachmentInvalidFileSize }
    /// `Code.attachmentNotInDataStore`.
    public static var attachmentNotInDataStore: Code { .attachmentNotInDataStore }
    /// `Code.attachmentMoveIntoDataStoreFailed`.
    public static var attachmentMoveIntoDataStoreFailed: Code { .attachmentMoveIntoDataStoreFailed }
    /// `Code.attachmentCorrupt`.
    public static var attachmentCorrupt: Code { .attachmentCorrupt }
    /// `Code.notificationInvalidNoDate`.
    public static var notificationInvalidNoDate: Code { .notificationInvalidNoDate }
    /// `Code.notificationInvalidNoContent`.
    public static var notificationInvalidNoContent: Code { .notificationInvalidNoContent }
    /// `Code.contentProvidingObjectNotAllowed`.
    public static var contentProvidingObjectNotAllowed: Code { .contentProvidingObjectNotAllowed }
    /// `Code.contentProvidingInvalid`.
    public static var contentProvidingInvalid: Code { .contentProvidingInvalid }
    /// `Code.badgeInputInvalid`.
    public static var badgeInputInvalid: Code { .badgeInputInvalid }
}
