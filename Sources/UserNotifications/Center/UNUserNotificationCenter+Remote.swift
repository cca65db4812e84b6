public import Foundation
import Synchronization

/// What an app runs for a background push (`content-available: 1`): the whole payload.
public typealias RemoteNotificationHandler = @Sendable (_ userInfo: [AnyHashable: Any]) async -> Void

/// Remote notifications through the device daemon (`herald device`): what `UIApplication` and its delegate do
/// on iOS, on the center since Linux apps have no `UIApplication`.
extension UNUserNotificationCenter {
    /// Registers the app with the push service (the gateway the device daemon is linked to) and returns its
    /// device token — what iOS hands to `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    /// Send the token to your provider; pushes to it reach this app, even when it is not running.
    ///
    /// ```swift
    /// let token = try await UNUserNotificationCenter.current().registerForRemoteNotifications()
    /// print(token.map { String(format: "%02x", $0) }.joined())
    /// ```
    ///
    /// - Throws: `UNError.notificationsNotAllowed` with the reason: no device daemon runs (start
    ///   `herald device --gateway URL`), the daemon has no gateway, or the gateway refused the app.
    public func registerForRemoteNotifications() async throws -> Data {
        guard let daemon = runtime.daemon else {
            throw UNError(
                .notificationsNotAllowed,
                """
                remote notifications need the device daemon: start `herald device --gateway https://HOST:5223` \
                and install this app with `herald apps install`
                """)
        }
        let hex = try await runtime.perform { _ throws(UNError) in try await daemon.registerForRemoteNotifications() }
        guard let token = Data(hexString: hex) else {
            throw UNError(.notificationsNotAllowed, "the device daemon returned a device token that is not hex")
        }
        return token
    }

    /// Sets what runs when a background push arrives (iOS: `application(_:didReceiveRemoteNotification:
    /// fetchCompletionHandler:)`). Background pushes for an app that is not running launch it; they wait until
    /// a handler is set.
    public func setRemoteNotificationHandler(_ handler: RemoteNotificationHandler?) {
        remoteNotificationHandler.withLock { $0 = handler }
        attachToDaemon()
    }

    /// Tells the daemon what this app handles now.
    func attachToDaemon() {
        let remote = remoteNotificationHandler.withLock { $0 != nil }
        runtime.attach(delegate: delegate != nil, remoteNotifications: remote)
    }

    /// A response, background push or request for the app's settings the daemon handed over.
    func handle(_ event: AppEventRecord) async {
        switch event {
        case .response(let record):
            await delegate?.userNotificationCenter(self, didReceive: record.response)
        case .remoteNotification(let userInfo):
            guard let handler = remoteNotificationHandler.withLock({ $0 }) else { return }
            await handler(PropertyListValue.userInfo(from: userInfo))
        case .openSettings(let record):
            delegate?.userNotificationCenter(self, openSettingsFor: record?.notification)
        }
    }
}

extension Data {
    /// Bytes from a string of hex digit pairs; nil for anything else.
    init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
