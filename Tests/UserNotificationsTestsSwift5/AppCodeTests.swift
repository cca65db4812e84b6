// Code written the way iOS apps write it, compiled in the Swift 5 language mode: it must build unchanged.
import CoreLocation
import Foundation
import Testing
import UserNotifications
import UserNotificationsUI

/// The seeds' image extension: downloads with `URLSession.shared` (no FoundationNetworking import, as on iOS) into
/// the caches directory and attaches the file.
final class ImageNotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = (request.content.mutableCopy() as? UNMutableNotificationContent) ?? UNMutableNotificationContent()
        guard let urlString = request.content.userInfo["image-url"] as? String, let url = URL(string: urlString) else {
            contentHandler(content)
            return
        }
        URLSession.shared.downloadTask(with: url) { location, response, error in
            defer { contentHandler(content) }
            guard let location = location, (response as? HTTPURLResponse)?.statusCode ?? 200 == 200 else { return }
            let caches = NSSearchPathForDirectoriesInDomains(.cachesDirectory, .userDomainMask, true)[0]
            let file = URL(fileURLWithPath: caches).appendingPathComponent(url.lastPathComponent)
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.moveItem(at: location, to: file)
            if let attachment = try? UNNotificationAttachment(identifier: "image", url: file, options: nil) {
                content.attachments = [attachment]
            }
        }.resume()
    }
}

/// The seeds read an attachment the system keeps between these calls.
func firstAttachmentData(of notification: UNNotification) -> Data? {
    guard let attachment = notification.request.content.attachments.first,
        attachment.url.startAccessingSecurityScopedResource()
    else { return nil }
    defer { attachment.url.stopAccessingSecurityScopedResource() }
    return try? Data(contentsOf: attachment.url)
}

final class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        if let bestAttemptContent = bestAttemptContent {
            bestAttemptContent.title = "\(bestAttemptContent.title) [modified]"
            contentHandler(bestAttemptContent)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

final class SendableHandlerService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void)
    {
        contentHandler(request.content)
    }
}

final class NotificationViewController: NSObject, UNNotificationContentExtension {
    var label = ""
    func didReceive(_ notification: UNNotification) {
        label = notification.request.content.body
    }
}

final class PlayingViewController: NSObject, UNNotificationContentExtension {
    var playing = false
    func didReceive(_ notification: UNNotification) {}
    var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType { return .overlay }
    func mediaPlay() { playing = true }
    func didReceive(
        _ response: UNNotificationResponse, completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        completion(.doNotDismiss)
    }
}

func makeReminder() -> UNNotificationRequest {
    let content = UNMutableNotificationContent()
    content.title = NSString.localizedUserNotificationString(forKey: "Wake up!", arguments: nil)
    content.body = String.localizedUserNotificationString(forKey: "Rise and shine! It's morning time!", arguments: nil)
    content.sound = UNNotificationSound.default
    content.badge = 1
    content.categoryIdentifier = "ALARM"
    content.userInfo = ["MEETING_ID": "1234", "USER_ID": 42]
    content.interruptionLevel = .timeSensitive

    var dateInfo = DateComponents()
    dateInfo.hour = 7
    dateInfo.minute = 0
    let trigger = UNCalendarNotificationTrigger(dateMatching: dateInfo, repeats: false)
    return UNNotificationRequest(identifier: "MorningAlarm", content: content, trigger: trigger)
}

func makeCategories() -> Set<UNNotificationCategory> {
    let acceptAction = UNNotificationAction(identifier: "ACCEPT_ACTION", title: "Accept", options: UNNotificationActionOptions(rawValue: 0))
    let declineAction = UNNotificationAction(identifier: "DECLINE_ACTION", title: "Decline", options: [.destructive])
    let replyAction = UNTextInputNotificationAction(
        identifier: "REPLY", title: "Reply", options: [],
        textInputButtonTitle: "Send", textInputPlaceholder: "Type here")
    let meetingInviteCategory = UNNotificationCategory(
        identifier: "MEETING_INVITATION", actions: [acceptAction, declineAction, replyAction],
        intentIdentifiers: [], hiddenPreviewsBodyPlaceholder: "",
        options: .customDismissAction)
    return [meetingInviteCategory]
}

func handle(_ response: UNNotificationResponse) -> String {
    let userInfo = response.notification.request.content.userInfo
    let meetingID = userInfo["MEETING_ID"] as! String
    switch response.actionIdentifier {
    case "ACCEPT_ACTION": return "accepted \(meetingID)"
    case UNNotificationDefaultActionIdentifier: return "opened"
    case UNNotificationDismissActionIdentifier: return "dismissed"
    default:
        if let textResponse = response as? UNTextInputNotificationResponse { return textResponse.userText }
        return "other"
    }
}

func describe(_ settings: UNNotificationSettings) -> String {
    switch settings.authorizationStatus {
    case .authorized, .provisional, .ephemeral: return "allowed"
    case .denied: return "denied"
    case .notDetermined: return "ask"
    @unknown default: return "unknown"
    }
}

