import Foundation
import HeraldWire
import Testing

/// Web push over the device link: a subscription's register and registered messages, and a message's ciphertext
/// body wrapped in the JSON object the link's payload must be.
@Suite struct WebPushLinkTests {
    static let key = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"

    @Test func aSubscriptionsRegisterAndRegisteredRoundTrip() throws {
        let register = DeviceLinkMessage.register(topic: "org.example.App", kind: .webPush, activityID: "sub-1", applicationServerKey: Self.key)
        let text = register.encoded()
        #expect(text.contains(#""applicationServerKey":"\#(Self.key)""#) && text.contains(#""kind":"webPush""#))
        #expect(try DeviceLinkMessage.decode(text) == register)

        let registered = DeviceLinkMessage.registered(
            topic: "org.example.App", deviceToken: "ab12", kind: .webPush, activityID: "sub-1", endpoint: "https://localhost:8443/push/ab12")
        #expect(try DeviceLinkMessage.decode(registered.encoded()) == registered)
        // No key: any VAPID key is taken.
        let keyless = DeviceLinkMessage.register(topic: "org.example.App", kind: .webPush, activityID: "sub-1")
        #expect(!keyless.encoded().contains("applicationServerKey"))
        #expect(try DeviceLinkMessage.decode(keyless.encoded()) == keyless)
    }

    @Test func earlierMessagesReadAsBefore() throws {
        #expect(try DeviceLinkMessage.decode(#"{"type":"register","topic":"com.example.app"}"#) == .register(topic: "com.example.app"))
        #expect(
            try DeviceLinkMessage.decode(#"{"type":"registered","topic":"com.example.app","deviceToken":"ab"}"#)
                == .registered(topic: "com.example.app", deviceToken: "ab"))
        #expect(DeviceLinkMessage.register(topic: "com.example.app").encoded() == #"{"topic":"com.example.app","type":"register"}"#)
    }

    @Test func aSubscriptionNeedsItsName() {
        #expect(throws: DeviceLinkMessage.DecodingError.self) {
            try DeviceLinkMessage.decode(#"{"type":"register","topic":"org.example.App","kind":"webPush"}"#)
        }
        #expect(throws: DeviceLinkMessage.DecodingError.self) {
            try DeviceLinkMessage.decode(#"{"type":"register","topic":"org.example.App","activityID":"a"}"#)
        }
    }

    @Test(arguments: [nil, "scores"])
    func aMessageIsWrappedAndUnwrappedUnchanged(topic: String?) throws {
        let body = Data((0...255).map { UInt8($0) } + [0, 0xFF, 0x22, 0x5C])  // binary, with quote and backslash bytes
        let wrapped = WebPushLinkPayload(body: body, urgency: .high, ttl: 60, topic: topic).encoded()
        let object = try #require(try JSONValue.parse(wrapped)["webPush"]?.objectValue)
        #expect(object["urgency"]?.stringValue == "high" && object["ttl"]?.integerValue == 60 && object["topic"]?.stringValue == topic)
        #expect(object["body"]?.stringValue == Base64URL.encode(body))
        let unwrapped = try #require(WebPushLinkPayload(payload: wrapped))
        #expect(unwrapped == WebPushLinkPayload(body: body, urgency: .high, ttl: 60, topic: topic))
        // As a link notification: the payload stays a JSON object, so the message reads back whole.
        let notification = LinkNotification(
            apnsID: UUID(), uniqueID: UUID(), topic: "org.example.App", bundleID: "org.example.App", deviceToken: "ab12",
            pushType: .webPush, priority: .immediate, collapseID: topic, expiration: nil, receivedAt: 1, payload: wrapped)
        guard case .notification(let read) = try DeviceLinkMessage.decode(DeviceLinkMessage.notification(notification).encoded()) else {
            Issue.record("not a notification")
            return
        }
        #expect(WebPushLinkPayload(payload: read.payload)?.body == body)
    }

    @Test func anAPNsPayloadIsNoWebPushMessage() {
        #expect(WebPushLinkPayload(payload: Data(#"{"aps":{"alert":"hi"}}"#.utf8)) == nil)
        #expect(WebPushLinkPayload(payload: Data(#"{"webPush":{"body":"%%"}}"#.utf8)) == nil)
    }
}
