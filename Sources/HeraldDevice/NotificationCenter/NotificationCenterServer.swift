package import Foundation
import HTTPTypes
package import HeraldPages
import HeraldWire
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// The daemon's notification center page (`herald device --ui-port PORT`): plain HTTP on loopback only, every path
/// behind the device's secret (`http://127.0.0.1:PORT/SECRET/`):
/// - `/SECRET/`: the page, with `assets/…` its script and style;
/// - `/SECRET/live`: a WebSocket from the page itself, carrying the list, expansions and what the person does
///   (``NotificationCenterConnection``);
/// - `/SECRET/files/TOKEN`: an image the page was told of (``ServedFiles``).
///
/// Requests must name the host as a loopback address or `localhost` (a page on another site that rebinds its name
/// to 127.0.0.1 cannot read it), and the WebSocket must come from the page's own origin.
package struct NotificationCenterServer: Sendable {
    let services: NotificationCenterServices
    let secret: String
    let assets: [String: WebAsset]

    package init(services: NotificationCenterServices, secret: String, assets: [String: WebAsset] = WebAsset.bundled(target: "HeraldDevice")) {
        self.services = services
        self.secret = secret
        self.assets = assets
    }

    /// The secret of the device whose data lives in `dataDirectory`, made on first use.
    package static func secret(dataDirectory: URL) throws -> String {
        try NotificationCenterSecret.load(dataDirectory: dataDirectory)
    }

    /// The page's address on `port`; `#BUNDLE_ID/IDENTIFIER` (percent-encoded) opens it at `notification`.
    package static func address(port: Int, secret: String, notification: Presentation.ID? = nil) -> URL {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        let fragment = notification.map { "#\(encode($0.bundleID))/\(encode($0.identifier))" } ?? ""
        return URL(string: "http://127.0.0.1:\(port)/\(secret)/\(fragment)")!
    }

    /// Serves on 127.0.0.1:`port` (0: any free port) until cancelled; `onListening` gets the port bound.
    package func run(port: Int, onListening: @escaping @Sendable (Int) -> Void) async throws {
        var logger = Logger(label: "herald.notification-center")
        logger.logLevel = .critical
        let router = Router()
        router.add(middleware: Self.securityHeaders)
        let prefix = "/\(secret)/"
        router.get("**") { request, _ -> Response in
            let path = request.uri.path
            guard Self.isLoopback(request.head.authority) else {
                return Self.text(.forbidden, "the notification center answers only at 127.0.0.1, [::1] or localhost\n")
            }
            if Self.constantTimeEqual(path, String(prefix.dropLast())) {
                return Response(status: .movedPermanently, headers: [.location: prefix])
            }
            guard path.hasPrefix(prefix), Self.constantTimeEqual(String(path.prefix(prefix.count)), prefix) else {
                return Self.text(.notFound, "not found: open the address `herald device --ui-port` printed\n")
            }
            return respond(to: String(path.dropFirst(prefix.count)))
        }
        let server = HTTPServerBuilder.http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: 1 << 20))) { request, _, _ in
            shouldUpgrade(request)
        }
        let application = Application(
            router: router, server: server,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "herald-device"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
            logger: logger)
        try await application.runService(gracefulShutdownSignals: [])
    }

    /// A path below the secret.
    private func respond(to path: String) -> Response {
        if path.isEmpty { return asset("center.html") }
        if path.hasPrefix("assets/") { return asset(String(path.dropFirst("assets/".count))) }
        if path.hasPrefix("files/") {
            guard let image = services.files.image(String(path.dropFirst("files/".count))) else {
                return Self.text(.notFound, "no such image (or its file is gone)\n")
            }
            return Response(
                status: .ok, headers: [.contentType: image.contentType, .cacheControl: "private, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(bytes: image.data)))
        }
        if path == "live" { return Self.text(.upgradeRequired, "the page's live connection is a WebSocket from the page itself\n") }
        return Self.text(.notFound, "not found\n")
    }

    private func asset(_ name: String) -> Response {
        guard let asset = assets[name] else {
            return Self.text(
                assets.isEmpty ? .serviceUnavailable : .notFound,
                assets.isEmpty ? WebAsset.missing(target: "HeraldDevice", pages: "the notification center's page is") + "\n" : "no such asset\n")
        }
        return Response(
            status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    private func shouldUpgrade(_ request: HTTPRequest) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = request.path.map { String($0.prefix { $0 != "?" }) } ?? ""
        guard Self.isLoopback(request.authority), Self.constantTimeEqual(path, "/\(secret)/live"),
            Self.isOwnOrigin(request.headerFields[values: .origin], authority: request.authority)
        else { return .dontUpgrade }
        let services = self.services
        return .upgrade([:]) { inbound, outbound, _ in
            let messages = inbound.messages(maxSize: 1 << 20).compactMap { message -> JSONValue? in
                guard case .text(let text) = message else { return nil }
                return try? JSONValue.parse(Data(text.utf8))
            }
            await NotificationCenterConnection(services: services).run(receiving: messages) { message in
                try await outbound.write(.text(String(decoding: message.encoded(), as: UTF8.self)))
            }
        }
    }

    /// The WebSocket's `Origin`: a browser sends the page's own (`http://` and the address it was opened at); a page
    /// of any other site is refused. Programs that are not browsers name the socket's own `ws://` URL (swift-websocket
    /// does), which no browser page can send.
    static func isOwnOrigin(_ origins: [String], authority: String?) -> Bool {
        guard let authority, !origins.isEmpty else { return false }
        return origins.allSatisfy { $0 == "http://\(authority)" || $0.hasPrefix("ws://") }
    }

    /// Headers on every answer: only the page's own scripts, styles, images and connection; no referrer (the secret is
    /// in the address).
    static let securityHeaders = PageSecurityHeaders(
        contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        referrerPolicy: "no-referrer")

    /// `127.0.0.1`, `[::1]` or `localhost`, with any port.
    static func isLoopback(_ authority: String?) -> Bool {
        guard let authority else { return false }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }) + "]" : String(authority.prefix { $0 != ":" })
        return ["127.0.0.1", "[::1]", "localhost"].contains(host.lowercased())
    }

    /// Compares without stopping at the first difference, so the time taken tells nothing of the secret.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: message)))
    }
}
