import Foundation
import GRDB
import HeraldTesting
import Synchronization
import Testing

@testable import UserNotifications

/// The engine waits for SQLite on its store's own queue: a database another process holds blocks the engine, not
/// Swift's cooperative threads (of which there are as many as cores).
@Suite struct StoreExecutorTests {
    /// Decided by order, not by a clock: the work on the cooperative pool must finish while every engine still waits
    /// for the lock (which they would hold for their 60 s busy timeout if they sat on the pool's threads).
    @Test(.timeLimit(.minutes(3))) func enginesWaitingOnALockedDatabaseLeaveTheCooperativePoolFree() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("notifications.sqlite").path
        // One engine per core, each over its own handle of the file: more waiting engines than cooperative threads.
        let engines = try (0..<max(2, ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            LocalEngine(
                store: try NotificationStore(path: path, busyTimeout: 60), calendar: .current, prompt: ScriptedPrompt(answer: true),
                presenter: TerminalPresenter(style: .none),
                attachments: { AttachmentStore(directory: directory.url.appendingPathComponent($0), bundleDirectory: directory.url) }
            )
        }
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }  // another process holds it

        let finished = Counter()
        let waiting = engines.map { engine in
            Task {
                defer { finished.increment() }
                try await engine.setBadge(1, of: "com.example.app")
            }
        }
        try await Task.sleep(for: .milliseconds(200))  // lets every engine reach its write (a later one only weakens the test)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = (0..<1000).reduce(0, +) } }
        }
        #expect(finished.value == 0, "the engines were done (timed out) before the pool was free")

        try await other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        for task in waiting { try await task.value }
        #expect(try await engines[0].badge(of: "com.example.app") == 1)
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// A store failure reaches the app as what it is, not as "notifications not allowed".
@Suite struct NotificationStoreErrorTests {
    @Test func aStoreHeldByAnotherProcessIsABusyStoreError() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("notifications.sqlite").path
        let engine = LocalEngine(
            store: try NotificationStore(path: path, busyTimeout: 0.1), calendar: .current, prompt: ScriptedPrompt(answer: true),
            presenter: TerminalPresenter(style: .none),
            attachments: { AttachmentStore(directory: directory.url.appendingPathComponent($0), bundleDirectory: directory.url) }
        )
        let center = UNUserNotificationCenter(runtime: CenterRuntime(bundleID: "com.example.app", engine: .success(engine), location: nil))
        center.start()
        _ = try await center.requestAuthorization(options: [.alert])
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let content = UNMutableNotificationContent()
        content.title = "Held"
        let error = await #expect(throws: NotificationStoreError.self) {
            try await center.add(UNNotificationRequest(identifier: "held", content: content, trigger: nil))
        }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("held by another process") == true, "\(String(describing: error))")
        await #expect(throws: NotificationStoreError.self) { try await center.setBadgeCount(2) }
        try await other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        try await center.add(UNNotificationRequest(identifier: "free", content: content, trigger: nil))
    }

    /// Over the daemon's socket the store's code travels beside the message.
    @Test func theDaemonSaysAStoreFailureAsOne() throws {
        let line = try DaemonMessage.failure(id: 7, code: 1, message: "held", store: "busy").encodedLine()
        guard case .failure(7, 1, "held", "busy", nil) = try DaemonMessage.decode(line) else {
            Issue.record("\(line)")
            return
        }
        let older = Data(#"{"failure":{"id":7,"code":1,"message":"no"}}"#.utf8)
        guard case .failure(7, 1, "no", nil, nil) = try DaemonMessage.decode(older) else {
            Issue.record("an older daemon's failure")
            return
        }
    }
}
