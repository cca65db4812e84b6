/// The trigger of a notification that came from the push service (APNs or a Herald gateway).
/// Apps never create one; they find it on delivered remote notifications.
open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    package init() {
        super.init(repeats: false)
    }
}
