public import Foundation
import Synchronization

/// The app's notification center: authorization, scheduling, and the app's pending and delivered notifications.
///
/// ```swift
/// let center = UNUserNotificationCenter.current()
/// let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
/// let content = UNMutableNotificationContent()
/// content.title = "Time Interval"
/// let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 30, repeats: false)
/// try await center.add(UNNotificationRequest(identifier: "reminder", content: content, trigger: trigger))
/// ```
///
/// The app is `HERALD_BUNDLE_ID` (else the executable's name); its state lives in `HERALD_DATA_DIR` (else
/// `$XDG_DATA_HOME/herald`) and survives restarts. Calls are processed one at a time, in order, from any thread.
public final class UNUserNotificationCenter: NSObject, Sendable {
    package let runtime: CenterRuntime
    private let delegateBox = DelegateBox()
    let remoteNotificationHandler = Mutex<RemoteNotificationHandler?>(nil)

    package init(runtime: CenterRuntime) {
        self.runtime = runtime
        super.init()
    }

    private static let shared = UNUserNotificationCenter(runtime: .standard())

    /// The center of the running app.
    public class func current() -> UNUserNotificationCenter {
        shared.start()
        return shared
    }

    /// Starts the serial queue and the scheduler (missed one-shot triggers fire now).
    package func start() {
        runtime.start(
            handlers: AppEventHandlers(
                willPresent: { [weak self] notification in await self?.presentationOptions(for: notification) ?? [] },
                event: { [weak self] event in await self?.handle(event) }
            ))
    }

    /// Asked about notifications that arrive while the app runs (`willPresent`) and told of responses.
    /// Held weakly, as on iOS: keep your delegate alive.
    public var delegate: (any UNUserNotificationCenterDelegate)? {
        get { delegateBox.delegate }
        set {
            delegateBox.delegate = newValue
            attachToDaemon()
        }
    }

    /// Content extensions are supported.
    public var supportsContentExtensions: Bool { true }

    // MARK: Authorization

