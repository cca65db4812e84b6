import Foundation
import HeraldClient
import HeraldWire
import Testing

/// Typed builders: each push type gets its header, topic suffix and a payload APNs accepts.
@Suite struct NotificationBuilderTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let builders: [(PushType, APNsNotification)] = [
        (.alert, .alert(bundleID: "com.example.app", alert: .init(title: "T", body: "B"))),
        (.background, .background(bundleID: "com.example.app", custom: ["sync": .bool(true)])),
        (.voip, .voip(bundleID: "com.example.app", custom: ["caller": .string("Ann")])),
        (.location, .location(bundleID: "com.example.app")),
        (.complication, .complication(bundleID: "com.example.app")),
        (.fileProvider, .fileProvider(bundleID: "com.example.app")),
        (.mdm, .mdm(topic: "com.apple.mgmt.External.1234", pushMagic: "magic")),
        (.liveActivity, .liveActivity(bundleID: "com.example.app", event: .update, contentState: .object(["score": .integer(2)]), timestamp: now)),
        (.pushToTalk, .pushToTalk(bundleID: "com.example.app")),
        (.widgets, .widgets(bundleID: "com.example.app")),
        (.controls, .controls(bundleID: "com.example.app")),
    ]

    @Test(arguments: builders)
    func everyPushTypeBuildsAValidRequest(pushType: PushType, notification: APNsNotification) throws {
        #expect(notification.pushType == pushType)
        #expect(notification.topic.hasSuffix(pushType.topicSuffix))
        #expect(pushType == .mdm || pushType.bundleID(fromTopic: notification.topic) == "com.example.app")
        try notification.validate()
        try PayloadCheck.check(notification.payload, pushType: pushType)
    }

    @Test func typeSpecificRulesAreBuiltIn() throws {
        let background = APNsNotification.background(bundleID: "com.example.app")
        #expect(background.priority == .powerConsiderate)
        #expect(try JSONValue.parse(background.payload)["aps"]?["content-available"]?.integerValue == 1)
        #expect(APNsNotification.pushToTalk(bundleID: "a.b").expiration == .immediately)
        #expect(try JSONValue.parse(APNsNotification.widgets(bundleID: "a.b").payload)["aps"]?["content-changed"] == .bool(true))
        #expect(try JSONValue.parse(APNsNotification.mdm(topic: "t", pushMagic: "m").payload) == .object(["mdm": .string("m")]))
        let live = try JSONValue.parse(Self.builders[7].1.payload)["aps"]
        #expect(live?["timestamp"]?.integerValue == 1_800_000_000)
        #expect(live?["event"]?.stringValue == "update")
    }

    @Test func everyAPSKeyIsWritten() throws {
        var payload = APNsPayload(custom: ["id": .integer(42)])
        var alert = APS.Alert.localized(titleKey: "T", titleArgs: ["a"], subtitleKey: "S", subtitleArgs: ["b"], bodyKey: "B", bodyArgs: ["c"])
        alert.title = "title"
        alert.subtitle = "subtitle"
        alert.body = "body"
        alert.launchImage = "launch.png"
        payload.aps.alert = alert
        payload.aps.badge = 0
        payload.aps.sound = .critical("siren.caf", volume: 0.5)
        payload.aps.threadID = "thread"
        payload.aps.category = "REPLY"
        payload.aps.contentAvailable = true
        payload.aps.mutableContent = true
        payload.aps.targetContentID = "target"
        payload.aps.interruptionLevel = .timeSensitive
        payload.aps.relevanceScore = 0.75
        payload.aps.filterCriteria = "work"
        payload.aps.staleDate = Self.now
        payload.aps.contentState = .object(["x": .integer(1)])
        payload.aps.timestamp = Self.now
        payload.aps.event = .start
        payload.aps.dismissalDate = Self.now
        payload.aps.attributesType = "ScoreAttributes"
        payload.aps.attributes = .object(["team": .string("A")])
        let json = try JSONValue.parse(payload.encoded())
        let aps = try #require(json["aps"]?.objectValue)
        #expect(
            Set(aps.keys) == [
                "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content", "target-content-id",
                "interruption-level", "relevance-score", "filter-criteria", "stale-date", "content-state", "timestamp", "event",
                "dismissal-date", "attributes-type", "attributes",
            ])
        #expect(
            Set(aps["alert"]?.objectValue?.keys ?? [:].keys) == [
                "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
                "subtitle-loc-args", "loc-key", "loc-args",
            ])
        #expect(aps["sound"] == .object(["critical": .integer(1), "name": .string("siren.caf"), "volume": .number(0.5)]))
        #expect(json["id"]?.integerValue == 42)
        try PayloadCheck.check(payload.encoded(), pushType: .alert)
    }

    @Test func aBodyOnlyAlertIsAString() throws {
        var payload = APNsPayload()
        payload.aps.alert = .init(body: "Hi")
        #expect(String(decoding: payload.encoded(), as: UTF8.self) == #"{"aps":{"alert":"Hi"}}"#)
    }

    @Test func badRequestsAreRefusedBeforeSending() {
        let big = APNsNotification(topic: "a.b", payload: Data(repeating: 0x20, count: 4097))
        #expect(throws: APNsClientError.self) { try big.validate() }
        #expect((try? APNsNotification(topic: "a.b", pushType: .voip, payload: Data(repeating: 0x20, count: 4097)).validate()) == nil)
        #expect((try? APNsNotification(topic: "a.b.voip", pushType: .voip, payload: Data(repeating: 0x20, count: 4097)).validate()) != nil)
        func reason(_ notification: APNsNotification) -> APNsReason? {
            do throws(APNsClientError) {
                try notification.validate()
                return nil
            } catch {
                return error.reason
            }
        }
        let reasons: [APNsReason?] = [
            reason(big),
            reason(APNsNotification(topic: "a.b", payload: Data())),
            reason(APNsNotification(topic: "", payload: Data("{}".utf8))),
            reason(APNsNotification(topic: "a.b", payload: Data("{}".utf8), collapseID: String(repeating: "x", count: 65))),
            reason(APNsNotification(topic: "a.b", payload: Data("{}".utf8), priority: Priority(rawValue: 7))),
            reason(APNsNotification(topic: "a.b\r\nx-injected: 1", payload: Data("{}".utf8))),
            reason(APNsNotification(topic: "a.b", payload: Data("{}".utf8), collapseID: "a\nb")),
        ]
        #expect(reasons == [.payloadTooLarge, .payloadEmpty, .missingTopic, .badCollapseID, .badPriority, .badTopic, .badCollapseID])
    }

    @Test func simulatorFilesNameTheirBundleAndLoseTheKey() throws {
        let file = SimulatorPushFile(data: Data(#"{"Simulator Target Bundle":"com.example.app","aps":{"alert":"x"}}"#.utf8))
        #expect(file.targetBundle == "com.example.app")
        #expect(try JSONValue.parse(file.payload) == .object(["aps": .object(["alert": .string("x")])]))
        let plain = Data(#"{"aps":{}}"#.utf8)
        #expect(SimulatorPushFile(data: plain) == SimulatorPushFile(data: plain))
        #expect(SimulatorPushFile(data: plain).targetBundle == nil)
        #expect(SimulatorPushFile(data: plain).payload == plain)
    }

    @Test func endpoints() throws {
        #expect(APNsEndpoint.production.url.absoluteString == "https://api.push.apple.com:443")
        #expect(APNsEndpoint.development.port(2197).url.absoluteString == "https://api.sandbox.push.apple.com:2197")
        #expect(try APNsEndpoint.custom(URL(string: "http://localhost:2197")!) == APNsEndpoint(host: "localhost", port: 2197, usesTLS: false))
        #expect(throws: APNsClientError.self) { try APNsEndpoint.custom(URL(string: "ftp://x")!) }
    }
}
