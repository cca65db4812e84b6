// The seed tutorial's podcast service extension: a push with `mutable-content: 1` and the custom keys
// `podcast-guest` and `podcast-image` gets the title "New episode with GUEST" and the episode's image attached.
// The device daemon runs this executable for the app com.example.podcast (see ../Podcast.app/PlugIns).
// As on iOS, it imports only Foundation and UserNotifications (which brings URLSession on Linux), and keeps what it
// downloads in its caches directory (inside its own container, which the daemon makes for each run).
import Foundation
import UserNotifications

@main
final class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        guard let bestAttemptContent = bestAttemptContent else {
            contentHandler(request.content)
            return
        }
        let userInfo = request.content.userInfo
        if let guest = userInfo["podcast-guest"] as? String {
            bestAttemptContent.title = "New episode with \(guest)"
        }
        guard let image = userInfo["podcast-image"] as? String, let imageURL = URL(string: image) else {
            contentHandler(bestAttemptContent)
            return
        }
        download(imageURL) { file in
            if let file = file {
                do {
                    bestAttemptContent.attachments = [try UNNotificationAttachment(identifier: "podcast-image", url: file, options: nil)]
                } catch {
                    print("podcast-image \(imageURL.lastPathComponent) is not an image to attach: \(error.localizedDescription)")
                }
            }
            contentHandler(bestAttemptContent)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        // The download did not finish in time: show the new title without the image.
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }

    /// Fetches `url` (http, https or file) into a file of the caches directory named with the image's extension.
    private func download(_ url: URL, completion: @escaping (URL?) -> Void) {
        if url.isFileURL {
            completion(copyToCaches(url, pathExtension: url.pathExtension))
            return
        }
        let task = URLSession.shared.downloadTask(with: url) { location, response, error in
            guard let location = location, error == nil else {
                print("podcast-image download failed: \(error?.localizedDescription ?? "no file")")
                completion(nil)
                return
            }
            if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
                print("podcast-image download failed: HTTP \(http.statusCode)")
                completion(nil)
                return
            }
            let pathExtension = url.pathExtension.isEmpty ? Self.pathExtension(forMIMEType: response?.mimeType) : url.pathExtension
            completion(self.copyToCaches(location, pathExtension: pathExtension))
        }
        task.resume()
    }

    private func copyToCaches(_ source: URL, pathExtension: String) -> URL? {
        let caches = NSSearchPathForDirectoriesInDomains(.cachesDirectory, .userDomainMask, true)[0]
        let destination = URL(fileURLWithPath: caches)
            .appendingPathComponent("podcast-image-\(UUID().uuidString)").appendingPathExtension(pathExtension)
        do {
            try FileManager.default.copyItem(at: source, to: destination)
            return destination
        } catch {
            print("podcast-image cannot be copied: \(error.localizedDescription)")
            return nil
        }
    }

    private static func pathExtension(forMIMEType type: String?) -> String {
        switch type {
        case "image/jpeg": return "jpg"
        case "image/gif": return "gif"
        default: return "png"
        }
    }
}
