import Foundation
import UserNotifications

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One call to the device daemon on a connection of its own, answered before this returns, on the caller's thread:
/// ActivityKit's synchronous API (`Activity.request`, `activities`) cannot wait on a task, since the task might need
/// the very thread that waits. The daemon knows the app by the connection's peer credentials, as for every call.
enum DaemonLine {
    /// The daemon's answer to `call`.
    ///
    /// - Throws: ``ActivityAuthorizationError/unsupported`` when no daemon answers; the daemon's refusal as its
    ///   `ActivityAuthorizationError`.
    static func call(_ call: DaemonCall, path: String) throws(ActivityAuthorizationError) -> DaemonResult {
        guard let descriptor = DaemonSocket.connectedSocket(to: path) else { throw .unsupported }
        defer { close(descriptor) }
        guard let line = try? DaemonMessage.call(id: 1, call: call).encodedLine(), write(line, to: descriptor),
            let reply = readLine(from: descriptor), let message = try? DaemonMessage.decode(reply)
        else { throw .persistenceFailure }
        switch message {
        case .result(_, let result): return result
        case .failure(_, _, _, _, let activity): throw ActivityAuthorizationError(name: activity ?? "")
        default: throw .persistenceFailure
        }
    }

    private static func write(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let count = send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }

    /// The bytes up to the first newline; the daemon answers a call with one line.
    private static func readLine(from descriptor: Int32) -> Data? {
        var line = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            if let end = chunk[0..<count].firstIndex(of: UInt8(ascii: "\n")) {
                line.append(contentsOf: chunk[0..<end])
                return line
            }
            line.append(contentsOf: chunk[0..<count])
        }
    }
}
