import Foundation
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// App bundles read from disk as iOS reads them: Info.plist keys, PlugIns extensions, executables.
@Suite struct AppManifestTests {
    typealias Fixture = AppBundleFixture

    private func resolved(_ url: URL) throws -> String {
        try #require(ResolvedPath.resolve(url)).path
    }

    @Test func readsAnXMLBundleWithAServiceAndAContentExtension() throws {
        let fixture = try Fixture()
        let app = try fixture.app(extra: ["CFBundleDisplayName": "Podcasts", "CFBundleName": "Podcast"])
        try fixture.appex(
            in: app, "Service", identifier: "com.example.podcast.service", point: Fixture.service, principalClass: "NotificationService")
        try fixture.appex(
            in: app, "Content", identifier: "com.example.podcast.content", point: Fixture.content, principalClass: "NotificationViewController",
            attributes: [
                "UNNotificationExtensionCategory": ["episode", "guest", "episode"],
                "UNNotificationExtensionInitialContentSizeRatio": 0.5,
                "UNNotificationExtensionDefaultContentHidden": true,
                "UNNotificationExtensionUserInteractionEnabled": "YES",
            ])

        let manifest = try AppManifest.load(from: app)
        #expect(manifest.bundleIdentifier == "com.example.podcast")
        #expect(manifest.displayName == "Podcasts")
        #expect(manifest.bundleDirectory.path == (try resolved(app)))
        #expect(manifest.executable.path == (try resolved(app.appendingPathComponent("PodcastApp"))))
        #expect(manifest.extensions.map(\.bundleIdentifier) == ["com.example.podcast.content", "com.example.podcast.service"])

        let service = try #require(manifest.serviceExtension)
        #expect(service.kind == .service)
        #expect(service.principalClass == "NotificationService")
        #expect(service.categories.isEmpty)
        #expect(service.executable.path == (try resolved(app.appendingPathComponent("PlugIns/Service.appex/Service"))))
        #expect(service.bundleDirectory.path == (try resolved(app.appendingPathComponent("PlugIns/Service.appex"))))

        let content = try #require(manifest.contentExtension(forCategory: "guest"))
        #expect(content.kind == .content)
        #expect(content.categories == ["episode", "guest"])
        #expect(content.principalClass == "NotificationViewController")
        #expect(content.initialContentSizeRatio == 0.5)
        #expect(content.defaultContentHidden)
        #expect(content.userInteractionEnabled)
        #expect(!content.overridesDefaultTitle)
        #expect(content.attributes["UNNotificationExtensionDefaultContentHidden"] == .bool(true))
        #expect(manifest.contentExtension(forCategory: "episode") == content)
        #expect(manifest.contentExtension(forCategory: "other") == nil)

        #expect(try AppManifest.load(from: app.appendingPathComponent("Info.plist")) == manifest)
    }

    @Test func readsABinaryInfoPlistAndACategoryGivenAsAString() throws {
        let fixture = try Fixture()
        let app = try fixture.app("Chat", identifier: "com.example.chat", executable: "Chat", extra: ["CFBundleName": "Chat"], format: .binary)
        let plist = try Data(contentsOf: app.appendingPathComponent("Info.plist"))
        #expect(plist.starts(with: Data("bplist".utf8)))
        try fixture.appex(
            in: app, "Content", identifier: "com.example.chat.content", point: Fixture.content,
            attributes: ["UNNotificationExtensionCategory": "message"])

        let manifest = try AppManifest.load(from: app)
        #expect(manifest.bundleIdentifier == "com.example.chat")
        #expect(manifest.displayName == "Chat")
        #expect(manifest.serviceExtension == nil)
        #expect(manifest.contentExtension(forCategory: "message")?.bundleIdentifier == "com.example.chat.content")
    }

    @Test func findsExecutablesInTheExecutableDirectoryAndResolvesSymlinks() throws {
        let fixture = try Fixture()
        let build = fixture.root.appendingPathComponent("build/debug")
        try fixture.executable(build.appendingPathComponent("PodcastApp"))
        try fixture.executable(build.appendingPathComponent("PodcastService"))
        let linkedBuild = fixture.root.appendingPathComponent("linked-build")
        try FileManager.default.createSymbolicLink(at: linkedBuild, withDestinationURL: build)
        let app = try fixture.app(executableInBundle: false)
        try fixture.appex(
            in: app, "Service", identifier: "com.example.podcast.service", point: Fixture.service, executable: "PodcastService",
            executableInBundle: false)

        let manifest = try AppManifest.load(from: app, executableDirectory: linkedBuild)
        #expect(manifest.executable.path == (try resolved(build.appendingPathComponent("PodcastApp"))))
        #expect(!manifest.executable.path.contains("linked-build"))
        #expect(manifest.serviceExtension?.executable.path == (try resolved(build.appendingPathComponent("PodcastService"))))
    }

