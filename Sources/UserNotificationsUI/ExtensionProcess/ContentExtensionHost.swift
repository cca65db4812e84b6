import Foundation
import UserNotifications

#if canImport(Glibc)
import Glibc
#endif

/// The content extension process: a thread reads the daemon's lines from standard input and hands each to the main
/// thread, where the ``ContentExtensionSession`` runs the extension; its outputs are written, a line each, to the
/// descriptor `HERALD_CONTENT_EXTENSION_FD` names (the daemon's pipe), or printed when it is not set. The end of
/// standard input (the notification's interface closed) ends the process with status 0.
enum ContentExtensionHost {
    @MainActor private static var session: ContentExtensionSession?

    static func run(making make: @escaping @Sendable @MainActor () -> any ContentExtensionSession.Extension) -> Never {
        let descriptor = ProcessInfo.processInfo.environment[ContentExtensionWire.outputDescriptorVariable].flatMap { Int32($0) }
        let writer = descriptor.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.standardOutput
        let reader = Thread {
            for line in StandardInputLines() where !line.isEmpty {
                guard let input = try? JSONDecoder().decode(ContentExtensionWire.Input.self, from: line) else {
                    fail("UserNotificationsUI: the content extension's input is not a message of the device daemon (docs/content-extensions.md)")
                }
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        let current = session ?? ContentExtensionSession(controller: make()) { message in write(message, to: writer) }
                        session = current
                        current.handle(input)
                    }
                }
            }
            DispatchQueue.main.async {
                fflush(nil)
                exit(0)
            }
        }
        reader.name = "content-extension-input"
        reader.start()
        while true { RunLoop.main.run() }
    }

    private static func write(_ message: ContentExtensionWire.Output, to writer: FileHandle) {
        guard let data = try? JSONEncoder().encode(message) else { return }
        fflush(nil)  // what the extension printed comes first, when both go to standard output
        writer.write(data + Data("\n".utf8))
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        fflush(nil)
        _exit(2)
    }
}

extension UNNotificationContentExtension where Self: UIViewController {
    /// Runs this class as a content extension process — the entry point of an extension executable, so app code writes
    /// only `@main final class NotificationViewController: UIViewController, UNNotificationContentExtension { … }`.
    /// The device daemon starts it when a notification of its categories is expanded; run by hand it reads the same
    /// lines and prints its views: `echo '{"notification":{…}}' | ./MyContentExtension`. Never returns.
    public static func main() {
        let type = self
        ContentExtensionHost.run { type.init() }
    }
}
