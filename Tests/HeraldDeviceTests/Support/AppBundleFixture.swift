import Foundation
import HeraldTesting

/// App bundles on disk as iOS lays them out: `Name.app/Info.plist`, `Name.app/EXECUTABLE`,
/// `Name.app/PlugIns/Ext.appex/Info.plist`, written with `PropertyListSerialization`.
final class AppBundleFixture {
    let directory: TemporaryDirectory
    var root: URL { directory.url }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Writes `info` as `bundle/Info.plist` (creating `bundle`) in `format`.
    @discardableResult
    func writeInfo(_ info: [String: Any], in bundle: URL, format: PropertyListSerialization.PropertyListFormat = .xml) throws -> URL {
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let file = bundle.appendingPathComponent("Info.plist")
        try PropertyListSerialization.data(fromPropertyList: info, format: format, options: 0).write(to: file)
        return file
    }

    /// A shell script that exits 0, mode 0755 (or `mode`).
    @discardableResult
    func executable(_ url: URL, mode: Int = 0o755) throws -> URL {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("#!/bin/sh\nexit 0\n".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url
    }

    /// `NAME.app` with `Info.plist` (`CFBundleIdentifier` = `identifier`, `CFBundleExecutable` = `executable`,
    /// plus `extra`) and the executable in the bundle unless `executableInBundle` is false.
    func app(
        _ name: String = "Podcast", identifier: String = "com.example.podcast", executable: String = "PodcastApp",
        extra: [String: Any] = [:], executableInBundle: Bool = true,
        format: PropertyListSerialization.PropertyListFormat = .xml
    ) throws -> URL {
        let bundle = root.appendingPathComponent("\(name).app", isDirectory: true)
        var info: [String: Any] = ["CFBundleIdentifier": identifier, "CFBundleExecutable": executable]
        info.merge(extra) { $1 }
        try writeInfo(info, in: bundle, format: format)
        if executableInBundle { try self.executable(bundle.appendingPathComponent(executable)) }
        return bundle
    }

    /// `app/PlugIns/NAME.appex` with an `NSExtension` for `point`, and its executable in the bundle.
    @discardableResult
    func appex(
        in app: URL, _ name: String, identifier: String, point: String, principalClass: String? = nil,
        attributes: [String: Any]? = nil, executable: String? = nil, executableInBundle: Bool = true
    ) throws -> URL {
        let bundle = app.appendingPathComponent("PlugIns/\(name).appex", isDirectory: true)
        var definition: [String: Any] = ["NSExtensionPointIdentifier": point]
        if let principalClass { definition["NSExtensionPrincipalClass"] = principalClass }
        if let attributes { definition["NSExtensionAttributes"] = attributes }
        let executableName = executable ?? name
        try writeInfo(["CFBundleIdentifier": identifier, "CFBundleExecutable": executableName, "NSExtension": definition], in: bundle)
        if executableInBundle { try self.executable(bundle.appendingPathComponent(executableName)) }
        return bundle
    }

    static let service = "com.apple.usernotifications.service"
    static let content = "com.apple.usernotifications.content-extension"
}
