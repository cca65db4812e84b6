import Foundation
import HeraldDevice
import Testing
import UserNotifications

/// The example apps' service extensions (Examples/Podcast, Examples/EndToEnd) run as the device daemon runs them.
@Suite struct ExampleServiceExtensionTests {
    static let podcast = ExtensionHarness.built("PodcastServiceExtension")
    static let endToEnd = ExtensionHarness.built("EndToEndServiceExtension")
    static let provider = ExtensionHarness.built("EndToEndProvider")

    /// A real 1×1 PNG.
    static let png = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xC9, 0xFE, 0x92, 0xEF, 0x00, 0x00, 0x00,
        0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])

    private let runner = ExtensionHarness.patient

    private func expectImageAttached(
        _ outcome: ServiceExtensionOutcome, _ harness: ExtensionHarness,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(outcome.source == .extensionContent, "\(outcome.source) \(outcome.log)", sourceLocation: sourceLocation)
        #expect(outcome.request.content.title == "New episode with Ada Lovelace", sourceLocation: sourceLocation)
        let attachment = try #require(outcome.request.content.attachments.first, "\(outcome.log)", sourceLocation: sourceLocation)
        #expect(attachment.identifier == "podcast-image" && attachment.type == "public.png", sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: attachment.url) == Self.png, sourceLocation: sourceLocation)
        #expect(attachment.url.path.hasPrefix(harness.store.directory.path + "/"), sourceLocation: sourceLocation)
    }

    @Test func podcastRewritesTheTitleAndAttachesAFileImage() async throws {
        let harness = try ExtensionHarness()
        let image = harness.dataDirectory.appendingPathComponent("cover.png")
        try Self.png.write(to: image)
        let request = try ExtensionHarness.request(
            title: "New episode", body: "Listen now",
            userInfo: ["podcast-guest": "Ada Lovelace", "podcast-image": image.absoluteString])
        let outcome = await harness.run(request, runner: runner, executable: Self.podcast)
        try expectImageAttached(outcome, harness)
        #expect(FileManager.default.fileExists(atPath: image.path))  // the extension copied it to its TMPDIR
    }

    @Test func podcastDownloadsAnHTTPImage() async throws {
        let harness = try ExtensionHarness()
        let server = try TinyHTTPServer(body: Self.png, contentType: "image/png")
        defer { server.stop() }
        let request = try ExtensionHarness.request(
            title: "New episode", body: "Listen now",
            userInfo: [
                "podcast-guest": "Ada Lovelace", "podcast-image": "http://127.0.0.1:\(server.port)/covers/12",
            ])
        let outcome = await harness.run(request, runner: runner, executable: Self.podcast)
        try expectImageAttached(outcome, harness)
    }

    @Test func podcastWithoutItsKeysShowsTheContentUnchanged() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(title: "New episode", body: "Listen now")
        let outcome = await harness.run(request, runner: runner, executable: Self.podcast)
        #expect(outcome.source == .extensionContent)
        #expect(outcome.request == request)
    }

    private func provide(_ arguments: [String], _ harness: ExtensionHarness) async throws -> (status: Int32, output: Data, error: String) {
        try await harness.runToEnd(Self.provider, arguments, environment: ["HERALD_DATA_DIR": harness.dataDirectory.path])
    }

    @Test func endToEndDecryptsWhatTheProviderSealed() async throws {
        let harness = try ExtensionHarness()
        let secret = "Meet me at the usual place at 7"
        let provided = try await provide(["--title", "From Alice", secret], harness)
        #expect(provided.status == 0, "\(provided.error)")
        let payload = String(decoding: provided.output, as: UTF8.self)
        #expect(!payload.contains(secret) && !payload.contains("From Alice"))
        #expect(payload.contains(#""mutable-content":1"#))

        let request = try ExtensionHarness.request(payload: provided.output)
        #expect(request.content.body == "You have a new encrypted message.")
        let sealed = try #require(request.content.userInfo["ciphertext"])
        #expect(sealed != .string(secret))
        let outcome = await harness.run(request, runner: runner, executable: Self.endToEnd)
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.request.content.body == secret)
        #expect(outcome.request.content.title == "From Alice")
        #expect(outcome.request.content.userInfo["ciphertext"] == nil)
        let key = harness.dataDirectory.appendingPathComponent("app-groups/group.com.example.e2e/message.key")
        #expect(try Data(contentsOf: key).count == 32)
    }

    @Test func theProviderRefusesAMissingBody() async throws {
        let harness = try ExtensionHarness()
        let provided = try await provide(["--title", "Hi"], harness)
        #expect(provided.status == 64)
        #expect(provided.error.contains("give the message's body"))
        #expect(provided.output.isEmpty)
    }

    @Test func endToEndWithAnotherKeyShowsThePlaceholder() async throws {
        let harness = try ExtensionHarness()
        let otherKey = harness.dataDirectory.appendingPathComponent("other.key")
        let provided = try await provide(["--key-file", otherKey.path, "secret"], harness)
        #expect(provided.status == 0, "\(provided.error)")
        _ = try await provide(["make the app's key"], harness)
        let request = try ExtensionHarness.request(payload: provided.output)
        let outcome = await harness.run(request, runner: runner, executable: Self.endToEnd)
        #expect(outcome.source == .extensionContent)
        #expect(outcome.request == request)
        #expect(outcome.log.contains("cannot decrypt the message"))
    }
}
