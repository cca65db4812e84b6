import ArgumentParser
import Crypto
import Foundation
import HeraldStore
import HeraldWire

/// `herald webpush`: Web Push as a site's server and a browser do it (docs/web-push.md).
struct WebPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush",
        abstract: "Web Push (RFC 8030): make VAPID keys and virtual subscribers, send messages, read what subscribers received.",
        subcommands: [Vapid.self, Subscribe.self, Send.self, Show.self]
    )

    /// The Web Push port a gateway started with its defaults serves.
    static let defaultGateway = "https://localhost:8443"

    struct Vapid: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an application server key pair (VAPID, P-256): the private key to a PEM file, the public key printed.",
            discussion: """
                The public key printed (base64url, 65 bytes) is the applicationServerKey a page passes to \
                pushManager.subscribe and `herald webpush subscribe --application-server-key` takes.
                """)

        @Option(help: "Where to write the private key (PEM, mode 0600); an existing file is left alone.")
        var out: String

        func run() throws {
            guard !FileManager.default.fileExists(atPath: out) else {
                throw ValidationError("\(out) already exists; remove it or choose another --out (a key in use would be lost)")
            }
            let key = P256.Signing.PrivateKey()
            do {
                try DataDirectory.writeSecret(Data(key.pemRepresentation.utf8), to: out)
            } catch {
                throw ValidationError("\(error)")
            }
            print(Base64URL.encode(key.publicKey.x963Representation))
        }
    }

    struct Subscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a virtual subscriber and print its subscription: {\"endpoint\":…,\"keys\":{\"p256dh\":…,\"auth\":…}}.",
            discussion: """
                As `herald tokens issue` makes a device that never comes online, this makes a browser that never does: \
                messages to its endpoint are checked, stored and shown in the console's log. Its private key stays in the \
                data directory, so `herald webpush show` and the console can decrypt what it received.
                """)

        @OptionGroup var store: StoreOption

        @Option(help: "The applicationServerKey the subscription is made with (base64url); messages must be signed by it.")
        var applicationServerKey: String?

        @Option(help: "The gateway's Web Push port as senders reach it: the endpoint's origin. (default: \(WebPush.defaultGateway))")
        var gateway = WebPush.defaultGateway

        @Option(help: "What the subscription is for, as the delivery log names it (a site or an app).")
        var app = "web.example"

        @Option(help: "The environment of the gateway that serves it: development or production.")
        var environment = APNsEnvironment.development

        func run() async throws {
            var serverKey: Data?
            if let applicationServerKey {
                guard let key = Base64URL.decode(applicationServerKey), key.count == 65, key.first == 4 else {
                    throw ValidationError(
                        "--application-server-key must be an uncompressed P-256 public key in base64url (65 bytes), as `herald webpush vapid` prints")
                }
                serverKey = key
            }
            let origin = try WebPush.origin(of: gateway, flag: "--gateway")
            let keys = WebPushKeys()
            let record = DeviceRecord(
                token: .random(), topic: app, environment: environment, createdAt: Date(), kind: .webPush, applicationServerKey: serverKey)
            let endpoint = origin + "/push/" + record.token.hex
            let directory = try store.dataDirectory.prepare()
            try await store.withStore(creating: true) { opened, _ in
                try directory.saveWebPushKeys(keys, endpoint: endpoint, for: record.token)
                try await opened.saveDevice(record)
            }
            print(String(decoding: PushSubscriptionJSON(endpoint: endpoint, keys: keys.subscription).json.encoded(), as: UTF8.self))
        }
    }

    /// `scheme://host[:port]` of a URL given to `flag`.
    static func origin(of text: String, flag: String) throws -> String {
        guard let url = URL(string: text), let scheme = url.scheme, scheme == "https" || scheme == "http", let host = url.host else {
            throw ValidationError("\(flag) must be an https:// URL such as \(defaultGateway), not \(text)")
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)" + (url.port.map { ":\($0)" } ?? "")
    }
}
