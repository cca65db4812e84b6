import Foundation

extension UNNotificationServiceExtension {
    /// Runs this class as a service extension process — the entry point of an extension executable, so app code
    /// writes only `@main final class NotificationService: UNNotificationServiceExtension { … }`.
    ///
    /// Reads the request the device daemon writes on standard input, makes one instance with `init()`, and
    /// calls `didReceive(_:withContentHandler:)` on the main thread; the main run loop keeps running, so the
    /// handler may be called later from any thread (after a download, say). When the daemon says time is nearly
    /// up, `serviceExtensionTimeWillExpire()` is called on the main thread. The first call of the content handler
    /// sends its content to the daemon and ends the process (status 0); later calls are ignored. The content
    /// replaces the request's; the identifier stays. Never returns.
    ///
    /// Run by hand, without the daemon's `HERALD_SERVICE_EXTENSION_RESULT`, the result is printed as one JSON
    /// line: `echo '{"request":{…}}' | ./MyServiceExtension`. The protocol is in docs/service-extensions.md.
    public static func main() {
        let type = self
        ServiceExtensionHost.run { type.init() }
    }
}