    /// Asks the person, once, whether the app may notify; later calls return the stored answer.
    ///
    /// - Throws: `UNError.notificationsNotAllowed` when nobody could answer (no terminal, no `HERALD_AUTHORIZATION`);
    ///   ``NotificationStoreError`` when the store cannot be read or written.
    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        let bundleID = runtime.bundleID
        do {
            return try await runtime.perform { engine throws(UNError) in try await engine.requestAuthorization(of: bundleID, options: options) }
        } catch {
            throw error.forApp
        }
    }

    /// Completion-handler form of ``requestAuthorization(options:)``.
    public func requestAuthorization(options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let bundleID = runtime.bundleID
        runtime.submit({ engine throws(UNError) in try await engine.requestAuthorization(of: bundleID, options: options) }) { result in
            switch result {
            case .success(let granted): completionHandler(granted, nil)
            case .failure(let error): completionHandler(false, error.forApp)
            }
        }
    }

    /// The app's current settings.
    public func notificationSettings() async -> UNNotificationSettings {
        let bundleID = runtime.bundleID
        let record = (try? await runtime.perform { engine throws(UNError) in try await engine.settings(of: bundleID) }) ?? SettingsRecord()
        return UNNotificationSettings(record)
    }

    /// Completion-handler form of ``notificationSettings()``.
    public func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        let bundleID = runtime.bundleID
        runtime.submit({ engine throws(UNError) in try await engine.settings(of: bundleID) }) { result in
            completionHandler(UNNotificationSettings((try? result.get()) ?? SettingsRecord()))
        }
    }

    // MARK: Badge

    /// Sets the app's badge (0 clears it).
    ///
    /// - Throws: `UNError.badgeInputInvalid` for a negative count; ``NotificationStoreError`` when the store fails.
    public func setBadgeCount(_ newBadgeCount: Int) async throws {
        let bundleID = runtime.bundleID
        do {
            try await runtime.perform { engine throws(UNError) in try await engine.setBadge(newBadgeCount, of: bundleID) }
        } catch {
            throw error.forApp
        }
    }

    /// Completion-handler form of ``setBadgeCount(_:)``.
    public func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let bundleID = runtime.bundleID
        runtime.submit({ engine throws(UNError) in try await engine.setBadge(newBadgeCount, of: bundleID) }) { result in
            completionHandler?(result.error?.forApp)
        }
    }

    // MARK: Requests

    /// Schedules a request, replacing a pending one with the same identifier (or, when it fires, a delivered
    /// one). A nil trigger delivers it now. While the app is denied, nothing is kept and no error is raised.
    ///
    /// - Throws: `UNError`: `notificationInvalidNoDate` (bad trigger), `notificationInvalidNoContent`,
    ///   `contentProvidingInvalid` (userInfo that is not a property list), or an attachment error;
    ///   ``NotificationStoreError`` when the store cannot be read or written.
    public func add(_ request: UNNotificationRequest) async throws {
        let record: RequestRecord
        do {
            record = try RequestRecord(request)
        } catch {
            throw UNError(.contentProvidingInvalid, "request \(request.identifier): \(error.description)")
        }
        do {
            try await runtime.perform(addJob(record))
        } catch {
            throw error.forApp
        }
        runtime.wake()
    }

    /// Completion-handler form of ``add(_:)``.
    public func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let record: RequestRecord
        do {
            record = try RequestRecord(request)
        } catch {
            let refused = UNError(.contentProvidingInvalid, "request \(request.identifier): \(error.description)")
            runtime.submit({ _ throws(UNError) in throw refused }) { result in completionHandler?(result.error) }
            return
        }
        runtime.submit(addJob(record)) { [runtime] result in
            runtime.wake()
            completionHandler?(result.error?.forApp)
        }
    }

    /// The app's requests that have not fired yet.
    public func pendingNotificationRequests() async -> [UNNotificationRequest] {
        let bundleID = runtime.bundleID
        return ((try? await runtime.perform { engine throws(UNError) in try await engine.pending(of: bundleID) }) ?? []).map(\.request)
    }

    /// Completion-handler form of ``pendingNotificationRequests()``.
    public func getPendingNotificationRequests(completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void) {
        let bundleID = runtime.bundleID
        runtime.submit({ engine throws(UNError) in try await engine.pending(of: bundleID) }) { result in
            completionHandler(((try? result.get()) ?? []).map(\.request))
        }
    }

    /// Unschedules the app's pending requests with these identifiers.
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        let bundleID = runtime.bundleID
        runtime.enqueue { engine throws(UNError) in try await engine.removePending(of: bundleID, identifiers: identifiers) }
        runtime.wake()
    }

    /// Unschedules all of the app's pending requests.
    public func removeAllPendingNotificationRequests() {
        let bundleID = runtime.bundleID
        runtime.enqueue { engine throws(UNError) in try await engine.removePending(of: bundleID, identifiers: nil) }
        runtime.wake()
    }

    // MARK: Delivered

    /// The app's notifications in the notification list, newest first.
    public func deliveredNotifications() async -> [UNNotification] {
        let bundleID = runtime.bundleID
        return ((try? await runtime.perform { engine throws(UNError) in try await engine.delivered(of: bundleID) }) ?? []).map(\.notification)
    }

    /// Completion-handler form of ``deliveredNotifications()``.
    public func getDeliveredNotifications(completionHandler: @escaping @Sendable ([UNNotification]) -> Void) {
        let bundleID = runtime.bundleID
        runtime.submit({ engine throws(UNError) in try await engine.delivered(of: bundleID) }) { result in
            completionHandler(((try? result.get()) ?? []).map(\.notification))
        }
    }

    /// Removes these of the app's notifications from the list (and their attachments).
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        let bundleID = runtime.bundleID
        runtime.enqueue { engine throws(UNError) in try await engine.removeDelivered(of: bundleID, identifiers: identifiers) }
    }

    /// Removes all of the app's notifications from the list.
    public func removeAllDeliveredNotifications() {
        let bundleID = runtime.bundleID
        runtime.enqueue { engine throws(UNError) in try await engine.removeDelivered(of: bundleID, identifiers: nil) }
    }

    // MARK: Categories

    /// Replaces the app's categories (their actions appear on its notifications).
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        let bundleID = runtime.bundleID
        let records = categories.map(CategoryRecord.init)
        runtime.enqueue { engine throws(UNError) in try await engine.setCategories(records, of: bundleID) }
    }

    /// The app's categories.
    public func notificationCategories() async -> Set<UNNotificationCategory> {
        let bundleID = runtime.bundleID
        return Set(((try? await runtime.perform { engine throws(UNError) in try await engine.categories(of: bundleID) }) ?? []).map(\.category))
    }

    /// Completion-handler form of ``notificationCategories()``.
    public func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        let bundleID = runtime.bundleID
        runtime.submit({ engine throws(UNError) in try await engine.categories(of: bundleID) }) { result in
            completionHandler(Set(((try? result.get()) ?? []).map(\.category)))
        }
    }

    // MARK: Presentation

    /// Adds `record`; one delivered at once (nil trigger) is presented as the delegate says, in the same job.
    private func addJob(_ record: RequestRecord) -> @Sendable (any NotificationEngine) async throws(UNError) -> Void {
        let bundleID = runtime.bundleID
        return { [weak self] engine throws(UNError) in
            guard let fired = try await engine.add(record, of: bundleID, now: Date()),
                let scheduler = engine as? any NotificationScheduler
            else { return }
            let options = await self?.presentationOptions(for: fired.notification) ?? []
            try await scheduler.complete(fired, options: options)
        }
    }

    /// The app runs (this is its process), so its delegate decides; without one, nothing is presented. A delegate
    /// that does not answer within the runtime's `willPresentTimeout` gets what an app that does not run gets, as
    /// under the device daemon, and the app's later calls no longer wait behind it.
    private func presentationOptions(for notification: NotificationRecord) async -> UNNotificationPresentationOptions {
        guard delegateBox.delegate != nil else { return [] }
        let delegateBox = self.delegateBox
        let answered = await answer(within: runtime.willPresentTimeout) {
            await delegateBox.delegate?.userNotificationCenter(self, willPresent: notification.notification) ?? []
        }
        if let answered { return answered }
        FileHandle.standardError.write(
            Data(
                """
                UserNotifications: the delegate did not answer willPresent for \(notification.request.identifier) within \
                \(runtime.willPresentTimeout); presenting it as if the app did not run

                """.utf8))
        return .whenAppIsNotRunning
    }
}
