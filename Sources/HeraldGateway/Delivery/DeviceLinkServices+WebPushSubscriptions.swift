import Foundation
import HeraldStore
import HeraldWire

/// Web push subscriptions a linked device asks for (its UnifiedPush apps, docs/unifiedpush.md): a ``TokenKind/webPush``
/// token of the device, `topic` the app's name, `activityID` the subscription's name on the device, with the
/// application server key messages to it must be signed with.
extension DeviceLinkServices {
    /// The answer to `register` with `kind` `webPush`: the live subscription of that name (a new one when the key
    /// changed; the old one then answers 410), with its endpoint.
    func registerWebPush(
        _ request: DeviceLinkMessage, topic: String, activityID: String?, applicationServerKey: String?, deviceID: String
    ) async throws(StoreError) -> DeviceLinkMessage {
        guard let origin = webPushOrigin else {
            return request.refused(reason: "BadKind", message: "this gateway serves no web push endpoints")
        }
        guard !topic.isEmpty, TopicSyntax.isValid(topic) else {
            return request.refused(reason: "BadTopic", message: "\"\(topic)\" is not an app id such as org.example.App")
        }
        guard let activityID, Self.isValidActivityID(activityID) else {
            return request.refused(reason: "BadActivityId", message: "a subscription's name is 1 to 64 letters, digits and dashes (a UUID)")
        }
        var key: Data?
        if let applicationServerKey {
            guard let decoded = Base64URL.decode(applicationServerKey), decoded.count == 65, decoded.first == 4 else {
                return request.refused(
                    reason: "BadApplicationServerKey", message: "the application server key is not a base64url uncompressed P-256 public key")
            }
            key = decoded
        }
        let live = try await liveTokens(deviceID: deviceID).filter { $0.kind == .webPush }
        if let existing = live.first(where: { $0.topic == topic && $0.activityID == activityID }) {
            // Messages signed for the old key must not reach the new subscriber: the old endpoint goes.
            if existing.applicationServerKey != key { try await retire(existing, as: .unregistered, answered: true) }
        } else if live.count >= configuration.deviceAppLimit {
            return request.refused(
                reason: "TooManySubscriptions",
                message: "this device has \(live.count) web push subscriptions, the most a device may have; unregister one first")
        }
        let device = try await store.register(
            owner: deviceID, bundleID: topic, environment: configuration.environment, kind: .webPush, activityID: activityID,
            applicationServerKey: key, at: clock.now())
        directory.remember(device)
        return .registered(
            topic: topic, deviceToken: device.token.hex, kind: .webPush, activityID: activityID,
            endpoint: origin + WebPushService.pathPrefix + device.token.hex)
    }
}
