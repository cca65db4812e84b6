package import NIOCore

/// How much of what costs a server and serves no request a client may send before the connection is closed with
/// GOAWAY ENHANCE_YOUR_CALM. The defaults are swift-nio-http2 1.46's, which the provider port's attack scripts
/// were run against (docs/latency.md).
package struct FloodLimits: Sendable {
    /// DATA frames in a row that carry nothing and do not end their stream.
    package var emptyDataFramesInARow = 1
    /// CONTINUATION frames in one header block.
    package var continuationFrames = 5
    /// Streams the client resets (the "rapid reset" attack), per `window`.
    package var clientResets = 200
    /// Streams reset for breaking a rule, per `window`.
    package var streamErrors = 200
    /// PINGs and SETTINGS, each of which asks for an answer, per `window`.
    package var controlFrames = 200
    package var window = TimeAmount.seconds(30)
    /// Streams closed lately whose late frames are ignored rather than answered with RST_STREAM.
    package var recentlyClosedStreams = 32

    package init() {}
}

/// Counts events in consecutive windows of a fixed length.
struct RateWindow {
    let limit: Int
    let length: TimeAmount
    private var start: NIODeadline?
    private var count = 0

    init(limit: Int, length: TimeAmount) {
        self.limit = limit
        self.length = length
    }

    /// Counts one event; true when that makes more than `limit` in the current window.
    mutating func record(at now: NIODeadline) -> Bool {
        if let start, now - start < length {
            count += 1
        } else {
            start = now
            count = 1
        }
        return count > limit
    }
}
