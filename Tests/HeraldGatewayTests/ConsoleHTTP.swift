import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One HTTP/1.1 exchange with the console, byte for byte: no redirects followed, no cookies kept, TLS only when a
/// CA is given (trusting just that CA), so tests see exactly what a browser would be sent.
struct ConsoleHTTP {
    struct Reply {
        var status: Int
        /// Header names lowercased, in order.
        var headers: [(name: String, value: String)]
        var body: String

        func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
    }

    var port: Int
    var host = "127.0.0.1"
    var caPath: String?

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String = "") async throws -> Reply {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host):\(port)", "Connection: close", "Content-Length: \(body.utf8.count)"]
        lines += headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        let request = lines.joined(separator: "\r\n") + "\r\n\r\n" + body
        let tls = try caPath.map { path -> NIOSSLContext in
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            configuration.certificateVerification = .noHostnameVerification
            return try NIOSSLContext(configuration: configuration)
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil)) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        var received = ByteBuffer()
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            do {
                for try await var chunk in inbound { received.writeBuffer(&chunk) }
            } catch let error as NIOSSLError where error == .uncleanShutdown {
                // The server closed without close_notify after a Connection: close answer: the reply is complete.
            }
        }
        return try Self.parse(String(buffer: received))
    }

    /// Sends a GET and returns what arrives, as it arrives (head included), until the server closes or the
    /// stream is dropped: for Server-Sent Events.
    func stream(_ path: String, headers: [String: String] = [:]) async throws -> AsyncThrowingStream<String, any Error> {
        var lines = ["GET \(path) HTTP/1.1", "Host: \(host):\(port)", "Accept: text/event-stream"]
        lines += headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        let request = lines.joined(separator: "\r\n") + "\r\n\r\n"
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: String.self)
        let reading = Task {
            do {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: request))
                    for try await chunk in inbound { continuation.yield(String(buffer: chunk)) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            reading.cancel()
            channel.channel.close(promise: nil)
        }
        return stream
    }

    private static func parse(_ text: String) throws -> Reply {
        guard let split = text.range(of: "\r\n\r\n") else { throw Unreadable(text: text) }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw Unreadable(text: text)
        }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Reply(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    struct Unreadable: Error { var text: String }
}
