import Foundation
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// Remote payloads read as a device reads them, and the requests they become.
@Suite struct RemotePayloadTests {
    private func payload(_ json: String) throws -> RemotePayload {
        try RemotePayload(json: Data(json.utf8))
    }

    private func content(_ json: String, strings: LocalizedStrings? = nil) throws -> ContentRecord {
        try payload(json).request(identifier: "id", strings: strings).content
    }

    @Test func anAlertStringIsTheBodyOfAPushRequest() throws {
        let request = try payload(#"{"aps":{"alert":"Hello"}}"#).request(identifier: "apns-1", strings: nil)
        #expect(request.identifier == "apns-1")
        #expect(request.trigger == .push)
        #expect(request.content.body == "Hello")
        #expect(request.content.title.isEmpty && request.content.subtitle.isEmpty)
        #expect(request.request.trigger is UNPushNotificationTrigger)
        #expect(request.request.content.body == "Hello")
    }

    @Test func anAlertDictionaryGivesEveryText() throws {
        let content = try content(
            """
            {"aps":{"alert":{"title":"New episode","subtitle":"Season 2","body":"Listen now","launch-image":"Launch.png",
             "summary-arg":"Ann","summary-arg-count":3},
             "category":"episode","thread-id":"show-7","target-content-id":"episode-12","filter-criteria":"work"}}
            """)
        #expect(content.title == "New episode")
        #expect(content.subtitle == "Season 2")
        #expect(content.body == "Listen now")
        #expect(content.launchImageName == "Launch.png")
        #expect(content.summaryArgument == "Ann")
        #expect(content.summaryArgumentCount == 3)
        #expect(content.categoryIdentifier == "episode")
        #expect(content.threadIdentifier == "show-7")
        #expect(content.targetContentIdentifier == "episode-12")
        #expect(content.filterCriteria == "work")
    }

    @Test func locKeysAreResolvedAndFormattedWithTheirArguments() throws {
        let strings = LocalizedStrings(table: [
            "TITLE": "%@ posted", "SUBTITLE": "%2$@ of %1$@", "BODY": "%@ and %@ sent %d photos", "PLAIN": "No arguments",
        ])
        let content = try content(
            """
            {"aps":{"alert":{"title":"ignored","title-loc-key":"TITLE","title-loc-args":["Ann"],
             "subtitle-loc-key":"SUBTITLE","subtitle-loc-args":["Season 2","Episode 5"],
             "body":"ignored","loc-key":"BODY","loc-args":["Ann","Bo",3]}}}
            """, strings: strings)
        #expect(content.title == "Ann posted")
        #expect(content.subtitle == "Episode 5 of Season 2")
        #expect(content.body == "Ann and Bo sent 3 photos")
        #expect(try self.content(#"{"aps":{"alert":{"loc-key":"PLAIN"}}}"#, strings: strings).body == "No arguments")
    }

    @Test func aLocKeyMissingFromTheStringsShowsTheKeyItself() throws {
        let strings = LocalizedStrings(table: ["OTHER": "x"])
        let json = #"{"aps":{"alert":{"title-loc-key":"MISSING_TITLE","loc-key":"Missing %@","loc-args":["body"]}}}"#
        let content = try content(json, strings: strings)
        #expect(content.title == "MISSING_TITLE")
        #expect(content.body == "Missing body")
        #expect(try self.content(json, strings: nil).title == "MISSING_TITLE")
    }

    @Test func wrongTypedLocArgumentsDoNotBreakTheText() throws {
        let strings = LocalizedStrings(table: ["K": "%@|%@|%d"])
        #expect(try content(#"{"aps":{"alert":{"loc-key":"K","loc-args":"Ann"}}}"#, strings: strings).body == "%@|%@|%d")
        #expect(try content(#"{"aps":{"alert":{"loc-key":"K","loc-args":[true,{"a":1},"x"]}}}"#, strings: strings).body == #"1|{"a":1}|x"#)
        #expect(try content(#"{"aps":{"alert":{"loc-key":5,"body":"fallback"}}}"#, strings: strings).body == "fallback")
    }

    @Test func locKeysResolveFromTheAppBundlesStringsFile() throws {
        let fixture = try AppBundleFixture()
        let lproj = fixture.root.appendingPathComponent("de.lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        try Data(#""NEW_EPISODE" = "Neue Folge von %@";"#.utf8).write(to: lproj.appendingPathComponent("Localizable.strings"))
        let strings = LocalizedStrings(bundleDirectory: fixture.root, preferredLanguages: ["de-DE"])
        #expect(try content(#"{"aps":{"alert":{"loc-key":"NEW_EPISODE","loc-args":["Ann"]}}}"#, strings: strings).body == "Neue Folge von Ann")
    }

    @Test(arguments: [
        (#""default""#, SoundRecord(.default)),
        (#""""#, SoundRecord(.default)),
        (#""chime.caf""#, SoundRecord(UNNotificationSound(named: UNNotificationSoundName("chime.caf")))),
        (
            #"{"critical":1,"name":"alarm.caf","volume":0.5}"#,
            SoundRecord(.criticalSoundNamed(UNNotificationSoundName("alarm.caf"), withAudioVolume: 0.5))
        ),
        (#"{"critical":1,"name":"default","volume":0.25}"#, SoundRecord(.defaultCriticalSound(withAudioVolume: 0.25))),
        (#"{"critical":1}"#, SoundRecord(.defaultCritical)),
        (#"{"critical":1,"volume":7}"#, SoundRecord(.defaultCriticalSound(withAudioVolume: 1))),
        (#"{"critical":1,"volume":"loud"}"#, SoundRecord(.defaultCritical)),
        (#"{"name":"chime.caf"}"#, SoundRecord(UNNotificationSound(named: UNNotificationSoundName("chime.caf")))),
        (#"{"critical":0,"name":"default"}"#, SoundRecord(.default)),
    ])
    func soundForms(sound: String, expected: SoundRecord) throws {
        let payload = try payload(#"{"aps":{"alert":"x","sound":\#(sound)}}"#)
        #expect(payload.sound == expected)
        #expect(payload.request(identifier: "id", strings: nil).content.sound == expected)
    }

    @Test(arguments: ["5", "[]", "true", "null"])
    func aWrongTypedSoundIsNoSound(sound: String) throws {
        #expect(try content(#"{"aps":{"alert":"x","sound":\#(sound)}}"#).sound == nil)
    }

    @Test(arguments: [("3", 3), ("0", 0), ("2.0", 2), ("-1", nil), ("2.5", nil), (#""3""#, nil), ("true", nil)] as [(String, Int?)])
    func badges(badge: String, expected: Int?) throws {
        let payload = try payload(#"{"aps":{"alert":"x","badge":\#(badge)}}"#)
        #expect(payload.badge == expected)
        #expect(payload.request(identifier: "id", strings: nil).content.badge == expected)
    }

    @Test(arguments: [
        (#""passive""#, UNNotificationInterruptionLevel.passive), (#""active""#, .active), (#""time-sensitive""#, .timeSensitive),
        (#""critical""#, .critical), (#""loud""#, .active), ("3", .active),
    ])
    func interruptionLevels(level: String, expected: UNNotificationInterruptionLevel) throws {
        let content = try content(#"{"aps":{"alert":"x","interruption-level":\#(level)}}"#)
        #expect(content.interruptionLevel == expected.rawValue)
        #expect(content.content.interruptionLevel == expected)
    }

    @Test func theDefaultInterruptionLevelIsActiveAndRelevanceIsClamped() throws {
        #expect(try content(#"{"aps":{"alert":"x"}}"#).interruptionLevel == UNNotificationInterruptionLevel.active.rawValue)
        #expect(try content(#"{"aps":{"alert":"x","relevance-score":0.75}}"#).relevanceScore == 0.75)
        #expect(try content(#"{"aps":{"alert":"x","relevance-score":1}}"#).relevanceScore == 1)
        #expect(try content(#"{"aps":{"alert":"x","relevance-score":3}}"#).relevanceScore == 1)
        #expect(try content(#"{"aps":{"alert":"x","relevance-score":-2}}"#).relevanceScore == 0)
        #expect(try content(#"{"aps":{"alert":"x","relevance-score":"high"}}"#).relevanceScore == 0)
    }

    @Test(arguments: [
        (#"{"aps":{"content-available":1}}"#, true),
        (#"{"aps":{"content-available":1},"sync":"inbox"}"#, true),
        (#"{"aps":{"content-available":1,"alert":5}}"#, true),  // a wrong-typed alert is no alert
        (#"{"aps":{"content-available":1,"alert":{}}}"#, true),
        (#"{"aps":{"content-available":1,"alert":"Hi"}}"#, false),
        (#"{"aps":{"content-available":1,"badge":1}}"#, false),
        (#"{"aps":{"content-available":1,"sound":"default"}}"#, false),
        (#"{"aps":{"content-available":0}}"#, false),
        (#"{"aps":{"content-available":"1"}}"#, false),
        (#"{"aps":{"content-available":true}}"#, false),
        (#"{"custom":1}"#, false),
    ])
    func backgroundPushes(json: String, background: Bool) throws {
        #expect(try payload(json).isBackground == background)
    }

    @Test(arguments: [
        (#"{"aps":{"mutable-content":1,"alert":"Hi"}}"#, true),
        (#"{"aps":{"mutable-content":1,"alert":{"title":"Hi"}}}"#, true),
        (#"{"aps":{"mutable-content":1,"alert":{"subtitle":"Hi"}}}"#, true),
        (#"{"aps":{"mutable-content":1,"alert":{"loc-key":"K"}}}"#, true),
        (#"{"aps":{"mutable-content":1,"alert":{"title":""}}}"#, false),
        (#"{"aps":{"mutable-content":1,"alert":{}}}"#, false),
        (#"{"aps":{"mutable-content":1,"badge":3,"sound":"default"}}"#, false),
        (#"{"aps":{"mutable-content":0,"alert":"Hi"}}"#, false),
        (#"{"aps":{"mutable-content":"1","alert":"Hi"}}"#, false),
        (#"{"aps":{"alert":"Hi"}}"#, false),
    ])
    func serviceExtensionRuns(json: String, wanted: Bool) throws {
        let payload = try payload(json)
        #expect(payload.wantsServiceExtension == wanted)
        if wanted { #expect(payload.alertIsPresent) }
    }

    @Test func wrongTypedValuesAreIgnoredAndTheNotificationIsStillShown() throws {
        let content = try content(
            """
            {"aps":{"alert":{"title":1,"body":"Body","subtitle":["x"],"launch-image":2,"summary-arg-count":"3"},
             "category":5,"thread-id":[],"target-content-id":1,"filter-criteria":{},"badge":"7","sound":9,
             "interruption-level":2,"relevance-score":"high"}}
            """)
        #expect(content.body == "Body")
        #expect(content.title.isEmpty && content.subtitle.isEmpty && content.launchImageName.isEmpty)
        #expect(content.summaryArgumentCount == 0)
        #expect(content.categoryIdentifier.isEmpty && content.threadIdentifier.isEmpty)
        #expect(content.targetContentIdentifier == nil && content.filterCriteria == nil)
        #expect(content.badge == nil && content.sound == nil)
        #expect(content.interruptionLevel == UNNotificationInterruptionLevel.active.rawValue)

        let notADictionary = try payload(#"{"aps":"alert","custom":true}"#)
        #expect(!notADictionary.alertIsPresent && !notADictionary.isBackground)
        #expect(notADictionary.request(identifier: "id", strings: nil).content.userInfo["custom"] == .bool(true))
    }

    @Test func userInfoIsTheWholePayloadWithoutNulls() throws {
        let payload = try payload(
            """
            {"aps":{"alert":"Hi","badge":2,"category":null},"podcast-guest":"Ann","count":3,"ratio":0.5,"flag":false,
             "nested":{"list":[1,"two",null,{"k":null,"v":1.0}],"gone":null},"removed":null}
            """)
        let expected: [String: PropertyListValue] = [
            "aps": .dictionary(["alert": .string("Hi"), "badge": .integer(2)]),
            "podcast-guest": .string("Ann"), "count": .integer(3), "ratio": .double(0.5), "flag": .bool(false),
            "nested": .dictionary(["list": .array([.integer(1), .string("two"), .dictionary(["v": .double(1)])])]),
        ]
        #expect(payload.userInfo == expected)
        let content = payload.request(identifier: "id", strings: nil).content
        #expect(content.userInfo == expected)
        let userInfo = content.content.userInfo
        #expect(userInfo["podcast-guest"] as? String == "Ann")
        #expect((userInfo["aps"] as? [String: Any])?["badge"] as? Int == 2)
    }

    @Test func aPayloadOfCustomKeysOnlyShowsNothing() throws {
        let payload = try payload(#"{"podcast-guest":"Ann"}"#)
        #expect(!payload.alertIsPresent && !payload.isBackground && !payload.wantsServiceExtension)
        #expect(payload.badge == nil && payload.sound == nil)
        let content = payload.request(identifier: "id", strings: nil).content
        #expect(content.body.isEmpty && content.userInfo == ["podcast-guest": .string("Ann")])
    }

    @Test func aPayloadThatIsNotAJSONObjectIsRefused() {
        #expect(throws: RemotePayloadError(.notJSON, "the payload is not JSON (syntax error at byte 8)")) {
            try RemotePayload(json: Data(#"{"aps": }"#.utf8))
        }
        #expect(throws: RemotePayloadError(.notAnObject, #"the payload is a JSON array, not an object like {"aps":{"alert":"Hello"}}"#)) {
            try RemotePayload(json: Data("[1]".utf8))
        }
        #expect(throws: RemotePayloadError.self) { try RemotePayload(json: Data()) }
    }

    @Test func emptyContentMatchesANewMutableContent() throws {
        #expect(ContentRecord() == (try ContentRecord(UNMutableNotificationContent())))
    }
}
