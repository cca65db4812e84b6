import Foundation
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// Apps waiting for their device tokens: each call waits on its own, and one app's refusal or timeout ends no
/// other call.
@Suite(.timeLimit(.minutes(1))) struct RegistrationWaitersTests {
    let waiters = RegistrationWaiters()

    private func waitUntil(_ count: Int) async throws {
        while waiters.count != count { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func aRefusalEndsOnlyTheCallsOfTheAppItNames() async throws {
        async let refused = waiters.wait(for: "not a topic", timeout: .seconds(30)) {}
        async let registered = waiters.wait(for: "com.example.app", timeout: .seconds(30)) {}
        try await waitUntil(2)
        waiters.refuse(topic: "not a topic", with: UNError(.notificationsNotAllowed, "the gateway refused: BadTopic"))
        guard case .failure(let error) = await refused else {
            Issue.record("a refused call succeeded")
            return
        }
        #expect(error.localizedDescription.contains("BadTopic"))
        #expect(waiters.count == 1)  // the other app still waits
        waiters.finish("com.example.app", with: .success("ab12"))
        #expect(try await registered.get() == "ab12")
    }

    @Test func aRefusalNamingNoAppEndsEveryCall() async throws {
        async let first = waiters.wait(for: "com.example.a", timeout: .seconds(30)) {}
        async let second = waiters.wait(for: "com.example.b", timeout: .seconds(30)) {}
        try await waitUntil(2)
        waiters.refuse(topic: nil, with: UNError(.notificationsNotAllowed, "the gateway refused"))
        let results = await [first, second]
        #expect(results.allSatisfy { if case .failure = $0 { true } else { false } })
    }

    /// A call's timeout ends that call, not one the same app started later.
    @Test func aTimeoutEndsOnlyItsOwnCall() async throws {
        async let early = waiters.wait(for: "com.example.app", timeout: .milliseconds(300)) {}
        try await waitUntil(1)
        async let late = waiters.wait(for: "com.example.app", timeout: .seconds(30)) {}
        try await waitUntil(2)
        guard case .failure(let error) = await early else {
            Issue.record("the early call did not time out")
            return
        }
        #expect(error.localizedDescription.contains("did not register com.example.app within"))
        #expect(waiters.count == 1)
        waiters.finish("com.example.app", with: .success("cd34"))
        #expect(try await late.get() == "cd34")
    }

    /// A request that cannot be sent says so at once, not as a timeout 15 s later.
    @Test func aFailedSendEndsTheCallWithItsReason() async throws {
        struct Closed: Error, CustomStringConvertible { var description: String { "the link closed" } }
        let started = ContinuousClock.now
        let result = await waiters.wait(for: "com.example.app", timeout: .seconds(30)) { throw Closed() }
        guard case .failure(let error) = result else {
            Issue.record("a failed send succeeded")
            return
        }
        #expect(error.localizedDescription.contains("could not ask the gateway to register com.example.app: the link closed"))
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(waiters.count == 0)
    }

    /// The answer ends every call of the app, and their timers: none is left sleeping out its timeout.
    @Test func theTokenEndsEveryCallOfTheApp() async throws {
        async let first = waiters.wait(for: "com.example.app", timeout: .seconds(30)) {}
        async let second = waiters.wait(for: "com.example.app", timeout: .seconds(30)) {}
        try await waitUntil(2)
        waiters.finish("com.example.app", with: .success("ef56"))
        #expect(try await first.get() == "ef56")
        #expect(try await second.get() == "ef56")
        #expect(waiters.count == 0)
    }
}
