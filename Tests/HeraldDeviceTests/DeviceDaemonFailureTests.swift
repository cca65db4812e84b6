import Foundation
import HeraldTesting
import Testing
import UserNotifications

@testable import HeraldDevice

#if canImport(Glibc)
import Glibc
#endif

/// A part of the daemon that fails (here, the notification center page, whose port another program holds) ends the
/// whole daemon with its reason: the socket's accept loop and every session are child tasks that end with it, and the
/// socket file goes.
@Suite struct DeviceDaemonFailureTests {
    /// A loopback port another socket listens on, and that socket.
    private func takenPort() throws -> (port: Int, socket: Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        #expect(bound)
        return (Int(UInt16(bigEndian: address.sin_port)), listener)
    }

    @Test(.timeLimit(.minutes(1))) func aFailingPartEndsTheDaemonWithItsReason() async throws {
        let directory = try TemporaryDirectory()
        let (port, listener) = try takenPort()
        defer { close(listener) }
        var configuration = DeviceDaemonConfiguration(dataDirectory: directory.url)
        configuration.notificationCenterPort = port
        let daemon = try DeviceDaemon(configuration: configuration, presenters: [], prompt: NeverAsked(), report: { _ in })
        let running = Task { try await daemon.run() }
        let failure = await #expect(throws: UNError.self) { try await running.value }
        #expect(
            failure?.message.contains("cannot serve the notification center on 127.0.0.1:\(port) (--ui-port)") == true,
            "\(String(describing: failure))")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }
}

private struct NeverAsked: AuthorizationPrompt {
    func ask(bundleID: String, options: UNAuthorizationOptions) async -> Bool? { nil }
}
