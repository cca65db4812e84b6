// The media sample: attach an image. The file is validated (its bytes, not its name, decide the type), moved
// into the app's attachment store, and refused with Apple's error when it is not media.
import Foundation
import UserNotifications

@main
struct MediaAttachmentExample {
    static func main() async throws {
        let center = UNUserNotificationCenter.current()
        _ = try await center.requestAuthorization(options: [.alert])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("media-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // A 1×1 PNG, named .jpg on purpose.
        let png: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
            8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ]
        let imageURL = directory.appendingPathComponent("image.jpg")
        try Data(png).write(to: imageURL)

        let content = UNMutableNotificationContent()
        content.title = "Image Notification"
        let attachment = try UNNotificationAttachment(identifier: "image", url: imageURL, options: nil)
        print("type \(attachment.type)")
        content.attachments = [attachment]
        try await center.add(
            UNNotificationRequest(
                identifier: "media", content: content,
                trigger: UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false)))
        print("moved \(!FileManager.default.fileExists(atPath: imageURL.path))")
        if let stored = await center.pendingNotificationRequests().first?.content.attachments.first?.url {
            print("stored \(FileManager.default.fileExists(atPath: stored.path))")
        }

        let textURL = directory.appendingPathComponent("notes.png")
        try Data("just some text".utf8).write(to: textURL)
        do {
            _ = try UNNotificationAttachment(identifier: "notes", url: textURL, options: nil)
        } catch let error as UNError {
            print("refused \(error.code == .attachmentUnrecognizedType) \((error as NSError).domain) \((error as NSError).code)")
        }
        center.removeAllPendingNotificationRequests()
        _ = await center.pendingNotificationRequests()
    }
}
