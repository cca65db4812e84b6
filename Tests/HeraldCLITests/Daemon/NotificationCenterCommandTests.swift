import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `herald device --ui-port`'s refusals, as a person meets them on the command line. (The page itself is walked in a
/// real browser: Tests/Browser/notification_center_test.py.)
@Suite struct NotificationCenterCommandTests {
    @Test func aPortOutOfRangeIsRefused() async throws {
        let run = try await CommandRunTests.run(["device", "--ui-port", "70000", "--data-dir", CommandRunTests.temporaryDirectory()])
        #expect(run.status != 0 && run.error.contains("--ui-port takes a port between 0 and 65535"), "\(run.error)")
    }

    @Test func aPortInUseStopsTheDaemonAndSaysWhich() async throws {
        // A socket listening on a loopback port, as another program would.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0 && listen(listener, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let run = try await CommandRunTests.run([
            "device", "--ui-port", "\(port)", "--presenter", "none", "--data-dir", CommandRunTests.temporaryDirectory(),
        ])
        #expect(run.status != 0, "\(run.output)")
        #expect(run.error.contains("cannot serve the notification center on 127.0.0.1:\(port) (--ui-port)"), "\(run.error)")
    }
}
