import ArgumentParser
import Foundation
import UserNotifications

/// Many apps with full pending lists of calendar triggers on one engine: how long scheduling takes, how fast
/// the next fire date is found, and how late notifications fire when thousands fall due together.
struct Triggers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "N apps x 64 pending calendar triggers: schedule time, next-fire lookup, firing lateness p50/p99."
    )

    @Option(help: "Apps.")
    var apps = 1000

    @Option(name: .customLong("per-app"), help: "Pending calendar requests per app (iOS keeps 64).")
    var perApp = 64

    @Option(help: "The requests fire spread over this many seconds, starting a few seconds after scheduling.")
    var spread = 60

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-triggers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let store = try NotificationStore(path: scratch.appendingPathComponent("notifications.sqlite").path)
        let cards = CardClock()
        let engine = LocalEngine(
            store: store, calendar: .current, prompt: GrantAll(), presenter: cards,
            attachments: { AttachmentStore(directory: scratch.appendingPathComponent($0), bundleDirectory: scratch) }
        )
        let bundleIDs = (0..<apps).map { "com.example.app\($0)" }
        for bundleID in bundleIDs { _ = try await engine.requestAuthorization(of: bundleID, options: [.alert]) }

        // Fire times: whole seconds from `firstFire`, spread over `spread` seconds, one calendar trigger each.
        let scheduleStart = ContinuousClock.now
        let firstFire = (Date().timeIntervalSince1970 + Double(apps * perApp) / 1000 + 10).rounded(.up)
        for (appIndex, bundleID) in bundleIDs.enumerated() {
            for index in 0..<perApp {
                let offset = Double((appIndex * perApp + index) % max(spread, 1))
                let date = Date(timeIntervalSince1970: firstFire + offset)
                let components = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
                let content = UNMutableNotificationContent()
                content.title = "Reminder \(index)"
                let request = UNNotificationRequest(
                    identifier: "r\(index)", content: content, trigger: UNCalendarNotificationTrigger(dateMatching: components, repeats: false)
                )
                _ = try await engine.add(try RequestRecord(request), of: bundleID, now: Date())
                cards.expect(bundleID: bundleID, identifier: "r\(index)", at: date)
            }
        }
        let scheduled = ContinuousClock.now - scheduleStart
        let total = apps * perApp
        print(
            "scheduled \(total) calendar requests for \(apps) apps in \(Percentiles.milliseconds(scheduled)) ms (\(Int(Double(total) / (scheduled / .seconds(1))))/s)"
        )
        guard Date().timeIntervalSince1970 < firstFire else {
            throw BenchError("scheduling took past the first fire date; use fewer apps or a later start")
        }

        var lookups: [Duration] = []
        for _ in 0..<1000 {
            let start = ContinuousClock.now
            _ = try await engine.nextFireDate(app: nil)
            lookups.append(ContinuousClock.now - start)
        }
        print("next-fire lookup over \(total) pending: \(Percentiles(lookups).summary)")

        // The runtime every app process uses: sleep to the next fire date, fire what is due.
        let lateness = Locked<[Duration]>([])
        let firedLate = Locked<[Duration]>([])
        let runtime = CenterRuntime(bundleID: bundleIDs[0], engine: .success(engine), allApps: true)
        runtime.start { fired in
            // Late by: from the fire date to the moment the app is asked to present it.
            let fireDate = fired.notification.date.addingTimeInterval(-fired.lateness)
            lateness.withLock { $0.append(.seconds(Date().timeIntervalSince(fireDate))) }
            firedLate.withLock { $0.append(.seconds(fired.lateness)) }
            return [.banner, .list]
        }
        let deadline = ContinuousClock.now + .seconds(Double(spread) + (firstFire - Date().timeIntervalSince1970) + 30)
        while cards.count < total, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        let fired = lateness.value
        print("fired \(fired.count) of \(total) over \(spread) s, \(cards.shown.count) cards shown")
        print("  from fire date to firing:       \(Percentiles(firedLate.value).summary)")
        print("  from fire date to willPresent:  \(Percentiles(fired).summary)")
        print("  from fire date to the card:     \(Percentiles(cards.shown).summary)")
    }
}

/// Presents nothing; notes how long after its fire date each card came.
private final class CardClock: NotificationPresenter {
    private let fireDates = Locked<[String: Date]>([:])
    private let lateness = Locked<[Duration]>([])

    func expect(bundleID: String, identifier: String, at date: Date) {
        fireDates.withLock { $0["\(bundleID)/\(identifier)"] = date }
    }

    func present(_ card: NotificationCard) {
        let now = Date()
        guard let due = fireDates.withLock({ $0["\(card.topic)/\(card.identifier)"] }) else { return }
        lateness.withLock { $0.append(.seconds(now.timeIntervalSince(due))) }
    }

    var shown: [Duration] { lateness.value }
    var count: Int { lateness.withLock { $0.count } }
}

/// Every app is allowed: the benchmark measures scheduling, not the prompt.
private struct GrantAll: AuthorizationPrompt {
    func ask(bundleID: String, options: UNAuthorizationOptions) async -> Bool? { true }
}
