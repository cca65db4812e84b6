import Foundation
import GRDB

/// The notification store — the SQLite file where every app's pending and delivered notifications live — could not
/// be read or written: another process held it past the wait, the disk is full, the file is unreadable.
///
/// Not one of Apple's errors (iOS's store does not fail in ways an app sees); `add(_:)`, `requestAuthorization`
/// and `setBadgeCount` throw it instead of a `UNError` whose code would suggest the app is not allowed.
///
/// ```swift
/// do {
///     try await center.add(request)
/// } catch let error as NotificationStoreError where error.code == .busy {
///     // another program holds the store; try again shortly
/// }
/// ```
public struct NotificationStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure; an open set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Another process held the store for longer than a call waits: trying again may succeed.
        public static let busy = Code(rawValue: "busy")
        /// The store could not be read or written (disk full, permissions, a damaged file).
        public static let failed = Code(rawValue: "failed")

        public var description: String { rawValue }
    }

    public let code: Code
    /// What went wrong, for people.
    public let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The store error `error` is: `busy` for SQLite's busy and locked results.
    package init(_ error: any Error) {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            self.init(.busy, "the notification store is held by another process: \(error.message ?? "\(error)")")
        } else {
            self.init(.failed, "the notification store failed: \(error)")
        }
    }

    public var description: String { "NotificationStoreError(\(code)): \(message)" }
}

extension UNError {
    /// The store failure this error carries, if it is one.
    package var storeFailure: NotificationStoreError? { underlying as? NotificationStoreError }

    /// What an app is given: the store failure when it is one, else this error.
    package var forApp: any Error { storeFailure ?? self }

    /// A store failure, carried through the engine's typed throws as a `UNError`.
    package init(storeFailure: NotificationStoreError) {
        self.init(.notificationsNotAllowed, storeFailure.message, underlying: storeFailure)
    }
}
