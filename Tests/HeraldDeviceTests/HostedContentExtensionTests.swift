import Foundation
import HeraldDevice
import HeraldTesting
import Testing
import UserNotifications
import UserNotificationsUI

/// A content extension hosted as the daemon hosts it: its first view within the start budget, then each input's
/// answers; an extension that cannot start, ends or draws nothing in time is a failure with the reason (the host
/// then shows the default view).
@Suite struct HostedContentExtensionTests {
    private func notification(_ body: String) throws -> NotificationRecord {
        let content = UNMutableNotificationContent()
        content.body = body
        content.categoryIdentifier = "new-episode"
        return try NotificationRecord(UNNotification(request: UNNotificationRequest(identifier: "e1", content: content, trigger: nil), date: Date()))
    }

    private func start(_ executable: URL, budget: Duration = .seconds(10)) async throws(HostedContentExtension.Failure) -> HostedContentExtension {
        try await HostedContentExtension.start(
            executable: executable, notification: try! notification("Episode 1: pilot"), environment: [:],
            directory: URL(fileURLWithPath: NSTemporaryDirectory()), startBudget: budget)
    }

    /// A shell script as the extension. A script just written can fail to start with ETXTBSY while a process another
    /// test spawns at that moment still holds it open for writing (until that child's exec): tried again then.
    private func startScript(_ body: String, budget: Duration = .seconds(10)) async throws -> HostedContentExtension.Failure? {
        let script = URL(fileURLWithPath: TemporaryPath.make("content-extension", suffix: ".sh"))
        try ("#!/bin/sh\n" + body + "\n").write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        for _ in 0..<20 {
            do {
                let hosted = try await start(script, budget: budget)
                await hosted.close()
                return nil
            } catch  where error.reason.contains("cannot be started") {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                return error
            }
        }
        Issue.record("the script never started")
        return nil
    }

    @Test func thePodcastExtensionDrawsThenAnswersEachAction() async throws {
        let hosted = try await start(ExampleContentExtensionTests.podcast)
        #expect(hosted.firstView?.text == ["Episode 1: pilot"])
        #expect(hosted.send(ContentExtensionWire.Input(response: .init(actionIdentifier: "later"))))
        var iterator = hosted.outputs.makeAsyncIterator()
        var completions: [UInt] = []
        var lastView: ViewSnapshot?
        while completions.isEmpty || lastView?.text.first?.hasPrefix("Saved") != true, let output = await iterator.next() {
            if let completion = output.completion { completions.append(completion) }
            if let view = output.view { lastView = view }
        }
        #expect(completions == [UNNotificationContentExtensionResponseOption.doNotDismiss.rawValue])
        #expect(lastView?.text.first == "Saved for later. We'll remind you tonight.")
        #expect(hosted.opening.last?.preferredContentSize?.height == 300)
        await hosted.close()
        #expect(hosted.termination != nil)
    }

    @Test func anExtensionThatCannotStartIsAFailure() async {
        await #expect(throws: HostedContentExtension.Failure.self) {
            try await start(URL(fileURLWithPath: "/nonexistent/ContentExtension"))
        }
    }

    @Test func anExtensionThatEndsBeforeDrawingIsAFailureWithItsLog() async throws {
        let failure = try #require(try await startScript("echo 'Fatal error: no storyboard' >&2\nexit 3"), "a crashing extension was hosted")
        #expect(failure.reason == "the content extension exited with status 3 before it drew a view", "\(failure.reason)")
        #expect(failure.log.contains("Fatal error: no storyboard"))
    }

    @Test(.timeLimit(.minutes(2))) func anExtensionThatDrawsNothingInTimeIsKilled() async throws {
        let pidFile = TemporaryPath.make("content-extension", suffix: ".pid")
        let failure = try #require(
            try await startScript("echo $$ > \(pidFile)\nexec sleep 3600", budget: .milliseconds(300)), "a hanging extension was hosted")
        #expect(failure.reason.contains("drew no view within"), "\(failure.reason)")
        // Killed, not left to sleep for an hour: the process goes (the time limit ends the test if it does not).
        let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        while kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(20)) }
    }
}
