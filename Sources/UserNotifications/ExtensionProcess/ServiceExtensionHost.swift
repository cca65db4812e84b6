import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The extension process's side of the wire protocol (`ServiceExtensionWire`): a thread reads the daemon's
/// messages from standard input and hands them to the main thread, which runs the extension; the first content
/// handler call sends the result and ends the process.
///
/// Standard input is read with read(2), not C's `stdin`: a thread blocked inside `getline` holds the `stdin`
/// lock, and `fflush(NULL)` before exiting would wait for it.
enum ServiceExtensionHost {
    /// The extension instance, once made.
    @MainActor private static var service: UNNotificationServiceExtension?

    /// Runs the process around the extension `make` creates; never returns.
    static func run(making make: @escaping @Sendable @MainActor () -> UNNotificationServiceExtension) -> Never {
        let sender = ServiceExtensionResultSender(path: ProcessInfo.processInfo.environment[ServiceExtensionWire.resultPathVariable])
        let reader = Thread { readMessages(make: make, sender: sender) }
        reader.name = "service-extension-input"
        reader.start()
        while true { RunLoop.main.run() }
    }

    /// Reads one message per line until end of file. The first must be the request; a line that is not a
    /// message ends the process (status 2). End of file after the request leaves the extension running for
    /// `orphanedLifetime`, then ends it (status 2).
    private static func readMessages(
        make: @escaping @Sendable @MainActor () -> UNNotificationServiceExtension,
        sender: ServiceExtensionResultSender
    ) {
        var receivedRequest = false
        for line in StandardInputLines() {
            if line.isEmpty { continue }
            guard let message = try? JSONDecoder().decode(ServiceExtensionWire.Input.self, from: line) else {
                fail("UserNotifications: the service extension's input is not a message of the device daemon (docs/service-extensions.md)")
            }
            if let request = message.request, !receivedRequest {
                receivedRequest = true
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { start(request, make: make, sender: sender) }
                }
            } else if message.timeWillExpire == true, receivedRequest {
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { service?.serviceExtensionTimeWillExpire() }
                }
            }
        }
        if !receivedRequest {
            fail(
                "UserNotifications: the service extension got no request on its standard input; it is run by the device daemon (docs/service-extensions.md)"
            )
        }
        // The daemon is gone, or (run by hand) has nothing more to say: the extension gets the usual time, then
        // ends, so that one that hangs does not outlive its daemon.
        Thread.sleep(forTimeInterval: orphanedLifetime)
        fail("UserNotifications: the service extension's input ended and it did not call its content handler within \(Int(orphanedLifetime)) seconds")
    }

    /// How long an extension runs after its input ended: the daemon's default budget and grace.
    static let orphanedLifetime: TimeInterval = 35

    @MainActor private static func start(
        _ request: RequestRecord, make: @MainActor () -> UNNotificationServiceExtension,
        sender: ServiceExtensionResultSender
    ) {
        let made = make()
        service = made
        made.didReceive(request.request) { content in sender.send(content) }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        fflush(nil)
        _exit(2)
    }
}
