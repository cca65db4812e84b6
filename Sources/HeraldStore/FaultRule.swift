public import Foundation
public import HeraldWire

/// A scripted failure of the provider API (docs/faults.md): which accepted requests it takes (``Match``, and how many
/// of them: ``Scope``), what the gateway does to them instead of answering 200 (``Action``), and until when. Its JSON
/// is what the admin API, `herald faults` and `serve --fixture` speak:
///
/// ```json
/// {"match": {"token": "…", "topic": "com.example.app"}, "count": 2,
///  "action": {"kind": "answer", "status": 410, "reason": "Unregistered"}, "expiresIn": 600}
/// ```
public struct FaultRule: Sendable, Hashable {
    /// What a request must carry to be taken; every field given must hold.
    public struct Match: Sendable, Hashable {
        /// The whole device token, lowercase hex.
        public var token: String?
        /// The device token's first hex digits.
        public var tokenPrefix: String?
        /// `apns-topic` as sent.
        public var topic: String?
        public var pushType: PushType?
        public var priority: Priority?
        public var collapseID: String?
        /// A request header (name lowercase) and its value.
        public var header: HeaderMatch?
        /// A JSON pointer (RFC 6901) into the payload and the value found there.
        public var payload: PayloadMatch?

        public init() {}
    }

    public struct HeaderMatch: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name.lowercased()
            self.value = value
        }
    }

    public struct PayloadMatch: Sendable, Hashable {
        public var pointer: String
        public var value: JSONValue

        public init(pointer: String, value: JSONValue) {
            self.pointer = pointer
            self.value = value
        }
    }

    /// Which of the matching requests it takes.
    public enum Scope: Sendable, Hashable {
        /// Every one, until the rule expires.
        case every
        /// The next `n`; then the rule is used up.
        case count(Int)
        /// `percent` of them, chosen by a generator seeded with `seed`: the same requests in the same order are taken
        /// on every run.
        case share(percent: Double, seed: UInt64)
    }

    /// What the gateway does instead of its answer.
    public enum Action: Sendable, Hashable {
        /// Answers `reason` with its status (and, for 410, `timestamp` in milliseconds since 1970; nil: now). Nothing is
        /// delivered.
        case answer(APNsReason, timestamp: Int64?)
        /// Handles the request as usual and holds its answer back this long.
        case delay(milliseconds: Int)
        /// Resets the request's stream (RST_STREAM INTERNAL_ERROR); nothing is delivered.
        case reset
        /// Handles this request and `after` more on the connection as usual, then sends GOAWAY with `{"reason": …}`
        /// and closes it once the requests still open are answered (as ``reason``).
        case goAway(APNsReason, after: Int)
        /// Closes the connection at once, without GOAWAY; nothing is delivered.
        case close
        /// Answers nothing more on the connection and reads nothing more from it; nothing is delivered.
        case stall
        /// Answers 200 and never delivers.
        case drop
    }

    /// Assigned when the rule is added: `f` and 8 hex digits.
    public var id: String
    public var match: Match
    public var scope: Scope
    public var action: Action
    public var createdAt: Date
    public var expiresAt: Date
    /// Kept when the gateway restarts; otherwise a gateway's start removes it.
    public var persistent: Bool

    /// How long a rule lasts unless it says: ten minutes.
    public static let defaultLifetime: TimeInterval = 600

    public init(
        id: String = FaultRule.newID(), match: Match = Match(), scope: Scope = .every, action: Action, createdAt: Date = Date(),
        expiresAt: Date? = nil, persistent: Bool = false
    ) {
        self.id = id
        self.match = match
        self.scope = scope
        self.action = action
        self.createdAt = createdAt
        self.expiresAt = expiresAt ?? createdAt.addingTimeInterval(Self.defaultLifetime)
        self.persistent = persistent
    }

    /// `f` and 8 random hex digits.
    public static func newID() -> String {
        "f" + String(format: "%08x", UInt32.random(in: .min ... .max))
    }

    /// Nothing is delivered: the request is kept in the delivery log only as faulted.
    public var discardsNotification: Bool {
        switch action {
        case .answer, .reset, .close, .stall, .drop: true
        case .delay, .goAway: false
        }
    }

    /// What the rule did, for the delivery log and the event stream: `answered 410 Unregistered (rule f0a1b2c3d)`.
    public var summary: String {
        let what =
            switch action {
            case .answer(let reason, _): "answered \(reason.status) \(reason.rawValue)"
            case .delay(let milliseconds): "answer held back \(milliseconds) ms"
            case .reset: "stream reset"
            case .goAway(let reason, let after): "GOAWAY \(reason.rawValue) after \(after) more request\(after == 1 ? "" : "s")"
            case .close: "connection closed"
            case .stall: "connection stalled"
            case .drop: "answered 200, never delivered"
            }
        return "\(what) (fault rule \(id))"
    }

    /// The action's name in JSON and in metrics: `answer`, `delay`, `reset`, `goaway`, `close`, `stall`, `drop`.
    public var actionKind: String {
        switch action {
        case .answer: "answer"
        case .delay: "delay"
        case .reset: "reset"
        case .goAway: "goaway"
        case .close: "close"
        case .stall: "stall"
        case .drop: "drop"
        }
    }
}
