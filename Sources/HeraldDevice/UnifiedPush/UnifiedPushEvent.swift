/// What the device's UnifiedPush distributor did, for whoever runs the daemon (`herald device --json` prints it).
package enum UnifiedPushEvent: Sendable, Hashable {
    /// The distributor owns `busName` on the session bus: apps can register.
    case distributing(busName: String)
    /// An app's registration has this endpoint (given to its connector with `NewEndpoint`).
    case registered(app: String, subscription: String, endpoint: String)
    /// An app's registration is gone (the app unregistered, or the gateway retired the subscription).
    case unregistered(app: String, subscription: String)
    /// A web push message for an app: handed to its connector (`delivered`), or left pending at the gateway. `size` is
    /// the encrypted body's, which the daemon never decrypts.
    case message(app: String, subscription: String, apnsID: String, topic: String?, urgency: String, size: Int, delivered: Bool)
}
