public import Foundation

/// Which notifications a page of the delivery log lists (``Store/notifications(matching:before:limit:)``).
///
/// ```swift
/// let newest = try await store.notifications(matching: .all, before: nil, limit: 50)
/// let older = try await store.notifications(matching: .all, before: newest.last?.id, limit: 50)
/// let sameToken = try await store.notifications(matching: .deviceTokenPrefix("96f1"), before: nil, limit: 50)
/// ```
public enum NotificationQuery: Sendable, Hashable {
    /// Every notification.
    case all
    /// The notifications whose `apns-id` or `apns-unique-id` is this UUID: at most one by its unique id, and any
    /// number by its apns-id (a provider may send several notifications with the same one).
    case id(UUID)
    /// The notifications to device tokens that start with these hex digits: lowercase, 1 to 400 of them (a token
    /// has at most 400). Anything else matches nothing.
    case deviceTokenPrefix(String)
}
