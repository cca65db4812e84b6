import CoreLocation
import Foundation
import HeraldTesting
import Testing

@testable import UserNotifications

@Suite struct RecordTests {
    func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
    }

    static let date = Date(timeIntervalSinceReferenceDate: 800_000_000.123_456)

    static var richUserInfo: [AnyHashable: Any] {
        [
            "string": "héllo ✓", "int": 42, "negative": -7, "zero": 0, "double": 3.5, "wholeDouble": 2.0,
            "true": true, "false": false, "big": UInt64.max, "int64": Int64.min,
            "array": [1, "two", 3.25, [true, false], ["k": "v"]] as [Any],
            "nested": ["level1": ["level2": ["level3": [1, 2, 3]]]],
            "date": date, "data": Data([0, 1, 2, 255]), "null": NSNull(), "empty": [String: Any](), "emptyArray": [Any](),
            "nsNumberDouble": NSNumber(value: 2.5), "nsNumberBool": NSNumber(value: true), "nsNumberInt": NSNumber(value: 9),
            "nsString": NSString(string: "bridged"),
        ]
    }

    @Test func userInfoRoundTripsExactlyThroughJSON() throws {
        let content = UNMutableNotificationContent()
        content.userInfo = Self.richUserInfo
        let restored = try roundTrip(try ContentRecord(content)).content.userInfo

        #expect(restored["string"] as? String == "héllo ✓")
        #expect(type(of: restored["int"]!) == Int.self && restored["int"] as? Int == 42)
        #expect(restored["negative"] as? Int == -7 && restored["zero"] as? Int == 0)
        #expect(type(of: restored["double"]!) == Double.self && restored["double"] as? Double == 3.5)
        #expect(type(of: restored["wholeDouble"]!) == Double.self && restored["wholeDouble"] as? Double == 2.0)
        #expect(type(of: restored["true"]!) == Bool.self && restored["true"] as? Bool == true)
        #expect(type(of: restored["false"]!) == Bool.self && restored["false"] as? Bool == false)
        #expect(restored["big"] as? UInt64 == UInt64.max && restored["int64"] as? Int == Int(Int64.min))
        let array = try #require(restored["array"] as? [Any])
        #expect(array.count == 5 && array[0] as? Int == 1 && array[1] as? String == "two" && array[2] as? Double == 3.25)
        #expect(array[3] as? [Bool] == [true, false] && (array[4] as? [String: Any])?["k"] as? String == "v")
        let level2 = ((restored["nested"] as? [String: Any])?["level1"] as? [String: Any])?["level2"] as? [String: Any]
        #expect(level2?["level3"] as? [Int] == [1, 2, 3])
        #expect(restored["date"] as? Date == Self.date)
        #expect(restored["data"] as? Data == Data([0, 1, 2, 255]))
        #expect(restored["null"] is NSNull)
        #expect((restored["empty"] as? [String: Any])?.isEmpty == true && (restored["emptyArray"] as? [Any])?.isEmpty == true)
        #expect(type(of: restored["nsNumberDouble"]!) == Double.self && restored["nsNumberDouble"] as? Double == 2.5)
        #expect(type(of: restored["nsNumberBool"]!) == Bool.self && type(of: restored["nsNumberInt"]!) == Int.self)
        #expect(restored["nsString"] as? String == "bridged")
        #expect(restored.count == Self.richUserInfo.count)
        // And the restored content equals the original.
        #expect(try ContentRecord(content).content.isEqual(content))
    }

    @Test func userInfoParsedFromAPushPayloadKeepsItsJSONTypes() throws {
        let json = #"{"id": 7, "ratio": 0.25, "flag": true, "off": false, "none": null, "list": [1, "a"], "obj": {"x": 1.0}}"#
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let content = UNMutableNotificationContent()
        content.userInfo = payload
        let values = try ContentRecord(content).userInfo
        #expect(values["id"] == .integer(7) && values["ratio"] == .double(0.25))
        #expect(values["flag"] == .bool(true) && values["off"] == .bool(false) && values["none"] == .null)
        #expect(values["list"] == .array([.integer(1), .string("a")]))
        if case .dictionary(let object)? = values["obj"], let x = object["x"] {
            #expect(x == .double(1) || x == .integer(1))  // JSONSerialization may read 1.0 as an integer
        } else {
            Issue.record("obj is not a dictionary")
        }
    }

    @Test func propertyListValuesEncodeWithTheirTypeNamed() throws {
        let encoded = String(decoding: try JSONEncoder().encode([PropertyListValue.integer(1), .double(1), .bool(true)]), as: UTF8.self)
        #expect(encoded == #"[{"integer":1},{"double":1},{"bool":true}]"#)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PropertyListValue.self, from: Data(#"{"integer":1,"double":2}"#.utf8))
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PropertyListValue.self, from: Data(#"{"data":"not base64!"}"#.utf8)) }
    }

    static var invalidUserInfos: [([AnyHashable: Any], String)] {
        [
            (["url": URL(fileURLWithPath: "/tmp")], #"userInfo["url"]"#),
            (["list": [1, URL(fileURLWithPath: "/tmp")] as [Any]], #"userInfo["list"][1]"#),
            (["deep": ["inner": UUID()]], #"userInfo["deep"]["inner"]"#),
            ([7: "seven"], "key 7"),
            (["nan": Double.nan], #"userInfo["nan"] is nan"#),
            (["inner": [3: "x"]], #"userInfo["inner"] has the key 3"#),
        ]
    }

    @Test(arguments: 0..<6)
    func nonPropertyListUserInfoIsRefusedWithItsPath(index: Int) throws {
        let (userInfo, expected) = Self.invalidUserInfos[index]
        let content = UNMutableNotificationContent()
        content.userInfo = userInfo
        let error = #expect(throws: RecordError.self) { try ContentRecord(content) }
        #expect(error?.description.contains(expected) == true, "\(error?.description ?? "")")
    }

    @Test func contentRoundTripsEveryField() throws {
        let directory = try TemporaryDirectory()
        let content = ContentTests.filledContent()
        content.sound = .criticalSoundNamed(UNNotificationSoundName("alarm.caf"), withAudioVolume: 0.5)
        content.attachments = [
            try UNNotificationAttachment(
                identifier: "img", url: try directory.file("a.png", AttachmentFixtures.png),
                options: [
                    UNNotificationAttachmentOptionsThumbnailClippingRectKey: ["X": 0.25, "Y": 0.25, "Width": 0.5, "Height": 0.5]
                ])
        ]
        let record = try ContentRecord(content)
        let restored = try roundTrip(record).content
        #expect(restored.isEqual(content))
        #expect(!(restored is UNMutableNotificationContent))
        #expect(restored.sound?.isCritical == true && restored.sound?.criticalVolume == 0.5 && restored.sound?.name?.rawValue == "alarm.caf")
        #expect(restored.attachments.first?.options.thumbnailClippingRect == ClippingRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
        #expect(restored.interruptionLevel == .timeSensitive && restored.badge == NSNumber(value: 3))
    }

    @Test func defaultSoundsComeBackAsTheSharedOnes() throws {
        #expect(try roundTrip(SoundRecord(.default)).sound === UNNotificationSound.default)
        #expect(try roundTrip(SoundRecord(.defaultCritical)).sound === UNNotificationSound.defaultCritical)
    }

    @Test func triggersRoundTrip() throws {
        var components = DateComponents(hour: 9, minute: 30, weekday: 2, weekdayOrdinal: 1)
        components.timeZone = TimeZone(identifier: "Asia/Tokyo")
        components.calendar = Calendar(identifier: .gregorian)
        let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522), radius: 150, identifier: "paris")
        region.notifyOnEntry = false
        let scheduled = Date(timeIntervalSince1970: 1_800_000_000)
        let triggers: [UNNotificationTrigger] = [
            UNTimeIntervalNotificationTrigger(timeInterval: 120, repeats: true).scheduled(at: scheduled),
            UNTimeIntervalNotificationTrigger(timeInterval: 5, repeats: false),
            UNCalendarNotificationTrigger(dateMatching: components, repeats: true),
            UNLocationNotificationTrigger(region: region, repeats: false),
            UNPushNotificationTrigger(),
        ]
        for trigger in triggers {
            let record = try #require(TriggerRecord(trigger))
            let restored = try roundTrip(record).trigger
            #expect(restored == trigger)
            #expect(type(of: restored) == type(of: trigger))
        }
        func restored(_ index: Int) throws -> UNNotificationTrigger {
            let record = try #require(TriggerRecord(triggers[index]))
            return try roundTrip(record).trigger
        }
        let interval = try #require(try restored(0) as? UNTimeIntervalNotificationTrigger)
        #expect(interval.scheduledDate == scheduled)
        let calendar = try #require(try restored(2) as? UNCalendarNotificationTrigger)
        #expect(calendar.dateComponents.timeZone?.identifier == "Asia/Tokyo" && calendar.dateComponents.calendar?.identifier == .gregorian)
        let location = try #require(try restored(3) as? UNLocationNotificationTrigger)
        #expect(location.region.notifyOnEntry == false && location.region.notifyOnExit == true)
        #expect((location.region as? CLCircularRegion)?.radius == 150)
    }

    @Test func requestsAndNotificationsRoundTrip() throws {
        let request = UNNotificationRequest(
            identifier: "r1", content: ContentTests.filledContent(),
            trigger: UNCalendarNotificationTrigger(dateMatching: DateComponents(hour: 7), repeats: true))
        #expect(try roundTrip(RequestRecord(request)).request == request)
        let immediate = UNNotificationRequest(identifier: "now", content: UNNotificationContent(), trigger: nil)
        #expect(try roundTrip(RequestRecord(immediate)).request == immediate)
        let notification = UNNotification(request: request, date: Self.date)
        #expect(try roundTrip(NotificationRecord(notification)).notification == notification)
    }

    @Test func anUnknownTriggerSubclassCannotBeStored() {
        final class CustomTrigger: UNNotificationTrigger, @unchecked Sendable {
            init() { super.init(repeats: false) }
        }
        let request = UNNotificationRequest(identifier: "x", content: UNNotificationContent(), trigger: CustomTrigger())
        #expect(throws: RecordError.self) { try RequestRecord(request) }
    }

    @Test func categoriesAndActionsRoundTrip() throws {
        let categories = [
            UNNotificationCategory(identifier: "plain", actions: [], intentIdentifiers: []),
            UNNotificationCategory(
                identifier: "chat",
                actions: [
                    UNNotificationAction(identifier: "like", title: "Like", options: [.authenticationRequired]),
                    UNTextInputNotificationAction(
                        identifier: "reply", title: "Reply", options: [.foreground],
                        textInputButtonTitle: "Send", textInputPlaceholder: "Message"),
                ],
                intentIdentifiers: ["INSendMessageIntent"], hiddenPreviewsBodyPlaceholder: "%u messages",
                categorySummaryFormat: "%u more from %@", options: [.customDismissAction, .allowInCarPlay]
            ),
        ]
        for category in categories {
            let restored = try roundTrip(CategoryRecord(category)).category
            #expect(restored == category)
        }
        let chat = try roundTrip(CategoryRecord(categories[1])).category
        #expect(chat.actions[1] is UNTextInputNotificationAction)
        #expect((chat.actions[1] as? UNTextInputNotificationAction)?.textInputPlaceholder == "Message")
    }

    /// Ringtones (iOS 15.2) are kept as ringtones: the default comes back as the shared one, a named one with its name.
    @Test func ringtonesRoundTrip() throws {
        #expect(try roundTrip(SoundRecord(.defaultRingtone)).sound === UNNotificationSound.defaultRingtone)
        let named = UNNotificationSound.ringtoneSoundNamed(UNNotificationSoundName("call.caf"))
        #expect(try roundTrip(SoundRecord(named)).sound == named)
        #expect(named != UNNotificationSound(named: UNNotificationSoundName("call.caf")))
        #expect(UNNotificationSound.defaultRingtone != UNNotificationSound.default)
        // A record written before ringtones reads as the sound it was.
        let old = try JSONDecoder().decode(SoundRecord.self, from: Data(#"{"isCritical":false}"#.utf8))
        #expect(old.sound === UNNotificationSound.default)
    }

    /// Action icons (iOS 15) are kept with their category, template or system, and count in an action's equality.
    @Test func actionIconsRoundTrip() throws {
        let like = UNNotificationAction(
            identifier: "like", title: "Like", options: [], icon: UNNotificationActionIcon(systemImageName: "hand.thumbsup"))
        let reply = UNTextInputNotificationAction(
            identifier: "reply", title: "Reply", options: [.foreground], icon: UNNotificationActionIcon(templateImageName: "reply-icon"),
            textInputButtonTitle: "Send", textInputPlaceholder: "Message")
        let category = UNNotificationCategory(identifier: "chat", actions: [like, reply], intentIdentifiers: [])
        let restored = try roundTrip(CategoryRecord(category)).category
        #expect(restored.actions[0].icon == UNNotificationActionIcon(systemImageName: "hand.thumbsup"))
        #expect(restored.actions[1].icon == UNNotificationActionIcon(templateImageName: "reply-icon"))
        #expect(restored.actions[1] is UNTextInputNotificationAction)
        #expect(restored == category)
        #expect(like != UNNotificationAction(identifier: "like", title: "Like", options: []))
        #expect(UNNotificationActionIcon(systemImageName: "a") != UNNotificationActionIcon(templateImageName: "a"))
        // A record written before icons reads with none.
        let old = try JSONDecoder().decode(ActionRecord.self, from: Data(#"{"identifier":"x","title":"X","options":0}"#.utf8))
        #expect(old.action.icon == nil)
    }

    @Test func settingsRoundTripWithRawValues() throws {
        var settings = SettingsRecord()
        settings.authorizationStatus = .provisional
        settings.alertSetting = .enabled
        settings.soundSetting = .disabled
        settings.alertStyle = .banner
        settings.showPreviewsSetting = .whenAuthenticated
        settings.providesAppNotificationSettings = true
        #expect(try roundTrip(settings) == settings)
        let json = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(settings)) as? [String: Any])
        #expect(json["authorizationStatus"] as? Int == 3 && json["alertStyle"] as? Int == 1 && json["soundSetting"] as? Int == 1)
        #expect(json["showPreviewsSetting"] as? Int == 1 && json["badgeSetting"] as? Int == 0)
        var corrupt = json
        corrupt["authorizationStatus"] = 99
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SettingsRecord.self, from: try JSONSerialization.data(withJSONObject: corrupt))
        }
        let object = UNNotificationSettings(settings)
        #expect(object.authorizationStatus == .provisional && object.alertSetting == .enabled && object.alertStyle == .banner)
        #expect(object.providesAppNotificationSettings && object.lockScreenSetting == .notSupported)
        #expect(object == UNNotificationSettings(settings) && object != UNNotificationSettings(SettingsRecord()))
    }
}
