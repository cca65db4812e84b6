package import HeraldDBus
import HeraldWire

/// A call a UnifiedPush connector makes to the distributor (UnifiedPush's D-Bus specification; docs/unifiedpush.md),
/// read and checked: `org.unifiedpush.Distributor2` (a dictionary in, a dictionary out) or the older
/// `org.unifiedpush.Distributor1` (positional arguments), which KDE's distributor still serves too.
package enum UnifiedPushRequest: Sendable, Hashable {
    case register(Registration)
    case unregister(token: String, version: Int)

    /// What a connector asks to register.
    package struct Registration: Sendable, Hashable {
        /// The app's D-Bus name, on which its connector is called back.
        package var service: String
        /// The connector's own name for the registration (a UUID, mostly).
        package var token: String
        /// The application server's VAPID public key, base64url (87 characters); nil when the app gave none.
        package var vapid: String?
        /// 2 for `org.unifiedpush.Distributor2`, 1 for the older interface: the connector is called back on the same.
        package var version: Int

        package init(service: String, token: String, vapid: String?, version: Int) {
            self.service = service
            self.token = token
            self.vapid = vapid
            self.version = version
        }
    }

    /// The outcome of a registration, as `Register` answers it.
    package enum Outcome: Sendable, Hashable {
        case succeeded
        /// `REGISTRATION_FAILED` with one of the spec's reasons (``Reason``).
        case failed(Reason)
    }

    /// Why a registration failed, in the spec's words.
    package struct Reason: RawRepresentable, Sendable, Hashable {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// Something went wrong here; try again later.
        package static let internalError = Reason(rawValue: "INTERNAL_ERROR")
        /// The gateway cannot be reached now; try again when it can.
        package static let network = Reason(rawValue: "NETWORK")
        /// A person must act first (the daemon runs without a gateway, or the device has as many subscriptions as it may).
        package static let actionRequired = Reason(rawValue: "ACTION_REQUIRED")
        /// Not allowed (the token is another app's).
        package static let unauthorized = Reason(rawValue: "UNAUTHORIZED")
    }

    package static let distributorInterface2 = "org.unifiedpush.Distributor2"
    package static let distributorInterface1 = "org.unifiedpush.Distributor1"
    static let invalidArguments = "org.freedesktop.DBus.Error.InvalidArgs"

    /// Reads a call to the distributor's object; an answer to send at once instead when the call is not a request (an
    /// `Introspect`, an unknown method, arguments the spec does not allow: "MUST be ignored", so no state comes of them).
    package static func read(_ call: DBusMethodCall) -> Result<UnifiedPushRequest, ImmediateAnswer> {
        switch (call.interface, call.member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return .failure(ImmediateAnswer(reply: .values([.string(UnifiedPushDistributor.introspection)])))
        case ("org.freedesktop.DBus.Peer", "Ping"):
            return .failure(ImmediateAnswer(reply: .values([])))
        case (distributorInterface2, "Register"):
            guard let arguments = call.body.first?.dictionary, call.body.count == 1 else { return invalid("Register takes a{sv}") }
            return registration(
                service: arguments["service"]?.string, token: arguments["token"]?.string, vapid: arguments["vapid"]?.string, version: 2)
        case (distributorInterface2, "Unregister"):
            guard let arguments = call.body.first?.dictionary, call.body.count == 1, let token = arguments["token"]?.string,
                isValidToken(token)
            else { return invalid("Unregister takes a{sv} with the string \"token\" (1 to 100 bytes)") }
            return .success(.unregister(token: token, version: 2))
        case (distributorInterface1, "Register"):
            guard call.body.count == 3 else { return invalid("Register takes (sss): service, token, description") }
            return registration(service: call.body[0].string, token: call.body[1].string, vapid: nil, version: 1)
        case (distributorInterface1, "Unregister"):
            guard call.body.count == 1, let token = call.body[0].string, isValidToken(token) else { return invalid("Unregister takes (s): token") }
            return .success(.unregister(token: token, version: 1))
        default:
            return .failure(ImmediateAnswer(reply: .unknownMethod(call)))
        }
    }

    /// An answer that needs nothing but the call.
    package struct ImmediateAnswer: Error, Sendable, Hashable {
        package var reply: DBusReply
    }

    private static func registration(service: String?, token: String?, vapid: String?, version: Int) -> Result<UnifiedPushRequest, ImmediateAnswer> {
        guard let service, isValidService(service) else { return invalid("\"service\" must be the app's D-Bus name, such as org.example.App") }
        guard let token, isValidToken(token) else { return invalid("\"token\" must be a string of 1 to 100 bytes") }
        // An empty key is no key (KDE leaves it out then; older connectors send none).
        let vapid = vapid.flatMap { $0.isEmpty ? nil : $0 }
        if let vapid, !isValidVAPIDKey(vapid) {
            return invalid("\"vapid\" must be a P-256 public key, uncompressed and base64url encoded (87 characters)")
        }
        return .success(.register(Registration(service: service, token: token, vapid: vapid, version: version)))
    }

    private static func invalid(_ message: String) -> Result<UnifiedPushRequest, ImmediateAnswer> {
        .failure(ImmediateAnswer(reply: .error(name: invalidArguments, message: message)))
    }

    /// A well-known D-Bus name the gateway also takes as an app's name: letters, digits, `_`, `-`, in two or more
    /// dot-separated parts.
    static func isValidService(_ service: String) -> Bool {
        let parts = service.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { !$0.isEmpty && !($0.first?.isNumber ?? true) } && TopicSyntax.isValid(service)
    }

    static func isValidToken(_ token: String) -> Bool {
        (1...100).contains(token.utf8.count)
    }

    static func isValidVAPIDKey(_ key: String) -> Bool {
        guard let decoded = Base64URL.decode(key) else { return false }
        return decoded.count == 65 && decoded.first == 4
    }

    /// The answer to a `Register` of `version`.
    package static func answer(_ outcome: Outcome, version: Int) -> DBusReply {
        let (result, reason): (String, String) =
            switch outcome {
            case .succeeded: ("REGISTRATION_SUCCEEDED", "")
            case .failed(let reason): ("REGISTRATION_FAILED", reason.rawValue)
            }
        if version == 1 { return .values([.string(result), .string(reason)]) }
        var fields: [String: DBusValue] = ["success": .string(result)]
        if !reason.isEmpty { fields["reason"] = .string(reason) }
        return .values([.hints(fields)])
    }

    /// The answer to an `Unregister` of `version`: an empty dictionary (v2), nothing (v1).
    package static func unregisterAnswer(version: Int) -> DBusReply {
        .values(version == 1 ? [] : [.hints([:])])
    }
}
