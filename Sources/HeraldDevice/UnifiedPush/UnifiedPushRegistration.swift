import Crypto
import Foundation

/// One UnifiedPush app's registration with the device's distributor, and the web push subscription at the gateway it
/// maps to (a ``HeraldWire/TokenKind/webPush`` token of this device: `topic` the app's D-Bus name, `activityID`
/// ``subscription``).
package struct UnifiedPushRegistration: Codable, Sendable, Hashable {
    /// The connector's token: how the app and the distributor name the registration.
    package var token: String
    /// The app's D-Bus name, on which its connector is called.
    package var service: String
    /// The distributor interface the app registered on (1 or 2); it is called back on the same version.
    package var version: Int
    /// The VAPID public key messages to the endpoint must be signed with (base64url); nil: any.
    package var vapid: String?
    /// The subscription's name at the gateway (``subscriptionName(for:)``).
    package var subscription: String
    /// The subscription's token and endpoint, once the gateway gave them.
    package var deviceToken: String?
    package var endpoint: String?
    /// The app unregistered; the gateway is still to be told (the next link does it when this one cannot).
    package var removed = false

    package init(token: String, service: String, version: Int, vapid: String?) {
        self.token = token
        self.service = service
        self.version = version
        self.vapid = vapid
        subscription = Self.subscriptionName(for: token)
    }

    /// The name the gateway knows a subscription by: the connector's token when it is one the gateway takes as a name
    /// (1 to 64 letters, digits and dashes: a UUID, as the spec suggests), else the hex SHA-256 of the token (64
    /// characters), so any token of up to 100 bytes maps to one stable name.
    package static func subscriptionName(for token: String) -> String {
        let usable =
            (1...64).contains(token.utf8.count)
            && token.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            }
        if usable { return token }
        return SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
