import Foundation
import HeraldDBus
import HeraldSpawn
import HeraldTesting
import Synchronization

/// A D-Bus session bus of the test's own: a `dbus-daemon --session` (Debian `dbus-daemon`) listening on a socket in
/// a temporary directory. ``restart()`` brings it back on the same address after ``kill()``, as a desktop session's
/// bus comes back.
package final class TestSessionBus: Sendable {
    package let address: String
    private let directory: TemporaryDirectory
    private let process: Mutex<ChildProcess?>

    package init() async throws {
        directory = try TemporaryDirectory()
        address = "unix:path=\(directory.url.path)/bus"
        process = Mutex(nil)
        try await restart()
    }

    deinit { kill() }

    /// The environment a session process sees: `DBUS_SESSION_BUS_ADDRESS` set to this bus.
    package var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }

    /// Starts the daemon (again) and waits until it answers.
    package func restart() async throws {
        try? FileManager.default.removeItem(atPath: directory.url.path + "/bus")
        let child = try ChildProcess.launch(
            "/usr/bin/dbus-daemon", arguments: ["--session", "--nofork", "--nopidfile", "--address=\(address)"],
            standardInput: ChildProcess.nullDevice, standardOutput: ChildProcess.nullDevice,
            standardError: ChildProcess.nullDevice
        )
        process.withLock { $0 = child }
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                let probe = try await DBusConnection.connect(address: address)
                probe.close()
                return
            } catch {
                guard ContinuousClock.now < deadline, child.isRunning else { throw error }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Kills the daemon (SIGKILL): every connection to it breaks at once.
    package func kill() {
        process.withLock { $0 }?.send(SIGKILL)
    }

    /// Kills the daemon and waits until it is gone.
    package func stop() async {
        guard let child = process.withLock({ $0 }) else { return }
        child.send(SIGKILL)
        _ = await child.terminated()
    }
}
