import Foundation
import UserNotifications

// A service extension for the runner's tests, written as app code is (Swift 5 language mode, `@main` subclass).
// What it does is chosen by the request's userInfo["mode"].
#if canImport(Glibc)
import Glibc
#endif

@main
final class TestServiceExtension: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttempt: UNMutableNotificationContent?

    /// A real 1×1 red PNG.
    static let png = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xC9, 0xFE, 0x92, 0xEF, 0x00, 0x00, 0x00,
        0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        FileHandle.standardError.write(Data("pid \(getpid())\n".utf8))  // for the tests' check that it ended
        self.contentHandler = contentHandler
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        bestAttempt = content
        let userInfo = request.content.userInfo
        switch userInfo["mode"] as? String ?? "modify" {
        case "modify":
            content.title = "Modified: \(content.title)"
            contentHandler(content)
        case "expire":
            content.title = "Best attempt"  // sent only when time is nearly up
        case "hang":
            signal(SIGTERM, SIG_IGN)
        case "spawnHang":
            signal(SIGTERM, SIG_IGN)
            print("child \(spawnSleep())")
            fflush(stdout)
        case "crash":
            abort()
        case "quit":
            exit(4)
        case "garbage":
            print("\u{1}\u{2} not json {{{ \u{FFFD}")
            if let path = ProcessInfo.processInfo.environment["HERALD_SERVICE_EXTENSION_RESULT"] {
                try? Data("{\"content\": [1, 2, garbage".utf8).write(to: URL(fileURLWithPath: path))
            }
            exit(0)
        case "huge":
            content.title = String(repeating: "x", count: 10_000_000)
            contentHandler(content)
        case "removeAlert":
            content.title = ""
            content.subtitle = ""
            content.body = ""
            content.badge = 3
            contentHandler(content)
        case "attachment":
            content.attachments = [try! attach("photo", named: "photo.png")]
            contentHandler(content)
        case "badAttachment":
            let good = try! attach("good", named: "good.png")
            let bad = try! attach("bad", named: "bad.png")
            try! Data("this is not a PNG any more".utf8).write(to: bad.url)  // changed after it was validated
            content.attachments = [good, bad]
            contentHandler(content)
        case "containerAttachments":
            // Where the seeds' extensions write what they download: caches, documents, application support, and a
            // group container the app shares.
            let folders = [
                URL(fileURLWithPath: NSSearchPathForDirectoriesInDomains(.cachesDirectory, .userDomainMask, true)[0]),
                FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0],
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0],
                FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.podcast")!,
            ]
            content.attachments = folders.enumerated().map { index, folder in
                let url = folder.appendingPathComponent("image-\(index).png")
                try! TestServiceExtension.png.write(to: url)
                return try! UNNotificationAttachment(identifier: "image-\(index)", url: url, options: nil)
            }
            content.body = folders.map(\.path).joined(separator: "\n")
            contentHandler(content)
        case "outsideAttachment":
            let url = URL(fileURLWithPath: userInfo["path"] as! String)
            content.attachments = [try! UNNotificationAttachment(identifier: "outside", url: url, options: nil)]
            contentHandler(content)
        case "late":
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) {
                content.title = "Late: \(content.title)"
                contentHandler(content)
            }
        case "print":
            print("log line 1")
            print("log line 2")
            FileHandle.standardError.write(Data("error line\n".utf8))
            content.body = "printed"
            contentHandler(content)
            contentHandler(UNNotificationContent())  // the first call wins
        case "environment":
            let environment = ProcessInfo.processInfo.environment
            content.body = "TMPDIR=\(environment["TMPDIR"] ?? "") TOKEN=\(environment["FIXTURE_TOKEN"] ?? "") HOME=\(environment["HOME"] ?? "")"
            contentHandler(content)
        default:
            contentHandler(content)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttempt = bestAttempt, bestAttempt.title == "Best attempt" {
            contentHandler(bestAttempt)
        }
    }

    /// Writes the PNG to a file in the temporary directory and makes an attachment of it.
    private func attach(_ identifier: String, named name: String) throws -> UNNotificationAttachment {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try TestServiceExtension.png.write(to: url)
        return try UNNotificationAttachment(identifier: identifier, url: url, options: nil)
    }

    /// Starts `sleep 300` in this process's group (as a shell would) and returns its process id.
    private func spawnSleep() -> pid_t {
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("300"), nil]
        defer { arguments.forEach { free($0) } }
        _ = posix_spawn(&pid, "/bin/sleep", nil, nil, arguments, environ)
        return pid
    }
}
