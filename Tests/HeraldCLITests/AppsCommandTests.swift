import ArgumentParser
import Foundation
import HeraldWire
import Testing

@testable import HeraldCLI

/// `herald apps install|list|remove`, parsed in-process and run as the built binary, with app bundles
/// whose executables are this package's SwiftPM-built examples (as apps built with SwiftPM are installed).
@Suite struct AppsCommandTests {
    /// `.build/debug`, where SwiftPM puts the examples installed as apps and extensions here.
    static let buildDirectory = HeraldProcess.built("").path
    /// The same with symlinks resolved (`.build/debug` is a link), as the registry stores executables.
    static let resolvedBuildDirectory = HeraldProcess.built("").resolvingSymlinksInPath().path

    /// A hand-written XML Info.plist.
    static func infoPlist(identifier: String, executable: String, extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>CFBundleIdentifier</key>
            <string>\(identifier)</string>
            <key>CFBundleExecutable</key>
            <string>\(executable)</string>
        \(extra)
        </dict>
        </plist>
        """
    }

    static func extensionKeys(point: String, principalClass: String, attributes: String = "") -> String {
        """
            <key>NSExtension</key>
            <dict>
                <key>NSExtensionPointIdentifier</key>
                <string>\(point)</string>
                <key>NSExtensionPrincipalClass</key>
                <string>\(principalClass)</string>
                <key>NSExtensionAttributes</key>
                <dict>\(attributes)</dict>
            </dict>
        """
    }

    /// `Service.app` (com.example.service) with a service and a content extension, all three executables
    /// being examples in `.build/debug`.
    static func serviceApp(in root: String, servicePoint: String = "com.apple.usernotifications.service") throws -> String {
        let app = root + "/Service.app"
        let files: [(String, String)] = [
            (
                app + "/Info.plist",
                infoPlist(
                    identifier: "com.example.service", executable: "NotificationServiceExample",
                    extra: "    <key>CFBundleDisplayName</key>\n    <string>Service Example</string>"
                )
            ),
            (
                app + "/PlugIns/Service.appex/Info.plist",
                infoPlist(
                    identifier: "com.example.service.extension", executable: "TimeIntervalExample",
                    extra: extensionKeys(point: servicePoint, principalClass: "NotificationService")
                )
            ),
            (
                app + "/PlugIns/Content.appex/Info.plist",
                infoPlist(
                    identifier: "com.example.service.content", executable: "CalendarExample",
                    extra: extensionKeys(
                        point: "com.apple.usernotifications.content-extension", principalClass: "NotificationViewController",
                        attributes: "<key>UNNotificationExtensionCategory</key><array><string>episode</string><string>guest</string></array>"
                    )
                )
            ),
        ]
        for (path, text) in files {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        return app
    }

    @Test func parsesTheContractSpellings() throws {
        let install = try #require(
            try HeraldCommand.parseAsRoot([
                "apps", "install", "Podcast.app", "--executable-dir", "/tmp", "--data-dir", "/tmp/data", "--json",
            ]) as? Apps.Install)
        #expect(install.path == "Podcast.app")
        #expect(install.executableDirectory == "/tmp")
        #expect(install.dataDirectory.path == "/tmp/data")
        #expect(install.json)

        let list = try #require(try HeraldCommand.parseAsRoot(["apps", "list", "--data-dir", "/tmp/data", "--json"]) as? Apps.List)
        #expect(list.dataDirectory.path == "/tmp/data" && list.json)

        let remove = try #require(
            try HeraldCommand.parseAsRoot(["apps", "remove", "com.example.podcast", "--data-dir", "/tmp/data"]) as? Apps.Remove)
        #expect(remove.bundleID == "com.example.podcast")
    }

    @Test func aMissingExecutableDirectoryIsExplainedBeforeAnythingRuns() {
        do {
            _ = try HeraldCommand.parseAsRoot(["apps", "install", "X.app", "--executable-dir", "/nonexistent-herald-dir"])
            Issue.record("parsed")
        } catch {
            #expect(HeraldCommand.message(for: error).contains("--executable-dir /nonexistent-herald-dir is not a directory"))
        }
    }

    @Test func installListReplaceAndRemoveAnApp() async throws {
        let root = CommandRunTests.temporaryDirectory()
        let data = root + "/data"
        let app = try Self.serviceApp(in: root)

        let installed = try await CommandRunTests.run(["apps", "install", app, "--executable-dir", Self.buildDirectory, "--data-dir", data])
        #expect(installed.status == 0, "\(installed.error)")
        #expect(installed.output.contains("installed com.example.service (Service Example)"))
        #expect(installed.output.contains("executable  \(Self.resolvedBuildDirectory)/NotificationServiceExample"))
        #expect(installed.output.contains("service     com.example.service.extension  \(Self.resolvedBuildDirectory)/TimeIntervalExample"))
        #expect(
            installed.output.contains(
                "content     com.example.service.content  \(Self.resolvedBuildDirectory)/CalendarExample  categories: episode, guest"))
        let registry = data + "/device/apps.json"
        #expect(try FileManager.default.attributesOfItem(atPath: registry)[.posixPermissions] as? Int == 0o600)

        let listed = try await CommandRunTests.run(["apps", "list", "--data-dir", data])
        #expect(listed.status == 0)
        #expect(listed.output.hasPrefix("com.example.service (Service Example)\n  executable  "))
        #expect(listed.output.contains("categories: episode, guest"))

        let json = try await CommandRunTests.run(["apps", "list", "--data-dir", data, "--json"])
        let lines = json.output.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try JSONValue.parse(Data(lines[0].utf8))
        #expect(object["bundleIdentifier"]?.stringValue == "com.example.service")
        #expect(object["executable"]?.stringValue == Self.resolvedBuildDirectory + "/NotificationServiceExample")
        guard case .array(let extensions)? = object["extensions"] else {
            Issue.record("no extensions")
            return
        }
        #expect(extensions.compactMap { $0["kind"]?.stringValue }.sorted() == ["content", "service"])
        #expect(extensions.first { $0["kind"]?.stringValue == "content" }?["categories"] == .array([.string("episode"), .string("guest")]))

        let again = try await CommandRunTests.run([
            "apps", "install", app + "/Info.plist", "--executable-dir", Self.buildDirectory, "--data-dir", data, "--json",
        ])
        #expect(again.status == 0, "\(again.error)")
        #expect(try JSONValue.parse(Data(again.output.utf8))["replaced"] == .bool(true))

        let removed = try await CommandRunTests.run(["apps", "remove", "com.example.service", "--data-dir", data])
        #expect(removed.status == 0)
        #expect(removed.output.contains("removed com.example.service"))
        let empty = try await CommandRunTests.run(["apps", "list", "--data-dir", data])
        #expect(empty.output.contains("no apps installed"))
        #expect(empty.output.contains("herald apps install"))

        let missing = try await CommandRunTests.run(["apps", "remove", "com.example.service", "--data-dir", data])
        #expect(missing.status != 0)
        #expect(missing.error.contains("com.example.service is not installed"))
        #expect(missing.error.contains("herald apps list"))
    }

    @Test func theDataDirectoryDefaultsToHeraldDataDir() async throws {
        let root = CommandRunTests.temporaryDirectory()
        let app = try Self.serviceApp(in: root)
        let process = try HeraldProcess.start(
            ["apps", "install", app, "--executable-dir", Self.buildDirectory], environment: ["HERALD_DATA_DIR": root + "/env-data"]
        )
        #expect(await process.exitStatus() == 0, "\(process.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: root + "/env-data/device/apps.json"))
    }

    @Test func installErrorsSayWhatToDo() async throws {
        let root = CommandRunTests.temporaryDirectory()
        let data = root + "/data"
        let app = try Self.serviceApp(in: root)

        let noExecutable = try await CommandRunTests.run(["apps", "install", app, "--data-dir", data])
        #expect(noExecutable.status != 0)
        #expect(noExecutable.error.contains("the executable NotificationServiceExample"))
        #expect(noExecutable.error.contains(app + "/NotificationServiceExample"))
        #expect(noExecutable.error.contains("--executable-dir"))

        let nowhere = try await CommandRunTests.run(["apps", "install", root + "/Nowhere.app", "--data-dir", data])
        #expect(nowhere.status != 0)
        #expect(nowhere.error.contains("Nowhere.app does not exist"))

        try FileManager.default.createDirectory(atPath: root + "/Empty.app", withIntermediateDirectories: true)
        let noPlist = try await CommandRunTests.run(["apps", "install", root + "/Empty.app", "--data-dir", data])
        #expect(noPlist.error.contains("no readable Info.plist"))

        try Data("<plist><dict><key>CFBundleIdentifier</key>".utf8).write(to: URL(fileURLWithPath: root + "/Empty.app/Info.plist"))
        let notPlist = try await CommandRunTests.run(["apps", "install", root + "/Empty.app", "--data-dir", data])
        #expect(notPlist.error.contains("is not a property list"))

        try Data(Self.infoPlist(identifier: "", executable: "x").utf8).write(to: URL(fileURLWithPath: root + "/Empty.app/Info.plist"))
        let noIdentifier = try await CommandRunTests.run(["apps", "install", root + "/Empty.app", "--data-dir", data])
        #expect(noIdentifier.error.contains("has no CFBundleIdentifier"))

        let shareRoot = root + "/share"
        let share = try Self.serviceApp(in: shareRoot, servicePoint: "com.apple.share-services")
        let unknown = try await CommandRunTests.run(["apps", "install", share, "--executable-dir", Self.buildDirectory, "--data-dir", data])
        #expect(unknown.error.contains("com.apple.share-services is not an extension point Herald runs"))

        let list = try await CommandRunTests.run(["apps", "list", "--data-dir", data, "--json"])
        #expect(list.status == 0 && list.output.isEmpty)
    }

    @Test func extensionIdentifierAndServiceCountErrorsReachTheUser() async throws {
        let root = CommandRunTests.temporaryDirectory()
        let data = root + "/data"
        let app = try Self.serviceApp(in: root)
        let second = app + "/PlugIns/Second.appex"
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        try Data(
            Self.infoPlist(
                identifier: "com.other.second", executable: "ManagementExample",
                extra: Self.extensionKeys(point: "com.apple.usernotifications.service", principalClass: "Second")
            ).utf8
        ).write(to: URL(fileURLWithPath: second + "/Info.plist"))
        let notPrefixed = try await CommandRunTests.run(["apps", "install", app, "--executable-dir", Self.buildDirectory, "--data-dir", data])
        #expect(notPrefixed.error.contains("must start with the app's bundle id and a dot"))

        try Data(
            Self.infoPlist(
                identifier: "com.example.service.second", executable: "ManagementExample",
                extra: Self.extensionKeys(point: "com.apple.usernotifications.service", principalClass: "Second")
            ).utf8
        ).write(to: URL(fileURLWithPath: second + "/Info.plist"))
        let twoServices = try await CommandRunTests.run(["apps", "install", app, "--executable-dir", Self.buildDirectory, "--data-dir", data])
        #expect(twoServices.error.contains("has 2 notification service extensions"))
    }
}
