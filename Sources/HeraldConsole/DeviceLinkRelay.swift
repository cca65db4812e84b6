import HTTPTypes
import HeraldGateway
import HeraldWire
import HummingbirdWSClient
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import Synchronization

/// Carries the browser device's link over the console's own origin: `/device/link` on the console port is a
/// WebSocket that the relay joins, message for message, to a link of its own to the device port. The browser thus
/// needs to trust only the console's address (plain HTTP on loopback, or the console's HTTPS), never the local CA
/// of the device port, and the device link itself (challenge, key, acknowledgements, store-and-forward) is the one
/// every `herald device` uses. Only a signed-in person's page, from the console's own origin, may open it.
struct DeviceLinkRelay: Sendable {
    /// The device port, once bound.
    let devicePort: EventLoopFuture<Int>
    /// The host the device port listens on (possibly a wildcard).
    let host: String
    /// How to reach the device port over TLS: nil when the gateway runs `--plaintext`.
    let tls: TLSConfiguration?
    let messageLimit: Int
    let auth: ConsoleAuth
    let browsers: BrowserDevices
    let logger: Logger

    /// The path of the relayed link on the console port.
    static let path = "/device/link"

    /// The upgrade decision for a console request: a relayed link for a signed-in page of this console, anything
    /// else goes on to the console's routes (which answer `/device/link` with 401 or 426).
    func shouldUpgrade(_ request: HTTPRequest) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = request.path?.prefix { $0 != "?" }
        guard path.map(String.init) == Self.path, auth.caller(headers: request.headerFields) != nil,
            ConsolePages.comesFromHere(origin: request.headerFields[.origin], authority: request.authority)
        else { return .dontUpgrade }
        return .upgrade([:]) { inbound, outbound, _ in
            await relay(inbound, outbound)
        }
    }

    private func relay(_ browserIn: WebSocketInboundStream, _ browserOut: WebSocketOutboundWriter) async {
        let limit = messageLimit
        do {
            let port = try await devicePort.get()
            let localHost = ListenAddress.local(host)
            let address = localHost.contains(":") ? "[\(localHost)]" : localHost
            var configuration = WebSocketClientConfiguration(maxFrameSize: limit)
            configuration.sniHostname = "localhost"
            let close = try await WebSocketClient.connect(
                url: "\(tls == nil ? "ws" : "wss")://\(address):\(port)\(DeviceLinkMessage.path)", configuration: configuration,
                tlsConfiguration: tls, logger: logger
            ) { gatewayIn, gatewayOut, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in browserIn.messages(maxSize: limit) {
                            guard case .text(let text) = message else { continue }
                            try await gatewayOut.write(.text(text))
                        }
                        try await gatewayOut.close(.normalClosure, reason: "the browser device left")
                    }
                    var linked = false
                    for try await message in gatewayIn.messages(maxSize: limit) {
                        guard case .text(let text) = message else { continue }
                        // The gateway's welcome names the device: remember it as a browser.
                        if !linked, case .welcome(let deviceID)? = try? DeviceLinkMessage.decode(text) {
                            linked = true
                            browsers.insert(deviceID)
                        }
                        try await browserOut.write(.text(text))
                    }
                    group.cancelAll()
                }
            }
            // The device port's close code and reason reach the page (a refused hello, a shutdown, …).
            if let close { try? await browserOut.close(close.closeCode, reason: close.reason) }
        } catch {
            logger.debug("browser device link ended", metadata: ["error": "\(error)"])
            try? await browserOut.close(.unexpectedServerError, reason: "the device port cannot be reached")
        }
    }

    /// The TLS a client of the device port on this machine uses: the gateway's own CA (or given certificate) as the
    /// only root; the name is not checked, as the relay connects to the gateway itself over loopback.
    static func clientTLS(trusting path: String) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
        tls.certificateVerification = .noHostnameVerification
        return tls
    }
}

/// The devices that linked through the relay since the gateway started: browsers, which the console's lists mark.
final class BrowserDevices: Sendable {
    private let ids = Mutex<Set<String>>([])

    func insert(_ deviceID: String) {
        _ = ids.withLock { $0.insert(deviceID) }
    }

    func contains(_ deviceID: String) -> Bool {
        ids.withLock { $0.contains(deviceID) }
    }
}