func attach(_ url: URL) -> String {
    do {
        let attachment = try UNNotificationAttachment(
            identifier: "image", url: url,
            options: [
                UNNotificationAttachmentOptionsTypeHintKey: "public.jpeg",
                UNNotificationAttachmentOptionsThumbnailHiddenKey: false,
            ])
        return attachment.type
    } catch let error as UNError where error.code == .attachmentInvalidURL {
        return "invalid URL"
    } catch UNError.attachmentCorrupt {
        return "corrupt"
    } catch {
        return error.localizedDescription
    }
}

@Suite struct AppCodeTests {
    @Test func reminderRequest() {
        let request = makeReminder()
        #expect(request.content.title == "Wake up!")
        #expect(request.content.badge == 1)
        let trigger = request.trigger as? UNCalendarNotificationTrigger
        #expect(trigger?.dateComponents.hour == 7)
        #expect(trigger?.nextTriggerDate() != nil)
    }

    @Test func categories() {
        let categories = makeCategories()
        #expect(categories.count == 1)
        #expect(categories.first?.actions.count == 3)
        let options: UNAuthorizationOptions = [.alert, .sound, .badge]
        #expect(options.rawValue == 7)
        let presentation: UNNotificationPresentationOptions = [.banner, .list, .sound]
        #expect(presentation.contains(.banner))
    }

    @Test func serviceExtensionTemplate() {
        let service = NotificationService()
        var shown: UNNotificationContent?
        service.didReceive(makeReminder()) { shown = $0 }
        #expect(shown?.title == "Wake up! [modified]")
        let plain = SendableHandlerService()
        plain.didReceive(makeReminder()) { content in #expect(content.title == "Wake up!") }
    }

    @Test func securityScopedResourcesAreReadableFiles() throws {
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scoped-\(UUID().uuidString).txt")
        try Data("kept".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(file.startAccessingSecurityScopedResource())
        file.stopAccessingSecurityScopedResource()
        #expect(!file.appendingPathExtension("missing").startAccessingSecurityScopedResource())
        #expect(!URL(string: "https://example.com/a.png")!.startAccessingSecurityScopedResource())
        let session: URLSession = URLSession.shared
        #expect(session.configuration.timeoutIntervalForRequest > 0)
    }

    @Test func missingAttachment() {
        #expect(attach(URL(fileURLWithPath: "/nonexistent/image.jpg")) == "invalid URL")
    }

    @Test func locationTrigger() {
        let center = CLLocationCoordinate2D(latitude: 37.335400, longitude: -122.009201)
        let region = CLCircularRegion(center: center, radius: 2000.0, identifier: "Headquarters")
        region.notifyOnEntry = true
        region.notifyOnExit = false
        let trigger = UNLocationNotificationTrigger(region: region, repeats: false)
        #expect(trigger.region.identifier == "Headquarters")
        let interval = UNTimeIntervalNotificationTrigger(timeInterval: (30 * 60), repeats: false)
        #expect(interval.timeInterval == 1800)
    }

    @Test func responsesAndSettings() {
        let notification = UNNotification(request: makeReminder(), date: Date())
        let meeting = UNMutableNotificationContent()
        meeting.userInfo = ["MEETING_ID": "m-7"]
        let invite = UNNotification(request: UNNotificationRequest(identifier: "invite", content: meeting, trigger: nil), date: Date())
        #expect(handle(UNNotificationResponse(notification: invite, actionIdentifier: "ACCEPT_ACTION")) == "accepted m-7")
        #expect(handle(UNNotificationResponse(notification: invite, actionIdentifier: UNNotificationDismissActionIdentifier)) == "dismissed")
        #expect(handle(UNTextInputNotificationResponse(notification: invite, actionIdentifier: "REPLY", userText: "Late")) == "Late")
        #expect(notification.request.identifier == "MorningAlarm")
        var settings = SettingsRecord()
        #expect(describe(UNNotificationSettings(settings)) == "ask")
        settings.authorizationStatus = .denied
        #expect(describe(UNNotificationSettings(settings)) == "denied")
    }

    @MainActor @Test func contentExtensions() {
        let notification = UNNotification(request: makeReminder(), date: Date())
        let controller = NotificationViewController()
        controller.didReceive(notification)
        #expect(controller.label == "Rise and shine! It's morning time!")
        #expect(controller.mediaPlayPauseButtonType == .none)
        var options: [UNNotificationContentExtensionResponseOption] = []
        let response = UNNotificationResponse(notification: notification, actionIdentifier: "ACCEPT_ACTION")
        controller.didReceive(response) { options.append($0) }
        let playing = PlayingViewController()
        playing.didReceive(response) { options.append($0) }
        #expect(options == [.dismissAndForwardAction, .doNotDismiss])
        #expect(playing.mediaPlayPauseButtonType == .overlay)
        playing.mediaPlay()
        #expect(playing.playing)
    }
}