    @Test func anExecutableInTheBundleWinsAndASymlinkedOneIsResolved() throws {
        let fixture = try Fixture()
        let real = try fixture.executable(fixture.root.appendingPathComponent("elsewhere/podcast-binary"))
        let app = try fixture.app(executableInBundle: false)
        try FileManager.default.createSymbolicLink(at: app.appendingPathComponent("PodcastApp"), withDestinationURL: real)
        let other = fixture.root.appendingPathComponent("other")
        try fixture.executable(other.appendingPathComponent("PodcastApp"))

        let manifest = try AppManifest.load(from: app, executableDirectory: other)
        #expect(manifest.executable.path == (try resolved(real)))
    }

    @Test func aManifestRoundTripsThroughJSONWithPlainPaths() throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        try fixture.appex(
            in: app, "Content", identifier: "com.example.podcast.content", point: Fixture.content,
            attributes: [
                "UNNotificationExtensionCategory": "episode", "UNNotificationExtensionInitialContentSizeRatio": 1,
            ])
        let manifest = try AppManifest.load(from: app)
        let data = try JSONEncoder().encode(manifest)
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains(#""executable":""#) && !json.contains("file://"))
        #expect(try JSONDecoder().decode(AppManifest.self, from: data) == manifest)
    }

    /// What the desktop shows of an app: `CFBundleIconFile` (".png" added), else `AppIcon.png`, else no icon; the
    /// desktop entry when `BUNDLE_ID.desktop` is in an XDG applications directory.
    @Test func theIconAndDesktopEntryComeFromTheBundleAndXDGDirectories() throws {
        let fixture = try Fixture()
        let named = try fixture.app("Named", identifier: "com.example.named", extra: ["CFBundleIconFile": "Bell", "CFBundleDisplayName": "Bells"])
        try Data([0x89, 0x50]).write(to: named.appendingPathComponent("Bell.png"))
        try Data([0x89, 0x50]).write(to: named.appendingPathComponent("AppIcon.png"))
        let plain = try fixture.app("Plain", identifier: "com.example.plain")
        let applications = fixture.root.appendingPathComponent("share/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try Data("[Desktop Entry]\nName=Bells\n".utf8).write(to: applications.appendingPathComponent("com.example.named.desktop"))
        let environment = ["HOME": fixture.root.path, "XDG_DATA_HOME": fixture.root.appendingPathComponent("share").path]

        let manifest = try AppManifest.load(from: named)
        #expect(manifest.iconFile == "Bell.png")
        let app = Presentation.App(manifest, bundleID: "com.example.named", environment: environment)
        #expect(app.displayName == "Bells" && app.desktopEntry == "com.example.named")
        #expect(app.iconPath == manifest.bundleDirectory.appendingPathComponent("Bell.png").path)
        #expect(app.bundleDirectory == manifest.bundleDirectory.path)
        let other = Presentation.App(try AppManifest.load(from: plain), bundleID: "com.example.plain", environment: environment)
        #expect(other.iconPath == nil && other.desktopEntry == nil && other.displayName == "com.example.plain")
        #expect(Presentation.App(nil, bundleID: "com.example.gone", environment: environment).bundleDirectory == nil)
    }

    // MARK: - Errors

    /// The error `load` throws; nil when it succeeds.
    private func error(_ load: () throws -> AppManifest) -> AppManifestError? {
        do {
            _ = try load()
            return nil
        } catch {
            return error as? AppManifestError
        }
    }

    @Test func aMissingBundleOrInfoPlistIsNamed() throws {
        let fixture = try Fixture()
        let nowhere = fixture.root.appendingPathComponent("Nowhere.app")
        let missing = try #require(error { try AppManifest.load(from: nowhere) })
        #expect(missing.code == .missingInfoPlist)
        #expect(missing.message.contains("\(nowhere.path) does not exist"))

        let empty = fixture.root.appendingPathComponent("Empty.app")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let noPlist = try #require(error { try AppManifest.load(from: empty) })
        #expect(noPlist.code == .missingInfoPlist)
        #expect(noPlist.message.contains("no readable Info.plist in the app bundle"))
        #expect(noPlist.message.contains("Empty.app"))
    }

    @Test func aFileThatIsNotAPropertyListIsRefused() throws {
        let fixture = try Fixture()
        let app = fixture.root.appendingPathComponent("Broken.app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try Data("<plist><dict><key>CFBundleIdentifier</key>".utf8).write(to: app.appendingPathComponent("Info.plist"))
        let broken = try #require(error { try AppManifest.load(from: app) })
        #expect(broken.code == .notAPropertyList)
        #expect(broken.message.contains("Broken.app/Info.plist is not a property list"))

        try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0).write(to: app.appendingPathComponent("Info.plist"))
        let array = try #require(error { try AppManifest.load(from: app) })
        #expect(array.code == .notAPropertyList)
        #expect(array.message.contains("holds an array at the top level"))
    }

    /// Found by Fuzz/FuzzInfoPlist: PropertyListSerialization crashed (SEGV) on a binary plist holding a set.
    @Test func aBinaryPropertyListHoldingASetIsRefused() throws {
        let fixture = try Fixture()
        let app = fixture.root.appendingPathComponent("Set.app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try BinaryPropertyListSample.dictionaryWithASet.write(to: app.appendingPathComponent("Info.plist"))
        let refused = try #require(error { try AppManifest.load(from: app) })
        #expect(refused.code == .notAPropertyList)
        #expect(refused.message.contains("holding a set"))
        #expect(!BinaryPropertyList.holdsASet(try PropertyListSerialization.data(fromPropertyList: ["a": ["b"]], format: .binary, options: 0)))
    }

    @Test func missingOrMalformedKeysSayWhatToAdd() throws {
        let fixture = try Fixture()
        let app = fixture.root.appendingPathComponent("Keys.app")
        func load(_ info: [String: Any]) throws -> AppManifestError? {
            try fixture.writeInfo(info, in: app)
            return error { try AppManifest.load(from: app) }
        }
        let noIdentifier = try #require(try load(["CFBundleExecutable": "X"]))
        #expect(noIdentifier.code == .missingKey)
        #expect(noIdentifier.message.contains("has no CFBundleIdentifier; add <key>CFBundleIdentifier</key><string>com.example.app</string>"))

        let badIdentifier = try #require(try load(["CFBundleIdentifier": "com example", "CFBundleExecutable": "X"]))
        #expect(badIdentifier.code == .invalidValue)
        #expect(badIdentifier.message.contains("not a bundle id"))

        let numberIdentifier = try #require(try load(["CFBundleIdentifier": 42, "CFBundleExecutable": "X"]))
        #expect(numberIdentifier.code == .invalidValue)
        #expect(numberIdentifier.message.contains("CFBundleIdentifier must be a string, not a number"))

        let noExecutable = try #require(try load(["CFBundleIdentifier": "com.example.keys"]))
        #expect(noExecutable.code == .missingKey)
        #expect(noExecutable.message.contains("CFBundleExecutable"))

        let xcodeSetting = try #require(try load(["CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)", "CFBundleExecutable": "X"]))
        #expect(xcodeSetting.code == .invalidValue)
        #expect(xcodeSetting.message.contains("an Xcode build setting that only Xcode expands; write the value itself, like com.example.app"))

        let pathExecutable = try #require(try load(["CFBundleIdentifier": "com.example.keys", "CFBundleExecutable": "../bin/x"]))
        #expect(pathExecutable.code == .invalidValue)
    }

    @Test func anExecutableFoundNowhereNamesWhereItLookedAndSuggestsTheExecutableDirectory() throws {
        let fixture = try Fixture()
        let app = try fixture.app(executableInBundle: false)
        let notFound = try #require(error { try AppManifest.load(from: app) })
        #expect(notFound.code == .executableNotFound)
        #expect(notFound.message.contains("the executable PodcastApp"))
        #expect(notFound.message.contains(app.appendingPathComponent("PodcastApp").path))
        #expect(notFound.message.contains("--executable-dir"))

        let build = fixture.root.appendingPathComponent("build")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        let stillNotFound = try #require(error { try AppManifest.load(from: app, executableDirectory: build) })
        #expect(stillNotFound.code == .executableNotFound)
        #expect(stillNotFound.message.contains(build.appendingPathComponent("PodcastApp").path))

        try fixture.executable(app.appendingPathComponent("PodcastApp"), mode: 0o644)
        let notExecutable = try #require(error { try AppManifest.load(from: app) })
        #expect(notExecutable.code == .executableNotExecutable)
        #expect(notExecutable.message.contains("chmod +x"))

        try FileManager.default.removeItem(at: app.appendingPathComponent("PodcastApp"))
        try FileManager.default.createDirectory(at: app.appendingPathComponent("PodcastApp"), withIntermediateDirectories: true)
        let directory = try #require(error { try AppManifest.load(from: app) })
        #expect(directory.code == .executableNotExecutable)
    }

    @Test func anExtensionOfAnotherExtensionPointIsRefused() throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        try fixture.appex(in: app, "Share", identifier: "com.example.podcast.share", point: "com.apple.share-services")
        let unknown = try #require(error { try AppManifest.load(from: app) })
        #expect(unknown.code == .unknownExtensionPoint)
        #expect(unknown.message.contains("com.apple.share-services is not an extension point Herald runs"))
        #expect(unknown.message.contains("com.apple.usernotifications.service"))
        #expect(unknown.message.contains("com.apple.widgetkit-extension"))
        #expect(unknown.message.contains("Share.appex"))
    }

    @Test func anExtensionWithoutNSExtensionIsRefused() throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        try fixture.writeInfo(
            ["CFBundleIdentifier": "com.example.podcast.service", "CFBundleExecutable": "S"], in: app.appendingPathComponent("PlugIns/Service.appex"))
        let missing = try #require(error { try AppManifest.load(from: app) })
        #expect(missing.code == .missingKey)
        #expect(missing.message.contains("has no NSExtension"))

        let noInfo = app.appendingPathComponent("PlugIns/Empty.appex")
        try FileManager.default.removeItem(at: app.appendingPathComponent("PlugIns/Service.appex"))
        try FileManager.default.createDirectory(at: noInfo, withIntermediateDirectories: true)
        let noPlist = try #require(error { try AppManifest.load(from: app) })
        #expect(noPlist.code == .missingInfoPlist)
        #expect(noPlist.message.contains("extension bundle"))
    }

