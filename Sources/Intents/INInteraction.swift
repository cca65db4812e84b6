public import Foundation

/// Which way an interaction went: a message received is `.incoming`.
public enum INInteractionDirection: Int, Sendable {
    case unspecified = 0
    case outgoing = 1
    case incoming = 2
}

/// An intent as it happened, which iOS apps donate before updating a communication notification. Linux has no
/// Siri suggestions to learn from: `donate` keeps nothing and succeeds.
open class INInteraction: NSObject, @unchecked Sendable {
    // `direction` is set once, before donating, as on iOS; the lock keeps it whole.
    private let lock = NSLock()
    private var storedDirection = INInteractionDirection.unspecified
    public let intent: INIntent
    public let intentResponse: NSObject?

    public init(intent: INIntent, response: NSObject?) {
        self.intent = intent
        intentResponse = response
    }

    public var direction: INInteractionDirection {
        get { lock.withLock { storedDirection } }
        set { lock.withLock { storedDirection = newValue } }
    }

    /// Succeeds at once: nothing on Linux learns from donations.
    public func donate(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        completion?(nil)
    }

    public func donate() async throws {}
}
