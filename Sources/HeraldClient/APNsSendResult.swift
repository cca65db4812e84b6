public import Foundation

/// APNs accepted the notification (status 200).
public struct APNsSendResult: Sendable, Hashable {
    /// `apns-id`: the notification's id, as echoed by the server.
    public var apnsID: UUID
    /// `apns-unique-id`: the key of the development environment's delivery log; nil in production.
    public var uniqueID: UUID?
    /// How many times the request was sent (1 when it was not retried).
    public var attempts: Int

    public init(apnsID: UUID, uniqueID: UUID?, attempts: Int) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.attempts = attempts
    }
}
