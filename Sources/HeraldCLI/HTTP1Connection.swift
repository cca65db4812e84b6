import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTP/1.1 connection to `url`'s host and port, over TLS (trusting `caPath` besides the system's roots) for an
/// `https` URL: what `herald expect` reads the console with and `herald webpush send` posts with.
enum HTTP1Connection {
    static func open(to url: URL, caPath: String?) async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        let host = url.host ?? "127.0.0.1"
        let tls: NIOSSLContext? =
            if url.scheme == "https" {
                try {
                    var configuration = TLSConfiguration.makeClientConfiguration()
                    configuration.applicationProtocols = ["http/1.1"]
                    if let caPath { configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caPath)) }
                    return try NIOSSLContext(configuration: configuration)
                }()
            } else {
                nil
            }
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port(of: url)) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: host.first?.isNumber == true ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// The URL's port, or its scheme's.
    static func port(of url: URL) -> Int { url.port ?? (url.scheme == "https" ? 443 : 80) }
}
