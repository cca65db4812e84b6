import Foundation
import HeraldStore
import HeraldWire
import Logging

/// What a Firefox connection on the Web Push port (``AutopushHandler``) needs from the store. A browser is a linked
/// device whose id is the `uaid` the push service gave it; each subscription is a ``TokenKind/webPush`` token of it, named
/// by Firefox's channel id.
extension DeviceLinkServices {
    /// The app name a browser's subscriptions have in the delivery log (Firefox does not say which site subscribed).
    static let browserApp = "firefox"

    /// Firefox's hello: the `uaid` it sent when the store still holds subscriptions of it, else a new one (Firefox then
    /// drops what it had and tells its pages, as with autopush); and its live subscriptions, channel id by token.
    func autopushHello(uaid: String?) async throws(StoreError) -> (uaid: String, channels: [DeviceToken: String]) {
        if let uaid, Self.isUAID(uaid) {
            let live = try await liveTokens(deviceID: uaid).filter { $0.kind == .webPush }
            if !live.isEmpty {
                return (uaid, Dictionary(live.compactMap { device in device.activityID.map { (device.token, $0) } }) { first, _ in first })
            }
        }
        return (Self.uaidPrefix + UUID().bytes.hexString, [:])
    }

    enum AutopushRegistration {
        case registered(DeviceRecord)
        /// Refused with this status (Firefox's `subscribe()` rejects).
        case refused(status: Int, reason: String)
    }

    /// `pushManager.subscribe` in Firefox: the subscription of `channelID`, made with `key`.
    func autopushRegister(uaid: String, channelID: String, key: Data?) async throws(StoreError) -> AutopushRegistration {
        guard Self.isValidActivityID(channelID) else { return .refused(status: 400, reason: "the channelID is not a UUID") }
        if let key, key.count != 65 || key.first != 4 {
            return .refused(status: 400, reason: "the applicationServerKey is not an uncompressed P-256 public key")
        }
        let live = try await liveTokens(deviceID: uaid).filter { $0.kind == .webPush }
        if live.count >= configuration.deviceAppLimit, !live.contains(where: { $0.activityID == channelID }) {
            return .refused(status: 409, reason: "this browser has \(live.count) subscriptions, the most it may have")
        }
        let device = try await store.register(
            owner: uaid, bundleID: Self.browserApp, environment: configuration.environment, kind: .webPush, activityID: channelID,
            applicationServerKey: key, at: clock.now())
        directory.remember(device)
        return .registered(device)
    }

    /// `PushSubscription.unsubscribe()`: its endpoint answers 410 from now on.
    func autopushUnregister(uaid: String, channelID: String) async throws(StoreError) {
        guard let device = try await liveTokens(deviceID: uaid).first(where: { $0.kind == .webPush && $0.activityID == channelID }) else {
            return
        }
        try await retire(device, as: .unregistered, answered: true)
    }

    /// What starts every browser's id: a device linked with a key has 32 hex digits only, so a browser's hello can never
    /// name (and take over) such a device.
    static let uaidPrefix = "firefox-"

    /// An id this service gave: the prefix and 32 lowercase hex digits.
    static func isUAID(_ text: String) -> Bool {
        guard text.hasPrefix(uaidPrefix) else { return false }
        let text = text.dropFirst(uaidPrefix.count)
        return text.utf8.count == 32
            && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
