import Foundation
import Testing
import UserNotifications

/// The first request asks; the answer is stored; denied apps keep nothing.
@Suite struct AuthorizationTests {
    @Test func theFirstRequestAsksAndLaterOnesReturnTheStoredAnswer() async throws {
        let harness = try EngineHarness(answer: true)
        #expect(try await harness.engine.settings(of: EngineHarness.app).authorizationStatus == .notDetermined)
        #expect(try await harness.engine.requestAuthorization(of: EngineHarness.app, options: [.alert, .sound]))
        #expect(try await harness.engine.requestAuthorization(of: EngineHarness.app, options: [.alert, .badge]))
        #expect(harness.prompt.timesAsked == 1)
        let settings = try await harness.engine.settings(of: EngineHarness.app)
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled && settings.soundSetting == .enabled && settings.badgeSetting == .disabled)
        #expect(settings.alertStyle == .banner)
    }

    @Test func aDeniedAppKeepsNothingAndGetsNoError() async throws {
        let harness = try EngineHarness(answer: false)
        #expect(try await harness.engine.requestAuthorization(of: EngineHarness.app, options: [.alert]) == false)
        #expect(try await harness.engine.settings(of: EngineHarness.app).authorizationStatus == .denied)
        #expect(try await harness.add("ignored", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)) == nil)
        #expect(try await harness.add("now", trigger: nil) == nil)
        #expect(try await harness.pendingIDs().isEmpty)
    }

    @Test func nobodyToAskLeavesItUndeterminedWithAnErrorThatSaysWhatToDo() async throws {
        let harness = try EngineHarness(answer: nil)
        do {
            _ = try await harness.engine.requestAuthorization(of: EngineHarness.app, options: [.alert])
            Issue.record("expected notificationsNotAllowed")
        } catch {
            #expect(error.code == .notificationsNotAllowed)
            #expect("\(error)".contains("herald device settings --app \(EngineHarness.app) --allow"))
        }
        #expect(try await harness.engine.settings(of: EngineHarness.app).authorizationStatus == .notDetermined)
    }

    /// The question goes to whoever runs the engine: the app's own terminal and environment, or the daemon's.
    @Test func theUnansweredQuestionSaysWhoAsked() {
        let alone = TerminalAuthorizationPrompt(environment: [:], asker: .app).unanswered(bundleID: "com.example.app")
        #expect(alone.contains("run it in a terminal, set HERALD_AUTHORIZATION=grant"))
        let daemon = TerminalAuthorizationPrompt(environment: [:], asker: .daemon).unanswered(bundleID: "com.example.app")
        #expect(daemon.contains("went to the device daemon"))
        #expect(daemon.contains("the app's does not count"))
        for text in [alone, daemon] { #expect(text.contains("herald device settings --app com.example.app --allow")) }
    }

    @Test func provisionalAuthorizationDoesNotAsk() async throws {
        let harness = try EngineHarness(answer: false)
        #expect(try await harness.engine.requestAuthorization(of: EngineHarness.app, options: [.alert, .provisional]))
        #expect(harness.prompt.timesAsked == 0)
        #expect(try await harness.engine.settings(of: EngineHarness.app).authorizationStatus == .provisional)
    }

    @Test(arguments: [("grant", true), ("deny", false), ("maybe", nil)] as [(String, Bool?)])
    func theEnvironmentAnswersForNonInteractiveRuns(value: String, expected: Bool?) async {
        let prompt = TerminalAuthorizationPrompt(environment: ["HERALD_AUTHORIZATION": value])
        // Tests run without a terminal, so an unknown value leaves nobody to ask.
        #expect(await prompt.ask(bundleID: "com.example.app", options: [.alert]) == expected)
    }

    @Test func settingsChangedLikeTheSettingsAppApply() async throws {
        let harness = try EngineHarness(answer: true)
        try await harness.authorize()
        try await harness.engine.changeSettings(of: EngineHarness.app, to: .answered(false, options: []))
        #expect(try await harness.add("after", trigger: nil) == nil)
    }
}
