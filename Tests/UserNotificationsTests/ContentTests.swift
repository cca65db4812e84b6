import Foundation
import Testing

@testable import UserNotifications

@Suite struct ContentTests {
    static func filledContent() -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = "Title"
        content.subtitle = "Subtitle"
        content.body = "Body"
        content.badge = NSNumber(value: 3)
        content.sound = .default
        content.userInfo = ["id": 42, "tags": ["a", "b"]]
        content.categoryIdentifier = "INVITE"
        content.threadIdentifier = "thread"
        content.launchImageName = "launch"
        content.targetContentIdentifier = "target"
        content.summaryArgument = "Ann"
        content.summaryArgumentCount = 2
        content.interruptionLevel = .timeSensitive
        content.relevanceScore = 0.5
        content.filterCriteria = "work"
        return content
    }

    @Test func newContentHasApplesDefaults() {
        let content = UNMutableNotificationContent()
        #expect(content.title == "" && content.subtitle == "" && content.body == "")
        #expect(content.badge == nil && content.sound == nil && content.userInfo.isEmpty && content.attachments.isEmpty)
        #expect(content.interruptionLevel == .active)
        #expect(content.relevanceScore == 0 && content.targetContentIdentifier == nil && content.filterCriteria == nil)
    }

    @Test func mutableContentKeepsWhatIsSet() {
        let content = Self.filledContent()
        #expect(content.title == "Title" && content.subtitle == "Subtitle" && content.body == "Body")
        #expect(content.badge == NSNumber(value: 3) && content.sound == UNNotificationSound.default)
        #expect(content.userInfo["id"] as? Int == 42 && content.userInfo["tags"] as? [String] == ["a", "b"])
        #expect(content.categoryIdentifier == "INVITE" && content.threadIdentifier == "thread")
        #expect(content.launchImageName == "launch" && content.targetContentIdentifier == "target")
        #expect(content.summaryArgument == "Ann" && content.summaryArgumentCount == 2)
        #expect(content.interruptionLevel == .timeSensitive && content.relevanceScore == 0.5 && content.filterCriteria == "work")
    }

    @Test func copyOfMutableContentIsImmutableAndDetached() throws {
        let mutable = Self.filledContent()
        let copy = try #require(mutable.copy() as? UNNotificationContent)
        #expect(!(copy is UNMutableNotificationContent))
        #expect(copy.isEqual(mutable))
        mutable.title = "Changed"
        mutable.userInfo = [:]
        #expect(copy.title == "Title")
        #expect(copy.userInfo["id"] as? Int == 42)
        #expect(!copy.isEqual(mutable))
    }

    @Test func copyOfImmutableContentIsItself() throws {
        let immutable = try #require(Self.filledContent().copy() as? UNNotificationContent)
        let copyIsItself = (immutable.copy() as AnyObject) === immutable
        #expect(copyIsItself)
    }

    @Test func mutableCopyIsMutableAndDetached() throws {
        let immutable = try #require(Self.filledContent().copy() as? UNNotificationContent)
        let mutable = try #require(immutable.mutableCopy() as? UNMutableNotificationContent)
        #expect(mutable.isEqual(immutable))
        mutable.body = "Edited"
        #expect(immutable.body == "Body")
        #expect(mutable.body == "Edited")
        let again = try #require(mutable.mutableCopy() as? UNMutableNotificationContent)
        #expect(again !== mutable && again.body == "Edited")
    }

    @Test func equalityAndHashAreByValue() {
        let first = Self.filledContent()
        let second = Self.filledContent()
        #expect(first.isEqual(second) && first == second)
        #expect(first.hash == second.hash)
        #expect(Set([first, second]).count == 1)
        second.userInfo = ["id": 43, "tags": ["a", "b"]]
        #expect(!first.isEqual(second))
        second.userInfo = ["id": 42, "tags": ["a", "b"]]
        second.badge = nil
        #expect(!first.isEqual(second))
        #expect(!first.isEqual("not content"))
    }

    @Test func userInfoEqualityTellsBooleansFromNumbers() {
        let first = UNMutableNotificationContent()
        let second = UNMutableNotificationContent()
        first.userInfo = ["flag": true]
        second.userInfo = ["flag": 1]
        #expect(!first.isEqual(second))
        second.userInfo = ["flag": NSNumber(value: true)]
        #expect(first.isEqual(second))
    }

    @Test func userInfoWithNonPropertyListValuesComparesThem() {
        let url = URL(fileURLWithPath: "/tmp/x")
        let first = UNMutableNotificationContent()
        let second = UNMutableNotificationContent()
        first.userInfo = ["url": url]
        second.userInfo = ["url": url]
        #expect(first.isEqual(second))
        second.userInfo = ["url": URL(fileURLWithPath: "/tmp/y")]
        #expect(!first.isEqual(second))
    }

    @Test func requestKeepsAnImmutableCopyOfTheContent() {
        let content = Self.filledContent()
        let request = UNNotificationRequest(identifier: "id", content: content, trigger: nil)
        #expect(!(request.content is UNMutableNotificationContent))
        content.title = "Changed after adding"
        #expect(request.content.title == "Title")
        #expect(request.identifier == "id" && request.trigger == nil)
        let editable = request.content.mutableCopy() as? UNMutableNotificationContent
        editable?.title = "Edited copy"
        #expect(editable?.title == "Edited copy" && request.content.title == "Title")
    }

    @Test func requestsCompareByIdentifierContentAndTrigger() {
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)
        let first = UNNotificationRequest(identifier: "a", content: Self.filledContent(), trigger: trigger)
        let same = UNNotificationRequest(
            identifier: "a", content: Self.filledContent(),
            trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false))
        #expect(first == same)
        #expect(first != UNNotificationRequest(identifier: "b", content: Self.filledContent(), trigger: trigger))
        #expect(first != UNNotificationRequest(identifier: "a", content: Self.filledContent(), trigger: nil))
    }

    @Test func contentIsSafeToShareAcrossTasks() async {
        let content = UNMutableNotificationContent()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    content.title = "title \(index)"
                    content.userInfo = ["index": index]
                    _ = content.copy()
                    _ = content.userInfo["index"]
                }
            }
        }
        #expect(content.title.hasPrefix("title "))
        #expect(content.userInfo["index"] is Int)
    }

    @Test func notificationAndResponsesCarryTheirValues() {
        let request = UNNotificationRequest(identifier: "r", content: Self.filledContent(), trigger: UNPushNotificationTrigger())
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let notification = UNNotification(request: request, date: date)
        #expect(notification.date == date && notification.request == request)
        let response = UNNotificationResponse(notification: notification, actionIdentifier: UNNotificationDefaultActionIdentifier)
        #expect(response.actionIdentifier == "com.apple.UNNotificationDefaultActionIdentifier")
        let reply = UNTextInputNotificationResponse(notification: notification, actionIdentifier: "REPLY", userText: "On my way")
        #expect(reply.userText == "On my way" && reply.notification == notification)
        #expect(UNNotificationDismissActionIdentifier == "com.apple.UNNotificationDismissActionIdentifier")
        #expect(request.trigger?.repeats == false)
    }
}
