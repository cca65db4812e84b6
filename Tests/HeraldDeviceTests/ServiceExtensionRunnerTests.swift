import Foundation
import HeraldDevice
import HeraldTesting
import Testing
import UserNotifications

#if canImport(Glibc)
import Glibc
#endif

/// The device daemon's side of service extensions, over the real test extension process
/// (Tests/Fixtures/TestServiceExtension), one mode per behaviour.
@Suite struct ServiceExtensionRunnerTests {
    private func expectOriginal(
        _ outcome: ServiceExtensionOutcome, _ request: RequestRecord, reasonContaining text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.request == request, sourceLocation: sourceLocation)
        guard case .original(let reason) = outcome.source else {
            Issue.record("expected the original content, got \(outcome.source)", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains(text), "\(reason)", sourceLocation: sourceLocation)
    }

    /// No process it printed the id of still runs, and its private directory is gone.
    private func expectCleanedUp(
        _ outcome: ServiceExtensionOutcome, _ harness: ExtensionHarness, processes: Int = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let pids = ExtensionHarness.processIDs(in: outcome.log)
        #expect(pids.count == processes, "\(outcome.log)", sourceLocation: sourceLocation)
        #expect(await ExtensionHarness.allEnded(pids), sourceLocation: sourceLocation)
        #expect(harness.leftoverWorkspaces.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func modifiedContentReplacesTheRequestsContentAndKeepsItsIdentifier() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "modify")
        let outcome = await harness.run(request)
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.request.content.title == "Modified: Episode 12")
        #expect(outcome.request.content.body == "Out now")
        #expect(outcome.request.identifier == "push-1")
        #expect(outcome.request.trigger == request.trigger)
        #expect(outcome.request.content.userInfo["mode"] == .string("modify"))
        await expectCleanedUp(outcome, harness)
    }

    @Test func theBestAttemptIsTakenAfterTimeWillExpire() async throws {
        let harness = try ExtensionHarness()
        let outcome = await harness.run(try ExtensionHarness.request(mode: "expire"), runner: ExtensionHarness.expiringWithGrace)
        #expect(outcome.source == .bestAttemptAfterExpiry, "\(outcome.log)")
        #expect(outcome.request.content.title == "Best attempt")
        await expectCleanedUp(outcome, harness)
    }

    @Test func aHangingExtensionThatIgnoresSIGTERMIsKilledAndTheOriginalShown() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "hang")
        let outcome = await harness.run(request, runner: ExtensionHarness.expiring)
        expectOriginal(outcome, request, reasonContaining: "did not call its content handler within 1.0 seconds")
        await expectCleanedUp(outcome, harness)
    }

    @Test func whatAHangingExtensionStartedInItsGroupIsKilledToo() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "spawnHang")
        let outcome = await harness.run(request, runner: ExtensionHarness.expiring)
        expectOriginal(outcome, request, reasonContaining: "was killed")
        await expectCleanedUp(outcome, harness, processes: 2)
    }

    @Test func aCrashShowsTheOriginal() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "crash")
        let outcome = await harness.run(request)
        expectOriginal(outcome, request, reasonContaining: "crashed (signal \(SIGABRT), SIGABRT)")
        await expectCleanedUp(outcome, harness)
    }

    @Test func exitingWithoutCallingTheHandlerShowsTheOriginal() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "quit")
        let outcome = await harness.run(request)
        expectOriginal(outcome, request, reasonContaining: "exited with status 4 before calling its content handler")
        await expectCleanedUp(outcome, harness)
    }

    @Test func garbageIsLoggedAndAGarbledResultShowsTheOriginal() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "garbage")
        let outcome = await harness.run(request)
        expectOriginal(outcome, request, reasonContaining: "is not a notification content")
        #expect(outcome.log.contains("not json {{{"))
        await expectCleanedUp(outcome, harness)
    }

    @Test func hugeContentShowsTheOriginal() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "huge")
        let outcome = await harness.run(request)
        expectOriginal(outcome, request, reasonContaining: "at most \(4 << 20) are allowed")
        await expectCleanedUp(outcome, harness)
    }

    @Test func printingBeyondTheOutputLimitKillsTheExtension() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "print")
        let outcome = await harness.run(request, runner: ServiceExtensionRunner(outputLimit: 12))
        expectOriginal(outcome, request, reasonContaining: "printed more than 12 bytes")
        await expectCleanedUp(outcome, harness)
    }

    @Test func contentWithoutAlertTextIsIgnored() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "removeAlert")
        let outcome = await harness.run(request)
        expectOriginal(outcome, request, reasonContaining: "changes that remove the alert text are ignored")
        await expectCleanedUp(outcome, harness)
    }

    @Test func anAttachmentIsValidatedAndMovedIntoTheStore() async throws {
        let harness = try ExtensionHarness()
        let outcome = await harness.run(try ExtensionHarness.request(mode: "attachment"))
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.droppedAttachments.isEmpty)
        let attachment = try #require(outcome.request.content.attachments.first)
        #expect(attachment.identifier == "photo" && attachment.type == "public.png")
        #expect(attachment.url.deletingLastPathComponent().standardizedFileURL.path == harness.store.directory.standardizedFileURL.path)
        #expect(FileManager.default.fileExists(atPath: attachment.url.path))
        #expect(harness.storedFiles.count == 1)
        await expectCleanedUp(outcome, harness)  // the extension's TMPDIR, where the file was, is gone
    }

    @Test func aBadAttachmentIsDroppedAloneWithTheReason() async throws {
        let harness = try ExtensionHarness()
        let outcome = await harness.run(try ExtensionHarness.request(mode: "badAttachment"))
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.request.content.attachments.map(\.identifier) == ["good"])
        #expect(outcome.droppedAttachments.count == 1)
        #expect(outcome.droppedAttachments.first?.hasPrefix("bad: ") == true, "\(outcome.droppedAttachments)")
        #expect(harness.storedFiles.count == 1)
        await expectCleanedUp(outcome, harness)
    }

    /// The seeds' extensions write downloads into caches (`NSSearchPathForDirectoriesInDomains(.cachesDirectory…)`),
    /// documents or application support, as on iOS inside the extension's container: here too, and they are taken.
    @Test func filesInTheExtensionsContainerAndAppGroupsAreTaken() async throws {
        let harness = try ExtensionHarness()
        let outcome = await harness.run(try ExtensionHarness.request(mode: "containerAttachments"))
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.droppedAttachments.isEmpty, "\(outcome.droppedAttachments)")
        #expect(outcome.request.content.attachments.map(\.identifier) == ["image-0", "image-1", "image-2", "image-3"])
        #expect(harness.storedFiles.count == 4)
        let folders = outcome.request.content.body.split(separator: "\n").map(String.init)
        let workspace = harness.store.directory.deletingLastPathComponent().path + "/.service-extension-"
        #expect(folders.prefix(3).allSatisfy { $0.hasPrefix(workspace) }, "\(folders)")
        #expect(folders[0].hasSuffix("/container/Library/Caches"), "\(folders)")
        #expect(folders[1].hasSuffix("/container/Documents"), "\(folders)")
        #expect(folders[2].hasSuffix("/container/Library/Application Support"), "\(folders)")
        #expect(folders[3] == harness.dataDirectory.appendingPathComponent("app-groups/group.com.example.podcast").path, "\(folders)")
        await expectCleanedUp(outcome, harness)  // the container went with the run
    }

    @Test func aFileOutsideTheExtensionsContainerIsNotTaken() async throws {
        let harness = try ExtensionHarness()
        let outside = try harness.directory.file("outside.png", AttachmentFixtures.png + [0, 0, 0, 0])
        let outcome = await harness.run(try ExtensionHarness.request(mode: "outsideAttachment", userInfo: ["path": outside.path]))
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.request.content.attachments.isEmpty)
        #expect(
            outcome.droppedAttachments.first?.contains("is outside the extension's container, its app groups and its app's bundle") == true,
            "\(outcome.droppedAttachments)")
        #expect(FileManager.default.fileExists(atPath: outside.path))
        #expect(harness.storedFiles.isEmpty)
    }

    @Test func theHandlerMayBeCalledLaterFromAnotherThread() async throws {
        let harness = try ExtensionHarness()
        let outcome = await harness.run(try ExtensionHarness.request(mode: "late"))
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.request.content.title == "Late: Episode 12")
        await expectCleanedUp(outcome, harness)
    }

    @Test func whatItPrintsIsItsLogAndTheFirstHandlerCallWins() async throws {
        let harness = try ExtensionHarness()
        let outcome = await harness.run(try ExtensionHarness.request(mode: "print"))
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        #expect(outcome.request.content.body == "printed")
        #expect(outcome.request.content.title == "Episode 12")
        for line in ["log line 1\nlog line 2\n", "error line\n"] {
            #expect(outcome.log.contains(line), "\(outcome.log)")
        }
        await expectCleanedUp(outcome, harness)
    }

    @Test func itRunsWithTheGivenEnvironmentAndAPrivateTemporaryDirectory() async throws {
        let harness = try ExtensionHarness()
        let outcome = await harness.run(try ExtensionHarness.request(mode: "environment"), environment: ["FIXTURE_TOKEN": "t-42"])
        #expect(outcome.source == .extensionContent, "\(outcome.log)")
        let body = outcome.request.content.body
        #expect(body.contains(" TOKEN=t-42 "))
        #expect(body.hasPrefix("TMPDIR=\(harness.store.directory.deletingLastPathComponent().path)/.service-extension-"), "\(body)")
        #expect(body.contains("/container/tmp "), "\(body)")
        #expect(body.hasSuffix("/container"), "\(body)")  // HOME
    }

    @Test func aMissingExecutableShowsTheOriginal() async throws {
        let harness = try ExtensionHarness()
        let request = try ExtensionHarness.request(mode: "modify")
        let outcome = await harness.run(request, executable: harness.dataDirectory.appendingPathComponent("NoSuchExtension"))
        expectOriginal(outcome, request, reasonContaining: "cannot start the service extension")
        #expect(harness.leftoverWorkspaces.isEmpty)
    }

    @Test func runsAtOnceDoNotDisturbEachOther() async throws {
        let harness = try ExtensionHarness()
        let requests = try ["modify", "late", "attachment"].map { try ExtensionHarness.request(mode: $0) }
        async let modified = harness.run(requests[0])
        async let late = harness.run(requests[1])
        async let attached = harness.run(requests[2])
        let outcomes = await [modified, late, attached]
        #expect(outcomes.map(\.source) == [.extensionContent, .extensionContent, .extensionContent], "\(outcomes.map(\.log))")
        #expect(outcomes.map(\.request.content.title) == ["Modified: Episode 12", "Late: Episode 12", "Episode 12"])
        #expect(outcomes[2].request.content.attachments.count == 1)
        for outcome in outcomes { await expectCleanedUp(outcome, harness) }
    }

    @Test func runByHandTheExtensionPrintsItsResult() async throws {
        let harness = try ExtensionHarness()
        let line = try ServiceExtensionWire.Input(request: try ExtensionHarness.request(mode: "modify")).line()
        let run = try await harness.runToEnd(ExtensionHarness.testExtension, input: line, environment: [:])
        #expect(run.status == 0, "\(run.error)")
        let result = try JSONDecoder().decode(ServiceExtensionWire.Result.self, from: run.output)
        #expect(result.content.title == "Modified: Episode 12")
    }

    @Test func anExtensionGivenSomethingElseThanARequestSaysSo() async throws {
        let harness = try ExtensionHarness()
        let run = try await harness.runToEnd(ExtensionHarness.testExtension, input: Data("hello\n".utf8), environment: [:])
        #expect(run.status == 2)
        #expect(run.error.contains("is not a message of the device daemon"))
        let empty = try await harness.runToEnd(ExtensionHarness.testExtension, environment: [:])
        #expect(empty.status == 2)
        #expect(empty.error.contains("got no request"))
    }
}