    @Test(arguments: ["com.other.service", "com.example.podcastservice", "com.example.podcast.", "com.example.podcast"])
    func anExtensionIdentifierMustBePrefixedByTheAppsAndADot(identifier: String) throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        try fixture.appex(in: app, "Service", identifier: identifier, point: Fixture.service)
        let notPrefixed = try #require(error { try AppManifest.load(from: app) })
        if identifier.hasSuffix(".") {
            #expect(notPrefixed.code == .invalidValue)  // not a bundle id at all
        } else {
            #expect(notPrefixed.code == .extensionIdentifierNotPrefixed)
            #expect(notPrefixed.message.contains("must start with the app's bundle id and a dot, like com.example.podcast.service"))
        }
    }

    @Test func twoServiceExtensionsAreRefused() throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        try fixture.appex(in: app, "ServiceA", identifier: "com.example.podcast.a", point: Fixture.service)
        try fixture.appex(in: app, "ServiceB", identifier: "com.example.podcast.b", point: Fixture.service)
        let two = try #require(error { try AppManifest.load(from: app) })
        #expect(two.code == .duplicateServiceExtension)
        #expect(two.message.contains("ServiceA.appex (com.example.podcast.a) and ServiceB.appex (com.example.podcast.b)"))
        #expect(two.message.contains("at most one"))
    }

    @Test func contentExtensionsNeedTheirOwnCategories() throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        try fixture.appex(in: app, "Content", identifier: "com.example.podcast.content", point: Fixture.content)
        let none = try #require(error { try AppManifest.load(from: app) })
        #expect(none.code == .missingKey)
        #expect(none.message.contains("UNNotificationExtensionCategory"))

        try fixture.appex(
            in: app, "Content", identifier: "com.example.podcast.content", point: Fixture.content, attributes: ["UNNotificationExtensionCategory": 7])
        let number = try #require(error { try AppManifest.load(from: app) })
        #expect(number.code == .invalidValue)
        #expect(number.message.contains("not a number"))

        try fixture.appex(
            in: app, "Content", identifier: "com.example.podcast.content", point: Fixture.content,
            attributes: ["UNNotificationExtensionCategory": "episode"])
        try fixture.appex(
            in: app, "Content2", identifier: "com.example.podcast.content2", point: Fixture.content,
            attributes: ["UNNotificationExtensionCategory": ["guest", "episode"]])
        let shared = try #require(error { try AppManifest.load(from: app) })
        #expect(shared.code == .duplicateExtension)
        #expect(shared.message.contains("both name the category episode"))
    }
}
