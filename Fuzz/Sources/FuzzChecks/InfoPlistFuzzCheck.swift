import Foundation

@testable import UserNotifications

/// Info.plist files as `herald apps install` and the device daemon read them: BundleInfoPlist (compiled here from
/// HeraldDevice's own source files, with AppManifestError, BinaryPropertyList and ResolvedPath) and the typed lookups
/// AppManifest and ExtensionManifest make, and the conversion of NSExtensionAttributes to PropertyListValue. Any bytes
/// (XML or binary plist) read or fail with an AppManifestError, never crash.
///
/// AppManifest.load itself needs HeraldDevice, whose dependencies (TLS, Hummingbird) would double the fuzz build.
package enum InfoPlistFuzzCheck {
    /// One bundle on disk for the whole run, its Info.plist rewritten for each input.
    private static let bundle = FuzzBundle()

    package static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        bundle.write(infoPlist: Data(bytes))
        var read: (info: BundleInfoPlist, identifier: String)?
        if let error = refusal({ () throws(AppManifestError) in
            let info = try BundleInfoPlist.read(bundle: bundle.app, what: "app bundle")
            read = (info, try info.bundleIdentifier())
        }) {
            if error.description.isEmpty { throw FuzzFinding("an AppManifestError says nothing") }
            return
        }
        guard let (info, identifier) = read else { return }
        if identifier.isEmpty { throw FuzzFinding("an empty bundle identifier was accepted") }
        for key in ["CFBundleDisplayName", "CFBundleName", "CFBundleIconFile"] { _ = try? info.string(key) }
        _ = try? info.executable(executableDirectory: nil)
        if let definition = try? info.dictionary("NSExtension") {
            _ = try? info.requiredString("NSExtensionPointIdentifier", in: definition, path: "NSExtension", example: "example")
            if let attributes = try? info.dictionary("NSExtensionAttributes", in: definition, path: "NSExtension") {
                _ = try? PropertyListValue.dictionary(fromUserInfo: attributes)
            }
        }
        if let value = info.value("UIBackgroundModes") { _ = BundleInfoPlist.describe(value) }
    }
}

/// `App.app` with an executable `App`, in a directory of this process's.
private struct FuzzBundle: Sendable {
    let app: URL

    init() {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("herald-fuzz-\(getpid())", isDirectory: true)
        app = root.appendingPathComponent("App.app", isDirectory: true)
        try! FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: app.appendingPathComponent("App").path, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
    }

    func write(infoPlist: Data) {
        try! infoPlist.write(to: app.appendingPathComponent("Info.plist"))
    }
}
