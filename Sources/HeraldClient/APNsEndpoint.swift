public import Foundation

/// Where notifications go: Apple's production or development APNs, or any APNs-compatible server
/// such as a Herald gateway.
///
/// ```swift
/// let apple = APNsEndpoint.production
/// let alternatePort = APNsEndpoint.development.port(2197)
/// let herald = APNsEndpoint.custom(URL(string: "https://localhost:2197")!)
/// let plaintext = APNsEndpoint.custom(URL(string: "http://localhost:2197")!)  // h2c, prior knowledge
/// ```
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address.
    public var host: String
    public var port: Int
    /// TLS (true for Apple's hosts) or HTTP/2 over cleartext with prior knowledge.
    public var usesTLS: Bool

    public init(host: String, port: Int, usesTLS: Bool = true) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// `api.push.apple.com:443`.
    public static let production = APNsEndpoint(host: "api.push.apple.com", port: 443)
    /// `api.sandbox.push.apple.com:443`.
    public static let development = APNsEndpoint(host: "api.sandbox.push.apple.com", port: 443)

    /// A server at `url`: `https://HOST[:PORT]` (TLS, ALPN h2; default port 443) or `http://HOST[:PORT]`
    /// (h2c with prior knowledge; default port 80).
    ///
    /// - Throws: ``APNsClientError`` `invalidRequest` when the URL has no host or another scheme.
    public static func custom(_ url: URL) throws(APNsClientError) -> APNsEndpoint {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty
        else {
            throw APNsClientError(.invalidRequest, "an endpoint URL must look like https://HOST:PORT, not \(url.absoluteString)")
        }
        let tls = scheme == "https"
        return APNsEndpoint(host: host, port: url.port ?? (tls ? 443 : 80), usesTLS: tls)
    }

    /// The same host on another port (Apple also listens on 2197).
    public func port(_ port: Int) -> APNsEndpoint {
        var copy = self
        copy.port = port
        return copy
    }

    /// `https://host:port`.
    public var url: URL {
        URL(string: "\(usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
    }

    public var description: String { url.absoluteString }
}
