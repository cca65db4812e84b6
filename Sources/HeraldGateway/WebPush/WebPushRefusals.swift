public import Foundation
public import HeraldWire
import Synchronization

/// The latest Web Push requests the gateway refused, with the check that failed: refused messages are never stored, so
/// the console's Web Push page reads them here (`GET /v1/webpush/refusals`) and the event stream carries each one
/// (`event: refused`).
public final class WebPushRefusals: Sendable {
    /// One refused request.
    public struct Refusal: Sendable {
        public var at: Date
        public var reason: APNsReason
        /// Which check failed and why, for a person.
        public var detail: String
        /// The sender's VAPID `sub`, when the request got as far as naming one.
        public var subject: String?
        /// The subscription addressed, when the path named one.
        public var token: DeviceToken?

        public var json: JSONValue {
            var fields: [String: JSONValue] = [
                "event": .string("refused"), "pushType": .string(PushType.webPush.rawValue),
                "at": .string(DeliveryTimeline.timestamp(at)), "reason": .string(reason.rawValue), "status": .integer(Int64(reason.status)),
                "detail": .string(detail),
            ]
            if let subject { fields["subject"] = .string(subject) }
            if let token { fields["deviceToken"] = .string(token.hex) }
            return .object(fields)
        }
    }

    /// Refusals kept, newest last.
    static let limit = 200
    private let kept = Mutex<[Refusal]>([])

    public init() {}

    func note(_ rejection: Rejection, subject: String?, token: DeviceToken?, at date: Date, events: DeliveryEvents) {
        let refusal = Refusal(at: date, reason: rejection.reason, detail: rejection.detail, subject: subject, token: token)
        kept.withLock { kept in
            if kept.count >= Self.limit { kept.removeFirst(kept.count - Self.limit + 1) }
            kept.append(refusal)
        }
        events.publish { [refusal.json] }
    }

    /// The kept refusals, newest first.
    public var latest: [Refusal] { kept.withLock { $0.reversed() } }
}
