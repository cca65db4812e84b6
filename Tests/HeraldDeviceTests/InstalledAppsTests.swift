import Dispatch
import Foundation
import HeraldTesting
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// The installed-app registry `DATA_DIR/device/apps.json`, on disk.
@Suite struct InstalledAppsTests {
    typealias Fixture = AppBundleFixture

    /// A loaded app with a service extension, in `fixture`.
    private func podcast(_ fixture: Fixture, name: String = "Podcast", identifier: String = "com.example.podcast", executable: String = "PodcastApp")
        throws -> AppManifest
    {
        let app = try fixture.app(name, identifier: identifier, executable: executable)
        try fixture.appex(in: app, "Service", identifier: identifier + ".service", point: Fixture.service)
        return try AppManifest.load(from: app)
    }

    private func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test func anEmptyRegistryListsNothingAndWritesNothing() throws {
        let data = try TemporaryDirectory()
        let apps = InstalledApps(dataDirectory: data.url)
        #expect(try apps.all().isEmpty)
        #expect(try apps.app(bundleID: "com.example.podcast") == nil)
        #expect(!FileManager.default.fileExists(atPath: apps.file.path))
        #expect(apps.file.path == data.url.appendingPathComponent("device/apps.json").path)
    }

    @Test func installWritesAPrivateFileAndReplacesBySameBundleID() throws {
        let fixture = try Fixture()
        let data = try TemporaryDirectory()
        let apps = InstalledApps(dataDirectory: data.url)
        var app = try podcast(fixture)

        #expect(try apps.install(app) == false)
        #expect(try mode(apps.file.path) == 0o600)
        #expect(try mode(apps.file.deletingLastPathComponent().path) == 0o700)
        #expect(try apps.all() == [app])
        #expect(try apps.app(bundleID: "com.example.podcast") == app)

        app.displayName = "Podcast 2"
        #expect(try apps.install(app) == true)
        #expect(try apps.all() == [app])
        #expect(try InstalledApps(dataDirectory: data.url).app(bundleID: "com.example.podcast")?.displayName == "Podcast 2")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: apps.file.deletingLastPathComponent().path).filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func removeTakesOutOnlyThatApp() throws {
        let fixture = try Fixture()
        let data = try TemporaryDirectory()
        let apps = InstalledApps(dataDirectory: data.url)
        let podcast = try podcast(fixture)
        let chat = try self.podcast(fixture, name: "Chat", identifier: "com.example.chat", executable: "ChatApp")
        try apps.install(podcast)
        try apps.install(chat)
        #expect(try apps.all().map(\.bundleIdentifier) == ["com.example.chat", "com.example.podcast"])

        #expect(try apps.remove(bundleID: "com.example.podcast") == true)
        #expect(try apps.remove(bundleID: "com.example.podcast") == false)
        #expect(try apps.all() == [chat])
    }

    @Test func looksUpAnAppByItsExecutableThroughSymlinksButNotByAnExtensions() throws {
        let fixture = try Fixture()
        let data = try TemporaryDirectory()
        let apps = InstalledApps(dataDirectory: data.url)
        let app = try podcast(fixture)
        try apps.install(app)

        let link = fixture.root.appendingPathComponent("podcast-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: app.executable)
        #expect(try apps.app(executable: link) == app)
        #expect(try apps.app(executable: app.executable) == app)
        let service = try #require(app.serviceExtension)
        #expect(try apps.app(executable: service.executable) == nil)
        #expect(try apps.app(executable: fixture.root.appendingPathComponent("missing")) == nil)
    }

    @Test func anotherAppWithTheSameExecutableIsRefused() throws {
        let fixture = try Fixture()
        let data = try TemporaryDirectory()
        let apps = InstalledApps(dataDirectory: data.url)
        var app = try podcast(fixture)
        try apps.install(app)
        app.bundleIdentifier = "com.example.copy"
        #expect {
            try apps.install(app)
        } throws: { error in
            "\(error)".contains("is already the executable of com.example.podcast") && "\(error)".contains("herald apps remove com.example.podcast")
        }
        #expect(try apps.all().count == 1)
    }

    @Test func aCorruptRegistryIsReportedWithItsPath() throws {
        let data = try TemporaryDirectory()
        let apps = InstalledApps(dataDirectory: data.url)
        try FileManager.default.createDirectory(at: apps.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: apps.file)
        #expect {
            try apps.all()
        } throws: { error in
            "\(error)".contains("\(apps.file.path) is not a Herald app registry")
        }
    }

    /// Several installers at once (other threads, as other processes would be): none is lost.
    @Test func concurrentInstallsAllLand() async throws {
        let fixture = try Fixture()
        let data = try TemporaryDirectory()
        let manifests = try (0..<8).map { try podcast(fixture, name: "App\($0)", identifier: "com.example.app\($0)", executable: "App\($0)") }
        let directory = data.url
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for manifest in manifests {
                DispatchQueue.global().async(group: group) {
                    _ = try? InstalledApps(dataDirectory: directory).install(manifest)
                }
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
        #expect(try InstalledApps(dataDirectory: data.url).all().count == 8)
    }
}
