import Foundation
import HeraldWire
import NIOCore
import NIOHTTP1

/// The admin API as `herald expect` uses it: JSON GETs and the event stream (`GET /v1/events`, Server-Sent Events),
/// over HTTP/1.1, with TLS (trusting `ca`) for an `https` console.
struct ConsoleClient: Sendable {
    let base: URL
    let adminToken: String
    let caPath: String?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One server-sent event: its name and its JSON data.
    struct Event: Sendable {
        var name: String
        var data: JSONValue
    }

    /// `GET path`: the status and the body as JSON (null when it is not JSON).
    func get(_ path: String) async throws -> (status: Int, body: JSONValue) {
        let channel = try await connect()
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(.head(head(path, accept: "application/json")))
            try await outbound.write(.end(nil))
            var status = 0
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let head): status = Int(head.status.code)
                case .body(var chunk): body.writeBuffer(&chunk)
                case .end: return (status, (try? JSONValue.parse(Data(body.readableBytesView))) ?? .null)
                }
            }
            return (status, .null)
        }
    }

    /// The event stream from now on; the first element comes once the console follows (its opening comment).
    func events() async throws -> AsyncThrowingStream<Event, any Error> {
        let channel = try await connect()
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Event.self)
        let opened = AsyncStream.makeStream(of: Result<Void, any Error>.self)
        let reader = Task {
            do {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(.head(head("/v1/events", accept: "text/event-stream")))
                    try await outbound.write(.end(nil))
                    var text = ""
                    for try await part in inbound {
                        switch part {
                        case .head(let head):
                            guard head.status == .ok else {
                                throw Failure(description: "the console answered \(head.status.code) to GET /v1/events: check --admin-token")
                            }
                        case .body(let chunk):
                            text += String(buffer: chunk)
                            while let end = text.range(of: "\n\n") {
                                let block = String(text[..<end.lowerBound])
                                text.removeSubrange(..<end.upperBound)
                                if block.hasPrefix(": following") { opened.continuation.yield(.success(())) }
                                if let event = Self.event(block) { continuation.yield(event) }
                            }
                        case .end:
                            continuation.finish()
                            return
                        }
                    }
                    continuation.finish()
                }
            } catch {
                opened.continuation.yield(.failure(error))
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        for await result in opened.stream {
            try result.get()
            break
        }
        return stream
    }

    /// `event: NAME` and `data: JSON` lines of one block; nil for a comment or a block without both.
    private static func event(_ block: String) -> Event? {
        var name: String?
        var data: JSONValue?
        for line in block.split(separator: "\n") {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = try? JSONValue.parse(Data(line.dropFirst(6).utf8)) }
        }
        guard let name, let data else { return nil }
        return Event(name: name, data: data)
    }

    private func head(_ path: String, accept: String) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: "\(base.host ?? "127.0.0.1"):\(port)")
        head.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        head.headers.add(name: "Accept", value: accept)
        head.headers.add(name: "Connection", value: "close")
        return head
    }

    private var port: Int { base.port ?? (base.scheme == "https" ? 443 : 80) }

    private func connect() async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        do {
            return try await HTTP1Connection.open(to: base, caPath: caPath)
        } catch {
            throw Failure(description: "cannot reach the console at \(base.absoluteString): \(error)")
        }
    }
}
