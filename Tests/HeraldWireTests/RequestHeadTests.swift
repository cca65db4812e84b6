import Foundation
import HeraldWire
import Testing

@Suite struct RequestHeadTests {
    static let token = String(repeating: "ab", count: 32)

    private func headers(_ extra: [(String, String)] = [], path: String = "/3/device/\(token)", method: String = "POST") -> [(
        name: String, value: String
    )] {
        [(":method", method), (":path", path), (":scheme", "https"), ("apns-topic", "com.example.app")] + extra
    }

    private func reason(_ headers: [(name: String, value: String)]) -> APNsReason? {
        do {
            _ = try RequestHead.parse(headers)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func parsesEveryHeader() throws {
        let id = "123E4567-E89B-12D3-A456-426655440000"
        let head = try RequestHead.parse(
            headers([
                ("apns-id", id), ("apns-push-type", "voip"), ("apns-priority", "5"), ("apns-expiration", "0"),
                ("apns-collapse-id", "c"), ("authorization", "bearer a.b.c"),
            ]))
        #expect(head.deviceToken.hex == Self.token)
        #expect(head.apnsID.map(APNsID.format) == id.lowercased())
        #expect(head.pushType == .voip)
        #expect(head.priority == .powerConsiderate)
        #expect(head.expiration == 0)
        #expect(head.collapseID == "c")
        #expect(head.topic == "com.example.app")
        #expect(head.bearerToken == "a.b.c")
    }

    @Test func defaultsFollowAPNs() throws {
        let head = try RequestHead.parse(headers())
        #expect(head.effectivePushType == .alert)
        #expect(head.effectivePriority == .immediate)
        let background = try RequestHead.parse(headers([("apns-push-type", "background")]))
        #expect(background.effectivePriority == .powerConsiderate)
    }

    @Test func eachBrokenRuleHasItsReason() {
        #expect(reason(headers(method: "GET")) == .methodNotAllowed)
        #expect(reason(headers(path: "/3/devices/x")) == .badPath)
        #expect(reason(headers(path: "/3/device/")) == .missingDeviceToken)
        #expect(reason(headers(path: "/3/device/xyz")) == .badDeviceToken)
        #expect(reason(headers([("apns-id", "123")])) == .badMessageID)
        #expect(reason(headers([("apns-id", "123e4567e89b12d3a456426655440000")])) == .badMessageID)
        #expect(reason(headers([("apns-push-type", "banner")])) == .invalidPushType)
        #expect(reason(headers([("apns-priority", "7")])) == .badPriority)
        #expect(reason(headers([("apns-priority", "high")])) == .badPriority)
        #expect(reason(headers([("apns-push-type", "background"), ("apns-priority", "10")])) == .badPriority)
        #expect(reason(headers([("apns-expiration", "tomorrow")])) == .badExpirationDate)
        #expect(reason(headers([("apns-collapse-id", String(repeating: "c", count: 65))])) == .badCollapseID)
        #expect(reason(headers([("apns-collapse-id", String(repeating: "c", count: 64))])) == nil)
        #expect(reason(headers([("apns-topic", "com.example.other")])) == .duplicateHeaders)
        #expect(reason(headers([("apns-id", UUID().uuidString), ("apns-id", UUID().uuidString)])) == .duplicateHeaders)
        #expect(reason(headers([(":path", "/3/device/\(Self.token)")])) == .duplicateHeaders)
    }

    @Test(arguments: [
        ("bearer a.b.c", "a.b.c"), ("Bearer a.b.c", "a.b.c"), ("BEARER   a.b.c", "a.b.c"), ("  bearer a.b.c", "a.b.c"),
        ("bearer a b", "a b"), ("bearer", ""), ("bearer   ", ""), ("basic a.b.c", ""), ("bearerx a.b.c", ""),
        ("bear a.b.c", ""), ("", ""), ("bearér a.b.c", ""), ("bearer  a.b.c", "a.b.c"), ("bearer ", ""),
    ])
    func bearerTokenFollowsTheScheme(_ header: String, _ token: String) throws {
        #expect(try RequestHead.parse(headers([("authorization", header)])).bearerToken == token)
    }

    @Test func deviceTokensAreHexOfPlausibleLength() {
        #expect(DeviceToken(hex: String(repeating: "A", count: 64))?.hex == String(repeating: "a", count: 64))
        #expect(
            DeviceToken(hex: "0123456789ABCDEFabcdef" + String(repeating: "0", count: 42))?.hex == "0123456789abcdefabcdef"
                + String(repeating: "0", count: 42))
        #expect(DeviceToken(hex: "/3/device/abcdef0123456789".dropFirst(10))?.hex == "abcdef0123456789")
        #expect(DeviceToken(hex: String(repeating: "a", count: 63)) == nil)
        #expect(DeviceToken(hex: String(repeating: "a", count: 402)) == nil)
        #expect(DeviceToken(hex: String(repeating: "a", count: 160)) != nil)
        #expect(DeviceToken(hex: "abc") == nil)
        #expect(DeviceToken(hex: String(repeating: "g", count: 64)) == nil)
        // Characters that lowercasing (setting bit 5) would turn into hex digits are still refused.
        for impostor in ["\u{10}", "\u{19}", "@", "G", "`", "g", "/", ":"] {
            #expect(DeviceToken(hex: String(repeating: "a", count: 63) + impostor) == nil, "\(impostor.unicodeScalars.first!.value)")
        }
        #expect(DeviceToken.random().hex.count == 64)
    }

    @Test(arguments: PushType.allKnown)
    func topicSuffixesRoundTrip(_ pushType: PushType) {
        #expect(pushType.bundleID(fromTopic: "com.example.app" + pushType.topicSuffix) == "com.example.app")
    }

    @Test func reasonTableMatchesApple() {
        // 33 of the provider API, 9 more of the channel management API, 8 of Web Push's (web.push.apple.com)
        #expect(APNsReason.statusTable.count == 50)
        #expect(APNsReason.topicMismatch.status == 403)
        #expect(APNsReason.channelNotRegistered.status == 400 && APNsReason.cannotCreateChannelConfig.status == 400)
        #expect(APNsReason.unregistered.status == 410)
        #expect(APNsReason.badPath.status == 404)
        #expect(APNsReason.shutdown.status == 503)
        #expect(APNsReason(rawValue: "SomethingNew").status == 400)
        #expect(APNsReason.tooManyRequests.isRetryable)
        #expect(!APNsReason.badDeviceToken.isRetryable)
    }
}
