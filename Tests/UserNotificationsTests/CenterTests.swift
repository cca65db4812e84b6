import CoreLocation
import Foundation
import HeraldTesting
import Synchronization
import Testing
import UserNotifications

/// The public center over a real engine and store: serial calls, the delegate, the live scheduler.
@Suite struct CenterTests {
    final class Handler: NSObject, UNUserNotificationCenterDelegate {
        let seen = Watched<[String]>([])
        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            seen.update { $0.append(notification.request.identifier) }
            completionHandler([.banner, .list])
        }
    }

    private func center(_ harness: EngineHarness) -> UNUserNotificationCenter {
        let center = UNUserNotificationCenter(runtime: CenterRuntime(bundleID: EngineHarness.app, engine: .success(harness.engine)))
        center.start()
        return center
    }

    private func content(_ title: String) -> UNMutableNotificationContent {
        let content = UNMutableNotificationContent()
        content.title = title
        return content
    }

    @Test func theDelegateDecidesAndTheSchedulerFiresOnTime() async throws {
        let harness = try EngineHarness()
        let center = center(harness)
        let handler = Handler()
        center.delegate = handler
        #expect(try await center.requestAuthorization(options: [.alert, .sound]))
        #expect(await center.notificationSettings().authorizationStatus == .authorized)

        try await center.add(UNNotificationRequest(identifier: "now", content: content("Now"), trigger: nil))
        try await center.add(
            UNNotificationRequest(
                identifier: "soon", content: content("Soon"), trigger: UNTimeIntervalNotificationTrigger(timeInterval: 0.3, repeats: false)
            ))
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["soon"])
        // The delegate decides first; the card goes up in the center's job that records the notification as delivered,
        // so a call made after the second card runs after that job.
        #expect(await harness.presenter.waitUntilShown(2))
        #expect(handler.seen.value == ["now", "soon"])
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["soon", "now"])
        #expect(await center.pendingNotificationRequests().isEmpty)
        #expect(harness.presenter.shown.map(\.title) == ["Now", "Soon"])
    }

    @Test func completionHandlerCallsRunInOrder() async throws {
        let harness = try EngineHarness()
        let center = center(harness)
        _ = try await center.requestAuthorization(options: [.alert])
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false)
        center.add(UNNotificationRequest(identifier: "one", content: content("1"), trigger: trigger), withCompletionHandler: nil)
        center.removePendingNotificationRequests(withIdentifiers: ["one"])
        center.add(UNNotificationRequest(identifier: "two", content: content("2"), trigger: trigger), withCompletionHandler: nil)
        let pending = await withCheckedContinuation { continuation in
            center.getPendingNotificationRequests { continuation.resume(returning: $0.map(\.identifier)) }
        }
        #expect(pending == ["two"])
    }

    @Test func withoutADelegateNothingIsPresentedWhileTheAppRuns() async throws {
        let harness = try EngineHarness()
        let center = center(harness)
        _ = try await center.requestAuthorization(options: [.alert])
        try await center.add(UNNotificationRequest(identifier: "quiet", content: content("Quiet"), trigger: nil))
        #expect(await center.deliveredNotifications().isEmpty)
        #expect(harness.presenter.shown.isEmpty)
    }

    /// A delegate that never calls its completion handler.
    final class SilentHandler: NSObject, UNUserNotificationCenterDelegate {
        let asked = Mutex(0)
        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
        ) {
            asked.withLock { $0 += 1 }
        }
    }

    @Test(.timeLimit(.minutes(1))) func aDelegateThatNeverAnswersWillPresentDoesNotHoldUpTheApp() async throws {
        let harness = try EngineHarness()
        let center = UNUserNotificationCenter(
            runtime: CenterRuntime(
                bundleID: EngineHarness.app, engine: .success(harness.engine), willPresentTimeout: .milliseconds(300)
            ))
        center.start()
        let handler = SilentHandler()
        center.delegate = handler
        _ = try await center.requestAuthorization(options: [.alert, .sound])

        let started = ContinuousClock.now
        try await center.add(UNNotificationRequest(identifier: "unanswered", content: content("Unanswered"), trigger: nil))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(handler.asked.withLock { $0 } == 1)
        // Presented as for an app that does not run: a banner and in the list.
        #expect(harness.presenter.shown.map(\.title) == ["Unanswered"])
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["unanswered"])
        try await center.add(
            UNNotificationRequest(
                identifier: "later", content: content("Later"), trigger: UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false)
            ))
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["later"])
    }

    @Test func userInfoThatIsNotAPropertyListIsRefused() async throws {
        let harness = try EngineHarness()
        let center = center(harness)
        let odd = content("Odd")
        odd.userInfo = ["when": NSObject()]
        #expect(
            await unError {
                try await center.add(UNNotificationRequest(identifier: "odd", content: odd, trigger: nil))
            } == .contentProvidingInvalid)
    }

    @Test func locationTriggersFollowTheSimulatedLocation() async throws {
        let harness = try EngineHarness()
        let location = SimulatedLocation(dataDirectory: harness.directory.url)
        let locationsChecked = Watched(0)
        let center = UNUserNotificationCenter(
            runtime: CenterRuntime(
                bundleID: EngineHarness.app, engine: .success(harness.engine), location: location,
                locationChecked: { locationsChecked.update { $0 += 1 } }))
        center.start()
        let handler = Handler()
        center.delegate = handler
        _ = try await center.requestAuthorization(options: [.alert])
        let office = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 52.52, longitude: 13.405), radius: 100, identifier: "office")
        office.notifyOnExit = false
        try await center.add(
            UNNotificationRequest(
                identifier: "arrived", content: content("Welcome"), trigger: UNLocationNotificationTrigger(region: office, repeats: false)))
        try location.set(CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35))
        #expect(await locationsChecked.wait { $0 == 1 })  // Paris was fed to the engine: nothing fired
        #expect(handler.seen.value.isEmpty)
        try location.set(CLLocationCoordinate2D(latitude: 52.5201, longitude: 13.4051))
        #expect(await locationsChecked.wait { $0 == 2 })
        #expect(handler.seen.value == ["arrived"])
    }
}
