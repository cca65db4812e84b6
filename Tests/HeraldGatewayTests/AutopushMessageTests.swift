import Foundation
import Testing

@testable import HeraldGateway

@Suite("Firefox's push protocol: the messages, and browsers' ids")
struct AutopushMessageTests {
    @Test func firefoxsMessagesAreRead() throws {
        let parse = { (text: String) throws in try AutopushMessage.parse(Data(text.utf8)) }
        #expect(try parse(#"{"messageType":"hello","broadcasts":{},"use_webpush":true}"#) == .hello(uaid: nil))
        #expect(try parse(#"{"messageType":"hello","uaid":"firefox-0123","use_webpush":true}"#) == .hello(uaid: "firefox-0123"))
        // The key comes base64url with padding; it reads as the 65 bytes either way.
        let key = Data([4] + Array(repeating: 7, count: 64))
        let padded = key.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(try parse(#"{"messageType":"register","channelID":"c1","key":"\#(padded)"}"#) == .register(channelID: "c1", key: key))
        #expect(try parse(#"{"channelID":"c1","messageType":"unregister","code":200}"#) == .unregister(channelID: "c1"))
        #expect(
            try parse(#"{"messageType":"ack","updates":[{"channelID":"c1","version":"v1","code":101}]}"#)
                == .ack([.init(channelID: "c1", version: "v1", code: 101)]))
        #expect(try parse("{}") == .ping)
        #expect(try parse(#"{"messageType":"broadcast_subscribe","broadcasts":{}}"#) == .broadcastSubscribe)
        #expect(throws: AutopushMessage.Malformed.self) { try parse(#"{"messageType":"register"}"#) }
        #expect(throws: AutopushMessage.Malformed.self) { try parse("[]") }
    }

    @Test func aNotificationCarriesTheBodyAsSent() throws {
        let text = AutopushMessage.notification(channelID: "c1", version: "v1", body: Data([0, 255]), ttl: 60)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["data"] as? String == "AP8" && (json["headers"] as? [String: String]) == ["encoding": "aes128gcm"])
        let empty = AutopushMessage.notification(channelID: "c1", version: "v1", body: Data(), ttl: nil)
        #expect(!empty.contains("data") && !empty.contains("headers"))
    }

    /// A device linked with a key has an id of 32 hex digits: a browser's hello naming one must not take its link.
    @Test func aBrowsersIDIsNeverADevicesID() {
        #expect(DeviceLinkServices.isUAID("firefox-" + String(repeating: "a1", count: 16)))
        #expect(!DeviceLinkServices.isUAID(String(repeating: "a1", count: 16)))
        #expect(!DeviceLinkServices.isUAID("firefox-" + String(repeating: "A1", count: 16)))
        #expect(!DeviceLinkServices.isUAID("firefox-abc"))
    }
}
