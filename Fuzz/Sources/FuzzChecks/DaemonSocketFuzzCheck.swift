import Foundation
import HeraldWire
import NIOCore
import NIOEmbedded

@testable import UserNotifications

/// The device daemon's socket, as either end reads it: bytes cut into lines by LineFrameDecoder (compiled here from
/// its own source file), in the pieces the input's first byte chooses, each line read as a DaemonMessage. Lines are
/// exactly the bytes between newlines, a line too long closes the channel, and a message read and written back
/// reads the same.
package enum DaemonSocketFuzzCheck {
    /// A small limit, so that the fuzzer reaches it.
    private static let maximumLength = 300

    package static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        let pieceLength = Int(bytes.first ?? 1) % 17 + 1
        let stream = Array(bytes.dropFirst())
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLength)))
        var refused = false
        var start = 0
        while start < stream.count, !refused {
            let end = min(stream.count, start + pieceLength)
            do {
                try channel.writeInbound(ByteBuffer(bytes: stream[start..<end]))
            } catch {
                refused = true
            }
            start = end
        }
        var lines: [[UInt8]] = []
        while let line = try? channel.readInbound(as: ByteBuffer.self) {
            lines.append(Array(line.readableBytesView))
        }
        _ = try? channel.finish()
        let segments = stream.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        let expected = Array(segments.dropLast())
        if refused {
            if !segments.contains(where: { $0.count > maximumLength }) { throw FuzzFinding("no line is too long, yet the decoder refused") }
            if !expected.starts(with: lines) { throw FuzzFinding("the lines before a refusal are not the stream's") }
        } else if lines != expected {
            throw FuzzFinding("lines \(lines) are not the stream's \(expected)")
        }
        for line in lines {
            guard let message = try? DaemonMessage.decode(Data(line)) else { continue }
            guard let encoded = try? message.encodedLine(), encoded.last == UInt8(ascii: "\n"),
                let again = try? DaemonMessage.decode(encoded.dropLast()), let reencoded = try? again.encodedLine(),
                let value = try? JSONValue.parse(encoded), (try? JSONValue.parse(reencoded)) == value
            else { throw FuzzFinding("a daemon message written back does not read the same") }
        }
    }
}
