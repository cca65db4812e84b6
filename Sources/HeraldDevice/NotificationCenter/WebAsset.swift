import Foundation

/// A file of the notification center page (`NotificationCenter/Assets`, the binary's resources).
package struct WebAsset: Sendable {
    var contentType: String
    var bytes: [UInt8]

    /// The page's files in `herald_HeraldDevice.resources/Assets` beside the executable (SwiftPM puts the resource
    /// bundle there); empty when it is missing (a binary copied without it), and the page says so.
    package static let bundled: [String: WebAsset] = {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let types = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]
        for base in [Bundle.main.bundleURL, executable.deletingLastPathComponent()] {
            let directory = base.appendingPathComponent("herald_HeraldDevice.resources/Assets")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            var assets: [String: WebAsset] = [:]
            for name in names {
                guard let type = types[(name as NSString).pathExtension],
                    let bytes = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
                else { continue }
                assets[name] = WebAsset(contentType: type, bytes: Array(bytes))
            }
            return assets
        }
        return [:]
    }()

    static let missing = "the notification center's page is missing: the directory herald_HeraldDevice.resources must sit beside the herald binary"
}
