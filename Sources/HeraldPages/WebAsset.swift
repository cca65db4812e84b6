import Foundation

/// A file of a web page Herald serves: the console's (HeraldGateway) and the device's notification center
/// (HeraldDevice), each from its target's resources, with the files every page shares (this target's `Assets`).
public struct WebAsset: Sendable {
    public var contentType: String
    public var bytes: [UInt8]

    public init(contentType: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.bytes = bytes
    }

    /// The pages, scripts and styles of `target`'s resources (`herald_TARGET.resources/Assets` beside the executable,
    /// where SwiftPM puts them), with the shared ones; empty when the target's are missing (a binary copied without
    /// them), and the server says so.
    public static func bundled(target: String) -> [String: WebAsset] {
        let own = directory("herald_\(target).resources/Assets")
        return own.isEmpty ? [:] : own.merging(directory("herald_HeraldPages.resources/Assets")) { mine, _ in mine }
    }

    private static func directory(_ path: String) -> [String: WebAsset] {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let types = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]
        for base in [Bundle.main.bundleURL, executable.deletingLastPathComponent()] {
            let directory = base.appendingPathComponent(path)
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
    }

    /// Why a server has no pages: its resource directory is not beside the binary.
    public static func missing(target: String, pages: String) -> String {
        "\(pages) missing: the directories herald_\(target).resources and herald_HeraldPages.resources must sit beside the herald binary"
    }
}
