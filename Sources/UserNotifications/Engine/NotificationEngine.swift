package import CoreLocation
package import Foundation

/// What the `UNUserNotificationCenter` facade needs from an engine. ``LocalEngine`` runs in the app's own
/// process when no device daemon runs; ``DaemonClient`` makes the same calls over the daemon's socket.
package protocol NotificationEngine: Sendable {
    func settings(of bundleID: String) async throws(UNError) -> SettingsRecord
    func requestAuthorization(of bundleID: String, options: UNAuthorizationOptions) async throws(UNError) -> Bool
    /// Adds a request; one without a trigger that this engine fires here comes back for presentation.
    func add(_ request: RequestRecord, of bundleID: String, now: Date) async throws(UNError) -> LocalEngine.Fired?
    func pending(of bundleID: String) async throws(UNError) -> [RequestRecord]
    func removePending(of bundleID: String, identifiers: [String]?) async throws(UNError)
    func delivered(of bundleID: String) async throws(UNError) -> [NotificationRecord]
    func removeDelivered(of bundleID: String, identifiers: [String]?) async throws(UNError)
    func categories(of bundleID: String) async throws(UNError) -> [CategoryRecord]
    func setCategories(_ categories: [CategoryRecord], of bundleID: String) async throws(UNError)
    func setBadge(_ count: Int, of bundleID: String) async throws(UNError)
}

/// The scheduler's side of an engine that fires requests itself: when to wake, what is due, what a location
/// change fires, and delivering it — for one app (`app`: an app's own process) or every app (`app` nil: the
/// device daemon).
package protocol NotificationScheduler: NotificationEngine {
    func nextFireDate(app: String?) async throws(UNError) -> Date?
    func tick(now: Date, app: String?) async throws(UNError) -> [LocalEngine.Fired]
    func prepare(dueBy date: Date, app: String?) async throws(UNError) -> [LocalEngine.Prepared]
    func settle(_ prepared: [LocalEngine.Prepared], now: Date) async throws(UNError) -> [LocalEngine.Fired]
    func updateLocation(_ coordinate: CLLocationCoordinate2D, now: Date, app: String?) async throws(UNError) -> [LocalEngine.Fired]
    func complete(_ fired: LocalEngine.Fired, options: UNNotificationPresentationOptions) async throws(UNError)
    /// Completes several at once: their store changes in one transaction.
    func complete(_ batch: [(LocalEngine.Fired, UNNotificationPresentationOptions)]) async throws(UNError)
    /// Moves the store's write-ahead log into its file (commits never do, so that firing stays on time).
    func checkpoint() async throws(UNError)
    /// Recomputes the fire dates of calendar requests (the system time zone changed).
    func reschedule(now: Date, calendar: Calendar, app: String?) async throws(UNError)
}

extension LocalEngine: NotificationScheduler {}
