public import Foundation
public import HeraldWire

/// The keys of virtual Web Push subscribers (`herald webpush subscribe`), one file each under `webpush/`: whoever
/// holds the data directory can read what they received (`herald webpush show`, the console's log).
extension DataDirectory {
    public var webPushDirectory: URL { url.appendingPathComponent("webpush", isDirectory: true) }

    func webPushKeysPath(_ token: DeviceToken) -> String {
        webPushDirectory.appendingPathComponent("\(token.hex).json").path
    }

    /// Keeps a subscriber's keys and endpoint (mode 0600): `{"endpoint":…,"keys":{…},"privateKey":…}`.
    public func saveWebPushKeys(_ keys: WebPushKeys, endpoint: String, for token: DeviceToken) throws {
        try FileManager.default.createDirectory(at: webPushDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var json = PushSubscriptionJSON(endpoint: endpoint, keys: keys.subscription).json
        if case .object(var fields) = json {
            fields["privateKey"] = .string(Base64URL.encode(keys.rawPrivateKey))
            json = .object(fields)
        }
        try Self.writeSecret(json.encoded(), to: webPushKeysPath(token))
    }

    /// The subscriber's keys and endpoint, when this data directory holds them.
    public func webPushKeys(for token: DeviceToken) -> (keys: WebPushKeys, endpoint: String)? {
        guard let data = FileManager.default.contents(atPath: webPushKeysPath(token)),
            let json = try? JSONValue.parse(data), let endpoint = json["endpoint"]?.stringValue,
            let raw = json["privateKey"]?.stringValue.flatMap(Base64URL.decode),
            let auth = json["keys"]?["auth"]?.stringValue.flatMap(Base64URL.decode),
            let keys = WebPushKeys(rawPrivateKey: raw, auth: auth)
        else { return nil }
        return (keys, endpoint)
    }
}
