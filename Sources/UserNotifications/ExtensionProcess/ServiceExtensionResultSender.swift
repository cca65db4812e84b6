import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The content handler's work in the extension process: the first call writes the content to the result file
/// (atomically, so the daemon never reads half of it) and ends the process with status 0; later calls do nothing.
final class ServiceExtensionResultSender: Sendable {
    private let path: String?
    private let sent = Mutex(false)

    /// - Parameter path: the result file; nil prints the result on standard output instead (a run by hand).
    init(path: String?) {
        self.path = path.flatMap { $0.isEmpty ? nil : $0 }
    }

    func send(_ content: UNNotificationContent) {
        let first = sent.withLock { sent in
            defer { sent = true }
            return !sent
        }
        guard first else { return }
        do {
            let result = ServiceExtensionWire.Result(content: try ContentRecord(content))
            let data = try JSONEncoder().encode(result)
            if let path {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } else {
                fflush(nil)  // what print() buffered comes first
                FileHandle.standardOutput.write(data + Data("\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("UserNotifications: the service extension's content cannot be sent: \(error)\n".utf8))
            fflush(nil)
            _exit(3)
        }
        fflush(nil)
        _exit(0)
    }
}
